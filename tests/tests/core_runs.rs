//! The run orchestration of `agentdesk-core` (`Desk::send_message` and friends) with the REAL
//! engines (`CODEX_BIN`, `CLAUDE_BIN`, and the ACP agent opencode, `OPENCODE_BIN`) against the
//! fake model servers on 127.0.0.1: each scenario is written once and run on each. A missing binary is a loud SKIP (a failure under
//! `CI=true`). Every wait is bounded; each scenario ends with `Desk::shutdown` and checks that
//! no engine process is left.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::{NewSession, RunUpdate};
use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::events::{AgentEvent, UserDecision};
use agentdesk_protocol::ids::{ApprovalId, RunId};
use agentdesk_protocol::ui::{
    Approval, ApprovalChange, ApprovalKindName, ApprovalRule, ApprovalState, DecidedBy, Engine,
    ItemBody, LiveOp, ProfileSpec, RuleAction, RunStatus,
};
use agentdesk_tests::fake_messages;
use agentdesk_tests::process::kill9;
use agentdesk_tests::real::{RED_PNG, RED_PNG_B64};
use agentdesk_tests::scenarios;
use agentdesk_tests::world::{self, fresh_root, Fake, World};
use serde_json::json;

const SUITE: &str = "core run suite";

const TEST: Duration = Duration::from_secs(180);

/// What most scenarios ask the agent.
const CREATE: &str = "Please create the file";

/// The world of one scenario, in its own folder; `customise` sets up the profile.
async fn world(
    engine: Engine,
    name: &str,
    bin: &Path,
    customise: impl FnOnce(&mut ProfileSpec),
) -> World {
    let name = format!("{}-{name}", engine.as_str());
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "core_runs", &name);
    World::new(root, engine, bin, None, customise).await
}

/// The model asks to run `touch {file}` (call `call_id`), then gives the answers `then`, one
/// a reply; the run of the message `text`.
async fn send_asking(w: &World, (call_id, file): (&str, &str), then: &[&str], text: &str) -> RunId {
    w.push_command(call_id, &format!("touch {file}"));
    for answer in then {
        w.push_text(&[answer]);
    }
    w.send(text).await
}

/// Like [`send_asking`], with the message [`CREATE`]; the run and its pending approval.
async fn asked(w: &World, call: (&str, &str), then: &[&str]) -> (RunId, Approval) {
    let run_id = send_asking(w, call, then, CREATE).await;
    let a = w.pending(&run_id).await;
    (run_id, a)
}

/// A decision on `a` by the user; the desk's answer.
async fn user_decides(
    w: &World,
    a: &Approval,
    d: impl Into<ApprovalDecision>,
) -> Result<Approval, agentdesk_core::CoreError> {
    w.desk
        .decide_approval(&a.id, d.into(), DecidedBy::User)
        .await
}

/// The agent messages of the session, one a line.
async fn agent_text(w: &World) -> String {
    w.agent_messages().await.join("\n")
}

// ---- the scenarios, written once ----

async fn text(engine: Engine, bin: PathBuf) {
    let w = world(engine, "text", &bin, |_| {}).await;
    let mut updates = w.desk.subscribe_runs();
    w.push_text(&["Hello ", "from ", "zanzibar!"]);
    let run_id = w.send("Say hello").await;
    w.completed(&run_id).await;
    assert_eq!(agent_text(&w).await, "Hello from zanzibar!");
    // The run's completed messages are indexed in the background once it ends (not in the
    // write that completes them, and not only when someone searches).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while w.desk.store().pending_message_index().await.unwrap() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "messages left unindexed after the run"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let hits = w.desk.search("zanzibar", None, 10).await.unwrap();
    assert!(
        hits.iter()
            .any(|h| h.run_id == run_id && h.kind == "agent_message"),
        "{hits:?}"
    );
    // The engine session id is kept for the next message.
    let session = w.desk.get_session(&w.session.id).await.unwrap();
    assert!(session.engine_session_id.is_some());
    // Subscribers saw the stream and the end.
    let (mut deltas, mut ended) = (String::new(), false);
    while let Ok(u) = updates.try_recv() {
        match u {
            RunUpdate::Event {
                event: AgentEvent::MessageDelta { text, .. },
                ..
            } => deltas.push_str(&text),
            RunUpdate::Status { run } if run.id == run_id && run.status.is_terminal() => {
                ended = true
            }
            _ => {}
        }
    }
    assert_eq!(deltas, "Hello from zanzibar!");
    assert!(ended);
    w.finish(&[]).await;
}

