//! Profile rules with the REAL engines (`CODEX_BIN`, `CLAUDE_BIN`) against the fake model
//! servers on 127.0.0.1, through `agentdesk-core`'s `Desk` (issue 19 item 3): a deny rule
//! on `touch` is not dodged by how the command is written (`env FOO=1 touch`, a shell inside
//! a compound line, `eval`), even with an allow-every-command rule listed before it; a line
//! whose program cannot be read (`$(…)` in command position) is asked, not approved; an
//! ordinary command is still approved by the allow rule. What a denied command would have
//! created is checked on disk. A missing binary is a loud SKIP (a failure under `CI=true`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::ui::{
    Approval, ApprovalKindName, ApprovalRule, ApprovalState, DecidedBy, Engine, PermissionMode,
    RuleAction,
};
use agentdesk_tests::scenarios;
use agentdesk_tests::world::{fresh_root, World};

const SUITE: &str = "profile rules suite";
const TEST: Duration = Duration::from_secs(180);

fn rule(prefix: Option<&str>, action: RuleAction) -> ApprovalRule {
    ApprovalRule {
        kind: Some(ApprovalKindName::Command),
        tool: None,
        command_prefix: prefix.map(str::to_string),
        action,
    }
}

/// The recorded approval whose command mentions `needle`.
fn about<'a>(recorded: &'a [Approval], needle: &str) -> &'a Approval {
    recorded
        .iter()
        .find(|a| {
            a.request
                .command
                .as_deref()
                .is_some_and(|c| c.contains(needle))
        })
        .unwrap_or_else(|| panic!("no approval about {needle:?}: {recorded:#?}"))
}

/// Rules: allow every plain command (first), deny `touch` (second). The model asks for
/// three spellings of `touch` (each denied by rule 2, wherever the rules put it), one whose
/// program is computed (asked; the user denies it), then `mkdir` (approved by rule 1).
async fn deny_is_not_dodged(engine: Engine, bin: PathBuf) {
    let name = format!("{}-dodge", engine.as_str());
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "rules_real", &name);
    let w = World::new(root, engine, &bin, None, |p| {
        p.permission_mode = PermissionMode::Ask;
        p.approval_rules = vec![
            rule(None, RuleAction::Allow),
            rule(Some("touch"), RuleAction::Deny),
        ];
    })
    .await;
    w.push_command("call_rule_1", "env FOO=1 touch wrapped.txt");
    w.push_command("call_rule_2", "true && bash -c 'touch nested.txt'");
    w.push_command("call_rule_3", "eval 'tou''ch evaled.txt'");
    w.push_command("call_rule_4", "$(printf tou; printf ch) computed.txt");
    w.push_command("call_rule_5", "mkdir made");
    w.push_text(&["Done."]);
    let run_id = w.send("Make the files").await;
    // Only the computed one reaches the user.
    let asked = w.pending(&run_id).await;
    let shown = asked.request.command.clone().unwrap_or_default();
    assert!(shown.contains("computed.txt"), "{asked:#?}");
    w.decide(&asked, ApprovalDecision::deny("not that")).await;
    w.completed(&run_id).await;
    let recorded = w.recorded(&run_id).await;
    for needle in ["wrapped.txt", "nested.txt", "evaled.txt"] {
        let a = about(&recorded, needle);
        assert_eq!(a.state, ApprovalState::Denied, "{a:#?}");
        assert_eq!(a.decided_by, Some(DecidedBy::Rule), "{a:#?}");
        let reason = a.decision.as_ref().and_then(|d| d.rule.clone());
        assert_eq!(reason.as_deref(), Some("profile rule 2"), "{a:#?}");
    }
    let computed = about(&recorded, "computed.txt");
    assert_eq!(computed.decided_by, Some(DecidedBy::User), "{computed:#?}");
    assert_eq!(computed.state, ApprovalState::Denied);
    for file in [
        "wrapped.txt",
        "nested.txt",
        "evaled.txt",
        "computed.txt",
        "FOO=1",
    ] {
        assert!(!w.work.join(file).exists(), "{file} was created");
    }
    assert!(
        w.work.join("made").is_dir(),
        "the allowed mkdir did not run"
    );
    if let Some(a) = recorded.iter().find(|a| {
        a.request
            .command
            .as_deref()
            .is_some_and(|c| c.contains("mkdir"))
    }) {
        // Codex may run `mkdir` without asking; when asked, the allow rule answered.
        assert_eq!(a.decided_by, Some(DecidedBy::Rule), "{a:#?}");
        assert!(a.state == ApprovalState::ApprovedOnce, "{a:#?}");
    }
    w.finish(&[]).await;
}

scenarios! {
    both: [deny_is_not_dodged],
    codex: [],
    claude: [],
}
