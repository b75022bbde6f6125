#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use agentdesk_protocol::ui::{Engine, PermissionMode, Run, Session, Workspace};
use agentdesk_store::NewRun;
use proptest::prelude::*;

use super::*;

type Log = Arc<Mutex<Vec<(String, ApprovalAnswer)>>>;

fn responder(log: &Log, engine_request_id: &str) -> Box<dyn Responder> {
    let log = log.clone();
    let id = engine_request_id.to_string();
    Box::new(move |a: ApprovalAnswer| log.lock().unwrap().push((id, a)))
}

async fn setup() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store
        .insert_workspace(&Workspace {
            id: "w".into(),
            name: "w".into(),
            path: "/w".into(),
            host: None,
            created_at: 1,
        })
        .await
        .unwrap();
    store
        .insert_session(&Session::begun(
            "s".into(),
            "w".into(),
            Engine::Codex,
            "",
            1,
        ))
        .await
        .unwrap();
    for r in ["r0", "r1"] {
        let _: Run = store
            .create_run(&NewRun::running(&r.into(), &"s".into(), "p", 1))
            .await
            .unwrap();
    }
    (dir, store)
}

fn ask(run: &str, req: &str, kind: ApprovalKindName) -> ApprovalAsk {
    ApprovalAsk {
        session_id: "s".into(),
        run_id: run.into(),
        item_id: Some(format!("item-{req}")),
        engine_request_id: req.into(),
        kind,
        request: ApprovalRequest {
            command: (kind == ApprovalKindName::Command).then(|| "cargo test".into()),
            ..Default::default()
        },
        suggestions: Value::Null,
    }
}

fn ask_policy() -> ApprovalPolicy {
    ApprovalPolicy {
        permission_mode: PermissionMode::Ask,
        // An absolute path on every platform (`/w` has no drive on Windows): a root that is
        // not absolute resolves to nothing, and no read would be auto-approved there.
        workspace_root: if cfg!(windows) { "C:/w" } else { "/w" }.into(),
        ..Default::default()
    }
}

fn approve() -> ApprovalAnswer {
    ApprovalAnswer::Decision(UserDecision::ApproveOnce.into())
}

#[tokio::test]
async fn a_decision_is_applied_once_and_published() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let mut changes = q.subscribe();
    let mut pending = q.watch_pending();
    let log: Log = Default::default();
    let r = q
        .request(
            ask("r0", "e1", ApprovalKindName::Command),
            &ask_policy(),
            responder(&log, "e1"),
        )
        .await
        .unwrap();
    let Requested::Pending(a) = r else {
        panic!("{r:?}")
    };
    assert!(pending.has_changed().unwrap());
    assert_eq!(
        pending
            .borrow_and_update()
            .iter()
            .map(|a| a.id.as_str())
            .collect::<Vec<_>>(),
        [a.id.as_str()]
    );
    assert!(matches!(
        changes.recv().await.unwrap(),
        ApprovalChange::Added { .. }
    ));
    assert!(
        log.lock().unwrap().is_empty(),
        "nothing answered before the user decides"
    );

    let decided = q
        .decide(&a.id, approve(), DecidedBy::Notification)
        .await
        .unwrap();
    assert_eq!(
        (decided.state, decided.decided_by),
        (ApprovalState::ApprovedOnce, Some(DecidedBy::Notification))
    );
    assert_eq!(
        log.lock().unwrap().as_slice(),
        [("e1".to_string(), approve())]
    );
    assert!(q.pending().is_empty());
    assert!(matches!(
        changes.recv().await.unwrap(),
        ApprovalChange::Resolved { .. }
    ));

    let err = q
        .decide(&a.id, approve(), DecidedBy::User)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("no longer pending (it is approved_once)"),
        "{err}"
    );
    assert_eq!(err.code(), agentdesk_protocol::ui::ErrorCode::Conflict);
    assert_eq!(log.lock().unwrap().len(), 1, "never answered twice");
}

