//! The scenario scaffolding of the suites that drive `agentdesk-core`'s `Desk` (core_runs,
//! approval_policy, storage_faults with the real engines; run_limits, live_fanout with the
//! scripted fakes): a fresh folder per scenario, a desk with one workspace, one profile and
//! one session, and — for the real engines — the fake model server the profile points at,
//! with the replies and the waits every scenario uses. Each suite keeps only its scenarios.

// Test support: a broken set-up or a missing event is a failed test, reported by the panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::{Desk, EngineSettings, NewSession};
use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::ids::{ApprovalId, RunId};
use agentdesk_protocol::ui::{
    Approval, DecidedBy, Engine, ItemBody, ProfileSpec, Run, RunStatus, Session, Workspace,
};
use serde_json::json;

use crate::process::exited;
use crate::{fake_chat, fake_messages, fake_responses};

/// The longest wait for one step of a scenario (a pending approval, a run's end, shutdown).
pub const STEP: Duration = Duration::from_secs(40);

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `<target_tmp>/<suite>/<name>-<pid>`, emptied. `target_tmp` is the suite's
/// `env!("CARGO_TARGET_TMPDIR")` (only integration tests are given one). Not under /tmp:
/// Codex's sandbox hides it.
pub fn fresh_root(target_tmp: &str, suite: &str, name: &str) -> PathBuf {
    let root = Path::new(target_tmp).join(format!("{suite}/{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// A profile named `name` for `engine` with nothing else set: asks for every approval, no
/// endpoint, no environment, no engine options.
pub fn profile_spec(name: &str, engine: Engine) -> ProfileSpec {
    ProfileSpec::new(name, engine)
}

/// A desk over `data` (created) with the engine `settings` and the workspace `work`
/// (created).
pub async fn desk_with_workspace(
    data: &Path,
    work: &Path,
    settings: &EngineSettings,
) -> (Desk, Workspace) {
    std::fs::create_dir_all(work).unwrap();
    let desk = Desk::open(data).await.unwrap();
    desk.set_engine_settings(settings).await.unwrap();
    let ws = desk.add_workspace(&s(work), None).await.unwrap();
    (desk, ws)
}

/// A desk over `data` (created) with the engine `settings`, the workspace `work` (created),
/// a profile `spec` on it and a session on that profile.
pub async fn desk_with_session(
    data: &Path,
    work: &Path,
    settings: &EngineSettings,
    spec: &ProfileSpec,
) -> (Desk, Workspace, Session) {
    std::fs::create_dir_all(work).unwrap();
    desk_with_session_at(data, &s(work), settings, spec).await
}

/// [`desk_with_session`] with the workspace at `location` (a folder, or `ssh://…`).
pub async fn desk_with_session_at(
    data: &Path,
    location: &str,
    settings: &EngineSettings,
    spec: &ProfileSpec,
) -> (Desk, Workspace, Session) {
    let desk = Desk::open(data).await.unwrap();
    desk.set_engine_settings(settings).await.unwrap();
    let ws = desk.add_workspace(location, None).await.unwrap();
    let profile = desk.create_profile(&ws.id, spec).await.unwrap();
    let on_profile = NewSession {
        profile_id: Some(profile.id),
        ..NewSession::new(ws.id.clone())
    };
    let session = desk.create_session(&on_profile).await.unwrap();
    (desk, ws, session)
}

/// An executable `dir/<name>` that answers `--version` with `version` (the core checks the
/// engine's version before a run) and otherwise runs `exe` (a scripted fake engine).
#[cfg(unix)]
pub fn version_wrapper(dir: &Path, name: &str, version: &str, exe: &str) -> PathBuf {
    wrapper_script(dir, name, version, "", exe)
}

/// Like [`version_wrapper`], running the shell lines `prelude` before it hands over to `exe`.
#[cfg(unix)]
pub fn wrapper_script(dir: &Path, name: &str, version: &str, prelude: &str, exe: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '{version}'; exit 0; fi\n\
             {prelude}exec '{exe}' \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The fake model server a real engine talks to.
pub enum Fake {
    Codex(fake_responses::FakeResponses),
    Claude(fake_messages::FakeMessages),
    /// An ACP agent's (opencode's) OpenAI-compatible Chat Completions server.
    Chat(fake_chat::FakeChat),
}

impl Fake {
    /// The server `engine` talks to, started.
    pub async fn start(engine: Engine) -> Fake {
        match engine {
            Engine::Codex => Fake::Codex(fake_responses::FakeResponses::start().await.unwrap()),
            Engine::Claude => Fake::Claude(fake_messages::FakeMessages::start().await.unwrap()),
            Engine::Acp => Fake::Chat(fake_chat::FakeChat::start().await.unwrap()),
        }
    }

    /// The next model reply: `pieces` of text.
    pub fn push_text(&self, pieces: &[&str]) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::text(pieces)),
            Fake::Claude(f) => f.push(fake_messages::Reply::text(pieces)),
            Fake::Chat(f) => f.push(fake_chat::Reply::text(pieces)),
        }
    }

    /// The next model reply: run the shell command `cmd` (Codex's exec_command, Claude's Bash,
    /// opencode's bash).
    pub fn push_command(&self, call_id: &str, cmd: &str) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::exec_command(call_id, cmd)),
            Fake::Claude(f) => f.push(fake_messages::Reply::bash(call_id, cmd)),
            Fake::Chat(f) => f.push(fake_chat::Reply::bash(call_id, cmd)),
        }
    }

    /// The next model reply: `n` pieces of text `every` apart, a stream that outlasts any
    /// scenario (it is interrupted or dropped).
    pub fn push_slow_text(&self, n: usize, every: Duration) {
        match self {
            Fake::Codex(f) => f.push(fake_responses::Reply::slow_text(n, every)),
            Fake::Claude(f) => f.push(fake_messages::Reply::slow_text(n, every)),
            Fake::Chat(f) => f.push(fake_chat::Reply::slow_text(n, every)),
        }
    }

    /// Paths of the requests the server received, in order.
    pub fn request_paths(&self) -> Vec<String> {
        match self {
            Fake::Codex(f) => f.requests().iter().map(|r| r.path.clone()).collect(),
            Fake::Claude(f) => f.requests().iter().map(|r| r.path.clone()).collect(),
            Fake::Chat(f) => f.requests().iter().map(|r| r.path.clone()).collect(),
        }
    }

    /// Model streams the engine abandoned before their end.
    pub fn disconnects(&self) -> usize {
        match self {
            Fake::Codex(f) => f.disconnects(),
            Fake::Claude(f) => f.disconnects(),
            Fake::Chat(f) => f.disconnects(),
        }
    }

    /// The body of the last model request, as text ("" before any).
    pub fn last_body(&self) -> String {
        let body = match self {
            Fake::Codex(f) => f.requests().last().map(|r| r.body.clone()),
            Fake::Claude(f) => f.model_requests().last().map(|r| r.body.clone()),
            Fake::Chat(f) => f.last_request().map(|r| r.body),
        };
        body.map(|b| b.to_string()).unwrap_or_default()
    }

    /// The image (base64) the engine sent the model in its first request.
    pub fn image_sent(&self) -> Option<String> {
        match self {
            Fake::Codex(f) => {
                let reqs = f.requests();
                let content = reqs.first()?.input_content();
                let url = content.iter().find(|c| c["type"] == "input_image")?["image_url"]
                    .as_str()?
                    .to_owned();
                url.split_once(";base64,").map(|(_, d)| d.to_owned())
            }
            Fake::Claude(f) => {
                let reqs = f.model_requests();
                let images = reqs.first()?.blocks_of("image");
                Some(images.first()?["source"]["data"].as_str()?.to_owned())
            }
            Fake::Chat(f) => f.image_sent(),
        }
    }
}

