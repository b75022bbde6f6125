//! Translator tests: replay real codex 0.169.0 transcripts (tests/fixtures/codex/) turn by turn.

use agentdesk_protocol::codex::ServerNotification;
use agentdesk_protocol::events::{AgentEvent, FileChangeKind, ToolKind, ToolStatus};
use agentdesk_protocol::ui::TokenUsage;
use serde_json::Value;

use super::translate::{TurnOutcome, TurnTranslator};

fn lines(name: &str) -> Vec<(String, Value)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/codex")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["dir"].as_str().unwrap().to_owned(), v["msg"].clone())
        })
        .collect()
}

/// Replays the transcript; returns the events of each turn (a new translator per turn/start,
/// like the adapter), the usage baseline carried over from earlier turns of the thread.
fn replay(name: &str) -> Vec<(Vec<AgentEvent>, Option<TurnOutcome>)> {
    let mut turns = Vec::new();
    let mut current: Option<(TurnTranslator, Vec<AgentEvent>)> = None;
    let mut turn_start_ids = Vec::new();
    let mut totals = None;
    for (dir, msg) in lines(name) {
        if dir == "c2s" && msg["method"] == "turn/start" {
            turn_start_ids.push(msg["id"].clone());
            if let Some((t, ev)) = current.take() {
                turns.push((ev, t.outcome().cloned()));
            }
            current = Some((TurnTranslator::new(totals), Vec::new()));
            continue;
        }
        if dir != "s2c" {
            continue;
        }
        if msg.get("result").is_some() && turn_start_ids.contains(&msg["id"]) {
            if let Some((t, _)) = current.as_mut() {
                t.set_turn_id(msg["result"]["turn"]["id"].as_str().unwrap().to_owned());
            }
            continue;
        }
        let (Some(method), None) = (msg["method"].as_str(), msg.get("id")) else {
            continue;
        };
        let n = ServerNotification::from_parts(method, &msg["params"]);
        if let ServerNotification::ThreadTokenUsageUpdated(u) = &n {
            totals = Some(u.token_usage.total);
        }
        if let Some((t, ev)) = current.as_mut() {
            t.on_notification(n, ev);
        }
    }
    if let Some((t, ev)) = current.take() {
        turns.push((ev, t.outcome().cloned()));
    }
    turns
}

fn types(ev: &[AgentEvent]) -> Vec<&'static str> {
    ev.iter()
        .map(AgentEvent::type_name)
        .filter(|t| *t != "engine.diagnostic")
        .collect()
}

#[test]
fn text_turn_streams_reasoning_message_usage() {
    let turns = replay("s1_text.jsonl");
    assert_eq!(turns.len(), 1);
    let (ev, outcome) = &turns[0];
    assert_eq!(outcome, &Some(TurnOutcome::Completed));
    assert_eq!(
        types(ev),
        [
            "reasoning.delta",
            "reasoning.delta",
            "reasoning.delta",
            "reasoning.completed",
            "message.delta",
            "message.delta",
            "message.delta",
            "message.completed",
            "usage",
            "run.completed"
        ]
    );
    assert!(ev.contains(&AgentEvent::ReasoningCompleted {
        item_id: "rs_056cfe9eaddf".into(),
        text: "Thinking about greeting".into()
    }));
    assert!(ev.contains(&AgentEvent::MessageCompleted {
        item_id: "msg_4103a222fe94".into(),
        text: "Hello from the fake model!".into()
    }));
    assert!(ev.contains(&AgentEvent::Usage(TokenUsage {
        input: 1234,
        cached: 1000,
        output: 56,
        reasoning: 7,
        cost_usd: None
    })));
}

#[test]
fn interrupt_finalises_the_partial_message() {
    let turns = replay("s3_interrupt.jsonl");
    let (ev, outcome) = &turns[0];
    assert_eq!(outcome, &Some(TurnOutcome::Interrupted));
    assert_eq!(
        types(ev),
        ["message.delta", "message.completed", "run.interrupted"]
    );
    assert!(ev.contains(&AgentEvent::MessageCompleted {
        item_id: "msg_e181e6d23cb8".into(),
        text: "chunk0 ".into()
    }));
    assert_eq!(turns[1].1, Some(TurnOutcome::Completed));
}

