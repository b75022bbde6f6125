//! Codex sub-agents (`features.multi_agent`) through the adapter: the model's `spawn_agent`
//! starts a thread of its own; the fake routes each agent's replies by its newest input (the
//! sub-agent's task, a tool's output), since both ask at once. A model codex has no metadata
//! for (`mock-model`) gets the multi-agent tools directly (a catalog model finds them behind
//! `tool_search`, which codex 0.169 does not offer with a custom provider).

use super::*;
use agentdesk_tests::events::{until_end_after, until_into, EventSource};
use serde_json::json;

async fn env_with_subagents(name: &str, bin: &Path) -> Env {
    let mut env = Env::new(name, bin, AskForApproval::Untrusted).await;
    env.profile
        .config_overrides
        .push(("features.multi_agent".into(), "true".into()));
    env.profile.model = Some("mock-model".into());
    env
}

/// The model spawns a sub-agent whose task is "SUBAGENT-PROMPT count the files"; it runs
/// `touch sub-made.txt` and answers "SUB-DONE: 3 files"; the main agent answers the spawn
/// with `main_answer`.
fn script(fake: &FakeResponses, main_answer: Reply) {
    fake.push_routed(
        "MAIN-PROMPT",
        Reply::Stream(vec![Step::FunctionCall {
            call_id: "call_spawn1".into(),
            name: "multi_agent_v1::spawn_agent".into(),
            arguments: json!({"message": "SUBAGENT-PROMPT count the files"}).to_string(),
        }]),
    );
    fake.push_routed(
        "SUBAGENT-PROMPT",
        Reply::exec_command("call_sub_touch", "touch sub-made.txt"),
    );
    fake.push_routed("call_sub_touch", Reply::text(&["SUB-DONE: 3 files"]));
    fake.push_routed("call_spawn1", main_answer);
}

real_test!(
    a_sub_agent_is_nested_asks_by_name_and_the_run_waits_for_it,
    |bin| {
        let env = env_with_subagents("subagent", &bin).await;
        script(&env.fake, Reply::text(&["Spawned; it is counting."]));
        let mut run = env.run("MAIN-PROMPT count with a sub-agent", None).await;
        let mut seen = Vec::new();
        let ask = until_into(&mut run, is_approval, &mut seen).await;
        let AgentEvent::ApprovalRequested {
            command, subagent, ..
        } = &ask
        else {
            panic!("{ask:?}")
        };
        assert!(
            command
                .as_deref()
                .unwrap_or("")
                .contains("touch sub-made.txt"),
            "{command:?}"
        );
        assert_eq!(
            subagent.as_deref(),
            Some("codex sub-agent: SUBAGENT-PROMPT count the files")
        );
        decide(&run, &request_id(&ask), UserDecision::ApproveOnce).await;
        seen.push(ask.clone());
        let ev = until_end_after(&mut run, seen).await;
        assert_completed(&ev);
        assert!(env.repo.join("sub-made.txt").exists());
        assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolStarted { item_id, kind: ToolKind::Agent, name, .. } if item_id == "call_spawn1" && name == "spawn_agent")), "{ev:#?}");
        let done = ev.iter().find_map(|e| match e {
            AgentEvent::ToolCompleted {
                item_id,
                status,
                output,
                ..
            } if item_id == "call_spawn1" => Some((*status, output.clone())),
            _ => None,
        });
        assert_eq!(
            done,
            Some((ToolStatus::Completed, Some("SUB-DONE: 3 files".into()))),
            "{ev:#?}"
        );
        let nested: Vec<&str> = ev
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ItemParent {
                    item_id,
                    parent_item_id,
                } if parent_item_id == "call_spawn1" => Some(item_id.as_str()),
                _ => None,
            })
            .collect();
        // The sub-agent's command and answer are nested; the main agent's answer is not.
        let command_item = ev.iter().find_map(|e| match e {
            AgentEvent::ToolStarted {
                item_id,
                kind: ToolKind::Command,
                ..
            } => Some(item_id.as_str()),
            _ => None,
        });
        assert!(nested.contains(&command_item.unwrap()), "{nested:?}");
        let answer = |text: &str| {
            ev.iter().find_map(|e| match e {
                AgentEvent::MessageCompleted { item_id, text: t } if t == text => {
                    Some(item_id.as_str())
                }
                _ => None,
            })
        };
        assert!(nested.contains(&answer("SUB-DONE: 3 files").unwrap()));
        assert!(!nested.contains(&answer("Spawned; it is counting.").unwrap()));
        assert_eq!(ev.iter().filter(|e| e.is_terminal()).count(), 1);
    }
);

real_test!(stopping_a_run_whose_sub_agent_works_stops_both, |bin| {
    let env = env_with_subagents("subagent-stop", &bin).await;
    script(&env.fake, Reply::text(&["Spawned; it is counting."]));
    let mut run = env.run("MAIN-PROMPT count with a sub-agent", None).await;
    let mut seen = Vec::new();
    let ask = until_into(&mut run, is_approval, &mut seen).await;
    seen.push(ask);
    run.handle().interrupt();
    let ev = until_end_after(&mut run, seen).await;
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCompleted { item_id, status: ToolStatus::Interrupted, .. } if item_id == "call_spawn1")), "{ev:#?}");
    assert!(!env.repo.join("sub-made.txt").exists());
});