async fn approval(engine: Engine, bin: PathBuf) {
    let w = world(engine, "approval", &bin, |_| {}).await;
    // Unmerged: a slow subscriber would get two upserts of the item merged into one.
    let mut updates = w.desk.subscribe_runs_unmerged();
    let (run_id, a) = asked(&w, ("call_core_1", "approved.txt"), &["Done."]).await;
    assert_eq!(a.kind, ApprovalKindName::Command);
    // The item naming the new approval reaches the run's live view once (the approval's
    // state travels as the queue's record, not as item upserts).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(naming_upserts(&mut updates, &a.id), 1);
    assert!(!w.work.join("approved.txt").exists());
    let decided = w.decide(&a, UserDecision::ApproveOnce.into()).await;
    assert_eq!(decided.state, ApprovalState::ApprovedOnce);
    w.completed(&run_id).await;
    assert!(w.work.join("approved.txt").exists());
    assert!(agent_text(&w).await.contains("Done."));
    let again = user_decides(&w, &a, ApprovalDecision::deny("late")).await;
    assert!(again.is_err(), "a second decision was accepted");
    w.finish(&[]).await;
}

/// Live updates (so far) of an item that names `approval_id`.
fn naming_upserts(updates: &mut agentdesk_core::RunUpdates, approval_id: &ApprovalId) -> usize {
    let mut n = 0;
    while let Ok(u) = updates.try_recv() {
        let RunUpdate::Live { ops, .. } = u else {
            continue;
        };
        let shows_it = ops.iter().any(|op| match op {
            LiveOp::Upsert { item } => match &item.body {
                ItemBody::Tool {
                    approval_id: Some(id),
                    ..
                }
                | ItemBody::Approval {
                    approval_id: Some(id),
                } => id == approval_id,
                _ => false,
            },
            _ => false,
        });
        n += usize::from(shows_it);
    }
    n
}

/// "No, and stop": the command never runs, the approval is recorded as denied (not expired),
/// and the run ends interrupted instead of carrying on.
async fn deny_and_stop(engine: Engine, bin: PathBuf) {
    let w = world(engine, "deny-stop", &bin, |_| {}).await;
    let then = ["This answer must not come."];
    let (run_id, a) = asked(&w, ("call_core_stop", "stopped.txt"), &then).await;
    let decided = w
        .decide(&a, ApprovalDecision::deny_and_stop("Stop here."))
        .await;
    assert_eq!(decided.state, ApprovalState::Denied);
    let run = w.wait_run(&run_id).await;
    assert_eq!(run.status, RunStatus::Interrupted, "{run:?}");
    assert!(!w.work.join("stopped.txt").exists());
    assert!(!agent_text(&w).await.contains("must not come"));
    w.finish(&[]).await;
}

/// "Yes, but run this instead": Claude runs the edited input. Codex cannot take an edited
/// command, so the desk refuses the decision up front and the approval stays pending.
async fn edited_input(engine: Engine, bin: PathBuf) {
    let w = world(engine, "edited", &bin, |_| {}).await;
    let (run_id, a) = asked(&w, ("call_core_edit", "original.txt"), &["Done."]).await;
    let edited = ApprovalDecision::allow_edited(serde_json::json!({"command": "touch edited.txt"}));
    let decided = user_decides(&w, &a, edited).await;
    match engine {
        Engine::Claude => {
            assert_eq!(decided.unwrap().state, ApprovalState::ApprovedOnce);
            w.completed(&run_id).await;
            assert!(w.work.join("edited.txt").exists(), "the edited command ran");
            assert!(
                !w.work.join("original.txt").exists(),
                "the original did not"
            );
        }
        // Codex and the ACP agents cannot run an edited command.
        _ => {
            assert!(decided.is_err(), "codex cannot run an edited command");
            let still = w.pending(&run_id).await;
            assert_eq!(still.id, a.id, "the approval is still pending");
            w.decide(&a, ApprovalDecision::deny("no")).await;
            w.completed(&run_id).await;
            assert!(!w.work.join("original.txt").exists());
        }
    }
    w.finish(&[]).await;
}