#[tokio::test]
async fn rules_decide_without_reaching_the_user() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let mut changes = q.subscribe();
    let log: Log = Default::default();
    let mut read = ask("r0", "e1", ApprovalKindName::Tool);
    read.request.tool = Some("Read".into());
    let r = q
        .request(read, &ask_policy(), responder(&log, "e1"))
        .await
        .unwrap();
    let Requested::AutoDecided(a) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        (a.state, a.decided_by),
        (ApprovalState::ApprovedOnce, Some(DecidedBy::Rule))
    );
    assert_eq!(
        store.get_approval(&a.id).await.unwrap().state,
        ApprovalState::ApprovedOnce
    );
    assert_eq!(log.lock().unwrap().len(), 1);
    // Announced once, already decided (the window draws its card from the record), never
    // as waiting: nothing notifies the user of it.
    match changes.try_recv() {
        Ok(ApprovalChange::Resolved { approval }) => assert_eq!(approval, a),
        other => panic!("{other:?}"),
    }
    assert!(
        changes.try_recv().is_err(),
        "auto-decided requests never wait"
    );
    assert!(q.pending().is_empty());
    assert!(q.pending().is_empty());

    // "Always for this session": the next identical command is approved by rule.
    let Requested::Pending(a) = q
        .request(
            ask("r0", "e2", ApprovalKindName::Command),
            &ask_policy(),
            responder(&log, "e2"),
        )
        .await
        .unwrap()
    else {
        panic!()
    };
    let session = ApprovalAnswer::Decision(UserDecision::ApproveForSession.into());
    q.decide(&a.id, session, DecidedBy::User).await.unwrap();
    let again = q
        .request(
            ask("r1", "e3", ApprovalKindName::Command),
            &ask_policy(),
            responder(&log, "e3"),
        )
        .await
        .unwrap();
    assert!(
        matches!(again, Requested::AutoDecided(ref a) if a.decision.as_ref().unwrap().rule.as_deref() == Some("approved for this session: command `cargo test`")),
        "{again:?}"
    );

    // Read-only profile: a command is denied by rule, with the reason recorded.
    let ro = ApprovalPolicy {
        permission_mode: PermissionMode::ReadOnly,
        ..ask_policy()
    };
    let mut other = ask("r0", "e4", ApprovalKindName::Command);
    other.request.command = Some("rm x".into());
    let denied = q.request(other, &ro, responder(&log, "e4")).await.unwrap();
    assert_eq!(denied.approval().state, ApprovalState::Denied);
    assert!(matches!(
        &log.lock().unwrap()[3].1,
        ApprovalAnswer::Decision(ApprovalDecision {
            decision: UserDecision::Deny,
            message: Some(_),
            ..
        })
    ));
}

#[tokio::test]
async fn deadline_ends_in_a_safe_deny_recorded_as_timed_out() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let policy = ApprovalPolicy {
        timeout_secs: Some(1),
        ..ask_policy()
    };
    let Requested::Pending(a) = q
        .request(
            ask("r0", "e1", ApprovalKindName::Command),
            &policy,
            responder(&log, "e1"),
        )
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(a.deadline_at.is_some());
    let mut w = q.watch_pending();
    tokio::time::timeout(Duration::from_secs(5), w.wait_for(|p| p.is_empty()))
        .await
        .unwrap()
        .unwrap();
    let t = store.get_approval(&a.id).await.unwrap();
    assert_eq!(
        (t.state, t.decided_by),
        (ApprovalState::TimedOut, Some(DecidedBy::Deadline))
    );
    assert!(matches!(
        &log.lock().unwrap()[0].1,
        ApprovalAnswer::Decision(ApprovalDecision {
            decision: UserDecision::Deny,
            ..
        })
    ));
    assert!(q.decide(&a.id, approve(), DecidedBy::User).await.is_err());
}

#[tokio::test]
async fn engine_exit_and_restart_expire_without_answering() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let Requested::Pending(a0) = q
        .request(
            ask("r0", "e1", ApprovalKindName::Command),
            &ask_policy(),
            responder(&log, "e1"),
        )
        .await
        .unwrap()
    else {
        panic!()
    };
    let Requested::Pending(a1) = q
        .request(
            ask("r1", "e2", ApprovalKindName::Question),
            &ask_policy(),
            responder(&log, "e2"),
        )
        .await
        .unwrap()
    else {
        panic!()
    };
    let ended = q
        .end_run(&"r0".into(), ApprovalState::Expired)
        .await
        .unwrap();
    assert_eq!(
        ended.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [a0.id.as_str()]
    );
    assert_eq!(ended[0].decided_by, None);
    assert_eq!(q.pending().len(), 1);

    // A new process over the same database.
    let q2 = ApprovalQueue::new(store.clone());
    let recovered = q2.recover().await.unwrap();
    assert_eq!(
        recovered.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [a1.id.as_str()]
    );
    let answers = ApprovalAnswer::Answers([("q".to_string(), vec!["yes".to_string()])].into());
    let err = q2
        .decide(&a1.id, answers.clone(), DecidedBy::User)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("it is expired"), "{err}");
    // The old process still holds the request, but the row says expired: refused too.
    let err = q
        .decide(&a1.id, answers, DecidedBy::User)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no longer pending"), "{err}");
    assert!(
        log.lock().unwrap().is_empty(),
        "no answer ever went to an engine"
    );
    assert!(q.pending().is_empty());
}