/// A desk over a fresh data dir, one workspace `work`, one profile for a real engine pointed
/// at its fake model server, one session on it.
pub struct World {
    pub desk: Desk,
    pub fake: Fake,
    /// The workspace folder (as the desk stored it).
    pub work: PathBuf,
    pub session: Session,
    /// The scenario's own folder (see [`fresh_root`]).
    pub root: PathBuf,
}

impl World {
    /// The world of `engine` (run from `bin`) in `root` (see [`fresh_root`]): the desk's data
    /// under `data` (default `root/data`), its engine's HOME, config and temp dirs under
    /// `root`, and the profile `customise` leaves.
    pub async fn new(
        root: PathBuf,
        engine: Engine,
        bin: &Path,
        data: Option<PathBuf>,
        customise: impl FnOnce(&mut ProfileSpec),
    ) -> World {
        Self::build(root, engine, bin, data, customise, s).await
    }

    /// [`Self::new`] with the workspace on `sshd`'s host (`ssh://<alias>/<root>/work`): the
    /// engine runs there, found on its login shell's `PATH`.
    #[cfg(unix)]
    pub async fn new_remote(
        root: PathBuf,
        engine: Engine,
        bin: &Path,
        sshd: &crate::sshd::Sshd,
        customise: impl FnOnce(&mut ProfileSpec),
    ) -> World {
        Self::build(root, engine, bin, None, customise, |work| sshd.url(work)).await
    }

