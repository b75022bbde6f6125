//! Subagents (Claude Code's `Agent` tool, in the background on 2.1.328) through the adapter:
//! the fake routes each agent's replies by what it was last sent (the subagent's prompt, a
//! tool's result), since the main agent and the subagent ask at the same time.

use super::*;
use agentdesk_tests::events::EventSource;
use agentdesk_tests::fake_messages::push_subagent_script;

/// The script (see [`push_subagent_script`]), the report turn answering "Reported.".
fn script_subagent(fake: &FakeMessages, main_answer: &str) {
    push_subagent_script(fake, "SUB-DONE: 3 files", main_answer);
    fake.push(Reply::text(&["Reported."]));
}

fn nested_under(ev: &[AgentEvent], parent: &str) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::ItemParent {
                item_id,
                parent_item_id,
            } if parent_item_id == parent => Some(item_id.clone()),
            _ => None,
        })
        .collect()
}

real_test!(
    a_subagent_is_nested_asks_by_name_and_the_run_ends_after_its_report,
    |bin| {
        let env = Env::new("subagent", &bin).await;
        script_subagent(&env.fake, "Started it; waiting.");
        let mut run = env.run("MAIN-PROMPT count with a subagent", None).await;
        let mut seen = Vec::new();
        let ask = until_into(&mut run, is_ask, &mut seen).await;
        let AgentEvent::ApprovalRequested {
            command,
            item_id,
            subagent,
            ..
        } = &ask
        else {
            panic!("{ask:?}")
        };
        assert_eq!(command.as_deref(), Some("touch sub-made.txt"));
        assert_eq!(item_id.as_deref(), Some("toolu_sub_touch"));
        assert_eq!(
            subagent.as_deref(),
            Some("general-purpose: Count files"),
            "the request names the subagent that asks"
        );
        decide(&run, &request_id(&ask), UserDecision::ApproveOnce).await;
        seen.push(ask.clone());
        let ev = until_end_after(&mut run, seen).await;
        assert_completed(&ev);
        assert_eq!(ev.iter().filter(|e| e.is_terminal()).count(), 1, "{ev:#?}");
        assert!(env.work.join("sub-made.txt").exists());
        // The Agent call ran until the subagent ended, and ended with its summary.
        assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolStarted { item_id, kind: ToolKind::Agent, .. } if item_id == "toolu_agent1")));
        let done = ev.iter().find_map(|e| match e {
            AgentEvent::ToolCompleted {
                item_id,
                status,
                output,
                ..
            } if item_id == "toolu_agent1" => Some((*status, output.clone())),
            _ => None,
        });
        assert_eq!(
            done,
            Some((ToolStatus::Completed, Some("SUB-DONE: 3 files".into()))),
            "{ev:#?}"
        );
        // Its text and its command are nested under it; the main agent's answers are not.
        let nested = nested_under(&ev, "toolu_agent1");
        assert!(nested.iter().any(|i| i == "toolu_sub_touch"), "{nested:?}");
        let sub_text = ev.iter().find_map(|e| match e {
            AgentEvent::MessageCompleted { item_id, text } if text == "SUB-DONE: 3 files" => {
                Some(item_id.clone())
            }
            _ => None,
        });
        assert!(nested.contains(&sub_text.unwrap()), "{nested:?}");
        for main in ["Started it; waiting.", "Reported."] {
            let id = ev.iter().find_map(|e| match e {
                AgentEvent::MessageCompleted { item_id, text } if text == main => {
                    Some(item_id.clone())
                }
                _ => None,
            });
            let id = id.unwrap_or_else(|| panic!("no {main:?}: {ev:#?}"));
            assert!(!nested.contains(&id));
        }
        // The report turn saw the subagent's result.
        let last = env.fake.model_requests().last().unwrap().transcript();
        assert!(last.contains("SUB-DONE: 3 files"), "{last}");
        assert!(
            !alive(run.pid.unwrap()),
            "claude still running after the run ended"
        );
    }
);

real_test!(
    stopping_a_run_whose_subagent_works_ends_it_and_the_cli,
    |bin| {
        let env = Env::new("subagent-stop", &bin).await;
        script_subagent(&env.fake, "Started it; waiting.");
        let mut run = env.run("MAIN-PROMPT count with a subagent", None).await;
        // The subagent waits for its approval; the main turn is over by then or soon after.
        let mut seen = Vec::new();
        until_into(&mut run, is_ask, &mut seen).await;
        let main_done = |e: &AgentEvent| matches!(e, AgentEvent::MessageCompleted { text, .. } if text == "Started it; waiting.");
        if !seen.iter().any(main_done) {
            until_into(&mut run, main_done, &mut seen).await;
        }
        run.handle().interrupt();
        let ev = until_end_after(&mut run, seen).await;
        assert_interrupted(&ev);
        assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCompleted { item_id, status: ToolStatus::Interrupted, .. } if item_id == "toolu_agent1")), "{ev:#?}");
        assert!(!env.work.join("sub-made.txt").exists());
        assert!(
            !alive(run.pid.unwrap()),
            "claude (and its subagent) still running"
        );
    }
);
