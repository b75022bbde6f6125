//! The run reducer over real event sequences (tests/fixtures/events, see its README): the
//! resulting timeline items are snapshotted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use agentdesk_core::timeline::RunReducer;
use agentdesk_protocol::events::AgentEvent;
use common::events;

/// The queue's id for an engine request, as the pump links it before the request's event.
fn linked(r: &mut RunReducer, ev: &AgentEvent) {
    if let AgentEvent::ApprovalRequested { request_id, .. }
    | AgentEvent::QuestionAsked { request_id, .. } = ev
    {
        r.link_approval(request_id, format!("approval-{request_id}").into());
    }
}

fn reduce(name: &str) -> RunReducer {
    let mut r = RunReducer::with_clock(&"session".into(), &"run".into(), Box::new(|| 0));
    let evs = events(name);
    let last = evs.len() - 1;
    for (i, ev) in evs.iter().enumerate() {
        linked(&mut r, ev);
        let ended = r.apply(ev);
        assert_eq!(ended, i == last, "{name}: only the last event ends the run");
    }
    r
}

macro_rules! snapshot {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let r = reduce(stringify!($name));
            insta::assert_yaml_snapshot!(stringify!($name), (r.outcome().map(|o| format!("{o:?}")), r.items()));
        }
    )*};
}

snapshot!(
    codex_s1_text,
    codex_s2_approval_accept,
    codex_s2_approval_decline,
    codex_s3_interrupt,
    codex_s6_file_change_approval,
    codex_s7_request_user_input,
    codex_s8_model_http_error,
    codex_s10_streaming_command,
    claude_write_allow,
    claude_subagent,
);

#[test]
fn deltas_are_coalesced_into_one_item_change() {
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    for piece in ["Hel", "lo ", "wor", "ld"] {
        r.apply(&AgentEvent::MessageDelta {
            item_id: "m".into(),
            text: piece.into(),
        });
    }
    let dirty = r.take_dirty();
    assert_eq!(dirty.len(), 1, "four deltas, one changed item");
    assert_eq!(
        serde_json::to_value(&dirty[0].body).unwrap()["text"],
        "Hello world"
    );
    assert!(r.take_dirty().is_empty());
    // Stragglers after the end are ignored.
    assert!(r.apply(&AgentEvent::RunInterrupted {}));
    assert!(!r.apply(&AgentEvent::MessageDelta {
        item_id: "m".into(),
        text: "late".into()
    }));
    let items = r.take_dirty();
    assert_eq!(
        items[0].status,
        agentdesk_protocol::ui::ItemStatus::Interrupted
    );
    assert_eq!(
        serde_json::to_value(&items[0].body).unwrap()["text"],
        "Hello world"
    );
}

/// Claude asks through a tool call: the question names the tool's item. Both rows must exist
/// (the tool card and the question form), or the window shows a tool stuck "running" and no
/// way to answer.
#[test]
fn a_question_asked_by_a_tool_call_gets_its_own_row() {
    use agentdesk_protocol::events::{Question, QuestionOption, ToolKind};
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    r.apply(&AgentEvent::ToolStarted {
        item_id: "toolu_q".into(),
        kind: ToolKind::Other,
        name: "AskUserQuestion".into(),
        input: serde_json::json!({}),
    });
    r.link_approval("req_q", "a-q".into());
    r.apply(&AgentEvent::QuestionAsked {
        request_id: "req_q".into(),
        item_id: Some("toolu_q".into()),
        questions: vec![Question {
            id: "q0".into(),
            header: None,
            question: "Which color?".into(),
            options: vec![QuestionOption {
                label: "Blue".into(),
                description: None,
            }],
            allow_other: false,
            secret: false,
        }],
    });
    let kinds: Vec<String> = r
        .items()
        .iter()
        .map(|i| serde_json::to_value(&i.body).unwrap()["kind"].to_string())
        .collect();
    assert_eq!(kinds, ["\"tool\"", "\"question\""], "{kinds:?}");
    // The question row names the queue's record (its questions and answers are the record's).
    let q = serde_json::to_value(&r.items()[1].body).unwrap();
    assert_eq!(q["approvalId"], "a-q", "{q}");
    assert_eq!(
        r.items()[1].status,
        agentdesk_protocol::ui::ItemStatus::Completed
    );
}

