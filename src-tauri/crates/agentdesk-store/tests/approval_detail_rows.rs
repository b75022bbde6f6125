//! An approval's engine detail on disk: rows written before the detail was typed (a bare JSON
//! object, no `source` tag) are still read as their typed variant; new rows carry the tag.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::ui::*;
use agentdesk_store::{NewRun, Store, DATABASE_FILE_NAME};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Row};

async fn fixture() -> (tempfile::TempDir, Store) {
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
            Engine::Claude,
            "t",
            1,
        ))
        .await
        .unwrap();
    store
        .create_run(&NewRun::running(&"r".into(), &"s".into(), "hi", 2))
        .await
        .unwrap();
    (dir, store)
}

async fn raw(dir: &tempfile::TempDir) -> sqlx::SqliteConnection {
    SqliteConnectOptions::new()
        .filename(dir.path().join(DATABASE_FILE_NAME))
        .connect()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_row_written_before_the_tag_reads_as_its_variant() {
    let (dir, store) = fixture().await;
    // Exactly what the Claude adapter's `json!` detail looked like on disk.
    let old_request = serde_json::json!({
        "tool": "Write", "command": null, "cwd": "/w", "files": [], "reason": null,
        "questions": [],
        "detail": {"toolName": "Write", "displayName": null,
            "input": {"file_path": "/w/a.txt", "content": "x"},
            "permissionSuggestions": [{"type": "addRules"}], "blockedPath": null,
            "decisionReasonType": null}
    });
    let mut conn = raw(&dir).await;
    sqlx::query(
        "INSERT INTO approvals (id, session_id, run_id, engine_request_id, kind, request,
         suggestions, created_at) VALUES ('old', 's', 'r', 'e1', 'tool', ?, '[]', 3)",
    )
    .bind(old_request.to_string())
    .execute(&mut conn)
    .await
    .unwrap();

    let a = store.get_approval(&"old".into()).await.unwrap();
    let detail = a.request.detail.as_deref().expect("a detail");
    assert_eq!(detail.tool_name(), Some("Write"));
    assert_eq!(
        detail.tool_input(),
        Some(&serde_json::json!({"file_path": "/w/a.txt", "content": "x"}))
    );
    assert_eq!(
        detail.permission_suggestions(),
        serde_json::json!([{"type": "addRules"}])
    );
}

#[tokio::test]
async fn a_new_row_carries_the_tag_and_reads_back_equal() {
    let (dir, store) = fixture().await;
    let approval = Approval {
        id: "new".into(),
        session_id: "s".into(),
        run_id: "r".into(),
        item_id: None,
        engine_request_id: "e2".into(),
        kind: ApprovalKindName::Permission,
        request: ApprovalRequest {
            detail: Some(Box::new(ApprovalDetail::CodexPermissions(
                agentdesk_protocol::approval_detail::CodexPermissionsDetail {
                    permissions: serde_json::json!({"network": {"enabled": true}}),
                },
            ))),
            ..Default::default()
        },
        suggestions: serde_json::json!([]),
        state: ApprovalState::Pending,
        decided_by: None,
        decision: None,
        created_at: 4,
        deadline_at: None,
        decided_at: None,
    };
    store.insert_approval(&approval).await.unwrap();
    let mut conn = raw(&dir).await;
    let request: String = sqlx::query("SELECT request FROM approvals WHERE id = 'new'")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    let on_disk: serde_json::Value = serde_json::from_str(&request).unwrap();
    assert_eq!(on_disk["detail"]["source"], "codexPermissions");
    assert_eq!(store.get_approval(&"new".into()).await.unwrap(), approval);
}
