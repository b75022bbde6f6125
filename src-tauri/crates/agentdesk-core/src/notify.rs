//! OS notifications for approvals and questions: when one is shown (preferences), what it
//! says (content), which buttons it carries, and the bookkeeping that keeps it to one
//! notification per request (dedupe) and one summary per burst (folding).
//!
//! Pure logic — no D-Bus, no window, no clock of its own — so it is unit-tested here; the
//! shell's `notifications` module feeds [`Planner`] the queue's changes and the time, and
//! carries out the [`Step`]s it returns on the platform's notification service.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use agentdesk_protocol::ids::ApprovalId;
use agentdesk_protocol::ui::{Approval, ApprovalKindName, Engine, Run, RunStatus};
use serde::{Deserialize, Serialize};

use agentdesk_protocol::events::UserDecision;

use crate::{Desk, Result};

/// Settings key of [`NotificationSettings`].
pub const NOTIFICATION_SETTINGS_KEY: &str = "notifications";

/// When a kind of notification is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifyWhen {
    Always,
    /// Only while no Agent Desk window has the focus (the user is looking elsewhere).
    #[default]
    WhenUnfocused,
    Never,
}

impl NotifyWhen {
    pub fn allows(self, window_focused: bool) -> bool {
        match self {
            NotifyWhen::Always => true,
            NotifyWhen::WhenUnfocused => !window_focused,
            NotifyWhen::Never => false,
        }
    }
}

/// What the user chose in Settings → Notifications (stored; the defaults apply without it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NotificationSettings {
    /// Commands, file changes, permissions, tools.
    pub approvals: NotifyWhen,
    pub questions: NotifyWhen,
    /// A run finished or failed.
    pub runs: NotifyWhen,
    /// Runs shorter than this end without a notification (the user just watched them).
    pub run_min_secs: u64,
    pub sound: bool,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        NotificationSettings {
            approvals: NotifyWhen::WhenUnfocused,
            questions: NotifyWhen::WhenUnfocused,
            runs: NotifyWhen::WhenUnfocused,
            run_min_secs: 30,
            sound: true,
        }
    }
}

impl NotificationSettings {
    pub fn for_kind(&self, kind: ApprovalKindName) -> NotifyWhen {
        match kind {
            ApprovalKindName::Question => self.questions,
            _ => self.approvals,
        }
    }

    /// Whether a request of `kind` arriving now gets a notification.
    pub fn shows_request(&self, kind: ApprovalKindName, window_focused: bool) -> bool {
        self.for_kind(kind).allows(window_focused)
    }

    /// Whether the end of a run that lasted `took` gets a notification.
    pub fn shows_run_end(&self, took: Duration, window_focused: bool) -> bool {
        self.runs.allows(window_focused) && took.as_secs() >= self.run_min_secs
    }
}