    async fn build(
        root: PathBuf,
        engine: Engine,
        bin: &Path,
        data: Option<PathBuf>,
        customise: impl FnOnce(&mut ProfileSpec),
        location: impl FnOnce(&Path) -> String,
    ) -> World {
        let data = data.unwrap_or_else(|| root.join("data"));
        let (home, work, tmp) = (root.join("home"), root.join("work"), root.join("t"));
        for d in [&data, &home.join(".claude"), &work, &tmp] {
            std::fs::create_dir_all(d).unwrap();
        }
        let mut settings = EngineSettings::default();
        let mut spec = profile_spec("test", engine);
        spec.env.insert("HOME".into(), s(&home));
        spec.env
            .insert("NO_PROXY".into(), "127.0.0.1,localhost".into());
        let fake = Fake::start(engine).await;
        match &fake {
            Fake::Codex(f) => {
                settings.set_bin("codex", Some(bin.to_path_buf()));
                let _ = std::process::Command::new("git")
                    .args(["init", "-q"])
                    .current_dir(&work)
                    .status();
                spec.env.insert("MOCK_API_KEY".into(), "dummy".into());
                spec.model = Some("gpt-5.5".into());
                spec.base_url = Some(f.base_url());
                spec.api_key_env = Some("MOCK_API_KEY".into());
                spec.engine_options = json!({
                    "codexHome": s(&home),
                    "requestMaxRetries": 0,
                    "streamMaxRetries": 0,
                });
            }
            Fake::Claude(f) => {
                settings.set_bin("claude", Some(bin.to_path_buf()));
                spec.env.extend(crate::real::claude_env(&home, &tmp));
                spec.env
                    .insert(crate::real::CLAUDE_KEY_ENV.into(), "dummy".into());
                spec.model = Some(fake_messages::FAKE_MODEL.into());
                spec.base_url = Some(f.base_url());
                spec.api_key_env = Some(crate::real::CLAUDE_KEY_ENV.into());
            }
            Fake::Chat(f) => {
                // opencode (the preset: `acp`, asking before edits and commands), its
                // HOME, XDG dirs and config under `root/oc` (`real::opencode_env`), its
                // only provider the fake.
                settings.set_bin("opencode", Some(bin.to_path_buf()));
                let oc = crate::real::opencode_env(&root.join("oc"), &f.opencode_config()).unwrap();
                spec.env.extend(oc.env);
                spec.model = Some(format!(
                    "{}/{}",
                    fake_chat::FAKE_PROVIDER,
                    fake_chat::FAKE_MODEL
                ));
                spec.engine_options = json!({"preset": "opencode", "command": s(bin)});
            }
        }
        customise(&mut spec);
        // The folder here, or its `ssh://` URL (the same folder seen from a host).
        let location = location(&work);
        let (desk, ws, session) = desk_with_session_at(&data, &location, &settings, &spec).await;
        World {
            desk,
            fake,
            work: PathBuf::from(ws.path),
            session,
            root,
        }
    }

    /// The next model reply: `pieces` of text.
    pub fn push_text(&self, pieces: &[&str]) {
        self.fake.push_text(pieces)
    }

    /// The next model reply: run the shell command `cmd` (Codex's exec_command, Claude's Bash,
    /// opencode's bash).
    pub fn push_command(&self, call_id: &str, cmd: &str) {
        self.fake.push_command(call_id, cmd)
    }

    /// The next model reply: `n` pieces of text `every` apart, a stream that outlasts any
    /// scenario (it is interrupted or dropped).
    pub fn push_slow_text(&self, n: usize, every: Duration) {
        self.fake.push_slow_text(n, every)
    }

    /// Paths of the requests the fake model server received, in order.
    pub fn request_paths(&self) -> Vec<String> {
        self.fake.request_paths()
    }

    /// Model streams the engine abandoned before their end.
    pub fn disconnects(&self) -> usize {
        self.fake.disconnects()
    }