#[test]
fn http_errors_fail_the_run_clearly() {
    let turns = replay("s8_model_http_error.jsonl");
    let fails: Vec<(String, Option<String>)> = turns
        .iter()
        .map(|(ev, _)| match ev.last().unwrap() {
            AgentEvent::RunFailed { error, code } => (error.clone(), code.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(fails[0].1.as_deref(), Some("http_401"));
    assert!(fails[0].0.contains("HTTP 401"), "{}", fails[0].0);
    assert_eq!(fails[1].1.as_deref(), Some("http_500"));
    assert!(fails[1].0.contains("HTTP 500"), "{}", fails[1].0);
}

#[test]
fn declined_command_completes_as_declined_and_turn_goes_on() {
    let (ev, outcome) = &replay("s2_approval_decline.jsonl")[0];
    assert_eq!(outcome, &Some(TurnOutcome::Completed));
    let done = ev
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolCompleted {
                kind: ToolKind::Command,
                status,
                input,
                ..
            } => Some((*status, input.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(done.0, ToolStatus::Declined);
    assert_eq!(done.1["command"], "/bin/bash -lc 'touch hello.txt'");
}

#[test]
fn file_change_emits_file_changed_and_indexes_paths() {
    let turns = replay("s6_file_change_approval.jsonl");
    let (ev, _) = &turns[1];
    let changed: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::FileChanged {
                path, kind, diff, ..
            } => Some((path.clone(), *kind, diff.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(changed.len(), 1);
    assert!(changed[0].0.ends_with("/repo/added.txt"));
    assert_eq!(changed[0].1, FileChangeKind::Add);
    assert_eq!(changed[0].2, "hello from apply_patch\n");
    // Usage is per run: thread totals 45 after, 15 before.
    assert!(ev.contains(&AgentEvent::Usage(TokenUsage {
        input: 20,
        cached: 0,
        output: 10,
        reasoning: 0,
        cost_usd: None
    })));
}

#[test]
fn file_change_index_serves_approvals() {
    let mut t = TurnTranslator::new(None);
    t.set_turn_id("01a22882-46de-7ea2-9611-5ffd314ee839".into());
    let mut out = Vec::new();
    for (dir, msg) in lines("s6_file_change_approval.jsonl") {
        if dir == "s2c"
            && msg["method"] == "item/started"
            && msg["params"]["item"]["type"] == "fileChange"
        {
            t.on_notification(
                ServerNotification::from_parts("item/started", &msg["params"]),
                &mut out,
            );
        }
    }
    let files = t.file_change_files("call_patch");
    assert_eq!(files.len(), 1);
    assert!(files[0].path.ends_with("added.txt"));
    assert!(t.file_change_files("nope").is_empty());
}

#[test]
fn resume_replay_of_old_totals_is_the_baseline() {
    // Second process: codex replays the thread totals (old turn id) after thread/resume.
    let turns = replay("s9_resume_b.jsonl");
    let (ev, _) = &turns[0];
    assert!(
        ev.contains(&AgentEvent::Usage(TokenUsage {
            input: 10,
            cached: 0,
            output: 5,
            reasoning: 0,
            cost_usd: None
        })),
        "{ev:?}"
    );
}

#[test]
fn streaming_command_output_updates_then_completes_with_aggregate() {
    let (ev, _) = &replay("s10_streaming_command.jsonl")[0];
    let updates = ev
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolUpdated { .. }))
        .count();
    assert_eq!(updates, 3);
    assert!(ev.iter().any(|e| matches!(e,
        AgentEvent::ToolCompleted { output: Some(o), exit_code: Some(0), status: ToolStatus::Completed, .. }
        if o == "line1\nline2\nline3\nline4\n")));
}

#[test]
fn crash_closes_open_items_and_fails() {
    let mut t = TurnTranslator::new(None);
    t.set_turn_id("t1".into());
    let mut out = Vec::new();
    let started = serde_json::json!({"threadId": "th", "turnId": "t1", "item":
        {"type": "commandExecution", "id": "c1", "command": "sleep 9", "cwd": "/", "status": "inProgress", "commandActions": []}});
    t.on_notification(
        ServerNotification::from_parts("item/started", &started),
        &mut out,
    );
    t.fail(
        "boom".into(),
        agentdesk_protocol::events::FailureCode::EngineCrashed,
        &mut out,
    );
    assert_eq!(
        types(&out),
        ["tool.started", "tool.completed", "run.failed"]
    );
    assert!(matches!(
        out[1],
        AgentEvent::ToolCompleted {
            status: ToolStatus::Interrupted,
            ..
        }
    ));
    // Terminal once: a late turn/completed changes nothing.
    let done = serde_json::json!({"threadId": "th", "turn": {"id": "t1", "status": "completed", "items": []}});
    t.on_notification(
        ServerNotification::from_parts("turn/completed", &done),
        &mut out,
    );
    assert_eq!(out.iter().filter(|e| e.is_terminal()).count(), 1);
}

#[test]
fn unknown_notification_becomes_a_diagnostic() {
    let mut t = TurnTranslator::new(None);
    let mut out = Vec::new();
    t.on_notification(
        ServerNotification::from_parts(
            "item/hologram/delta",
            &serde_json::json!({"threadId": "x"}),
        ),
        &mut out,
    );
    assert!(
        matches!(&out[0], AgentEvent::EngineDiagnostic { message, raw: Some(_), .. } if message.contains("hologram"))
    );
}

#[test]
fn restart_backoff_grows_and_caps() {
    use std::time::Duration;
    let b = |n| super::server::backoff(Duration::from_millis(250), Duration::from_secs(15), n);
    assert_eq!(b(0), Duration::ZERO);
    assert_eq!(b(1), Duration::from_millis(250));
    assert_eq!(b(3), Duration::from_secs(1));
    assert_eq!(b(30), Duration::from_secs(15));
}