impl Desk {
    pub async fn notification_settings(&self) -> Result<NotificationSettings> {
        Ok(self
            .store()
            .get_setting(NOTIFICATION_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    pub async fn set_notification_settings(&self, settings: &NotificationSettings) -> Result<()> {
        Ok(self
            .store()
            .set_setting(NOTIFICATION_SETTINGS_KEY, settings)
            .await?)
    }
}

/// Settings key of [`TraySettings`].
pub const TRAY_SETTINGS_KEY: &str = "tray";

/// The tray's stored answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TraySettings {
    /// Closing the window while a run is active keeps the app in the tray (`true`) or quits
    /// (`false`); `None` until the user was asked (once).
    pub keep_running_in_tray: Option<bool>,
}

/// What closing the window does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseAction {
    /// Close (and quit): nothing is running, or the user said so.
    Close,
    /// Hide the window; the app goes on in the tray.
    Hide,
    /// Keep the window and ask the user (the first time a run is active).
    Ask,
}

/// Closing the window with `active_run` (a run this process drives) and the stored answer.
/// Without a run nothing is lost by quitting, so nobody is asked.
pub fn close_action(active_run: bool, keep_running_in_tray: Option<bool>) -> CloseAction {
    match (active_run, keep_running_in_tray) {
        (false, _) | (true, Some(false)) => CloseAction::Close,
        (true, Some(true)) => CloseAction::Hide,
        (true, None) => CloseAction::Ask,
    }
}

impl Desk {
    pub async fn tray_settings(&self) -> Result<TraySettings> {
        Ok(self
            .store()
            .get_setting(TRAY_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    pub async fn set_tray_settings(&self, settings: &TraySettings) -> Result<()> {
        Ok(self
            .store()
            .set_setting(TRAY_SETTINGS_KEY, settings)
            .await?)
    }
}

/// The launcher entry a badge is addressed to: the installed `.desktop` file. The Tauri
/// bundler (deb, rpm, AppImage) names it after the product name (`productName` in
/// tauri.conf.json: "Agent Desk" → `Agent Desk.desktop`), so the badge must too, or docks
/// match it to no application.
pub fn desktop_entry_id(product_name: &str) -> String {
    product_name.to_string()
}

/// `application://<desktop file>` as the Unity launcher API wants it.
pub fn launcher_app_uri(product_name: &str) -> String {
    format!("application://{}.desktop", desktop_entry_id(product_name))
}

/// Longest tray menu entry (menus are one line each).
const TRAY_LABEL_CHARS: usize = 60;

/// A pending request as one tray menu line: what is asked, cut to fit. `&` is doubled
/// because menus read a single `&` as a keyboard-accelerator marker.
pub fn tray_label(a: &Approval) -> String {
    let r = &a.request;
    let what = match a.kind {
        ApprovalKindName::Command => {
            format!("Run: {}", r.command.as_deref().unwrap_or("a command"))
        }
        ApprovalKindName::FileChange => match r.files.as_slice() {
            [] => "Change files".to_string(),
            [f] => format!("Change: {}", f.path),
            [f, rest @ ..] => format!("Change: {} (+{})", f.path, rest.len()),
        },
        ApprovalKindName::Permission => match &r.reason {
            Some(reason) => format!("Permission: {reason}"),
            None => "Permission".to_string(),
        },
        ApprovalKindName::Tool => format!("Use {}", r.tool.as_deref().unwrap_or("a tool")),
        ApprovalKindName::Question => match r.questions.first() {
            Some(q) => format!("Question: {}", q.question),
            None => "Question".to_string(),
        },
    };
    // One line: newlines and other controls are shown, never obeyed.
    clean_line(&what, TRAY_LABEL_CHARS).replace('&', "&&")
}

/// Action ids on the notification (the freedesktop `actions` keys).
pub const ACTION_OPEN: &str = "default";
pub const ACTION_APPROVE: &str = "approve";
pub const ACTION_DENY: &str = "deny";
const OPTION_PREFIX: &str = "option:";

/// A question gets its options as buttons only when it fits on a notification.
pub const MAX_OPTION_BUTTONS: usize = 3;

/// What a press decides (kept apart from the queue's answer type, which carries more than a
/// notification can say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PressAnswer {
    Decide(UserDecision),
    /// A question's answers, by question id.
    Answer(BTreeMap<String, Vec<String>>),
}

/// What a notification button means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Press {
    /// The body (open the card).
    Open,
    Approve,
    Deny,
    /// The n-th option of the (single) question.
    Option(usize),
}

impl Press {
    pub fn parse(action: &str) -> Option<Press> {
        match action {
            ACTION_OPEN => Some(Press::Open),
            ACTION_APPROVE => Some(Press::Approve),
            ACTION_DENY => Some(Press::Deny),
            other => other
                .strip_prefix(OPTION_PREFIX)
                .and_then(|n| n.parse().ok())
                .map(Press::Option),
        }
    }

