#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::{
    ErrorCode, ExportFormat, ItemBody, ItemStatus, RunStatus, Session, SessionFootprint,
    TimelineItem,
};

use agentdesk_protocol::ids::{RunId, SessionId};

use crate::{Desk, NewSession};

struct Fixture {
    desk: Desk,
    session: Session,
    other: Session,
    _data: tempfile::TempDir,
    folder: tempfile::TempDir,
}

fn answer(session: &Session, run: &RunId, seq: i64, text: &str) -> TimelineItem {
    TimelineItem {
        id: format!("{run}:{seq}"),
        session_id: session.id.clone(),
        run_id: run.clone(),
        seq,
        status: ItemStatus::Completed,
        body: ItemBody::AgentMessage { text: text.into() },
        created_at: 1,
        updated_at: 1,
        parent_id: None,
    }
}

/// Two sessions in one workspace; the first has two finished runs of two messages each.
async fn fixture() -> Fixture {
    let (desk, ws, dirs) = crate::test_desk::desk_with_workspace().await;
    let new = || NewSession {
        engine: Some(agentdesk_protocol::ui::Engine::Codex),
        ..NewSession::new(ws.id.clone())
    };
    let session = desk.create_session(&new()).await.unwrap();
    let other = desk.create_session(&new()).await.unwrap();
    for (n, (ask, reply)) in [
        ("what is a teapot", "a vessel for tea"),
        ("and a kettle", "it boils the water"),
    ]
    .into_iter()
    .enumerate()
    {
        let run = desk.create_run(&session.id, ask, &[]).await.unwrap();
        desk.store()
            // (`create_run` has recorded the user's message.)
            .upsert_timeline_items(&[answer(&session, &run.id, 1, reply)])
            .await
            .unwrap();
        desk.store()
            .finish_run(
                &run.id,
                &agentdesk_store::RunEnd {
                    status: RunStatus::Completed,
                    stop_reason: None,
                    error: None,
                    at: 10 + n as i64,
                },
            )
            .await
            .unwrap();
    }
    desk.create_run(&other.id, "kettle elsewhere", &[])
        .await
        .unwrap();
    Fixture {
        desk,
        session,
        other,
        _data: dirs.data,
        folder: dirs.folder,
    }
}

#[tokio::test]
async fn the_footprint_counts_what_a_delete_removes() {
    let f = fixture().await;
    assert_eq!(
        f.desk.session_footprint(&f.session.id).await.unwrap(),
        SessionFootprint {
            messages: 4,
            runs: 2,
            attachments: 0
        }
    );
    let missing = f.desk.session_footprint(&"nope".into()).await.unwrap_err();
    assert_eq!(missing.code(), ErrorCode::NotFound);
}

#[tokio::test]
async fn rename_archive_and_unarchive() {
    let f = fixture().await;
    f.desk
        .rename_session(&f.session.id, "  Teapots and kettles ")
        .await
        .unwrap();
    assert_eq!(
        f.desk.get_session(&f.session.id).await.unwrap().title,
        "Teapots and kettles"
    );
    let ws = &f.session.workspace_id;
    f.desk.archive_session(&f.session.id, true).await.unwrap();
    let active: Vec<SessionId> = f
        .desk
        .list_sessions(ws, false)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(active, std::slice::from_ref(&f.other.id));
    let all = f.desk.list_sessions(ws, true).await.unwrap();
    let archived = all.iter().find(|s| s.id == f.session.id).unwrap();
    assert!(archived.archived_at.is_some());
    f.desk.archive_session(&f.session.id, false).await.unwrap();
    assert_eq!(f.desk.list_sessions(ws, false).await.unwrap().len(), 2);
}

#[tokio::test]
async fn delete_takes_the_runs_messages_and_search_hits_with_it() {
    let f = fixture().await;
    let before = f.desk.search("kettle", None, 10).await.unwrap();
    assert_eq!(before.len(), 2, "{before:?}");
    f.desk.delete_session(&f.session.id).await.unwrap();
    assert_eq!(
        f.desk.get_session(&f.session.id).await.unwrap_err().code(),
        ErrorCode::NotFound
    );
    assert!(f.desk.list_runs(&f.session.id).await.unwrap().is_empty());
    assert_eq!(
        f.desk
            .store()
            .count_session_items(&f.session.id)
            .await
            .unwrap(),
        0
    );
    let after = f.desk.search("kettle", None, 10).await.unwrap();
    assert_eq!(
        after
            .iter()
            .map(|h| h.session_id.as_str())
            .collect::<Vec<_>>(),
        [f.other.id.as_str()]
    );
    // The other session is untouched; its run still going keeps it from being deleted.
    assert_eq!(
        f.desk.delete_session(&f.other.id).await.unwrap_err().code(),
        ErrorCode::InvalidInput
    );
}

#[tokio::test]
async fn exports_are_written_where_the_user_chose() {
    let f = fixture().await;
    let md_path = f.folder.path().join("teapot.md");
    std::fs::write(&md_path, "an older file").unwrap();
    f.desk
        .export_session_to(&f.session.id, ExportFormat::Markdown, &md_path)
        .await
        .unwrap();
    let md = std::fs::read_to_string(&md_path).unwrap();
    for text in [
        "what is a teapot",
        "a vessel for tea",
        "and a kettle",
        "it boils the water",
    ] {
        assert!(md.contains(text), "{text:?} missing from:\n{md}");
    }
    assert!(!md.contains("an older file"));
    assert!(
        md.find("a vessel for tea") < md.find("and a kettle"),
        "conversation order:\n{md}"
    );

    let json_path = f.folder.path().join("teapot.json");
    f.desk
        .export_session_to(&f.session.id, ExportFormat::Json, &json_path)
        .await
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(json["session"]["id"], f.session.id.as_str());
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["items"][1]["body"]["text"], "it boils the water");
    // No temporary file left next to the exports.
    let mut names: Vec<String> = std::fs::read_dir(f.folder.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["teapot.json", "teapot.md"]);

    let nowhere = f.folder.path().join("missing-dir").join("x.md");
    let err = f
        .desk
        .export_session_to(&f.session.id, ExportFormat::Markdown, &nowhere)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("missing-dir"), "{err}");
}
