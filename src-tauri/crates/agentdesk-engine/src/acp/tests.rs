//! Translator and decision tests: replay the real opencode 1.18.33 and Gemini CLI 0.61.0
//! transcripts (tests/fixtures/acp/) prompt by prompt, as the run task feeds them.

use agentdesk_protocol::ui::TokenUsage;
use std::path::Path;

use agentdesk_protocol::acp::{
    PermissionOption, PromptResponse, RequestPermissionOutcome, RequestPermissionRequest,
    SessionNotification,
};
use agentdesk_protocol::events::{
    AgentEvent, ApprovalKind, FileChangeKind, ToolKind, ToolStatus, UserDecision,
};
use serde_json::{json, Value};

use super::permission::{choose_option, permission_event};
use super::translate::{AcpTranslator, RunOutcome};
use crate::error::EngineError;

fn lines(name: &str) -> Vec<(String, Value)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp")
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

/// One prompt turn as the run task sees it.
struct Turn {
    events: Vec<AgentEvent>,
    outcome: Option<RunOutcome>,
    permissions: Vec<RequestPermissionRequest>,
}

/// Replays every `session/prompt` of the transcript through a fresh translator (one run per
/// prompt, like the adapter); updates outside a prompt (a load's replay) are not the run's.
fn replay(name: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    let mut current: Option<(Value, AcpTranslator, Turn)> = None;
    for (dir, msg) in lines(name) {
        if dir == ">>" && msg["method"] == "session/prompt" {
            let turn = Turn {
                events: Vec::new(),
                outcome: None,
                permissions: Vec::new(),
            };
            current = Some((msg["id"].clone(), AcpTranslator::new(), turn));
            continue;
        }
        if dir != "<<" {
            continue;
        }
        let Some((prompt_id, t, turn)) = current.as_mut() else {
            continue;
        };
        if msg.get("method").is_none() && msg["id"] == *prompt_id {
            let r: PromptResponse = serde_json::from_value(msg["result"].clone()).unwrap();
            t.on_prompt_result(r, &mut turn.events);
            let (_, t, mut turn) = current.take().unwrap();
            turn.outcome = t.outcome().cloned();
            turns.push(turn);
            continue;
        }
        match msg["method"].as_str() {
            Some("session/update") => {
                let n: SessionNotification = serde_json::from_value(msg["params"].clone()).unwrap();
                t.on_update(n.update, &mut turn.events);
            }
            Some("session/request_permission") => {
                let p: RequestPermissionRequest =
                    serde_json::from_value(msg["params"].clone()).unwrap();
                t.note_tool_call(&p.tool_call, &mut turn.events);
                let ws = super::workspace::Workspace::new(Path::new("/tmp/ws"), &[]);
                let (event, _) = permission_event("req-1", &p, Path::new("/tmp/ws"), &ws);
                turn.events.push(event);
                turn.permissions.push(p);
            }
            _ => {}
        }
    }
    turns
}

fn types(ev: &[AgentEvent]) -> Vec<&'static str> {
    ev.iter().map(AgentEvent::type_name).collect()
}

#[test]
fn opencode_text_turn_streams_thought_message_usage() {
    let turns = replay("opencode-offline.jsonl");
    assert_eq!(turns.len(), 4);
    let t = &turns[0];
    assert_eq!(t.outcome, Some(RunOutcome::Completed));
    assert_eq!(
        types(&t.events),
        [
            "commands.available",
            "reasoning.delta",
            "reasoning.completed",
            "message.delta",
            "message.delta",
            "message.completed",
            "usage",
            "run.completed"
        ]
    );
    let text: Vec<&AgentEvent> = t
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::MessageCompleted { .. }))
        .collect();
    assert!(
        matches!(text[0], AgentEvent::MessageCompleted { item_id, text }
        if item_id == "msg_2333fbdc3001iQq8L3cZLwt3NB" && text == "Hello from the fake OpenAI.")
    );
    assert!(t.events.contains(&AgentEvent::Usage(TokenUsage {
        input: 10,
        cached: 0,
        output: 5,
        reasoning: 0,
        cost_usd: Some(0.0),
    })));
    insta::assert_json_snapshot!(
        "opencode_offline",
        turns.iter().map(|t| &t.events).collect::<Vec<_>>()
    );
}