    /// What goes to the engine for this press on `approval`; `None` when the press does not
    /// decide (the body) or does not fit the request (approve on a question, a stale option).
    pub fn answer(&self, approval: &Approval) -> Option<PressAnswer> {
        let question = approval.kind == ApprovalKindName::Question;
        match self {
            Press::Open => None,
            Press::Approve if !question => Some(PressAnswer::Decide(UserDecision::ApproveOnce)),
            Press::Approve => None,
            Press::Deny => Some(PressAnswer::Decide(UserDecision::Deny)),
            Press::Option(i) => {
                let q = single_question(approval)?;
                let option = q.options.get(*i)?;
                let mut answers = BTreeMap::new();
                answers.insert(q.id.clone(), vec![option.label.clone()]);
                Some(PressAnswer::Answer(answers))
            }
        }
    }
}

fn single_question(a: &Approval) -> Option<&agentdesk_protocol::events::Question> {
    match a.request.questions.as_slice() {
        [q] if !q.secret && (1..=MAX_OPTION_BUTTONS).contains(&q.options.len()) => Some(q),
        _ => None,
    }
}

/// Where a request comes from, for its notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub engine: Engine,
    pub workspace: String,
    pub session: String,
}

/// One notification, platform-neutral. `actions` are `(id, label)`; the body click
/// ([`ACTION_OPEN`]) is added by the platform layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub title: String,
    pub body: String,
    pub actions: Vec<(String, String)>,
}

/// Longest line in a body, and longest body: notification bubbles show a few lines; the
/// card has the rest.
const LINE_CHARS: usize = 160;
const BODY_LINES: usize = 6;
const LISTED_FILES: usize = 3;

fn engine_name(e: Engine) -> &'static str {
    match e {
        Engine::Codex => "Codex",
        Engine::Claude => "Claude Code",
    }
}

/// Control characters and escape sequences an agent wrote are shown, never obeyed (as on
/// the CLI), and a line is cut to what fits.
pub fn clean_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c == '\t' {
            out.push(' ');
        } else if c.is_control() || is_bidi_control(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    cut(&out, max)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Servers that render markup (capability `body-markup`) would read `<`, `>` and `&` as
/// tags: escape them so a command shows as written.
pub fn escape_markup(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The notification for one pending request: who asks, where, and exactly what (the
/// command and its folder, or the files, or the question) — nothing the card would not show.
pub fn approval_content(a: &Approval, origin: &Origin) -> Content {
    let engine = engine_name(origin.engine);
    let r = &a.request;
    let title = match a.kind {
        ApprovalKindName::Command => format!("{engine} asks to run a command"),
        ApprovalKindName::FileChange => format!("{engine} asks to change files"),
        ApprovalKindName::Permission => format!("{engine} asks for permission"),
        ApprovalKindName::Tool => match &r.tool {
            Some(t) => format!("{engine} asks to use {}", clean_line(t, 60)),
            None => format!("{engine} asks to use a tool"),
        },
        ApprovalKindName::Question => format!("{engine} asks a question"),
    };
    let mut lines = vec![clean_line(
        &format!("{} · {}", origin.workspace, origin.session),
        LINE_CHARS,
    )];
    if let Some(c) = &r.command {
        lines.push(clean_line(&format!("$ {c}"), LINE_CHARS));
    }
    if let Some(cwd) = &r.cwd {
        lines.push(clean_line(&format!("in {cwd}"), LINE_CHARS));
    }
    for f in r.files.iter().take(LISTED_FILES) {
        lines.push(clean_line(&f.path, LINE_CHARS));
    }
    if r.files.len() > LISTED_FILES {
        lines.push(format!("and {} more files", r.files.len() - LISTED_FILES));
    }
    for q in &r.questions {
        lines.push(clean_line(&q.question, LINE_CHARS));
    }
    if r.command.is_none() && r.files.is_empty() && r.questions.is_empty() {
        if let Some(reason) = &r.reason {
            lines.push(clean_line(reason, LINE_CHARS));
        }
    }
    lines.truncate(BODY_LINES);
    let actions = match a.kind {
        ApprovalKindName::Question => single_question(a)
            .map(|q| {
                q.options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| (format!("{OPTION_PREFIX}{i}"), clean_line(&o.label, 40)))
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![
            (ACTION_APPROVE.to_string(), "Approve".to_string()),
            (ACTION_DENY.to_string(), "Deny".to_string()),
        ],
    };
    Content {
        title,
        body: lines.join("\n"),
        actions,
    }
}

/// The notification standing for several requests: a burst, or (`held_elsewhere`) what the
/// app found waiting at start, which only another process (an `agentdesk-cli run`) can still
/// hold: that process asks for the answer, so the body says where to give it.
pub fn summary_content(count: usize, held_elsewhere: bool) -> Content {
    let title = if count == 1 {
        "1 approval waiting".to_string()
    } else {
        format!("{count} approvals waiting")
    };
    Content {
        title,
        body: if held_elsewhere {
            "Asked in another Agent Desk process (an agentdesk-cli run): answer it there.".into()
        } else {
            "Agent Desk: open the Approvals view to decide.".into()
        },
        actions: Vec::new(),
    }
}

/// The notification for a run that ended, when it gets one: finished or failed (an
/// interrupted run was stopped by the user, who knows), lasting at least the preference's
/// minimum, while the preference allows it (`window_focused` as now).
pub fn run_end_content(
    run: &Run,
    origin: &Origin,
    settings: &NotificationSettings,
    window_focused: bool,
) -> Option<Content> {
    let took = match (run.started_at, run.ended_at) {
        (Some(start), Some(end)) => Duration::from_millis(u64::try_from(end - start).ok()?),
        _ => return None,
    };
    if !settings.shows_run_end(took, window_focused) {
        return None;
    }
    let engine = engine_name(origin.engine);
    let (title, detail) = match run.status {
        RunStatus::Completed => (format!("{engine} finished"), None),
        RunStatus::Failed => (format!("{engine} failed"), run.error.clone()),
        _ => return None,
    };
    let mut lines = vec![clean_line(
        &format!("{} · {}", origin.workspace, origin.session),
        LINE_CHARS,
    )];
    lines.push(format!("after {}", human_duration(took)));
    if let Some(d) = detail {
        lines.push(clean_line(&d, LINE_CHARS));
    }
    Some(Content {
        title,
        body: lines.join("\n"),
        actions: Vec::new(),
    })
}

fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    }
}

/// The planner's handle for a notification it asked for (the shell maps it to the
/// platform's id).
pub type Key = u64;

/// What the platform layer should do.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Show {
        key: Key,
        approval: Box<Approval>,
    },
    /// `held_elsewhere`: requests found at start, owned by another process.
    Summary {
        key: Key,
        count: usize,
        held_elsewhere: bool,
    },
    Close {
        key: Key,
    },
}

