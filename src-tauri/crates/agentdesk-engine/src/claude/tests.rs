//! The translator replayed over the real claude 2.1.328 transcripts (`tests/fixtures/claude/`).
//! The process side (handshake, approvals, crashes) is covered by the fake-claude and
//! real-claude suites in `tests/`.

use agentdesk_protocol::ui::TokenUsage;
use std::path::PathBuf;

use agentdesk_protocol::claude::SdkMessage;
use agentdesk_protocol::events::{AgentEvent, FileChangeKind, ToolKind, ToolStatus};
use serde_json::Value;

use super::*;

fn replay(name: &str, setup: impl Fn(&mut ClaudeTranslator, &SdkMessage)) -> Vec<AgentEvent> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/claude")
        .join(name);
    let mut t = ClaudeTranslator::new(PathBuf::from("/nonexistent-cwd"), Some("hint".into()));
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["dir"] != "out" {
            continue;
        }
        let msg = SdkMessage::from_value(v["msg"].clone());
        setup(&mut t, &msg);
        t.on_message(msg, &mut out);
    }
    assert!(t.outcome().is_some(), "{name}: no outcome\n{out:#?}");
    out
}

fn text_of(ev: &[AgentEvent], deltas: bool) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { text, .. } if deltas => Some(text.as_str()),
            AgentEvent::MessageCompleted { text, .. } if !deltas => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn text_turn() {
    let ev = replay("text.jsonl", |_, _| {});
    assert!(
        matches!(&ev[0], AgentEvent::RunStarted { model: Some(m), engine_session_id: Some(s), tools }
            if m == "claude-sonnet-4-5" && s == "05719b18-289e-4a8c-a702-0e4472b910f8" && tools.iter().any(|t| t == "Bash")),
        "{ev:#?}"
    );
    assert_eq!(text_of(&ev, true), "Hello from the fake model.");
    assert_eq!(text_of(&ev, false), "Hello from the fake model.");
    let ids: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::MessageDelta { item_id, .. }
            | AgentEvent::MessageCompleted { item_id, .. } => Some(item_id.as_str()),
            _ => None,
        })
        .collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "{ids:?}");
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::Usage(TokenUsage { input: 10, output: 5, cost_usd: Some(c), .. }) if (*c - 0.000105).abs() < 1e-12)));
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunCompleted { stop_reason }) if stop_reason == "completed")
    );
}

#[test]
fn thinking_then_text() {
    let ev = replay("think.jsonl", |_, _| {});
    let thinking: String = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ReasoningDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "Let me think about this carefully.");
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ReasoningCompleted { text, .. } if text == "Let me think about this carefully.")));
    assert_eq!(text_of(&ev, false), "Thought done.");
}

#[test]
fn bash_allowed_and_denied() {
    let ev = replay("bash_allow.jsonl", |_, _| {});
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::ToolStarted { kind: ToolKind::Command, name, input, .. }
        if name == "Bash" && input["command"] == "echo hi > out.txt")
    ));
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCompleted {
            status: ToolStatus::Completed,
            kind: ToolKind::Command,
            ..
        }
    )));
    // The adapter marks the tool it denied; the translator then reports `declined`.
    let ev = replay("bash_deny.jsonl", |t, m| {
        if let SdkMessage::ControlRequest(_) = m {
            t.mark_declined("toolu_fake_bash_3e67e3ce");
        }
    });
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCompleted { status: ToolStatus::Declined, output: Some(o), .. }
        if o.contains("denied"))), "{ev:#?}");
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
}