#[test]
fn opencode_tools_without_asking_and_the_cancelled_turn() {
    let turns = replay("opencode-offline.jsonl");
    // The write (opencode without OPENCODE_PERMISSION asks nothing).
    let write = &turns[1].events;
    assert!(write.iter().any(|e| matches!(e,
        AgentEvent::ToolStarted { item_id, kind: ToolKind::FileChange, name, .. }
            if item_id == "call_1" && name == "write")));
    assert!(write.iter().any(|e| matches!(e,
        AgentEvent::ToolCompleted { item_id, status: ToolStatus::Completed, output: Some(o), input, .. }
            if item_id == "call_1" && o == "Wrote file successfully." && input["filePath"] == "/tmp/ws/hello.txt")));
    // The shell command, with its exit code.
    let shell = &turns[2].events;
    assert!(shell.iter().any(|e| matches!(e,
        AgentEvent::ToolCompleted { kind: ToolKind::Command, exit_code: Some(0), input, .. }
            if input["command"] == "echo hi-from-shell > shell.txt")));
    // Messages around a tool are two items.
    let completed = write
        .iter()
        .filter(|e| matches!(e, AgentEvent::MessageCompleted { .. }))
        .count();
    assert_eq!(completed, 2);
    // `session/cancel` mid-stream: the prompt answers `cancelled`.
    assert_eq!(turns[3].outcome, Some(RunOutcome::Interrupted));
    assert_eq!(types(&turns[3].events).last(), Some(&"run.interrupted"));
}

#[test]
fn opencode_permission_flow_asks_with_the_diff_and_the_command() {
    let turns = replay("opencode-offline-ask.jsonl");
    assert_eq!(turns.len(), 2);
    let write = &turns[0].events;
    let asked = write
        .iter()
        .find(|e| e.type_name() == "approval.requested")
        .unwrap();
    let AgentEvent::ApprovalRequested {
        kind,
        item_id,
        files,
        cwd,
        command,
        detail,
        ..
    } = asked
    else {
        unreachable!()
    };
    assert_eq!(*kind, ApprovalKind::FileChange);
    assert_eq!(item_id.as_deref(), Some("call_1"));
    assert_eq!(cwd.as_deref(), Some("/tmp/ws"));
    assert_eq!(*command, None);
    assert_eq!(files[0].path, "/tmp/ws/hello.txt");
    assert_eq!(files[0].kind, FileChangeKind::Add);
    assert!(
        files[0].diff.contains("+hello from fake model"),
        "{}",
        files[0].diff
    );
    let detail = serde_json::to_value(detail).unwrap();
    assert_eq!(detail["source"], "acpToolCall");
    assert_eq!(
        detail["offered"],
        json!(["allow_once", "allow_always", "reject_once"])
    );
    // The diff shown in the request becomes the file change once the write completed.
    assert!(write.iter().any(|e| matches!(e,
        AgentEvent::FileChanged { item_id, path, kind: FileChangeKind::Add, diff }
            if item_id == "call_1" && path == "/tmp/ws/hello.txt" && diff.contains("+hello from fake model"))));
    // The tool started before it was asked about.
    let pos = |t: &str| write.iter().position(|e| e.type_name() == t).unwrap();
    assert!(pos("tool.started") < pos("approval.requested"));

    let shell = &turns[1].events;
    assert!(shell.iter().any(|e| matches!(e,
        AgentEvent::ApprovalRequested { kind: ApprovalKind::Command, command: Some(c), .. }
            if c == "echo hi-from-shell > shell.txt")));
    insta::assert_json_snapshot!(
        "opencode_ask",
        turns.iter().map(|t| &t.events).collect::<Vec<_>>()
    );
}