/// What a shown notification stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Approval(ApprovalId),
    /// A summary: the Approvals view.
    Summary,
}

#[derive(Debug)]
enum Shown {
    Single(ApprovalId),
    Summary(HashSet<ApprovalId>),
}

/// A burst: requests arriving less than `gap` apart are collected (for at most `max_wait`);
/// `fold_at` or more of them make one summary instead of one notification each.
#[derive(Debug, Clone, Copy)]
pub struct Folding {
    pub gap: Duration,
    pub max_wait: Duration,
    pub fold_at: usize,
}

impl Default for Folding {
    fn default() -> Self {
        Folding {
            gap: Duration::from_millis(300),
            max_wait: Duration::from_secs(1),
            fold_at: 3,
        }
    }
}

/// Decides which notifications exist. Every request is considered once: whether it was
/// shown, folded, or not shown (the window had the focus, the preference said never), its
/// id is remembered, so a reconnect or a re-read of the pending set never repeats it.
#[derive(Debug, Default)]
pub struct Planner {
    folding: Folding,
    seen: HashSet<ApprovalId>,
    buffer: Vec<Approval>,
    first_at: Option<Instant>,
    last_at: Option<Instant>,
    shown: HashMap<Key, Shown>,
    key_of: HashMap<ApprovalId, Key>,
    next_key: Key,
}

impl Planner {
    pub fn new(folding: Folding) -> Planner {
        Planner {
            folding,
            ..Default::default()
        }
    }

    fn key(&mut self) -> Key {
        self.next_key += 1;
        self.next_key
    }