#[test]
fn write_is_a_file_change_with_a_diff() {
    let ev = replay("write_allow.jsonl", |_, _| {});
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolStarted {
            kind: ToolKind::FileChange,
            ..
        }
    )));
    let changed = ev
        .iter()
        .find_map(|e| match e {
            AgentEvent::FileChanged {
                path, kind, diff, ..
            } => Some((path, kind, diff)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{ev:#?}"));
    assert_eq!(changed.0, "/probe/profile/work/written.txt");
    assert_eq!(*changed.1, FileChangeKind::Add);
    assert!(
        changed.2.contains("+written by fake model"),
        "{}",
        changed.2
    );
}

/// The run loop reads the file ahead (tokio fs) and hands it over: the translator diffs
/// against what it was given, not the disk.
#[test]
fn a_file_read_ahead_is_what_the_diff_is_made_against() {
    let ev = replay("write_allow.jsonl", |t, msg| {
        for path in t.files_to_read(msg) {
            assert_eq!(path, PathBuf::from("/probe/profile/work/written.txt"));
            t.provide_file(path, Some("the old line\n".into()));
        }
    });
    let diff = ev
        .iter()
        .find_map(|e| match e {
            AgentEvent::FileChanged { kind, diff, .. } => Some((kind, diff)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{ev:#?}"));
    assert_eq!(*diff.0, FileChangeKind::Update, "{}", diff.1);
    assert!(diff.1.contains("-the old line"), "{}", diff.1);
}

#[test]
fn two_tools_in_one_turn() {
    let ev = replay("multitool.jsonl", |_, _| {});
    let done = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                AgentEvent::ToolCompleted {
                    status: ToolStatus::Completed,
                    ..
                }
            )
        })
        .count();
    assert_eq!(done, 2, "{ev:#?}");
}

#[test]
fn api_errors_fail_the_run_with_the_message_not_chat_text() {
    let ev = replay("err500_noretry.jsonl", |_, _| {});
    assert!(
        !ev.iter()
            .any(|e| matches!(e, AgentEvent::MessageCompleted { .. })),
        "{ev:#?}"
    );
    match ev.last() {
        Some(AgentEvent::RunFailed { error, code }) => {
            assert_eq!(code.as_deref(), Some("http_500"));
            assert!(error.contains("API Error: 500 fake 500"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    let ev = replay("nokey.jsonl", |_, _| {});
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunFailed { error, code: Some(c) })
        if error.contains("Not logged in") && c == "authentication_failed"),
        "{ev:#?}"
    );
    let ev = replay("maxturns1.jsonl", |_, _| {});
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunFailed { error, code: Some(c) })
        if error.contains("maximum number of turns") && c == "max_turns"),
        "{ev:#?}"
    );
}

#[test]
fn retries_are_warnings_on_the_timeline() {
    // err401 has no result (the probe gave up); feed its messages and end it by hand.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/claude/err401.jsonl");
    let mut t = ClaudeTranslator::new(PathBuf::from("/x"), None);
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["dir"] == "out" {
            t.on_message(SdkMessage::from_value(v["msg"].clone()), &mut out);
        }
    }
    let warnings = out
        .iter()
        .filter(|e| matches!(e, AgentEvent::EngineDiagnostic { message, .. } if message.contains("HTTP 401")))
        .count();
    assert!(warnings >= 5, "{out:#?}");
    t.fail(
        "gone".into(),
        agentdesk_protocol::events::FailureCode::EngineCrashed,
        &mut out,
    );
    assert!(matches!(out.last(), Some(AgentEvent::RunFailed { .. })));
}

#[test]
fn interrupt_mid_stream_and_deny_and_stop_end_as_interrupted() {
    let ev = replay("interrupt.jsonl", |t, _| t.set_stopping());
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::MessageCompleted { text, .. } if text == "chunk00 ")));
    let ev = replay("perm_deny_interrupt.jsonl", |t, m| {
        if let SdkMessage::ControlRequest(_) = m {
            t.mark_declined("toolu_fake_bash_84a9ba30");
            t.set_stopping();
        }
    });
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunInterrupted {})),
        "{ev:#?}"
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCompleted {
            status: ToolStatus::Declined,
            ..
        }
    )));
    // Without a user stop, the same aborted result is a failure.
    let ev = replay("perm_deny_interrupt.jsonl", |_, _| {});
    assert!(
        matches!(ev.last(), Some(AgentEvent::RunFailed { .. })),
        "{ev:#?}"
    );
}

