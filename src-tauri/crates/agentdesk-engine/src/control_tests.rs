use std::sync::{Arc, Mutex};

use agentdesk_protocol::events::{AgentEvent, ApprovalState, UserDecision};
use serde_json::json;

use super::*;

#[test]
fn a_question_decided_or_an_approval_answered_is_the_same_error_and_stays_held() {
    let mut p: PendingRequests<&str> = PendingRequests::default();
    p.hold_approval("a".into(), "approval");
    p.hold_question("q".into(), "question");
    let e = p.take_approval("q").unwrap_err();
    assert!(
        matches!(&e, EngineError::Unsupported(m) if m.contains("answer it instead")),
        "{e}"
    );
    let e = p.take_question("a").unwrap_err();
    assert!(
        matches!(&e, EngineError::Unsupported(m) if m.contains("decide it instead")),
        "{e}"
    );
    assert_eq!(p.take_question("q").unwrap(), "question");
    assert_eq!(p.take_approval("a").unwrap(), "approval");
    assert!(matches!(
        p.take_approval("a"),
        Err(EngineError::NotPending { .. })
    ));
    assert!(p.is_empty());
}

#[test]
fn expiring_ends_everything_in_arrival_order_and_withdrawing_cancels_one() {
    let mut p: PendingRequests<u32> = PendingRequests::default();
    let ids: Vec<String> = (0..3).map(|_| PendingRequests::<u32>::new_id()).collect();
    p.hold_question(ids[2].clone(), 2);
    p.hold_approval(ids[0].clone(), 0);
    p.hold_approval(ids[1].clone(), 1);
    let mut out = Vec::new();
    p.withdraw(|n| *n == 1, &mut out);
    assert_eq!(
        out,
        [AgentEvent::ApprovalResolved {
            request_id: ids[1].clone(),
            outcome: ApprovalState::Cancelled
        }]
    );
    out.clear();
    p.expire_all(&mut out);
    assert_eq!(
        out,
        [
            AgentEvent::ApprovalResolved {
                request_id: ids[0].clone(),
                outcome: ApprovalState::Expired
            },
            AgentEvent::QuestionAnswered {
                request_id: ids[2].clone(),
                answers: None
            },
        ]
    );
    assert!(p.is_empty());
}

/// Records what reaches the run task; answers every decision/answer with `Ok`.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl CommandSink for Recorder {
    fn deliver(&self, command: Command) -> bool {
        let line = match command {
            Command::Interrupt => "interrupt".to_owned(),
            Command::Resolve {
                request_id,
                decision,
                reply,
            } => {
                let _ = reply.send(Ok(()));
                format!(
                    "resolve {request_id} {:?} stop={}",
                    decision.decision, decision.stop
                )
            }
            Command::Answer {
                request_id,
                answers,
                reply,
            } => {
                let _ = reply.send(Ok(()));
                format!("answer {request_id} {answers:?}")
            }
        };
        self.0.lock().unwrap().push(line);
        true
    }
}

#[tokio::test]
async fn the_handle_refuses_what_the_engine_cannot_do_before_it_reaches_the_run() {
    let seen = Recorder::default();
    let codex = RunHandle::new(Engine::Codex, seen.clone());
    let edited = ApprovalDecision::allow_edited(json!({"command": "ls"}));
    let err = codex
        .resolve_approval("r1", edited.clone())
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::Unsupported(_)), "{err}");
    assert!(
        seen.0.lock().unwrap().is_empty(),
        "the refused decision reached the run"
    );

    let claude = RunHandle::new(Engine::Claude, seen.clone());
    claude.resolve_approval("r1", edited).await.unwrap();
    codex
        .resolve_approval("r2", ApprovalDecision::deny_and_stop("no"))
        .await
        .unwrap();
    codex.skip_question("q1").await.unwrap();
    assert_eq!(
        *seen.0.lock().unwrap(),
        [
            "resolve r1 ApproveOnce stop=false",
            "resolve r2 Deny stop=true",
            "answer q1 {}"
        ]
    );
}

#[tokio::test]
async fn a_handle_whose_run_is_gone_says_not_pending() {
    struct Gone;
    impl CommandSink for Gone {
        fn deliver(&self, _: Command) -> bool {
            false
        }
    }
    let h = RunHandle::new(Engine::Claude, Gone);
    let err = h
        .resolve_approval("x", UserDecision::ApproveOnce)
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::NotPending { .. }), "{err}");
}

#[test]
fn the_crash_message_names_the_status_and_the_last_ten_lines() {
    let tail: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    let msg = crash_message("Claude Code", None, &tail);
    assert!(
        msg.starts_with("Claude Code stopped unexpectedly. Last output:\nline 3\n"),
        "{msg}"
    );
    assert!(msg.ends_with("line 12"), "{msg}");
    assert_eq!(crash_message("X", None, "  "), "X stopped unexpectedly");
}