    /// At start: requests already pending (left by another process that still owns them)
    /// get one summary, never one notification each.
    pub fn start(&mut self, pending: &[Approval]) -> Vec<Step> {
        let ids: HashSet<ApprovalId> = pending
            .iter()
            .map(|a| a.id.clone())
            .filter(|id| self.seen.insert(id.clone()))
            .collect();
        if ids.is_empty() {
            return Vec::new();
        }
        let key = self.key();
        let count = ids.len();
        for id in &ids {
            self.key_of.insert(id.clone(), key);
        }
        self.shown.insert(key, Shown::Summary(ids));
        vec![Step::Summary {
            key,
            count,
            held_elsewhere: true,
        }]
    }

    /// A request reached the pending set; `show` is the preference's verdict for it now.
    /// Nothing is shown at once: [`Planner::flush`] does, when the burst is over.
    pub fn added(&mut self, approval: Approval, show: bool, now: Instant) {
        if !self.seen.insert(approval.id.clone()) || !show {
            return;
        }
        self.first_at.get_or_insert(now);
        self.last_at = Some(now);
        self.buffer.push(approval);
    }

    /// When [`Planner::flush`] has something to do.
    pub fn due(&self) -> Option<Instant> {
        let first = self.first_at?;
        let last = self.last_at.unwrap_or(first);
        Some((last + self.folding.gap).min(first + self.folding.max_wait))
    }

    pub fn flush(&mut self, now: Instant) -> Vec<Step> {
        match self.due() {
            Some(due) if due <= now => {}
            _ => return Vec::new(),
        }
        self.first_at = None;
        self.last_at = None;
        let burst = std::mem::take(&mut self.buffer);
        if burst.len() >= self.folding.fold_at {
            let key = self.key();
            let ids: HashSet<ApprovalId> = burst.iter().map(|a| a.id.clone()).collect();
            for id in &ids {
                self.key_of.insert(id.clone(), key);
            }
            let count = ids.len();
            self.shown.insert(key, Shown::Summary(ids));
            return vec![Step::Summary {
                key,
                count,
                held_elsewhere: false,
            }];
        }
        burst
            .into_iter()
            .map(|a| {
                let key = self.key();
                self.key_of.insert(a.id.clone(), key);
                self.shown.insert(key, Shown::Single(a.id.clone()));
                Step::Show {
                    key,
                    approval: Box::new(a),
                }
            })
            .collect()
    }

    /// A request left the pending set (decided anywhere, expired, cancelled): its
    /// notification is withdrawn; a summary goes when the last of its requests is gone.
    pub fn resolved(&mut self, approval_id: &ApprovalId) -> Vec<Step> {
        self.buffer.retain(|a| a.id != *approval_id);
        if self.buffer.is_empty() {
            self.first_at = None;
            self.last_at = None;
        }
        let Some(key) = self.key_of.remove(approval_id) else {
            return Vec::new();
        };
        let close = match self.shown.get_mut(&key) {
            Some(Shown::Single(_)) => true,
            Some(Shown::Summary(ids)) => {
                ids.remove(approval_id);
                ids.is_empty()
            }
            None => false,
        };
        if close {
            self.shown.remove(&key);
            vec![Step::Close { key }]
        } else {
            Vec::new()
        }
    }

    /// The notification went away by itself (dismissed, timed out): its requests stay
    /// pending, and are not notified again.
    pub fn closed(&mut self, key: Key) {
        if let Some(shown) = self.shown.remove(&key) {
            match shown {
                Shown::Single(id) => {
                    self.key_of.remove(&id);
                }
                Shown::Summary(ids) => {
                    for id in ids {
                        self.key_of.remove(&id);
                    }
                }
            }
        }
    }

    pub fn target(&self, key: Key) -> Option<Target> {
        match self.shown.get(&key)? {
            Shown::Single(id) => Some(Target::Approval(id.clone())),
            Shown::Summary(_) => Some(Target::Summary),
        }
    }

    /// The requests that have a notification on screen (for a re-read after a lag).
    pub fn showing(&self) -> Vec<ApprovalId> {
        self.key_of.keys().cloned().collect()
    }

    /// Whether this request was ever considered (tests, and re-reads after a lag).
    pub fn has_seen(&self, approval_id: &ApprovalId) -> bool {
        self.seen.contains(approval_id)
    }
}

#[cfg(test)]
#[path = "notify_tests.rs"]
mod tests;
