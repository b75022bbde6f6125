//! Sessions, recovery, search, usage and export through the public `Desk` API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use agentdesk_core::{ApprovalAnswer, ApprovalAsk, ApprovalPolicy, Desk, RunInput};
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ui::{DecidedBy, ItemStatus, RunStatus};
use common::events;
use tokio::sync::mpsc;

#[tokio::test]
async fn a_session_lives_is_searched_exported_and_recovered() {
    let data = tempfile::tempdir().unwrap();
    let (desk, ws, _folder) = common::open_with_workspace(data.path()).await;
    let s = common::session_with_profile(
        &desk,
        &ws,
        serde_json::json!({"name": "main", "engine": "codex", "model": "gpt-5"}),
    )
    .await;
    assert_eq!(
        s.engine,
        agentdesk_protocol::ui::Engine::Codex,
        "from the default profile"
    );

    // Run 1: replay a real approval turn through the recorder.
    let r1 = desk
        .create_run(&s.id, "Please touch hello.txt\nthanks", &[])
        .await
        .unwrap();
    assert_eq!(
        desk.get_session(&s.id).await.unwrap().title,
        "Please touch hello.txt"
    );
    let (tx, rx) = mpsc::channel(64);
    let task = tokio::spawn(common::recorder(&desk, &s.id, &r1.id).run(rx));
    for ev in events("codex_s2_approval_accept") {
        // As the run's pump does: the request goes to the queue first (decided here by the
        // user), and the item is made naming the record.
        if let Some(ask) = ApprovalAsk::from_event(&s.id, &r1.id, &ev) {
            let request_id = ask.engine_request_id.clone();
            let policy = ApprovalPolicy::default();
            let asked = desk.approvals().request(ask, &policy, Box::new(|_| {}));
            let id = asked.await.unwrap().approval().id.clone();
            let answer = ApprovalAnswer::Decision(UserDecision::ApproveOnce.into());
            desk.approvals()
                .decide(&id, answer, DecidedBy::User)
                .await
                .unwrap();
            let link = RunInput::Linked {
                request_id,
                approval_id: id,
            };
            tx.send(link).await.unwrap();
        }
        tx.send(RunInput::Event(ev)).await.unwrap();
    }
    assert_eq!(task.await.unwrap().unwrap().status, RunStatus::Completed);
    // Run 2 queues behind run 3? No: run 1 ended, so run 2 runs; run 3 queues behind it.
    let r2 = desk.create_run(&s.id, "second", &[]).await.unwrap();
    let r3 = desk.create_run(&s.id, "third", &[]).await.unwrap();
    assert_eq!(
        (r2.status, r3.status),
        (RunStatus::Running, RunStatus::Queued)
    );

    let hits = desk.search("done acc", None, 10).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].session_id, s.id);
    assert_eq!(
        desk.search("touch", Some(&ws.id), 10).await.unwrap()[0].kind,
        "user_message"
    );

    let usage = desk.session_usage(&s.id).await.unwrap();
    assert_eq!(
        (usage.tokens.input, usage.tokens.output, usage.runs),
        (20, 10, 1)
    );
    assert_eq!(desk.workspace_usage(&ws.id).await.unwrap().tokens.input, 20);

    let md = desk.export_session_markdown(&s.id).await.unwrap();
    for expected in [
        "# Please touch hello.txt",
        "### You",
        "I'll run the command.",
        "touch hello.txt",
        "Approval: approved_once",
        "Done (accept).",
        "## Run 3 — queued",
    ] {
        assert!(md.contains(expected), "{expected:?} missing from:\n{md}");
    }
    assert!(
        !md.contains("Model metadata"),
        "diagnostics stay out of the conversation"
    );
    let json: serde_json::Value =
        serde_json::from_str(&desk.export_session_json(&s.id).await.unwrap()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["runs"].as_array().unwrap().len(), 3);
    assert_eq!(json["runs"][0]["items"][0]["body"]["kind"], "user_message");

    // A crash: the process goes away with run 2 running (an item streaming) and run 3 queued.
    desk.store()
        .upsert_timeline_items(&[agentdesk_protocol::ui::TimelineItem {
            id: format!("{}:m", r2.id),
            session_id: s.id.clone(),
            run_id: r2.id.clone(),
            seq: 1,
            status: ItemStatus::Running,
            body: agentdesk_protocol::ui::ItemBody::AgentMessage {
                text: "half".into(),
            },
            created_at: 1,
            updated_at: 1,
            parent_id: None,
        }])
        .await
        .unwrap();
    desk.close().await;
    let desk = Desk::open(data.path()).await.unwrap();
    let rec = desk.recover().await.unwrap();
    assert_eq!(rec.interrupted_runs, [r2.id.clone(), r3.id.clone()]);
    let runs = desk.list_runs(&s.id).await.unwrap();
    assert!(runs[1..].iter().all(|r| r.status == RunStatus::Interrupted));
    let page = desk.load_timeline(&s.id, None, None).await.unwrap();
    let half = page.items.iter().find(|i| i.id.ends_with(":m")).unwrap();
    assert_eq!(half.status, ItemStatus::Interrupted);
    assert_eq!(desk.store().integrity_check().await.unwrap(), "ok");

    desk.rename_session(&s.id, "  renamed ").await.unwrap();
    desk.archive_session(&s.id, true).await.unwrap();
    assert!(desk.list_sessions(&ws.id, false).await.unwrap().is_empty());
    assert_eq!(
        desk.list_sessions(&ws.id, true).await.unwrap()[0].title,
        "renamed"
    );
    desk.delete_session(&s.id).await.unwrap();
    assert!(desk.search("touch", None, 10).await.unwrap().is_empty());
}
