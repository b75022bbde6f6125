#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::events::ToolKind;
use agentdesk_protocol::ui::{ItemBody, ItemStatus, TimelineItem, SECRET_MASK};

use crate::profiles::tests::spec;
use crate::NewSession;

const SECRET: &str = "sk-very-secret-0123456789";

#[tokio::test]
async fn secret_env_values_never_leave_in_an_export() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let mut s = spec("secretive");
    s.env.insert("SERVICE_TOKEN".into(), SECRET.into());
    s.env.insert("PLAIN".into(), "plain-value".into());
    s.secret_env = vec!["SERVICE_TOKEN".into()];
    let p = desk.create_profile(&ws.id, &s).await.unwrap();
    let session = desk
        .create_session(&NewSession {
            profile_id: Some(p.id.clone()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let run = desk
        .create_run(&session.id, "print your environment", &[])
        .await
        .unwrap();
    // The agent ran `env`: the value is in the stored tool output and in its answer.
    desk.store()
        .upsert_timeline_items(&[
            TimelineItem {
                id: format!("{}:tool", run.id),
                session_id: session.id.clone(),
                run_id: run.id.clone(),
                seq: 1,
                status: ItemStatus::Completed,
                body: ItemBody::Tool {
                    tool_kind: ToolKind::Command,
                    name: "Bash".into(),
                    input: serde_json::json!({"command": "env"}),
                    output: format!("PLAIN=plain-value\nSERVICE_TOKEN={SECRET}\n"),
                    exit_code: Some(0),
                    files: Vec::new(),
                    approval: None,
                },
                created_at: 1,
                updated_at: 1,
            },
            TimelineItem {
                id: format!("{}:msg", run.id),
                session_id: session.id.clone(),
                run_id: run.id.clone(),
                seq: 2,
                status: ItemStatus::Completed,
                body: ItemBody::AgentMessage {
                    text: format!("Your token is {SECRET}."),
                },
                created_at: 2,
                updated_at: 2,
            },
        ])
        .await
        .unwrap();

    let json = desk.export_session_json(&session.id).await.unwrap();
    assert!(
        !json.contains(SECRET),
        "the secret is in the JSON export:\n{json}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["profile"]["env"]["SERVICE_TOKEN"], SECRET_MASK);
    assert_eq!(v["profile"]["env"]["PLAIN"], "plain-value");
    let items = &v["runs"][0]["items"];
    assert_eq!(
        items[2]["body"]["text"],
        format!("Your token is {SECRET_MASK}.")
    );
    assert!(items[1]["body"]["output"]
        .as_str()
        .unwrap()
        .contains("PLAIN=plain-value"));

    let md = desk.export_session_markdown(&session.id).await.unwrap();
    assert!(
        !md.contains(SECRET),
        "the secret is in the Markdown export:\n{md}"
    );
    assert!(md.contains(&format!("SERVICE_TOKEN={SECRET_MASK}")), "{md}");
    // What is stored is untouched: the export is what is redacted.
    let stored = desk.store().session_items(&session.id).await.unwrap();
    assert!(stored.iter().any(|i| matches!(&i.body,
        ItemBody::AgentMessage { text } if text.contains(SECRET))));
}