#[tokio::test]
async fn questions_take_answers_not_approvals() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let Requested::Pending(a) = q
        .request(
            ask("r0", "e1", ApprovalKindName::Question),
            &ApprovalPolicy {
                permission_mode: PermissionMode::FullAuto,
                ..ask_policy()
            },
            responder(&log, "e1"),
        )
        .await
        .unwrap()
    else {
        panic!("questions are never auto-decided")
    };
    assert!(q
        .decide(&a.id, approve(), DecidedBy::User)
        .await
        .unwrap_err()
        .to_string()
        .contains("is a question"));
    let answers = ApprovalAnswer::Answers([("q".to_string(), vec!["yes".to_string()])].into());
    let done = q
        .decide(&a.id, answers.clone(), DecidedBy::User)
        .await
        .unwrap();
    assert_eq!(done.state, ApprovalState::Answered);
    assert_eq!(done.decision.unwrap().answers.unwrap()["q"], ["yes"]);
    assert_eq!(log.lock().unwrap()[0].1, answers);
}

/// A secret question's answer reaches the engine as typed, but what is stored (and so what
/// the timeline and exports show) is one fixed mask: neither the value nor its length.
#[tokio::test]
async fn a_secret_answer_reaches_the_engine_and_is_stored_masked() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let question = |id: &str, secret: bool| Question {
        id: id.into(),
        header: None,
        question: format!("{id}?"),
        options: Vec::new(),
        allow_other: true,
        secret,
    };
    let mut asked = ask("r0", "e1", ApprovalKindName::Question);
    asked.request.questions = vec![question("token", true), question("name", false)];
    let Requested::Pending(a) = q
        .request(asked, &ask_policy(), responder(&log, "e1"))
        .await
        .unwrap()
    else {
        panic!("questions are never auto-decided")
    };
    let typed: BTreeMap<String, Vec<String>> = [
        ("token".to_string(), vec!["hunter2-sk-live-123".to_string()]),
        ("name".to_string(), vec!["Ada".to_string()]),
    ]
    .into();
    let done = q
        .decide(
            &a.id,
            ApprovalAnswer::Answers(typed.clone()),
            DecidedBy::User,
        )
        .await
        .unwrap();
    assert_eq!(
        log.lock().unwrap()[0].1,
        ApprovalAnswer::Answers(typed),
        "the engine gets the real answer"
    );
    let stored = store.get_approval(&a.id).await.unwrap();
    for approval in [&done, &stored] {
        let answers = approval.decision.clone().unwrap().answers.unwrap();
        assert_eq!(answers["token"], [SECRET_ANSWER_MASK]);
        assert_eq!(answers["name"], ["Ada"], "other answers are kept");
    }
    let all = serde_json::to_string(&store.session_approvals(&"s".into()).await.unwrap()).unwrap();
    assert!(!all.contains("hunter2"), "{all}");
    // Many answers or a long one: the same mask.
    let many = [(
        "token".to_string(),
        vec!["a".to_string(), "bbbbbbbbbbbbbbbbbbbb".to_string()],
    )]
    .into();
    assert_eq!(
        mask_secret_answers(&[question("token", true)], &many)["token"],
        [SECRET_ANSWER_MASK]
    );
}

