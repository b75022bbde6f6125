//! Issue 19 item 2: a Claude profile's permission settings are the approval queue's, never
//! the CLI's. The REAL pinned `claude` (`CLAUDE_BIN`) against the fake Messages API on
//! 127.0.0.1, through `agentdesk-core`'s `Desk`: with auto-edit, allowed tools and extra
//! folders set, every write and command still reaches `can_use_tool`, where the profile's
//! deny rules apply and every decision is recorded.
//!
//! Before, auto-edit started the CLI in `acceptEdits`, allowed tools went to `--allowedTools`:
//! the CLI ran those itself, so a rule denying `Write` never saw the write, nothing was
//! recorded, and an extra folder (meant to be read) was writable.
//!
//! A missing binary is a loud SKIP (a failure under `CI=true`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::ui::{
    Approval, ApprovalRule, ApprovalState, DecidedBy, Engine, PermissionMode, ProfileSpec,
    RuleAction,
};
use agentdesk_tests::fake_messages::Reply;
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::world::{fresh_root, Fake, World};
use serde_json::json;

const SUITE: &str = "claude profile queue suite";
const TEST: Duration = Duration::from_secs(180);

/// A Claude world named `name` whose profile `customise` sets; `root/extra` exists (with a
/// file `notes.txt`) for the scenarios that name it as an extra folder.
async fn world(name: &str, bin: &Path, customise: impl FnOnce(&mut ProfileSpec, &Path)) -> World {
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "claude_profile_queue", name);
    let extra = root.join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(extra.join("notes.txt"), "extra notes\n").unwrap();
    let extra = std::fs::canonicalize(&extra).unwrap();
    World::new(root, Engine::Claude, bin, None, |p| customise(p, &extra)).await
}

fn fake(w: &World) -> &agentdesk_tests::fake_messages::FakeMessages {
    match &w.fake {
        Fake::Claude(f) => f,
        Fake::Codex(_) | Fake::Chat(_) => unreachable!("claude only"),
    }
}

fn write_reply(id: &str, path: &Path, text: &str) -> Reply {
    Reply::tool(
        id,
        "Write",
        json!({"file_path": path, "content": format!("{text}\n")}),
    )
}

fn deny_rule(tool: &str, prefix: Option<&str>) -> ApprovalRule {
    ApprovalRule {
        kind: None,
        tool: Some(tool.into()),
        command_prefix: prefix.map(str::to_string),
        action: RuleAction::Deny,
    }
}

/// The profile's reason for an automatic decision ("profile rule 1", ...).
fn reason(a: &Approval) -> String {
    a.decision
        .as_ref()
        .and_then(|d| d.rule.clone())
        .unwrap_or_default()
}

/// The one recorded approval for `tool`, decided by the profile.
fn decided_by_profile<'a>(recorded: &'a [Approval], tool: &str) -> &'a Approval {
    let mine: Vec<&Approval> = recorded
        .iter()
        .filter(|a| a.request.tool.as_deref() == Some(tool))
        .collect();
    assert_eq!(mine.len(), 1, "one record for {tool}: {recorded:#?}");
    assert_eq!(mine[0].decided_by, Some(DecidedBy::Rule), "{:#?}", mine[0]);
    mine[0]
}

/// Auto-edit whose rules deny `Write`: the model's Write is denied by the rule (the issue's
/// reproduction wrote the file with no approval at all), and the denial is recorded.
async fn auto_edit_deny_rule_applies_to_writes(bin: PathBuf) {
    let w = world("deny-write", &bin, |p, _| {
        p.permission_mode = PermissionMode::AutoEdit;
        p.approval_rules = vec![deny_rule("Write", None)];
    })
    .await;
    let target = w.work.join("denied.txt");
    fake(&w).push(write_reply("toolu_q_deny", &target, "should not exist"));
    w.push_text(&["Done."]);
    let run_id = w.send("Write the file").await;
    w.completed(&run_id).await;
    assert!(!target.exists(), "the denied write ran");
    let recorded = w.recorded(&run_id).await;
    let a = decided_by_profile(&recorded, "Write");
    assert_eq!(a.state, ApprovalState::Denied, "{a:#?}");
    assert_eq!(reason(a), "profile rule 1");
    // The model was told the write was refused.
    let transcript: String = fake(&w).requests().iter().map(|r| r.transcript()).collect();
    assert!(transcript.contains("is_error"), "{transcript}");
    w.finish(&[]).await;
}