#[test]
fn gemini_turns_mint_item_ids_and_ask_about_unannounced_calls() {
    let turns = replay("gemini-offline.jsonl");
    assert_eq!(turns.len(), 4);
    assert_eq!(
        types(&turns[0].events),
        [
            "commands.available",
            "reasoning.delta",
            "reasoning.completed",
            "message.delta",
            "message.delta",
            "message.completed",
            "usage",
            "run.completed"
        ]
    );
    // Gemini CLI's token counts come from `_meta.quota`.
    assert!(turns[0].events.contains(&AgentEvent::Usage(TokenUsage {
        input: 10,
        cached: 0,
        output: 5,
        reasoning: 0,
        cost_usd: None,
    })));
    // The write: asked about before any `tool_call`, then completed with its diff.
    let write = &turns[1].events;
    assert_eq!(
        types(write),
        [
            "message.delta",
            "message.completed",
            "tool.started",
            "approval.requested",
            "file.changed",
            "tool.completed",
            "message.delta",
            "message.completed",
            "usage",
            "run.completed"
        ]
    );
    let shell = &turns[2].events;
    assert!(shell.iter().any(|e| matches!(e,
        AgentEvent::ApprovalRequested { kind: ApprovalKind::Command, command: Some(c), .. }
            if c == "echo hi-from-shell > shell.txt")));
    assert_eq!(turns[3].outcome, Some(RunOutcome::Interrupted));
    insta::assert_json_snapshot!(
        "gemini_offline",
        turns.iter().map(|t| &t.events).collect::<Vec<_>>()
    );
}

#[test]
fn gemini_failed_tools_end_failed_with_their_message() {
    // The missing-file gotcha: the client answered the read with an error.
    let turns = replay("gemini-tools.jsonl");
    assert!(turns[0].events.iter().any(|e| matches!(e,
        AgentEvent::ToolCompleted { status: ToolStatus::Failed, output: Some(o), .. }
            if o.contains("No such file or directory"))));
    // `proceed_always` on an edit in an untrusted folder.
    let turns = replay("gemini-write-load.jsonl");
    let last = turns.last().unwrap();
    assert!(last.events.iter().any(|e| matches!(e,
        AgentEvent::ToolCompleted { status: ToolStatus::Failed, output: Some(o), .. }
            if o.contains("Cannot enable privileged approval modes"))));
    assert!(!last.events.iter().any(|e| e.type_name() == "file.changed"));
}

#[test]
fn a_rejected_call_ends_declined_and_open_ones_interrupted() {
    let mut t = AcpTranslator::new();
    let mut out = Vec::new();
    let call = |id: &str, status: &str| {
        serde_json::from_value(json!({"sessionUpdate": "tool_call", "toolCallId": id,
            "title": "bash", "kind": "execute", "status": status}))
        .unwrap()
    };
    t.on_update(call("a", "pending"), &mut out);
    t.on_update(call("b", "pending"), &mut out);
    t.mark_declined("a");
    t.on_update(
        serde_json::from_value(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "a", "status": "failed"}),
        )
        .unwrap(),
        &mut out,
    );
    t.fail("gone".into(), None, &mut out);
    let status = |id: &str| {
        out.iter().find_map(|e| match e {
            AgentEvent::ToolCompleted {
                item_id, status, ..
            } if item_id == id => Some(*status),
            _ => None,
        })
    };
    assert_eq!(status("a"), Some(ToolStatus::Declined));
    assert_eq!(status("b"), Some(ToolStatus::Interrupted));
    assert_eq!(out.iter().filter(|e| e.is_terminal()).count(), 1);
}

#[test]
fn unknown_updates_are_diagnostics_and_plans_a_checklist() {
    let mut t = AcpTranslator::new();
    let mut out = Vec::new();
    t.on_update(
        serde_json::from_value(json!({"sessionUpdate": "future_thing", "x": 1})).unwrap(),
        &mut out,
    );
    t.on_update(
        serde_json::from_value(json!({"sessionUpdate": "plan", "entries": [
            {"content": "read", "priority": "high", "status": "completed"},
            {"content": "write", "priority": "low", "status": "in_progress"},
            {"content": "ship", "status": "blocked"}]}))
        .unwrap(),
        &mut out,
    );
    t.on_update(
        serde_json::from_value(json!({"sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": "replayed"}}))
        .unwrap(),
        &mut out,
    );
    assert!(
        matches!(&out[0], AgentEvent::EngineDiagnostic { message, raw: Some(_), .. }
        if message.contains("future_thing"))
    );
    let plans: Vec<_> = out
        .iter()
        .filter_map(|e| match e {
            AgentEvent::PlanUpdated { item_id, plan } => Some((item_id, plan)),
            _ => None,
        })
        .collect();
    assert_eq!(plans.len(), 1, "{out:#?}");
    assert_eq!(plans[0].0, "plan");
    let steps: Vec<_> = plans[0]
        .1
        .entries
        .iter()
        .map(|e| (e.step.as_str(), e.status))
        .collect();
    use agentdesk_protocol::plan::PlanStatus as S;
    assert_eq!(
        steps,
        [
            ("read", S::Completed),
            ("write", S::InProgress),
            ("ship", S::Pending)
        ]
    );
    // The unknown status is said, once.
    assert!(out.iter().any(|e| matches!(e,
        AgentEvent::EngineDiagnostic { message, .. } if message.contains("`blocked`"))));
    assert_eq!(out.len(), 3);
    assert!(t.outcome().is_none());
}