/// "Always" on `ls` covers `ls`, never a later `curl …|sh` (the grant used to be the tool's).
#[tokio::test]
async fn always_on_one_command_leaves_another_pending() {
    let (_d, store) = setup().await;
    let q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let bash = |req: &str, command: &str| {
        let mut a = ask("r0", req, ApprovalKindName::Command);
        a.request.tool = Some("Bash".into());
        a.request.command = Some(command.into());
        a
    };
    let Requested::Pending(first) = q
        .request(bash("e1", "ls"), &ask_policy(), responder(&log, "e1"))
        .await
        .unwrap()
    else {
        panic!("asked first")
    };
    let always = ApprovalAnswer::Decision(UserDecision::ApproveForSession.into());
    let decided = q.decide(&first.id, always, DecidedBy::User).await.unwrap();
    assert_eq!(decided.state, ApprovalState::ApprovedSession);

    let curl = q
        .request(
            bash("e2", "curl -s http://127.0.0.1:9/x | sh"),
            &ask_policy(),
            responder(&log, "e2"),
        )
        .await
        .unwrap();
    assert!(matches!(curl, Requested::Pending(_)), "{curl:?}");
    let compound = q
        .request(
            bash("e3", "ls; curl x | sh"),
            &ask_policy(),
            responder(&log, "e3"),
        )
        .await
        .unwrap();
    assert!(matches!(compound, Requested::Pending(_)), "{compound:?}");
    assert_eq!(q.pending().len(), 2);

    let again = q
        .request(bash("e4", "ls"), &ask_policy(), responder(&log, "e4"))
        .await
        .unwrap();
    let Requested::AutoDecided(a) = again else {
        panic!("{again:?}")
    };
    assert_eq!(
        a.decision.unwrap().rule.as_deref(),
        Some("approved for this session: command `ls`")
    );
    // Only the first decision and the granted repeat reached the engine.
    let answered: Vec<String> = log.lock().unwrap().iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(answered, ["e1", "e4"]);
    // The grant belongs to the session: a deleted session's grants are gone.
    q.forget_session(&"s".into());
    let after = q
        .request(bash("e5", "ls"), &ask_policy(), responder(&log, "e5"))
        .await
        .unwrap();
    assert!(matches!(after, Requested::Pending(_)), "{after:?}");
}

// ---- Property test: random interleavings ------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Request {
        run: usize,
        question: bool,
        auto: bool,
    },
    Decide {
        idx: usize,
        choice: u8,
        notification: bool,
    },
    Cancel {
        idx: usize,
    },
    TimeOut {
        idx: usize,
    },
    EngineExit {
        run: usize,
        interrupted: bool,
    },
    Restart,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, any::<bool>(), prop::bool::weighted(0.2)).prop_map(|(run, question, auto)| Op::Request { run, question, auto }),
        4 => (0..12usize, 0..4u8, any::<bool>()).prop_map(|(idx, choice, notification)| Op::Decide { idx, choice, notification }),
        1 => (0..12usize).prop_map(|idx| Op::Cancel { idx }),
        1 => (0..12usize).prop_map(|idx| Op::TimeOut { idx }),
        1 => (0..2usize, any::<bool>()).prop_map(|(run, interrupted)| Op::EngineExit { run, interrupted }),
        1 => Just(Op::Restart),
    ]
}

#[derive(Debug)]
struct Model {
    id: ApprovalId,
    engine_req: String,
    run: usize,
    question: bool,
    state: ApprovalState,
    /// Held by the current queue (false once a restart happened while pending).
    held: bool,
    explicit_deny: bool,
}

