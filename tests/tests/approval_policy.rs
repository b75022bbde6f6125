//! The approval policy with the REAL engines (`CODEX_BIN`, `CLAUDE_BIN`) against the fake
//! model servers on 127.0.0.1, through `agentdesk-core`'s `Desk`: "always for this session"
//! covers the exact command only (and hands Claude no wider rule of its own), a write through
//! a symlink that leaves the workspace is asked even under auto-edit, and a read outside the
//! workspace is asked. A missing binary is a loud SKIP (a failure under `CI=true`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ui::{Approval, ApprovalState, DecidedBy, Engine, PermissionMode};
use agentdesk_tests::scenarios;
use agentdesk_tests::world::{fresh_root, Fake, World};
use agentdesk_tests::{fake_messages, fake_responses};
use serde_json::json;

const SUITE: &str = "approval policy suite";
const TEST: Duration = Duration::from_secs(180);

/// The world of one scenario under permission `mode`, with a folder `outside` next to its
/// workspace (returned, canonical).
async fn world(engine: Engine, name: &str, bin: &Path, mode: PermissionMode) -> (World, PathBuf) {
    let name = format!("{}-{name}", engine.as_str());
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "approval_policy", &name);
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let w = World::new(root, engine, bin, None, |p| p.permission_mode = mode).await;
    (
        w,
        agentdesk_store::canonical::canonicalize(&outside).unwrap(),
    )
}

/// Whether `a` asks about a file whose path ends with `name`.
fn names_file(a: &Approval, name: &str) -> bool {
    a.request.files.iter().any(|f| f.path.ends_with(name))
}

/// "Always" on `touch one.txt`: the same command again runs without asking (Claude asks
/// again and the queue answers, recording the grant; Codex remembers it itself), but the
/// next, different command is asked. Before, the grant was the tool's (Claude also got
/// the CLI's wider `Bash(touch:*)`-style rule), so `touch two.txt` ran unasked.
async fn always_is_exact(engine: Engine, bin: PathBuf) {
    let (w, _) = world(engine, "always", &bin, PermissionMode::Ask).await;
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
    w.finish(&[]).await;
}

/// "Always" on a write to `a.txt` covers later writes to `a.txt`, not a write to `b.txt`
/// (the grant used to be the tool's: one "always" on a file change covered every file).
async fn file_always_is_exact(engine: Engine, bin: PathBuf) {
    let (w, _) = world(engine, "file-always", &bin, PermissionMode::Ask).await;
    let write = |id: &str, name: &str, text: &str| match &w.fake {
        Fake::Codex(f) => f.push(fake_responses::Reply::apply_patch(
            id,
            &format!("*** Begin Patch\n*** Add File: {name}\n+{text}\n*** End Patch\n"),
        )),
        Fake::Claude(f) => f.push(fake_messages::Reply::tool(
            id,
            "Write",
            json!({"file_path": w.work.join(name), "content": format!("{text}\n")}),
        )),
        Fake::Chat(f) => f.push(agentdesk_tests::fake_chat::Reply::write(
            id,
            &w.work.join(name).to_string_lossy(),
            &format!("{text}\n"),
        )),
    };
    write("call_pol_fa1", "a.txt", "first");
    write("call_pol_fa2", "a.txt", "second");
    write("call_pol_fa3", "b.txt", "other");
    w.push_text(&["Done."]);
    let run_id = w.send("Write the files").await;
    let first = w.pending_after(&run_id, &[]).await;
    assert!(names_file(&first, "a.txt"), "{first:?}");
    w.decide(&first, UserDecision::ApproveForSession.into())
        .await;
    let next = w.pending_after(&run_id, &[&first.id]).await;
    assert!(
        names_file(&next, "b.txt"),
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
    w.finish(&[]).await;
}

/// Auto-edit approves a write inside the workspace, but not one through `work/link` where
/// `link` points outside (it used to: the check was on the text of the path).
async fn symlinked_write_is_asked(engine: Engine, bin: PathBuf) {
    let (w, outside) = world(engine, "symlink", &bin, PermissionMode::AutoEdit).await;
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, w.work.join("link")).unwrap();
    // Needs the symlink privilege (an administrator, or Developer Mode), as CI runners have.
    #[cfg(windows)]
    std::os::windows::fs::symlink_dir(&outside, w.work.join("link")).unwrap();
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
    assert!(names_file(&asked, "authorized_keys"), "{asked:?}");
    w.decide(&asked, ApprovalDecision::deny("outside the workspace"))
        .await;
    w.completed(&run_id).await;
    assert!(w.work.join("inside.txt").exists(), "the inside write ran");
    assert!(!outside.join("authorized_keys").exists());
    let recorded = w.recorded(&run_id).await;
    let inside = recorded
        .iter()
        .find(|a| names_file(a, "inside.txt"))
        .expect("the inside write was recorded");
    assert_eq!(inside.decided_by, Some(DecidedBy::Rule), "{inside:?}");
    w.finish(&[]).await;
}

/// Claude reading a file outside the workspace is asked (it used to be approved as
/// "read-only tool"); reading inside is not.
async fn read_outside_is_asked(engine: Engine, bin: PathBuf) {
    let (w, outside) = world(engine, "read", &bin, PermissionMode::Ask).await;
    std::fs::write(outside.join("id_rsa"), "PRIVATE KEY").unwrap();
    let Fake::Claude(fake) = &w.fake else {
        unreachable!("claude only: codex has no separate read tool")
    };
    let secret = outside.join("id_rsa").display().to_string();
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
        Fake::Chat(f) => f.requests().iter().map(|r| r.transcript()).collect(),
        Fake::Codex(_) => String::new(),
    };
    assert!(
        !transcript.contains("PRIVATE KEY"),
        "the key reached the model"
    );
    w.finish(&[]).await;
}

scenarios! {
    both: [always_is_exact, file_always_is_exact],
    codex: [symlinked_write_is_asked],
    claude: [read_outside_is_asked],
    acp: [always_is_exact, file_always_is_exact],
}
