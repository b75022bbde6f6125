//! The typed ids (`agentdesk_protocol::ids`) against the database: rows whose ids an older
//! build wrote as plain TEXT load through the typed queries, and ids written through them are
//! plain TEXT again, so a database moves between builds either way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ids::{ApprovalId, ProfileId, RunId, SessionId, WorkspaceId};

use crate::{NewRun, Store};

// The ids as a build before the typed ids generated them (hyphenated uuid v7 text).
const WS: &str = "0190c1d2-0000-7000-8000-00000000000a";
const PROFILE: &str = "0190c1d2-0000-7000-8000-00000000000b";
const SESSION: &str = "0190c1d2-0000-7000-8000-00000000000c";
const RUN: &str = "0190c1d2-0000-7000-8000-00000000000d";
const APPROVAL: &str = "0190c1d2-0000-7000-8000-00000000000e";

#[tokio::test]
async fn ids_written_as_plain_text_load_as_typed_ids() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    // Plain SQL with the ids inlined as text literals: nothing of the typed ids is involved.
    for sql in [
        format!("INSERT INTO workspaces (id, name, path, created_at) VALUES ('{WS}', 'w', '/w', 1)"),
        format!(
            "INSERT INTO profiles (id, workspace_id, name, is_default, engine, created_at, updated_at)
             VALUES ('{PROFILE}', '{WS}', 'p', 1, 'codex', 1, 1)"
        ),
        format!(
            "INSERT INTO sessions (id, workspace_id, profile_id, engine, created_at, updated_at)
             VALUES ('{SESSION}', '{WS}', '{PROFILE}', 'codex', 1, 1)"
        ),
        format!(
            "INSERT INTO runs (id, session_id, seq, status, prompt, profile_id, created_at)
             VALUES ('{RUN}', '{SESSION}', 1, 'running', 'hi', '{PROFILE}', 1)"
        ),
        format!(
            "INSERT INTO approvals (id, session_id, run_id, engine_request_id, kind, request, created_at)
             VALUES ('{APPROVAL}', '{SESSION}', '{RUN}', '7', 'command', '{{}}', 1)"
        ),
        format!(
            "INSERT INTO timeline_items (id, session_id, run_id, seq, kind, text, payload, created_at, updated_at)
             VALUES ('{RUN}:user', '{SESSION}', '{RUN}', 0, 'agent_message', 'hello typed ids', '{{}}', 1, 1)"
        ),
    ] {
        sqlx::query(&sql).execute(p).await.unwrap();
    }

    let ws = WorkspaceId::from(WS);
    let session = store.get_session(&SessionId::from(SESSION)).await.unwrap();
    assert_eq!(session.id, SESSION);
    assert_eq!(session.workspace_id, ws);
    assert_eq!(session.profile_id, Some(ProfileId::from(PROFILE)));
    let listed = store.list_sessions(&ws, false).await.unwrap();
    assert_eq!(listed, vec![session.clone()]);

    let runs = store.list_runs(&session.id).await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, RunId::from(RUN));
    assert_eq!(runs[0].session_id, session.id);
    assert_eq!(
        runs[0].profile_id.as_ref().map(ProfileId::as_str),
        Some(PROFILE)
    );

    let approval = store
        .get_approval(&ApprovalId::from(APPROVAL))
        .await
        .unwrap();
    assert_eq!(
        (approval.session_id.as_str(), approval.run_id.as_str()),
        (SESSION, RUN)
    );
    let profile = store.get_profile(&ProfileId::from(PROFILE)).await.unwrap();
    assert_eq!(profile.workspace_id, ws);
    assert_eq!(store.get_workspace(&ws).await.unwrap().id, WS);

    let items = store.session_items(&session.id).await.unwrap();
    assert_eq!(items[0].run_id, RunId::from(RUN));
    let hits = store.search_messages("typed", Some(&ws), 10).await.unwrap();
    assert_eq!(
        (
            hits[0].session_id.as_str(),
            hits[0].run_id.as_str(),
            hits[0].workspace_id.as_str()
        ),
        (SESSION, RUN, WS)
    );
}

#[tokio::test]
async fn typed_ids_are_written_as_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let p = &store.pool;
    sqlx::query(&format!(
        "INSERT INTO workspaces (id, name, path, created_at) VALUES ('{WS}', 'w', '/w', 1)"
    ))
    .execute(p)
    .await
    .unwrap();
    let session = agentdesk_protocol::ui::Session::begun(
        SessionId::new(),
        WS.into(),
        agentdesk_protocol::ui::Engine::Claude,
        "",
        1,
    );
    store.insert_session(&session).await.unwrap();
    let run_id = RunId::new();
    store
        .create_run(&NewRun::running(&run_id, &session.id, "hi", 2))
        .await
        .unwrap();
    // Read back with plain strings, as a build without the typed ids would.
    let (id, kind, ws): (String, String, String) =
        sqlx::query_as("SELECT id, typeof(id), workspace_id FROM sessions WHERE id = ?")
            .bind(session.id.as_str())
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!(
        (id.as_str(), kind.as_str(), ws.as_str()),
        (session.id.as_str(), "text", WS)
    );
    let (rid, kind, sid): (String, String, String) =
        sqlx::query_as("SELECT id, typeof(session_id), session_id FROM runs")
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!((rid, kind.as_str()), (run_id.into_string(), "text"));
    assert_eq!(sid, session.id.as_str());
}