async fn queued(engine: Engine, bin: PathBuf) {
    let w = world(engine, "queued", &bin, |_| {}).await;
    let then = ["First done.", "Second done."];
    let first = send_asking(
        &w,
        ("call_core_q", "first.txt"),
        &then,
        "First: create the file",
    )
    .await;
    let a = w.pending(&first).await;
    let second = w.message("Second message").await;
    assert_eq!(second.status, RunStatus::Queued);
    // Still queued while the first waits for its approval.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = w.desk.store().get_run(&second.id).await.unwrap();
    assert_eq!(still.status, RunStatus::Queued);
    // A third one is dropped from the queue before it ever starts.
    let third = w.message("Third message").await;
    assert_eq!(third.status, RunStatus::Queued);
    w.desk.interrupt(&third.id).await.unwrap();
    let r3 = w.wait_run(&third.id).await;
    assert_eq!(r3.status, RunStatus::Interrupted, "{r3:?}");
    assert_eq!(r3.started_at, None);
    w.decide(&a, UserDecision::ApproveOnce.into()).await;
    let r1 = w.completed(&first).await;
    let r2 = w.completed(&second.id).await;
    assert!(r2.started_at.unwrap() >= r1.ended_at.unwrap());
    let text = agent_text(&w).await;
    assert!(
        text.contains("First done.") && text.contains("Second done."),
        "{text}"
    );
    w.finish(&[]).await;
}

async fn interrupt(engine: Engine, bin: PathBuf) {
    let w = world(engine, "interrupt", &bin, |_| {}).await;
    let mut updates = w.desk.subscribe_runs();
    w.push_slow_text(200, Duration::from_millis(100));
    let run_id = w.send("Stream a long answer").await;
    tokio::time::timeout(world::STEP, async {
        loop {
            if let Ok(RunUpdate::Event {
                event: AgentEvent::MessageDelta { .. },
                ..
            }) = updates.recv().await
            {
                return;
            }
        }
    })
    .await
    .expect("no text streamed");
    // "Compact database" waits for the run: its writes must not wait on the rewrite.
    let refused = w.desk.compact_database().await.unwrap_err();
    assert_eq!(refused.code(), agentdesk_protocol::ui::ErrorCode::Busy);
    assert!(
        refused.to_string().contains("1 run is in progress"),
        "{refused}"
    );
    // Codex's app-server outlives the run: shutdown must stop it.
    let pid = w.desk.run_engine_pid(&run_id).expect("no engine pid");
    w.desk.interrupt(&run_id).await.unwrap();
    let run = w.wait_run(&run_id).await;
    assert_eq!(run.status, RunStatus::Interrupted, "{run:?}");
    assert!(agent_text(&w).await.starts_with("chunk0"));
    // Once it ended, compacting keeps what it wrote.
    w.desk.compact_database().await.unwrap();
    assert!(agent_text(&w).await.starts_with("chunk0"));
    w.finish(&[pid]).await;
}

async fn engine_killed(engine: Engine, bin: PathBuf) {
    let w = world(engine, "killed", &bin, |_| {}).await;
    let (run_id, a) = asked(&w, ("call_core_kill", "never.txt"), &[]).await;
    let pid = w.desk.run_engine_pid(&run_id).expect("no engine pid");
    kill9(pid);
    let run = w.wait_run(&run_id).await;
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    let error = run.error.unwrap_or_default();
    assert!(error.contains("stopped unexpectedly"), "{error}");
    let a = w.desk.store().get_approval(&a.id).await.unwrap();
    assert_eq!(a.state, ApprovalState::Expired);
    assert!(w.desk.approvals().pending().is_empty());
    assert!(w.desk.store().active_runs().await.unwrap().is_empty());
    let late = user_decides(&w, &a, UserDecision::ApproveOnce).await;
    assert!(late.is_err(), "a decision after the crash was accepted");
    assert!(!w.work.join("never.txt").exists());
    // The next message works again (Codex restarts its app-server, Claude starts a new CLI).
    w.push_text(&["Back again."]);
    let next = w.send("Are you there?").await;
    w.completed(&next).await;
    w.finish(&[pid]).await;
}

