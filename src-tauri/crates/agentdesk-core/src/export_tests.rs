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
                    output_bytes: None,
                    exit_code: Some(0),
                    files: Vec::new(),
                    approval_id: None,
                },
                created_at: 1,
                updated_at: 1,
                parent_id: None,
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
                parent_id: None,
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

/// A secret question's answer in clear where older builds (or the engine's echo of the
/// answer) left it, in the timeline and in the approval record: never in an export.
#[tokio::test]
async fn secret_answers_never_leave_in_an_export() {
    use agentdesk_protocol::events::Question;
    use agentdesk_protocol::ids::ApprovalId;
    use agentdesk_protocol::ui::{
        Approval, ApprovalDecisionDetail, ApprovalKindName, ApprovalRequest, ApprovalState,
        DecidedBy,
    };
    const ANSWER: &str = "correct-horse-battery";
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let p = desk.create_profile(&ws.id, &spec("p")).await.unwrap();
    let session = desk
        .create_session(&NewSession {
            profile_id: Some(p.id.clone()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let run = desk.create_run(&session.id, "log in", &[]).await.unwrap();
    let questions = vec![
        Question {
            id: "password".into(),
            header: None,
            question: "Your password?".into(),
            options: Vec::new(),
            allow_other: true,
            secret: true,
        },
        Question {
            id: "user".into(),
            header: None,
            question: "Your user name?".into(),
            options: Vec::new(),
            allow_other: true,
            secret: false,
        },
    ];
    let answers: std::collections::BTreeMap<String, Vec<String>> = [
        ("password".to_string(), vec![ANSWER.to_string()]),
        ("user".to_string(), vec!["ada".to_string()]),
    ]
    .into();
    let approval_id = ApprovalId::new();
    desk.store()
        .upsert_timeline_items(&[TimelineItem {
            id: format!("{}:q", run.id),
            session_id: session.id.clone(),
            run_id: run.id.clone(),
            seq: 1,
            status: ItemStatus::Completed,
            body: ItemBody::Question {
                approval_id: Some(approval_id.clone()),
            },
            created_at: 1,
            updated_at: 1,
            parent_id: None,
        }])
        .await
        .unwrap();
    desk.store()
        .insert_approval(&Approval {
            id: approval_id,
            session_id: session.id.clone(),
            run_id: run.id.clone(),
            item_id: None,
            engine_request_id: "q1".into(),
            kind: ApprovalKindName::Question,
            request: ApprovalRequest {
                questions,
                ..Default::default()
            },
            suggestions: serde_json::Value::Null,
            state: ApprovalState::Answered,
            decided_by: Some(DecidedBy::User),
            decision: Some(ApprovalDecisionDetail {
                answers: Some(answers),
                ..Default::default()
            }),
            created_at: 1,
            deadline_at: None,
            decided_at: Some(2),
        })
        .await
        .unwrap();

    let json = desk.export_session_json(&session.id).await.unwrap();
    assert!(
        !json.contains(ANSWER),
        "the answer is in the JSON export:\n{json}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mask = crate::approvals::SECRET_ANSWER_MASK;
    let question = v["runs"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["body"]["kind"] == "question")
        .unwrap();
    // The item names the record; the answers are the record's, masked.
    assert_eq!(question["body"]["approvalId"], v["approvals"][0]["id"]);
    assert_eq!(v["approvals"][0]["decision"]["answers"]["user"][0], "ada");
    assert_eq!(
        v["approvals"][0]["decision"]["answers"]["password"][0],
        mask
    );
    let md = desk.export_session_markdown(&session.id).await.unwrap();
    assert!(
        !md.contains(ANSWER),
        "the answer is in the Markdown export:\n{md}"
    );
    assert!(md.contains(&format!("**Answer:** {mask}")), "{md}");
    assert!(md.contains("**Answer:** ada"), "{md}");
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The export's temporary file: never written through a link planted where it is made (the
/// old, predictable name is tried here), and private from the start.
#[cfg(unix)]
#[tokio::test]
async fn the_export_is_private_and_never_written_through_a_planted_link() {
    use agentdesk_protocol::ui::ExportFormat;
    let (desk, ws, dirs) = crate::test_desk::desk_with_workspace().await;
    let p = desk.create_profile(&ws.id, &spec("p")).await.unwrap();
    let session = desk
        .create_session(&NewSession {
            profile_id: Some(p.id.clone()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let out = dirs.folder.path().join("exports");
    std::fs::create_dir(&out).unwrap();
    let victim = dirs.folder.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, out.join(".s.md.agentdesk-export")).unwrap();
    let target = out.join("s.md");
    desk.export_session_to(&session.id, ExportFormat::Markdown, &target)
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(&target).unwrap();
    assert!(meta.is_file(), "the export is a file of its own");
    assert_eq!(mode(&target), 0o600);
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("Untitled session"));

    // The low-level step: a planted link (or file) is refused, not followed or truncated.
    let planted = out.join("planted");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let err = agentdesk_store::private::create_new_file(&planted).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[tokio::test]
async fn a_subagents_work_is_quoted_under_its_call_in_markdown() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let p = desk.create_profile(&ws.id, &spec("plain")).await.unwrap();
    let session = desk
        .create_session(&NewSession {
            profile_id: Some(p.id.clone()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let run = desk.create_run(&session.id, "count", &[]).await.unwrap();
    let item = |key: &str, seq: i64, body: ItemBody, parent: Option<&str>| TimelineItem {
        id: format!("{}:{key}", run.id),
        session_id: session.id.clone(),
        run_id: run.id.clone(),
        seq,
        status: ItemStatus::Completed,
        body,
        created_at: seq,
        updated_at: seq,
        parent_id: parent.map(|p| format!("{}:{p}", run.id)),
    };
    desk.store()
        .upsert_timeline_items(&[
            item(
                "agent1",
                1,
                ItemBody::Tool {
                    tool_kind: ToolKind::Agent,
                    name: "Agent".into(),
                    input: serde_json::json!({"description": "Count files"}),
                    output: "SUB-DONE: 3 files".into(),
                    output_bytes: None,
                    exit_code: None,
                    files: Vec::new(),
                    approval_id: None,
                },
                None,
            ),
            item(
                "sub-msg",
                2,
                ItemBody::AgentMessage {
                    text: "Counting now.\n\nThree.".into(),
                },
                Some("agent1"),
            ),
            item(
                "main-msg",
                3,
                ItemBody::AgentMessage {
                    text: "It found three.".into(),
                },
                None,
            ),
        ])
        .await
        .unwrap();
    let md = desk.export_session_markdown(&session.id).await.unwrap();
    assert!(
        md.contains("> ### Subagent\n>\n> Counting now.\n>\n> Three.\n"),
        "{md}"
    );
    assert!(md.contains("\n### Agent\n\nIt found three."), "{md}");
}
