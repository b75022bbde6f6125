//! The approval policy with the REAL engines (`CODEX_BIN`, `CLAUDE_BIN`) against the fake
//! model servers on 127.0.0.1, through `agentdesk-core`'s `Desk`: "always for this session"
//! covers the exact command only (and hands Claude no wider rule of its own), a write through
//! a symlink that leaves the workspace is asked even under auto-edit, and a read outside the
//! workspace is asked. A missing binary is a loud SKIP (a failure under `CI=true`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::{Desk, EngineSettings, NewSession};
use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ids::{ApprovalId, RunId};
use agentdesk_protocol::ui::{
    Approval, ApprovalState, DecidedBy, Engine, PermissionMode, ProfileSpec, RunStatus, Session,
};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::{fake_messages, fake_responses};
use serde_json::json;

const SUITE: &str = "approval policy suite";
const STEP: Duration = Duration::from_secs(40);
const TEST: Duration = Duration::from_secs(180);

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

enum Fake {
    Codex(fake_responses::FakeResponses),
    Claude(fake_messages::FakeMessages),
}

/// A desk over a fresh data dir; a workspace `work` next to a folder `outside`.
struct World {
    desk: Desk,
    fake: Fake,
    work: PathBuf,
    outside: PathBuf,
    session: Session,
}