async fn image(engine: Engine, bin: PathBuf) {
    let w = world(engine, "image", &bin, |_| {}).await;
    // No extension: the type is sniffed from the bytes.
    let png = w.work.join("picture");
    std::fs::write(&png, RED_PNG).unwrap();
    w.push_text(&["A red square."]);
    let run = w.send_attached("What is in this image?", &[&png]).await;
    w.completed(&run).await;
    assert_eq!(w.fake.image_sent().as_deref(), Some(RED_PNG_B64));
    w.finish(&[]).await;
}

/// A non-image file is not sent inline: the prompt names it and gives its path in the
/// content-addressed store, where the agent can read it.
async fn file_attachment(engine: Engine, bin: PathBuf) {
    let w = world(engine, "file", &bin, |_| {}).await;
    let notes = w.work.join("notes.md");
    std::fs::write(&notes, "# Notes\nThe launch code is 4242.\n").unwrap();
    w.push_text(&["Read it."]);
    let run = w
        .send_attached("Summarise the attached notes", &[&notes])
        .await;
    w.completed(&run).await;
    let stored = w.desk.run_attachments(&run).await.unwrap();
    assert_eq!(stored.len(), 1);
    let path = &stored[0].path;
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        "# Notes\nThe launch code is 4242.\n",
        "the stored copy is the file"
    );
    let seen = match &w.fake {
        Fake::Codex(f) => f.requests().first().unwrap().body["input"].to_string(),
        Fake::Claude(f) => f.model_requests().first().unwrap().transcript(),
        Fake::Chat(f) => f.model_requests().first().unwrap().transcript(),
    };
    assert!(seen.contains("Summarise the attached notes"), "{seen}");
    assert!(seen.contains("notes.md"), "the file is named: {seen}");
    assert!(seen.contains(path.as_str()), "the path is given: {seen}");
    assert!(
        !seen.contains("launch code"),
        "the file is not inlined: {seen}"
    );
    w.finish(&[]).await;
}

async fn rule_auto_approves(engine: Engine, bin: PathBuf) {
    let rule = ApprovalRule {
        kind: Some(ApprovalKindName::Command),
        tool: None,
        command_prefix: None,
        action: RuleAction::Allow,
    };
    let w = world(engine, "rule", &bin, |p| p.approval_rules = vec![rule]).await;
    let mut changes = w.desk.approvals().subscribe();
    let then = ["Done by rule."];
    let run_id = send_asking(&w, ("call_core_rule", "ruled.txt"), &then, CREATE).await;
    w.completed(&run_id).await;
    assert!(w.work.join("ruled.txt").exists());
    let recorded = w.recorded(&run_id).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0].state, ApprovalState::ApprovedOnce);
    assert_eq!(recorded[0].decided_by, Some(DecidedBy::Rule));
    while let Ok(c) = changes.try_recv() {
        assert!(
            !matches!(c, ApprovalChange::Added { .. }),
            "a rule-decided approval reached the pending set: {c:?}"
        );
    }
    w.finish(&[]).await;
}

async fn parallel_sessions(engine: Engine, bin: PathBuf) {
    let w = world(engine, "parallel", &bin, |_| {}).await;
    let other = w
        .desk
        .create_session(&NewSession {
            profile_id: w.session.profile_id.clone(),
            ..NewSession::new(w.session.workspace_id.clone())
        })
        .await
        .unwrap();
    // The first session waits for an approval while the second runs to its end.
    let call = ("call_core_par", "parallel.txt");
    let first = send_asking(&w, call, &[], "First session: create the file").await;
    let a = w.pending(&first).await;
    w.push_text(&["Second session answered."]);
    let second = w
        .desk
        .send_message(&other.id, "Second session: hello", &[])
        .await
        .unwrap();
    assert_eq!(second.status, RunStatus::Running);
    w.completed(&second.id).await;
    let r1 = w.desk.store().get_run(&first).await.unwrap();
    assert_eq!(r1.status, RunStatus::Running);
    w.push_text(&["First session done."]);
    w.decide(&a, UserDecision::ApproveOnce.into()).await;
    w.completed(&first).await;
    assert!(w.work.join("parallel.txt").exists());
    w.finish(&[]).await;
}

