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
use agentdesk_protocol::ui::{Approval, ApprovalKindName};
use serde::{Deserialize, Serialize};

use agentdesk_protocol::events::UserDecision;

use crate::{Desk, Result};

/// Settings key of [`NotificationPrefs`].
pub const NOTIFICATION_SETTINGS_KEY: &str = "notifications";

/// When a kind of notification is shown: the protocol's, which the window edits too.
pub use agentdesk_protocol::ui::NotifyWhen;

/// What the user chose in Settings → Notifications (stored; the defaults apply without it).
pub use agentdesk_protocol::ui::NotificationPrefs;

impl Desk {
    pub async fn notification_prefs(&self) -> Result<NotificationPrefs> {
        Ok(self
            .store()
            .get_setting(NOTIFICATION_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    pub async fn set_notification_prefs(&self, prefs: &NotificationPrefs) -> Result<()> {
        Ok(self
            .store()
            .set_setting(NOTIFICATION_SETTINGS_KEY, prefs)
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

/// What a button means, before [`Content::sealed`] binds it to one notification. The body
/// click ([`ACTION_OPEN`]) is the server's own key and stays as it is: it decides nothing.
pub const ACTION_OPEN: &str = "default";
pub const ACTION_APPROVE: &str = "approve";
pub const ACTION_DENY: &str = "deny";
const OPTION_PREFIX: &str = "option:";
/// Between a button's meaning and its notification's nonce in a sealed key
/// (`approve.<nonce>`): neither a meaning nor a nonce contains it.
const NONCE_SEPARATOR: char = '.';

/// A question gets its options as buttons only when it fits on a notification.
pub const MAX_OPTION_BUTTONS: usize = 3;

/// A fresh per-notification nonce for [`Content::sealed`]: a v4 uuid's 122 random bits from
/// the OS generator, as hex. It makes a button's key unguessable, so a press names the very
/// notification it was issued for; it is no secret from a session-bus peer that eavesdrops
/// (the freedesktop backend's sender check is what keeps other connections out).
pub fn new_nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

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
    /// A press reported for a notification shown sealed with `nonce`: the body click, or one
    /// of its own buttons. A key without that exact nonce (a constant `approve`, another
    /// notification's key, a guess) is `None`: it decides nothing.
    pub fn parse(action: &str, nonce: &str) -> Option<Press> {
        if action == ACTION_OPEN {
            return Some(Press::Open);
        }
        let (meaning, sealed_with) = action.rsplit_once(NONCE_SEPARATOR)?;
        if nonce.is_empty() || sealed_with != nonce {
            return None;
        }
        match meaning {
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

#[path = "notify_content.rs"]
mod content;
pub use content::{
    approval_content, clean_line, escape_markup, run_end_content, summary_content, Content, Origin,
};

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