#[test]
fn unknown_messages_become_diagnostics() {
    let mut t = ClaudeTranslator::new(PathBuf::from("/x"), None);
    let mut out = Vec::new();
    t.on_message(
        SdkMessage::from_value(serde_json::json!({"type": "novel", "a": 1})),
        &mut out,
    );
    // Before run.started: kept, then emitted right after it.
    assert!(out.is_empty());
    t.on_message(
        SdkMessage::from_value(
            serde_json::json!({"type": "system", "subtype": "init", "session_id": "s"}),
        ),
        &mut out,
    );
    assert!(matches!(out[0], AgentEvent::RunStarted { .. }));
    assert!(
        matches!(&out[1], AgentEvent::EngineDiagnostic { raw: Some(r), .. } if r["type"] == "novel")
    );
}

fn plans(
    ev: &[AgentEvent],
) -> Vec<Vec<(Option<String>, String, agentdesk_protocol::plan::PlanStatus)>> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::PlanUpdated { item_id, plan } => {
                assert_eq!(item_id, "plan");
                Some(
                    plan.entries
                        .iter()
                        .map(|e| (e.id.clone(), e.step.clone(), e.status))
                        .collect(),
                )
            }
            _ => None,
        })
        .collect()
}

#[test]
fn task_tools_are_the_plan_and_a_refused_todo_write_is_a_failed_tool() {
    use agentdesk_protocol::plan::PlanStatus as S;
    let ev = replay("tasks.jsonl", |_, _| {});
    let step = |s: S| (Some("1".to_owned()), "Write the tests".to_owned(), s);
    assert_eq!(
        plans(&ev),
        [
            vec![step(S::Pending)],
            vec![step(S::InProgress)],
            vec![step(S::InProgress)]
        ],
        "{ev:#?}"
    );
    let first = ev.iter().find_map(|e| match e {
        AgentEvent::PlanUpdated { plan, .. } => Some(plan.clone()),
        _ => None,
    });
    assert_eq!(
        first.unwrap().entries[0].active_form.as_deref(),
        Some("Writing the tests")
    );
    // No tool cards for the task tools; the refused TodoWrite is one, failed, with the reason.
    let tools: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { name, .. } => Some((name.as_str(), None)),
            AgentEvent::ToolCompleted {
                name,
                status,
                output,
                ..
            } => Some((
                name.as_str(),
                Some((*status, output.clone().unwrap_or_default())),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(tools.len(), 1, "{tools:#?}");
    let (name, Some((status, output))) = &tools[0] else {
        panic!("{tools:#?}")
    };
    assert_eq!((*name, *status), ("TodoWrite", ToolStatus::Failed));
    assert!(output.contains("No such tool available"), "{output}");
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
}

#[test]
fn a_task_of_an_earlier_run_keeps_its_subject() {
    use agentdesk_protocol::plan::{Plan, PlanEntry, PlanStatus as S};
    let earlier = Plan {
        explanation: None,
        entries: vec![
            PlanEntry {
                id: Some("1".into()),
                step: "Write the tests".into(),
                active_form: Some("Writing the tests".into()),
                status: S::InProgress,
            },
            PlanEntry {
                id: Some("2".into()),
                step: "Ship".into(),
                active_form: None,
                status: S::Pending,
            },
        ],
    };
    let mut t = ClaudeTranslator::new(PathBuf::from("/x"), None).continuing_plan(Some(earlier));
    let mut out = Vec::new();
    let line = |v: Value| SdkMessage::from_value(v);
    let use_ = |id: &str, name: &str, input: Value| {
        line(
            serde_json::json!({"type": "assistant", "session_id": "s", "message": {"id": format!("m-{id}"),
            "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        )
    };
    let result = |id: &str, text: &str, structured: Value, is_error: bool| {
        line(
            serde_json::json!({"type": "user", "session_id": "s", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error}]},
            "tool_use_result": structured}),
        )
    };
    for msg in [
        use_(
            "t1",
            "TaskUpdate",
            serde_json::json!({"taskId": "1", "status": "completed"}),
        ),
        result(
            "t1",
            "Updated task #1 status",
            serde_json::json!({"success": true, "taskId": "1"}),
            false,
        ),
        use_(
            "t2",
            "TaskUpdate",
            serde_json::json!({"taskId": "2", "status": "deleted"}),
        ),
        result(
            "t2",
            "Updated task #2 deleted",
            serde_json::json!({"success": true, "taskId": "2"}),
            false,
        ),
        use_(
            "t3",
            "TaskUpdate",
            serde_json::json!({"taskId": "9", "status": "in_progress"}),
        ),
        result("t3", "Task not found", Value::Null, true),
        use_(
            "t4",
            "TaskUpdate",
            serde_json::json!({"taskId": "7", "status": "blocked"}),
        ),
        result("t4", "Updated", serde_json::json!({"success": true}), false),
        use_("t5", "TaskCreate", serde_json::json!({"subject": "x"})),
        result("t5", "Task created?", serde_json::json!({}), false),
        use_("t6", "TaskList", serde_json::json!({})),
    ] {
        t.on_message(msg, &mut out);
    }
    t.interrupted(&mut out);
    assert_eq!(
        plans(&out),
        [
            vec![
                (Some("1".into()), "Write the tests".into(), S::Completed),
                (Some("2".into()), "Ship".into(), S::Pending)
            ],
            vec![(Some("1".into()), "Write the tests".into(), S::Completed)],
            // A task this app never saw keeps a name; an unknown status is pending, and said.
            vec![
                (Some("1".into()), "Write the tests".into(), S::Completed),
                (Some("7".into()), "Task #7".into(), S::Pending)
            ],
        ],
        "{out:#?}"
    );
    assert!(out.iter().any(|e| matches!(e, AgentEvent::EngineDiagnostic { message, .. } if message.contains("`blocked`"))));
    // The refused update, the unreadable create and the unanswered list are tool calls.
    let ended: Vec<_> = out
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCompleted {
                item_id, status, ..
            } => Some((item_id.as_str(), *status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ended,
        [
            ("t3", ToolStatus::Failed),
            ("t5", ToolStatus::Completed),
            ("t6", ToolStatus::Interrupted)
        ]
    );
    assert!(out.iter().any(|e| matches!(e, AgentEvent::EngineDiagnostic { message, .. } if message.contains("unreadable claude `TaskCreate`"))));
}

/// The subagent transcripts: its items nested under the `Agent` call, the call running until
/// the subagent's notification (its summary the output), one run over both turns.
fn subagent_run(name: &str) {
    let ev = replay(name, |_, _| {});
    let pos = |pred: &dyn Fn(&AgentEvent) -> bool| ev.iter().position(pred);
    let agent_started = pos(&|e| {
        matches!(e, AgentEvent::ToolStarted { item_id, kind: ToolKind::Agent, name, .. }
            if item_id == "toolu_agent1" && name == "Agent")
    })
    .unwrap_or_else(|| panic!("{name}: no Agent call\n{ev:#?}"));
    let agent_done: Vec<usize> = ev
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, AgentEvent::ToolCompleted { item_id, .. } if item_id == "toolu_agent1"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(agent_done.len(), 1, "{name}: {ev:#?}");
    assert!(
        matches!(&ev[agent_done[0]], AgentEvent::ToolCompleted { status: ToolStatus::Completed, output: Some(o), .. }
            if o == "SUB-DONE: 3 files"),
        "{name}: {:#?}",
        ev[agent_done[0]]
    );
    // The subagent's text and its Bash call are nested, each announced before its first event.
    let nested: Vec<(&str, &str)> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ItemParent {
                item_id,
                parent_item_id,
            } => Some((item_id.as_str(), parent_item_id.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(nested.len(), 3, "{name}: {nested:?}");
    assert!(nested.iter().all(|(_, p)| *p == "toolu_agent1"));
    assert!(nested.iter().any(|(i, _)| *i == "toolu_sub_bash"));
    let parent_of_bash = pos(
        &|e| matches!(e, AgentEvent::ItemParent { item_id, .. } if item_id == "toolu_sub_bash"),
    )
    .unwrap();
    let bash_started = pos(&|e| matches!(e, AgentEvent::ToolStarted { item_id, kind: ToolKind::Command, .. } if item_id == "toolu_sub_bash")).unwrap();
    assert!(agent_started < parent_of_bash && parent_of_bash < bash_started);
    let sub_text = ev.iter().find_map(|e| match e {
        AgentEvent::MessageCompleted { item_id, text } if text == "SUB-DONE: 3 files" => {
            Some(item_id.clone())
        }
        _ => None,
    });
    let sub_text = sub_text.unwrap_or_else(|| panic!("{name}: {ev:#?}"));
    assert!(nested.iter().any(|(i, _)| *i == sub_text), "{nested:?}");
    // The main agent's text is not nested, and the run ends once, after the report turn.
    let main_text = ev.iter().find_map(|e| match e {
        AgentEvent::MessageCompleted { item_id, text } if text == "MAIN waiting for the agent" => {
            Some(item_id.clone())
        }
        _ => None,
    });
    assert!(!nested.iter().any(|(i, _)| Some(i.to_string()) == main_text));
    let terminal: Vec<&AgentEvent> = ev.iter().filter(|e| e.is_terminal()).collect();
    assert_eq!(terminal.len(), 1);
    assert!(matches!(ev.last(), Some(AgentEvent::RunCompleted { .. })));
    assert_eq!(
        completed_text_count(&ev, "(fake) no script left"),
        1,
        "{name}: the report turn's answer"
    );
    // Usage sums both turns' costs (the second counts the subagent's requests).
    let last_usage = ev.iter().rev().find_map(|e| match e {
        AgentEvent::Usage(u) => Some(*u),
        _ => None,
    });
    let cost = last_usage.and_then(|u| u.cost_usd).unwrap();
    assert!((cost - 0.000525).abs() < 1e-9, "{cost}");
}

fn completed_text_count(ev: &[AgentEvent], text: &str) -> usize {
    ev.iter()
        .filter(|e| matches!(e, AgentEvent::MessageCompleted { text: t, .. } if t == text))
        .count()
}

#[test]
fn a_background_subagent_is_nested_and_the_run_waits_for_its_report() {
    subagent_run("subagent.jsonl");
}

#[test]
fn a_subagent_that_ends_inside_the_main_turn_still_gets_its_report_turn() {
    subagent_run("subagent_done_mid_turn.jsonl");
}

#[test]
fn a_run_between_turns_knows_it() {
    // Cut after the main turn's result: the run is not over, a subagent works.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/claude/subagent.jsonl");
    let mut t = ClaudeTranslator::new(PathBuf::from("/nonexistent-cwd"), None);
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let msg = SdkMessage::from_value(v["msg"].clone());
        let is_result = matches!(msg, SdkMessage::Result(_));
        t.on_message(msg, &mut out);
        if is_result {
            break;
        }
    }
    assert!(t.outcome().is_none());
    assert!(t.between_turns());
    assert!(!t.awaiting_report(), "a subagent still works");
    assert_eq!(
        t.subagent_name("a10d6591d14e8c41f"),
        "general-purpose: Count files"
    );
    // Nothing came: the run is closed as completed, the Agent call interrupted.
    t.completed_without_report(&mut out);
    assert!(matches!(out.last(), Some(AgentEvent::RunCompleted { .. })));
    assert!(out.iter().any(|e| matches!(e, AgentEvent::ToolCompleted { item_id, status: ToolStatus::Interrupted, .. } if item_id == "toolu_agent1")));
}