async fn stale_resume(engine: Engine, bin: PathBuf) {
    let w = world(engine, "stale", &bin, |_| {}).await;
    // A conversation the engine does not know (deleted, or from another machine).
    let stale = "0195d3a1-7c4e-7b2a-9f00-000000000001";
    w.desk
        .store()
        .set_engine_session_id(&w.session.id, Some(stale))
        .await
        .unwrap();
    w.push_text(&["Fresh start."]);
    let run_id = w.send("Continue").await;
    w.completed(&run_id).await;
    let session = w.desk.get_session(&w.session.id).await.unwrap();
    assert!(
        session
            .engine_session_id
            .as_deref()
            .is_some_and(|id| id != stale),
        "{session:?}"
    );
    let page = w
        .desk
        .load_timeline(&w.session.id, None, Some(500))
        .await
        .unwrap();
    assert!(
        page.items
            .iter()
            .any(|i| matches!(i.body, ItemBody::Notice { .. })),
        "no notice of the new session on the timeline: {:#?}",
        page.items
    );
    w.finish(&[]).await;
}

async fn deadline_denies(engine: Engine, bin: PathBuf) {
    let w = world(engine, "deadline", &bin, |p| {
        p.approval_timeout_secs = Some(1)
    })
    .await;
    let then = ["Nobody answered."];
    let run_id = send_asking(&w, ("call_core_deadline", "late.txt"), &then, CREATE).await;
    w.completed(&run_id).await;
    // Looked up afterwards: under load the 1 s deadline may pass before a watcher looks.
    let asked: Vec<Approval> = w
        .desk
        .store()
        .session_approvals(&w.session.id)
        .await
        .unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let a = &asked[0];
    assert_eq!(a.state, ApprovalState::TimedOut);
    assert_eq!(a.decided_by, Some(DecidedBy::Deadline));
    assert!(!w.work.join("late.txt").exists());
    w.finish(&[]).await;
}

async fn shutdown_mid_run(engine: Engine, bin: PathBuf) {
    let w = world(engine, "shutdown", &bin, |_| {}).await;
    let (run_id, a) = asked(&w, ("call_core_shutdown", "never.txt"), &[]).await;
    let pid = w.desk.run_engine_pid(&run_id).expect("no engine pid");
    // A second message waits behind the first; shutdown must not leave it queued.
    let queued = w.message("Later").await;
    assert_eq!(queued.status, RunStatus::Queued);
    tokio::time::timeout(world::STEP, w.desk.shutdown())
        .await
        .expect("shutdown hung");
    let run = w.desk.store().get_run(&run_id).await.unwrap();
    assert_eq!(run.status, RunStatus::Interrupted, "{run:?}");
    let a = w.desk.store().get_approval(&a.id).await.unwrap();
    assert_eq!(a.state, ApprovalState::Cancelled);
    let queued = w.desk.store().get_run(&queued.id).await.unwrap();
    assert_eq!(queued.status, RunStatus::Interrupted, "{queued:?}");
    assert!(w
        .desk
        .send_message(&w.session.id, "After shutdown", &[])
        .await
        .is_err());
    assert!(!w.work.join("never.txt").exists());
    w.finish(&[pid]).await;
}