#[test]
fn stop_reasons_map_to_the_terminal_event() {
    let end = |reason: &str| {
        let mut t = AcpTranslator::new();
        let mut out = Vec::new();
        let r: PromptResponse = serde_json::from_value(json!({"stopReason": reason})).unwrap();
        t.on_prompt_result(r, &mut out);
        out.pop().unwrap()
    };
    assert_eq!(
        end("end_turn"),
        AgentEvent::RunCompleted {
            stop_reason: "end_turn".into()
        }
    );
    assert_eq!(end("cancelled"), AgentEvent::RunInterrupted {});
    for (reason, words) in [
        ("refusal", "refused"),
        ("max_tokens", "token limit"),
        ("max_turn_requests", "model requests"),
    ] {
        let AgentEvent::RunFailed { error, code } = end(reason) else {
            panic!("{reason}")
        };
        assert!(error.contains(words), "{error}");
        assert_eq!(code.as_deref(), Some(reason));
    }
    assert_eq!(
        end("newer_reason"),
        AgentEvent::RunCompleted {
            stop_reason: "newer_reason".into()
        }
    );
}

fn options_of(name: &str) -> Vec<PermissionOption> {
    replay(name)
        .into_iter()
        .flat_map(|t| t.permissions)
        .next()
        .unwrap()
        .options
}

fn picked(r: Result<RequestPermissionOutcome, EngineError>) -> String {
    match r.unwrap() {
        RequestPermissionOutcome::Selected { option_id } => option_id,
        RequestPermissionOutcome::Cancelled => "<cancelled>".into(),
    }
}

#[test]
fn decisions_pick_the_offered_option_by_kind() {
    let opencode = options_of("opencode-offline-ask.jsonl");
    let gemini = options_of("gemini-write.jsonl");
    assert_eq!(
        picked(choose_option(&opencode, UserDecision::ApproveOnce, true)),
        "once"
    );
    assert_eq!(
        picked(choose_option(
            &opencode,
            UserDecision::ApproveForSession,
            true
        )),
        "always"
    );
    assert_eq!(
        picked(choose_option(&opencode, UserDecision::Deny, true)),
        "reject"
    );
    assert_eq!(
        picked(choose_option(&gemini, UserDecision::ApproveOnce, false)),
        "proceed_once"
    );
    // Gemini CLI refuses `proceed_always` for edits: "for the session" stays once.
    assert_eq!(
        picked(choose_option(
            &gemini,
            UserDecision::ApproveForSession,
            false
        )),
        "proceed_once"
    );
    assert_eq!(
        picked(choose_option(&gemini, UserDecision::Deny, false)),
        "cancel"
    );
    // An agent that offers no rejection: the request is cancelled (nothing runs).
    let allow_only: Vec<PermissionOption> = opencode
        .iter()
        .filter(|o| o.option_id != "reject")
        .cloned()
        .collect();
    assert_eq!(
        picked(choose_option(&allow_only, UserDecision::Deny, true)),
        "<cancelled>"
    );
    // Only "always": allowing once is refused, not widened.
    let always_only: Vec<PermissionOption> = opencode
        .iter()
        .filter(|o| o.option_id == "always")
        .cloned()
        .collect();
    assert!(matches!(
        choose_option(&always_only, UserDecision::ApproveOnce, true),
        Err(EngineError::Unsupported(_))
    ));
}