    /// Send `text` in the session; the new run's id.
    pub async fn send(&self, text: &str) -> RunId {
        self.send_attached(text, &[]).await
    }

    /// Send `text` in the session; the new run (running, or queued behind the session's).
    pub async fn message(&self, text: &str) -> Run {
        self.desk
            .send_message(&self.session.id, text, &[])
            .await
            .unwrap()
    }

    /// Send `text` with the files `attach` (imported into the desk first); the new run's id.
    pub async fn send_attached(&self, text: &str, attach: &[&Path]) -> RunId {
        let mut attachments = Vec::new();
        for path in attach {
            let att = self.desk.import_attachment(path).await.unwrap();
            attachments.push((att.sha256, att.name));
        }
        let run = self
            .desk
            .send_message(&self.session.id, text, &attachments)
            .await
            .unwrap();
        run.id
    }

    /// The run once it has ended (bounded by [`STEP`]).
    pub async fn wait_run(&self, run_id: &RunId) -> Run {
        self.desk.wait_run(run_id, STEP).await.unwrap()
    }

    /// A run that must complete; otherwise fail with its error and the engine's notices and
    /// diagnostics (what a flaky CI run needs to be understood).
    pub async fn completed(&self, run_id: &RunId) -> Run {
        let run = self.wait_run(run_id).await;
        if run.status != RunStatus::Completed {
            let page = self
                .desk
                .load_timeline(&self.session.id, None, Some(500))
                .await
                .unwrap();
            let notes: Vec<_> = page
                .items
                .iter()
                .filter(|i| i.run_id == *run_id)
                .map(|i| &i.body)
                .collect();
            let requests = self.request_paths();
            panic!("run not completed: {run:#?}\nitems: {notes:#?}\nmodel requests: {requests:?}");
        }
        run
    }

    /// The first pending approval of a run (bounded wait on the pending set).
    pub async fn pending(&self, run_id: &RunId) -> Approval {
        self.pending_after(run_id, &[]).await
    }

    /// The next pending approval of the run other than `seen` (bounded wait).
    pub async fn pending_after(&self, run_id: &RunId, seen: &[&ApprovalId]) -> Approval {
        let mut rx = self.desk.approvals().watch_pending();
        let found = tokio::time::timeout(STEP, async {
            loop {
                let next = rx
                    .borrow_and_update()
                    .iter()
                    .find(|a| a.run_id == *run_id && !seen.contains(&&a.id))
                    .cloned();
                if let Some(a) = next {
                    return a;
                }
                rx.changed().await.unwrap();
            }
        })
        .await;
        found.expect("no pending approval in time")
    }

    /// The user's decision `d` on `a`, which must be accepted.
    pub async fn decide(&self, a: &Approval, d: ApprovalDecision) -> Approval {
        self.desk
            .decide_approval(&a.id, d, DecidedBy::User)
            .await
            .unwrap()
    }

    /// The approvals recorded for a run, oldest first.
    pub async fn recorded(&self, run_id: &RunId) -> Vec<Approval> {
        let mut all: Vec<Approval> = self
            .desk
            .store()
            .session_approvals(&self.session.id)
            .await
            .unwrap()
            .into_iter()
            .filter(|a| a.run_id == *run_id)
            .collect();
        all.sort_by_key(|a| a.created_at);
        all
    }

    /// The stored agent messages of the session, in timeline order.
    pub async fn agent_messages(&self) -> Vec<String> {
        let page = self
            .desk
            .load_timeline(&self.session.id, None, Some(500))
            .await
            .unwrap();
        page.items
            .into_iter()
            .filter_map(|i| match i.body {
                ItemBody::AgentMessage { text } => Some(text),
                _ => None,
            })
            .collect()
    }

    /// Shut down and check that nothing is left running: no active run in the store, no
    /// pending approval, the engine processes `pids` gone.
    pub async fn finish(self, pids: &[u32]) {
        tokio::time::timeout(STEP, self.desk.shutdown())
            .await
            .expect("shutdown hung");
        let active = self.desk.store().active_runs().await.unwrap();
        assert!(active.is_empty(), "runs left active: {active:?}");
        assert!(self.desk.approvals().pending().is_empty());
        for pid in pids {
            let gone = crate::http::wait_until(Duration::from_secs(10), || exited(*pid)).await;
            assert!(gone, "engine process {pid} left behind");
        }
        self.desk.close().await;
    }
}