/// A request linked after its item exists (the queue answered late) still names it, as one
/// more change of that item; the engine's word on how it ended changes no item (the record
/// says so).
#[test]
fn a_late_link_names_the_approval_and_the_engines_outcome_changes_no_item() {
    use agentdesk_protocol::events::{ApprovalKind, ApprovalState};
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    r.apply(&AgentEvent::ApprovalRequested {
        request_id: "req".into(),
        kind: ApprovalKind::Permission,
        item_id: None,
        command: None,
        cwd: None,
        files: Vec::new(),
        reason: None,
        detail: None,
        subagent: None,
    });
    assert_eq!(r.take_changed().len(), 1);
    r.link_approval("req", "a1".into());
    let changed = r.take_changed();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        changed[0].body,
        agentdesk_protocol::ui::ItemBody::Approval {
            approval_id: Some("a1".into())
        }
    );
    r.apply(&AgentEvent::ApprovalResolved {
        request_id: "req".into(),
        outcome: ApprovalState::Denied,
    });
    assert!(
        r.take_changed().is_empty(),
        "the record, not the item, says denied"
    );
    assert_eq!(
        r.take_dirty().len(),
        1,
        "the recorder still has the linked item to write"
    );
}

/// The answer to a secret question reaches the engine, never the timeline row (which the
/// store keeps and the window shows): the row holds no answer at all (the record keeps them,
/// masked: see the queue's tests) (issue 19, item 8).
#[test]
fn a_secret_answer_is_masked_in_the_timeline() {
    use agentdesk_protocol::events::Question;
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    let q = |id: &str, secret: bool| Question {
        id: id.into(),
        header: None,
        question: format!("{id}?"),
        options: Vec::new(),
        allow_other: true,
        secret,
    };
    r.apply(&AgentEvent::QuestionAsked {
        request_id: "req_s".into(),
        item_id: None,
        questions: vec![q("token", true), q("name", false)],
    });
    let answers = std::collections::BTreeMap::from([
        ("token".to_string(), vec!["sk-live-123456789".to_string()]),
        ("name".to_string(), vec!["deploy".to_string()]),
    ]);
    r.apply(&AgentEvent::QuestionAnswered {
        request_id: "req_s".into(),
        answers: Some(answers),
    });
    let row = serde_json::to_string(&r.items()[0].body).unwrap();
    assert!(!row.contains("sk-live"), "{row}");
    assert!(!row.contains("deploy"), "{row}");
}

#[test]
fn a_plan_is_one_item_showing_its_last_list() {
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    let plan = |statuses: [&str; 2]| -> AgentEvent {
        serde_json::from_value(serde_json::json!({"type": "plan.updated", "itemId": "plan",
            "plan": {"explanation": null, "entries": [
                {"id": null, "step": "Read the code", "activeForm": null, "status": statuses[0]},
                {"id": null, "step": "Write the fix", "activeForm": "Writing the fix", "status": statuses[1]}]}}))
        .unwrap()
    };
    r.apply(&plan(["in_progress", "pending"]));
    r.apply(&AgentEvent::MessageCompleted {
        item_id: "m".into(),
        text: "Reading.".into(),
    });
    r.take_dirty();
    r.apply(&plan(["completed", "in_progress"]));
    let changed = r.take_dirty();
    assert_eq!(changed.len(), 1, "only the plan item changed");
    r.apply(&AgentEvent::RunCompleted {
        stop_reason: "completed".into(),
    });
    insta::assert_yaml_snapshot!("plan_updates", r.items());
}

#[test]
fn an_item_is_nested_only_under_a_call_the_run_showed() {
    let mut r = RunReducer::with_clock(&"s".into(), &"r".into(), Box::new(|| 0));
    r.apply(&AgentEvent::ToolStarted {
        item_id: "agent1".into(),
        kind: agentdesk_protocol::events::ToolKind::Agent,
        name: "Agent".into(),
        input: serde_json::json!({}),
    });
    for (item, parent) in [
        ("sub", "agent1"),
        ("orphan", "nowhere"),
        ("agent1", "agent1"),
    ] {
        r.apply(&AgentEvent::ItemParent {
            item_id: item.into(),
            parent_item_id: parent.into(),
        });
        r.apply(&AgentEvent::MessageCompleted {
            item_id: item.into(),
            text: item.into(),
        });
    }
    let parent_of = |id: &str| {
        r.items()
            .iter()
            .find(|i| i.id == format!("r:{id}"))
            .unwrap()
            .parent_id
            .clone()
    };
    assert_eq!(parent_of("sub").as_deref(), Some("r:agent1"));
    assert_eq!(parent_of("orphan"), None);
    assert_eq!(parent_of("agent1"), None);
}
