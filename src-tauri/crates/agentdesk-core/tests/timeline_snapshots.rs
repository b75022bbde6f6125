//! The run reducer over real event sequences (tests/fixtures/events, see its README): the
//! resulting timeline items are snapshotted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_core::timeline::RunReducer;
use agentdesk_protocol::events::AgentEvent;

fn events(name: &str) -> Vec<AgentEvent> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events")
        .join(format!("{name}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn reduce(name: &str) -> RunReducer {
    let mut r = RunReducer::with_clock("session", "run", Box::new(|| 0));
    let evs = events(name);
    let last = evs.len() - 1;
    for (i, ev) in evs.iter().enumerate() {
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
);

#[test]
fn deltas_are_coalesced_into_one_item_change() {
    let mut r = RunReducer::with_clock("s", "r", Box::new(|| 0));
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