/// Claude only here: Codex asks questions only in plan mode (covered by codex_real).
async fn question_answered(engine: Engine, bin: PathBuf) {
    let w = world(engine, "question", &bin, |_| {}).await;
    let Fake::Claude(fake) = &w.fake else {
        panic!("question_answered is a Claude scenario")
    };
    fake.push(fake_messages::Reply::tool(
        "toolu_core_q",
        "AskUserQuestion",
        json!({"questions": [{"question": "Which color do you prefer?", "header": "Color",
            "multiSelect": false, "options": [{"label": "Red", "description": "red"},
            {"label": "Blue", "description": "blue"}]}]}),
    ));
    w.push_text(&["Blue it is."]);
    let run_id = w.send("Ask me a question").await;
    let a = w.pending(&run_id).await;
    assert_eq!(a.kind, ApprovalKindName::Question);
    let q = &a.request.questions[0];
    assert_eq!(q.question, "Which color do you prefer?");
    // A question is answered, not approved.
    assert!(user_decides(&w, &a, UserDecision::ApproveOnce)
        .await
        .is_err());
    let answers = BTreeMap::from([(q.id.clone(), vec!["Blue".to_string()])]);
    let answered = w
        .desk
        .answer_question(&a.id, answers, DecidedBy::User)
        .await
        .unwrap();
    assert_eq!(answered.state, ApprovalState::Answered);
    w.completed(&run_id).await;
    let last = fake.model_requests().pop().unwrap();
    let result = last.blocks_of("tool_result")[0].to_string();
    assert!(result.contains("Blue"), "{result}");
    w.finish(&[]).await;
}

/// `/` in a Codex session offers the workspace's skills and the user's custom prompts
/// (`$CODEX_HOME/prompts/*.md`, which codex 0.169's app-server does not list), each as what
/// picking it puts in the message.
async fn commands_and_custom_prompts(engine: Engine, bin: PathBuf) {
    let w = world(engine, "commands", &bin, |_| {}).await;
    let prompts = w.root.join("home/prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("review.md"),
        "---\ndescription: Review the diff\nargument-hint: [FILE]\n---\nReview $1 for bugs.\n",
    )
    .unwrap();
    let skill = w.work.join(".agents/skills/release-notes");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes\n---\nList the changes.\n",
    )
    .unwrap();
    let catalog = w.desk.list_commands(&w.session.id).await.unwrap();
    assert_eq!(catalog.unavailable, None);
    let found = |name: &str| catalog.commands.iter().find(|c| c.name == name).cloned();
    let skill = found("release-notes").unwrap_or_else(|| panic!("{catalog:#?}"));
    assert_eq!(skill.insert, "$release-notes ");
    let prompt = found("prompts:review").unwrap_or_else(|| panic!("{catalog:#?}"));
    assert_eq!(prompt.description, "Review the diff");
    assert_eq!(prompt.argument_hint.as_deref(), Some("[FILE]"));
    assert_eq!(prompt.insert, "Review $1 for bugs.\n");
    w.finish(&[]).await;
}

/// An ACP agent names its commands inside a session: before any run `/` says so, after one
/// it offers what the agent announced (opencode's own, typed as `/name`).
async fn commands_announced(engine: Engine, bin: PathBuf) {
    let w = world(engine, "commands", &bin, |_| {}).await;
    let before = w.desk.list_commands(&w.session.id).await.unwrap();
    assert!(before.commands.is_empty());
    assert!(
        before
            .unavailable
            .as_deref()
            .unwrap_or("")
            .contains("during a session"),
        "{before:?}"
    );
    w.push_text(&["Hello."]);
    let run_id = w.send("Say hello").await;
    w.completed(&run_id).await;
    let after = w.desk.list_commands(&w.session.id).await.unwrap();
    assert_eq!(after.unavailable, None);
    let init = after.commands.iter().find(|c| c.name == "init");
    let init = init.unwrap_or_else(|| panic!("{after:#?}"));
    assert_eq!(init.insert, "/init ");
    assert!(!init.description.is_empty());
    // Another session of the same workspace and profile gets them before its first run.
    let other = w
        .desk
        .create_session(&NewSession {
            profile_id: w.session.profile_id.clone(),
            ..NewSession::new(w.session.workspace_id.clone())
        })
        .await
        .unwrap();
    let listed = w.desk.list_commands(&other.id).await.unwrap();
    assert_eq!(listed.commands, after.commands);
    w.finish(&[]).await;
}

scenarios! {
    all: [
        text,
        approval,
        deny_and_stop,
        edited_input,
        queued,
        interrupt,
        engine_killed,
        image,
        file_attachment,
        rule_auto_approves,
        parallel_sessions,
        stale_resume,
        deadline_denies,
        shutdown_mid_run,
    ],
    codex: [commands_and_custom_prompts],
    claude: [question_answered],
    acp: [commands_announced],
}