/// Auto-edit without such a rule: the write inside the workspace is approved by the queue's
/// own auto-edit rule, and that is recorded (before, the CLI wrote it unasked, no record).
async fn auto_edit_write_inside_is_approved_and_recorded(bin: PathBuf) {
    let w = world("auto-write", &bin, |p, _| {
        p.permission_mode = PermissionMode::AutoEdit;
    })
    .await;
    let target = w.work.join("edited.txt");
    fake(&w).push(write_reply("toolu_q_auto", &target, "written by the agent"));
    w.push_text(&["Done."]);
    let run_id = w.send("Write the file").await;
    w.completed(&run_id).await;
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "written by the agent\n"
    );
    let recorded = w.recorded(&run_id).await;
    let a = decided_by_profile(&recorded, "Write");
    assert_eq!(a.state, ApprovalState::ApprovedOnce, "{a:#?}");
    assert_eq!(reason(a), "write inside the workspace");
    w.finish(&[]).await;
}

/// An extra folder is read without asking, but a write there is asked even under auto-edit
/// (the queue's auto-edit covers the workspace only); before, `acceptEdits` + `--add-dir`
/// made it writable unasked.
async fn extra_folder_is_read_not_written(bin: PathBuf) {
    let w = world("extra", &bin, |p, extra| {
        p.permission_mode = PermissionMode::AutoEdit;
        p.extra_dirs = vec![extra.display().to_string()];
    })
    .await;
    let extra = w.root.join("extra");
    fake(&w).push(Reply::tool(
        "toolu_q_read",
        "Read",
        json!({"file_path": extra.join("notes.txt")}),
    ));
    fake(&w).push(write_reply(
        "toolu_q_extra",
        &extra.join("planted.txt"),
        "planted",
    ));
    w.push_text(&["Done."]);
    let run_id = w.send("Read the notes, then write next to them").await;
    let asked = w.pending(&run_id).await;
    assert_eq!(asked.request.tool.as_deref(), Some("Write"), "{asked:#?}");
    w.decide(&asked, ApprovalDecision::deny("not in the extra folder"))
        .await;
    w.completed(&run_id).await;
    assert!(
        !extra.join("planted.txt").exists(),
        "the extra folder was written"
    );
    let transcript: String = fake(&w).requests().iter().map(|r| r.transcript()).collect();
    assert!(
        transcript.contains("extra notes"),
        "the read ran: {transcript}"
    );
    w.finish(&[]).await;
}

/// An allowed tool is approved by the queue, after the profile's deny rules: with `Bash`
/// allowed and a rule denying `touch`, `touch` is denied and `mkdir` approved, both recorded
/// (before, `--allowedTools=Bash` ran both unasked).
async fn allowed_tools_go_through_the_rules(bin: PathBuf) {
    let w = world("allowed", &bin, |p, _| {
        p.allowed_tools = vec!["Bash".into()];
        p.approval_rules = vec![deny_rule("Bash", Some("touch"))];
    })
    .await;
    w.push_command("toolu_q_touch", "touch evil.txt");
    w.push_command("toolu_q_mkdir", "mkdir made");
    w.push_text(&["Done."]);
    let run_id = w.send("Run the commands").await;
    w.completed(&run_id).await;
    assert!(!w.work.join("evil.txt").exists(), "the denied command ran");
    assert!(
        w.work.join("made").is_dir(),
        "the allowed command did not run"
    );
    let recorded = w.recorded(&run_id).await;
    assert_eq!(recorded.len(), 2, "{recorded:#?}");
    let by_command = |c: &str| {
        recorded
            .iter()
            .find(|a| a.request.command.as_deref().is_some_and(|x| x.contains(c)))
            .unwrap_or_else(|| panic!("{c} not recorded: {recorded:#?}"))
    };
    let touch = by_command("touch");
    assert_eq!(touch.state, ApprovalState::Denied, "{touch:#?}");
    assert_eq!(reason(touch), "profile rule 1");
    let mkdir = by_command("mkdir");
    assert_eq!(mkdir.state, ApprovalState::ApprovedOnce, "{mkdir:#?}");
    assert_eq!(reason(mkdir), "the profile allows the tool Bash");
    assert!(recorded
        .iter()
        .all(|a| a.decided_by == Some(DecidedBy::Rule)));
    w.finish(&[]).await;
}

macro_rules! claude_scenarios {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some(bin) = engine_bin("CLAUDE_BIN", SUITE) else {
                return;
            };
            tokio::time::timeout(TEST, super::$name(bin))
                .await
                .expect("scenario timed out");
        }
    )*};
}

mod claude {
    use super::*;
    claude_scenarios!(
        auto_edit_deny_rule_applies_to_writes,
        auto_edit_write_inside_is_approved_and_recorded,
        extra_folder_is_read_not_written,
        allowed_tools_go_through_the_rules,
    );
}