impl World {
    async fn new(engine: Engine, name: &str, bin: &Path, mode: PermissionMode) -> World {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "approval_policy/{}-{name}-{}",
            engine.as_str(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let (data, home, work, tmp, outside) = (
            root.join("data"),
            root.join("home"),
            root.join("work"),
            root.join("t"),
            root.join("outside"),
        );
        for d in [&data, &home.join(".claude"), &work, &tmp, &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        let desk = Desk::open(&data).await.unwrap();
        let mut settings = EngineSettings::default();
        let mut env = BTreeMap::new();
        env.insert("HOME".to_string(), s(&home));
        env.insert("NO_PROXY".to_string(), "127.0.0.1,localhost".to_string());
        let mut spec = ProfileSpec {
            name: "test".into(),
            engine,
            model: None,
            base_url: None,
            api_key_env: None,
            permission_mode: mode,
            allowed_tools: Vec::new(),
            denied_tools: Vec::new(),
            system_prompt: None,
            extra_dirs: Vec::new(),
            env: BTreeMap::new(),
            secret_env: Vec::new(),
            approval_rules: Vec::new(),
            approval_timeout_secs: None,
            engine_options: json!({}),
        };
        let fake = match engine {
            Engine::Codex => {
                settings.codex_bin = Some(bin.to_path_buf());
                let _ = std::process::Command::new("git")
                    .args(["init", "-q"])
                    .current_dir(&work)
                    .status();
                let fake = fake_responses::FakeResponses::start().await.unwrap();
                env.insert("MOCK_API_KEY".into(), "dummy".into());
                spec.model = Some("gpt-5.5".into());
                spec.base_url = Some(fake.base_url());
                spec.api_key_env = Some("MOCK_API_KEY".into());
                spec.engine_options = json!({
                    "codexHome": s(&home),
                    "requestMaxRetries": 0,
                    "streamMaxRetries": 0,
                });
                Fake::Codex(fake)
            }
            Engine::Claude => {
                settings.claude_bin = Some(bin.to_path_buf());
                let fake = fake_messages::FakeMessages::start().await.unwrap();
                for (k, v) in [
                    ("AGENTDESK_TEST_ANTHROPIC_KEY", "dummy".to_string()),
                    ("CLAUDE_CONFIG_DIR", s(&home.join(".claude"))),
                    // Short: the CLI puts a unix socket under it (≤ 103 bytes).
                    ("CLAUDE_CODE_TMPDIR", s(&tmp)),
                    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
                    ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
                    ("DISABLE_AUTOUPDATER", "1".into()),
                ] {
                    env.insert(k.into(), v);
                }
                spec.model = Some(fake_messages::FAKE_MODEL.into());
                spec.base_url = Some(fake.base_url());
                spec.api_key_env = Some("AGENTDESK_TEST_ANTHROPIC_KEY".into());
                Fake::Claude(fake)
            }
        };
        spec.env = env;
        desk.set_engine_settings(&settings).await.unwrap();
        let ws = desk.add_workspace(&s(&work), None).await.unwrap();
        let profile = desk.create_profile(&ws.id, &spec).await.unwrap();
        let session = desk
            .create_session(&NewSession {
                profile_id: Some(profile.id.clone()),
                ..NewSession::new(ws.id.clone())
            })
            .await
            .unwrap();
        World {
            desk,
            fake,
            work: PathBuf::from(ws.path),
            outside: std::fs::canonicalize(&outside).unwrap(),
            session,
        }
    }

    fn push_text(&self, pieces: &[&str]) {
        match &self.fake {
            Fake::Codex(f) => f.push(fake_responses::Reply::text(pieces)),
            Fake::Claude(f) => f.push(fake_messages::Reply::text(pieces)),
        }
    }

    fn push_command(&self, call_id: &str, cmd: &str) {
        match &self.fake {
            Fake::Codex(f) => f.push(fake_responses::Reply::exec_command(call_id, cmd)),
            Fake::Claude(f) => f.push(fake_messages::Reply::bash(call_id, cmd)),
        }
    }

    async fn send(&self, text: &str) -> RunId {
        let run = self
            .desk
            .send_message(&self.session.id, text, &[])
            .await
            .unwrap();
        run.id
    }

    async fn completed(&self, run_id: &RunId) {
        let run = self.desk.wait_run(run_id, STEP).await.unwrap();
        assert_eq!(run.status, RunStatus::Completed, "{run:#?}");
    }

    /// The next pending approval of the run other than `seen` (bounded wait).
    async fn pending_after(&self, run_id: &RunId, seen: &[&ApprovalId]) -> Approval {
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

    async fn decide(&self, a: &Approval, d: ApprovalDecision) -> Approval {
        self.desk
            .decide_approval(&a.id, d, DecidedBy::User)
            .await
            .unwrap()
    }

    async fn recorded(&self, run_id: &RunId) -> Vec<Approval> {
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

    async fn finish(self) {
        tokio::time::timeout(STEP, self.desk.shutdown())
            .await
            .expect("shutdown hung");
        assert!(self.desk.approvals().pending().is_empty());
        self.desk.close().await;
    }
}

/// "Always" on `touch one.txt`: the same command again runs without asking (Claude asks
/// again and the queue answers, recording the grant; Codex remembers it itself), but the
/// next, different command is asked. Before, the grant was the tool's (Claude also got
/// the CLI's wider `Bash(touch:*)`-style rule), so `touch two.txt` ran unasked.
async fn always_is_exact(engine: Engine, bin: PathBuf) {
    let w = World::new(engine, "always", &bin, PermissionMode::Ask).await;
    w.push_command("call_pol_1", "touch one.txt");
    w.push_command("call_pol_2", "touch one.txt");
    w.push_command("call_pol_3", "touch two.txt");
    w.push_text(&["Done."]);
    let run_id = w.send("Make the files").await;
    let first = w.pending_after(&run_id, &[]).await;
    assert!(
        first
            .request
            .command
            .as_deref()
            .unwrap()
            .contains("one.txt"),
        "{first:?}"
    );
    let granted = w
        .decide(&first, UserDecision::ApproveForSession.into())
        .await;
    assert_eq!(granted.state, ApprovalState::ApprovedSession);
    let next = w.pending_after(&run_id, &[&first.id]).await;
    assert!(
        next.request.command.as_deref().unwrap().contains("two.txt"),
        "the different command is asked: {next:?}"
    );
    w.decide(&next, ApprovalDecision::deny("not that one"))
        .await;
    w.completed(&run_id).await;
    assert!(w.work.join("one.txt").exists());
    assert!(!w.work.join("two.txt").exists());
    let recorded = w.recorded(&run_id).await;
    for a in &recorded {
        if a.decided_by == Some(DecidedBy::Rule) {
            // Only the repeat was decided by the grant, and its reason names the command.
            let reason = a.decision.as_ref().unwrap().rule.clone().unwrap();
            assert!(
                reason.starts_with("approved for this session: command `")
                    && reason.contains("touch one.txt"),
                "{reason}"
            );
            assert!(a.request.command.as_deref().unwrap().contains("one.txt"));
        }
    }
    if engine == Engine::Claude {
        // Claude was handed no session rule, so it asked for the repeat too.
        let by_rule = recorded
            .iter()
            .filter(|a| a.decided_by == Some(DecidedBy::Rule))
            .count();
        assert_eq!(by_rule, 1, "{recorded:#?}");
    }
    w.finish().await;
}

/// "Always" on a write to `a.txt` covers later writes to `a.txt`, not a write to `b.txt`
/// (the grant used to be the tool's: one "always" on a file change covered every file).
async fn file_always_is_exact(engine: Engine, bin: PathBuf) {
    let w = World::new(engine, "file-always", &bin, PermissionMode::Ask).await;
    let write = |id: &str, name: &str, text: &str| match &w.fake {
        Fake::Codex(f) => f.push(fake_responses::Reply::apply_patch(
            id,
            &format!("*** Begin Patch\n*** Add File: {name}\n+{text}\n*** End Patch\n"),
        )),
        Fake::Claude(f) => f.push(fake_messages::Reply::tool(
            id,
            "Write",
            json!({"file_path": s(&w.work.join(name)), "content": format!("{text}\n")}),
        )),
    };
    write("call_pol_fa1", "a.txt", "first");
    write("call_pol_fa2", "a.txt", "second");
    write("call_pol_fa3", "b.txt", "other");
    w.push_text(&["Done."]);
    let run_id = w.send("Write the files").await;
    let first = w.pending_after(&run_id, &[]).await;
    assert!(
        first
            .request
            .files
            .iter()
            .any(|f| f.path.ends_with("a.txt")),
        "{first:?}"
    );
    w.decide(&first, UserDecision::ApproveForSession.into())
        .await;
    let next = w.pending_after(&run_id, &[&first.id]).await;
    assert!(
        next.request.files.iter().any(|f| f.path.ends_with("b.txt")),
        "the other file is asked: {next:?}"
    );
    w.decide(&next, ApprovalDecision::deny("not that file"))
        .await;
    w.completed(&run_id).await;
    assert!(!w.work.join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(w.work.join("a.txt"))
            .unwrap()
            .trim(),
        "second"
    );
    for a in w.recorded(&run_id).await {
        if a.decided_by == Some(DecidedBy::Rule) {
            let reason = a.decision.as_ref().unwrap().rule.clone().unwrap();
            assert_eq!(reason, "approved for this session: file `a.txt`");
        }
    }
    w.finish().await;
}

/// Auto-edit approves a write inside the workspace, but not one through `work/link` where
/// `link` points outside (it used to: the check was on the text of the path).
async fn symlinked_write_is_asked(engine: Engine, bin: PathBuf) {
    let w = World::new(engine, "symlink", &bin, PermissionMode::AutoEdit).await;
    std::os::unix::fs::symlink(&w.outside, w.work.join("link")).unwrap();
    let Fake::Codex(fake) = &w.fake else {
        unreachable!("codex only: claude's acceptEdits decides edits itself")
    };
    fake.push(fake_responses::Reply::apply_patch(
        "call_pol_in",
        "*** Begin Patch\n*** Add File: inside.txt\n+fine\n*** End Patch\n",
    ));
    fake.push(fake_responses::Reply::apply_patch(
        "call_pol_out",
        "*** Begin Patch\n*** Add File: link/authorized_keys\n+ssh-ed25519 AAAA attacker\n*** End Patch\n",
    ));
    w.push_text(&["Done."]);
    let run_id = w.send("Write the files").await;
    let asked = w.pending_after(&run_id, &[]).await;
    assert!(
        asked
            .request
            .files
            .iter()
            .any(|f| f.path.contains("authorized_keys")),
        "{asked:?}"
    );
    w.decide(&asked, ApprovalDecision::deny("outside the workspace"))
        .await;
    w.completed(&run_id).await;
    assert!(w.work.join("inside.txt").exists(), "the inside write ran");
    assert!(!w.outside.join("authorized_keys").exists());
    let recorded = w.recorded(&run_id).await;
    let inside = recorded
        .iter()
        .find(|a| {
            a.request
                .files
                .iter()
                .any(|f| f.path.ends_with("inside.txt"))
        })
        .expect("the inside write was recorded");
    assert_eq!(inside.decided_by, Some(DecidedBy::Rule), "{inside:?}");
    w.finish().await;
}

/// Claude reading a file outside the workspace is asked (it used to be approved as
/// "read-only tool"); reading inside is not.
async fn read_outside_is_asked(engine: Engine, bin: PathBuf) {
    let w = World::new(engine, "read", &bin, PermissionMode::Ask).await;
    std::fs::write(w.outside.join("id_rsa"), "PRIVATE KEY").unwrap();
    let Fake::Claude(fake) = &w.fake else {
        unreachable!("claude only: codex has no separate read tool")
    };
    let secret = s(&w.outside.join("id_rsa"));
    fake.push(fake_messages::Reply::tool(
        "toolu_pol_read",
        "Read",
        json!({"file_path": secret}),
    ));
    w.push_text(&["Done."]);
    let run_id = w.send("Read the key").await;
    let asked = w.pending_after(&run_id, &[]).await;
    assert_eq!(asked.request.tool.as_deref(), Some("Read"), "{asked:?}");
    w.decide(&asked, ApprovalDecision::deny("not that file"))
        .await;
    w.completed(&run_id).await;
    let transcript: String = match &w.fake {
        Fake::Claude(f) => f.requests().iter().map(|r| r.transcript()).collect(),
        Fake::Codex(_) => String::new(),
    };
    assert!(
        !transcript.contains("PRIVATE KEY"),
        "the key reached the model"
    );
    w.finish().await;
}

macro_rules! instantiate {
    ($module:ident, $engine:expr, $var:literal, [$($scenario:ident),+ $(,)?]) => {
        mod $module {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let Some(bin) = engine_bin($var, SUITE) else { return };
                    tokio::time::timeout(TEST, super::$scenario($engine, bin))
                        .await
                        .expect("scenario timed out");
                }
            )+
        }
    };
}

instantiate!(
    codex,
    Engine::Codex,
    "CODEX_BIN",
    [
        always_is_exact,
        file_always_is_exact,
        symlinked_write_is_asked
    ]
);
instantiate!(
    claude,
    Engine::Claude,
    "CLAUDE_BIN",
    [always_is_exact, file_always_is_exact, read_outside_is_asked]
);