async fn interleave(ops: Vec<Op>) {
    let (_d, store) = setup().await;
    let mut q = ApprovalQueue::new(store.clone());
    let log: Log = Default::default();
    let mut model: Vec<Model> = Vec::new();
    let mut session_grant = false;
    for (n, op) in ops.into_iter().enumerate() {
        match op {
            Op::Request {
                run,
                question,
                auto,
            } => {
                let req = format!("e{n}");
                let kind = if question {
                    ApprovalKindName::Question
                } else {
                    ApprovalKindName::Command
                };
                let policy = ApprovalPolicy {
                    permission_mode: if auto {
                        PermissionMode::FullAuto
                    } else {
                        PermissionMode::Ask
                    },
                    ..ask_policy()
                };
                let got = q
                    .request(
                        ask(&format!("r{run}"), &req, kind),
                        &policy,
                        responder(&log, &req),
                    )
                    .await
                    .unwrap();
                let expect_auto = !question && (auto || session_grant);
                assert_eq!(
                    matches!(got, Requested::AutoDecided(_)),
                    expect_auto,
                    "{got:?}"
                );
                model.push(Model {
                    id: got.approval().id.clone(),
                    engine_req: req,
                    run,
                    question,
                    state: got.approval().state,
                    held: !expect_auto,
                    explicit_deny: false,
                });
            }
            Op::Decide {
                idx,
                choice,
                notification,
            } => {
                let Some(m) = model.get_mut(idx) else {
                    continue;
                };
                let answer = match choice {
                    0 => approve(),
                    1 => ApprovalAnswer::Decision(UserDecision::ApproveForSession.into()),
                    2 => ApprovalAnswer::Decision(ApprovalDecision {
                        message: Some("no".into()),
                        ..UserDecision::Deny.into()
                    }),
                    _ => ApprovalAnswer::Answers([("q".to_string(), vec!["a".to_string()])].into()),
                };
                let fits = match choice {
                    0 | 1 => !m.question,
                    2 => true,
                    _ => m.question,
                };
                let by = if notification {
                    DecidedBy::Notification
                } else {
                    DecidedBy::User
                };
                let res = q.decide(&m.id, answer, by).await;
                let expect_ok = m.state == ApprovalState::Pending && m.held && fits;
                assert_eq!(res.is_ok(), expect_ok, "decide {idx} on {m:?}: {res:?}");
                if let Ok(a) = res {
                    m.state = a.state;
                    m.held = false;
                    m.explicit_deny = choice == 2;
                    if choice == 1 {
                        session_grant = true;
                    }
                }
            }
            Op::Cancel { idx } | Op::TimeOut { idx } => {
                let Some(m) = model.get_mut(idx) else {
                    continue;
                };
                let cancel = matches!(op, Op::Cancel { .. });
                let res = if cancel {
                    q.cancel(&m.id).await
                } else {
                    q.time_out(&m.id).await
                };
                assert_eq!(
                    res.is_ok(),
                    m.state == ApprovalState::Pending && m.held,
                    "{op:?} on {m:?}: {res:?}"
                );
                if let Ok(a) = res {
                    m.state = a.state;
                    m.held = false;
                }
            }
            Op::EngineExit { run, interrupted } => {
                let state = if interrupted {
                    ApprovalState::Cancelled
                } else {
                    ApprovalState::Expired
                };
                q.end_run(&format!("r{run}").into(), state).await.unwrap();
                for m in model
                    .iter_mut()
                    .filter(|m| m.run == run && m.state == ApprovalState::Pending)
                {
                    m.state = state;
                    m.held = false;
                }
            }
            Op::Restart => {
                drop(q);
                q = ApprovalQueue::new(store.clone());
                q.recover().await.unwrap();
                session_grant = false;
                for m in model
                    .iter_mut()
                    .filter(|m| m.state == ApprovalState::Pending)
                {
                    m.state = ApprovalState::Expired;
                    m.held = false;
                }
            }
        }
        // The pending set published is exactly what is pending in the database and held.
        let mut published: Vec<ApprovalId> = q.pending().into_iter().map(|a| a.id).collect();
        let mut in_db: Vec<ApprovalId> = store
            .pending_approvals()
            .await
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect();
        published.sort();
        in_db.sort();
        assert_eq!(published, in_db);
    }
    let log = log.lock().unwrap().clone();
    for m in &model {
        // No approval lost, and the record agrees with the model.
        let stored = store.get_approval(&m.id).await.unwrap();
        assert_eq!(stored.state, m.state, "{m:?}");
        let answers: Vec<&ApprovalAnswer> = log
            .iter()
            .filter(|(r, _)| *r == m.engine_req)
            .map(|(_, a)| a)
            .collect();
        assert!(answers.len() <= 1, "answered twice: {m:?}");
        let answered_states = [
            ApprovalState::ApprovedOnce,
            ApprovalState::ApprovedSession,
            ApprovalState::Denied,
            ApprovalState::Answered,
            ApprovalState::TimedOut,
        ];
        assert_eq!(
            answers.len() == 1,
            answered_states.contains(&m.state),
            "{m:?} {answers:?}"
        );
        match m.state {
            // "No answer" is never recorded as denied.
            ApprovalState::Denied => assert!(m.explicit_deny, "{m:?}"),
            ApprovalState::TimedOut => assert_eq!(stored.decided_by, Some(DecidedBy::Deadline)),
            ApprovalState::Expired | ApprovalState::Cancelled => {
                assert_eq!(stored.decided_by, None)
            }
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_interleavings_keep_the_queue_sound(ops in prop::collection::vec(op(), 1..40)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(interleave(ops));
    }
}
