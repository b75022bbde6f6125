//! The typed queries of each resource, against a real database file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::*;
use agentdesk_store::{ApprovalEnd, Blob, NewRun, RunEnd, Store, StoreError};

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    (dir, store)
}

fn spec(name: &str) -> ProfileSpec {
    ProfileSpec {
        name: name.into(),
        engine: Engine::Codex,
        model: Some("gpt-5".into()),
        base_url: None,
        api_key_env: None,
        permission_mode: PermissionMode::AutoEdit,
        allowed_tools: vec!["Read".into()],
        denied_tools: vec![],
        system_prompt: Some("be brief".into()),
        extra_dirs: vec!["/opt/docs".into()],
        env: [("A".to_string(), "1".to_string())].into(),
        secret_env: Vec::new(),
        approval_rules: vec![ApprovalRule {
            kind: Some(ApprovalKindName::Command),
            tool: None,
            command_prefix: Some("git status".into()),
            action: RuleAction::Allow,
        }],
        approval_timeout_secs: Some(30),
        engine_options: serde_json::json!({"x": 1}),
        mcp_servers: vec![agentdesk_protocol::ui::McpServer::stdio(
            "notes",
            "/bin/notes",
        )],
    }
}

async fn workspace(store: &Store, id: &str) {
    store
        .insert_workspace(&Workspace {
            id: id.into(),
            name: id.into(),
            path: format!("/{id}"),
            host: None,
            created_at: 1,
        })
        .await
        .unwrap();
}

async fn session(store: &Store, ws: &str, id: &str) -> Session {
    let s = Session {
        id: id.into(),
        workspace_id: ws.into(),
        profile_id: None,
        title: format!("title {id}"),
        engine: Engine::Codex,
        engine_session_id: None,
        origin: Default::default(),
        worktree: None,
        branch: None,
        base_branch: None,
        model: None,
        effort: None,
        created_at: 10,
        updated_at: 10,
        archived_at: None,
    };
    store.insert_session(&s).await.unwrap();
    s
}

async fn run(store: &Store, session: &str, id: &str) -> Run {
    store
        .create_run(&NewRun::running(&id.into(), &session.into(), "hi", 20))
        .await
        .unwrap()
}

fn item(session: &str, run: &str, id: &str, seq: i64, body: ItemBody) -> TimelineItem {
    TimelineItem {
        id: id.into(),
        session_id: session.into(),
        run_id: run.into(),
        seq,
        status: ItemStatus::Completed,
        body,
        created_at: 30,
        updated_at: 30,
        parent_id: None,
    }
}

fn approval(id: &str, session: &str, run: &str) -> Approval {
    Approval {
        id: id.into(),
        session_id: session.into(),
        run_id: run.into(),
        item_id: Some("call".into()),
        engine_request_id: format!("eng-{id}"),
        kind: ApprovalKindName::Command,
        request: ApprovalRequest {
            command: Some("ls".into()),
            ..Default::default()
        },
        suggestions: serde_json::json!([]),
        state: ApprovalState::Pending,
        decided_by: None,
        decision: None,
        created_at: 40,
        deadline_at: None,
        decided_at: None,
    }
}

#[tokio::test]
async fn profiles_round_trip_with_one_default() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    let p = |id: &str, name: &str, default: bool| Profile {
        id: id.into(),
        workspace_id: "w".into(),
        is_default: default,
        spec: spec(name),
        created_at: 1,
        updated_at: 1,
    };
    store.insert_profile(&p("a", "alpha", true)).await.unwrap();
    store.insert_profile(&p("b", "beta", true)).await.unwrap();
    assert_eq!(
        store.get_profile(&"a".into()).await.unwrap().spec,
        spec("alpha")
    );
    assert_eq!(
        store
            .default_profile(&"w".into())
            .await
            .unwrap()
            .unwrap()
            .id,
        "b"
    );
    assert!(!store.get_profile(&"a".into()).await.unwrap().is_default);
    let err = store
        .insert_profile(&p("c", "alpha", false))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");

    store.set_default_profile(&"a".into()).await.unwrap();
    let list = store.list_profiles(&"w".into()).await.unwrap();
    assert_eq!(
        list.iter()
            .map(|p| (p.id.as_str(), p.is_default))
            .collect::<Vec<_>>(),
        [("a", true), ("b", false)]
    );

    let mut changed = spec("alpha2");
    changed.engine = Engine::Claude;
    changed.engine_options = serde_json::Value::Null;
    let updated = store.update_profile(&"a".into(), &changed).await.unwrap();
    assert_eq!(updated.spec.engine, Engine::Claude);
    assert_eq!(updated.spec.engine_options, serde_json::json!({}));

    store.delete_profile(&"a".into()).await.unwrap();
    assert_eq!(
        store
            .default_profile(&"w".into())
            .await
            .unwrap()
            .unwrap()
            .id,
        "b",
        "the default passes on"
    );
    assert!(matches!(
        store.delete_profile(&"a".into()).await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn sessions_list_rename_archive_delete() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s1").await;
    session(&store, "w", "s2").await;
    store.touch_session(&"s1".into(), 99).await.unwrap();
    let ids = |v: Vec<Session>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.list_sessions(&"w".into(), false).await.unwrap()),
        ["s1", "s2"]
    );
    store.rename_session(&"s2".into(), "renamed").await.unwrap();
    assert_eq!(
        store.get_session(&"s2".into()).await.unwrap().title,
        "renamed"
    );
    store
        .set_session_archived(&"s1".into(), Some(5))
        .await
        .unwrap();
    assert_eq!(
        ids(store.list_sessions(&"w".into(), false).await.unwrap()),
        ["s2"]
    );
    assert_eq!(
        store.list_sessions(&"w".into(), true).await.unwrap().len(),
        2
    );
    store
        .set_engine_session_id(&"s2".into(), Some("thread-1"))
        .await
        .unwrap();
    assert_eq!(
        store
            .get_session(&"s2".into())
            .await
            .unwrap()
            .engine_session_id
            .as_deref(),
        Some("thread-1")
    );
    store.delete_session(&"s2".into()).await.unwrap();
    assert!(matches!(
        store.get_session(&"s2".into()).await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.rename_session(&"nope".into(), "x").await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn runs_transitions_are_compare_and_set() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s").await;
    let r1 = run(&store, "s", "r1").await;
    assert_eq!(
        (r1.seq, r1.status, r1.started_at),
        (1, RunStatus::Running, Some(20))
    );
    let r2 = store
        .create_run(&NewRun {
            status: RunStatus::Queued,
            ..NewRun::running(&"r2".into(), &"s".into(), "next", 21)
        })
        .await
        .unwrap();
    assert_eq!((r2.seq, r2.status), (2, RunStatus::Queued));
    assert!(
        store.start_run(&"r1".into(), None, 22).await.is_err(),
        "running cannot start again"
    );

    let end = RunEnd {
        status: RunStatus::Completed,
        stop_reason: Some("end_turn"),
        error: None,
        at: 30,
    };
    let done = store.finish_run(&"r1".into(), &end).await.unwrap();
    assert_eq!(
        (done.status, done.ended_at),
        (RunStatus::Completed, Some(30))
    );
    let again = RunEnd {
        status: RunStatus::Failed,
        stop_reason: None,
        error: Some("late"),
        at: 31,
    };
    let err = store.finish_run(&"r1".into(), &again).await.unwrap_err();
    assert!(err.to_string().contains("it is completed"), "{err}");

    let started = store.start_run(&"r2".into(), Some("m"), 32).await.unwrap();
    assert_eq!(
        (started.status, started.model.as_deref()),
        (RunStatus::Running, Some("m"))
    );
    run(&store, "s", "r3").await;
    store
        .finish_run(
            &"r3".into(),
            &RunEnd {
                status: RunStatus::Interrupted,
                stop_reason: None,
                error: None,
                at: 33,
            },
        )
        .await
        .unwrap();
    // A restart: r2 was left running.
    let left = store.interrupt_leftover_runs(40).await.unwrap();
    assert_eq!(
        left.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r2"]
    );
    assert_eq!(
        store.get_run(&"r2".into()).await.unwrap().status,
        RunStatus::Interrupted
    );
    assert!(store.active_runs().await.unwrap().is_empty());
    assert_eq!(store.list_runs(&"s".into()).await.unwrap().len(), 3);
    let missing = store
        .create_run(&NewRun::running(&"x".into(), &"nope".into(), "", 1))
        .await
        .unwrap_err();
    assert!(
        matches!(missing, StoreError::NotFound { .. }),
        "{missing:?}"
    );
}

#[tokio::test]
async fn timeline_upserts_pages_and_indexes_messages() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s").await;
    run(&store, "s", "r").await;
    let mut items: Vec<TimelineItem> = (0..10)
        .map(|i| {
            item(
                "s",
                "r",
                &format!("i{i}"),
                i,
                ItemBody::AgentMessage {
                    text: format!("message number{i}"),
                },
            )
        })
        .collect();
    items.push(item(
        "s",
        "r",
        "tool",
        10,
        ItemBody::Tool {
            tool_kind: agentdesk_protocol::events::ToolKind::Command,
            name: "shell".into(),
            input: serde_json::json!({"command": "ls"}),
            output: "a\nb".into(),
            output_bytes: None,
            exit_code: Some(0),
            files: vec![],
            approval_id: None,
        },
    ));
    store.upsert_timeline_items(&items).await.unwrap();
    // Update by id: the text changes, the position does not.
    let mut streaming = items[3].clone();
    streaming.body = ItemBody::AgentMessage {
        text: "rewritten zebra".into(),
    };
    streaming.status = ItemStatus::Running;
    store
        .upsert_timeline_items(&[streaming.clone()])
        .await
        .unwrap();

    let page = store.load_timeline(&"s".into(), None, 4).await.unwrap();
    assert_eq!(
        page.items.iter().map(|i| &*i.id).collect::<Vec<_>>(),
        ["i7", "i8", "i9", "tool"]
    );
    assert_eq!(page.items[3], items[10]);
    let older = store
        .load_timeline(&"s".into(), page.before, 100)
        .await
        .unwrap();
    assert_eq!(older.items.len(), 7);
    assert_eq!(older.before, None);
    assert_eq!(older.items[3], streaming);

    // Forwards again from the second item (a window of pages scrolled down): pages of 4 from
    // where the last one stopped, each `before` the cursor of its first item, `after` unset
    // at the newest.
    let second = store
        .load_timeline(&"s".into(), page.before, 5)
        .await
        .unwrap()
        .before
        .unwrap();
    let mut after = Some(second);
    let mut ids = Vec::new();
    let mut pages = 0;
    while let Some(from) = after {
        let newer = store
            .load_timeline_newer(&"s".into(), from, 4)
            .await
            .unwrap();
        assert_eq!(
            newer.before,
            Some(from),
            "a page's first item is its cursor"
        );
        assert!(newer.items.len() <= 4);
        ids.extend(newer.items.iter().map(|i| i.id.to_string()));
        after = newer.after;
        pages += 1;
    }
    assert_eq!(pages, 3);
    let all: Vec<String> = older
        .items
        .iter()
        .chain(&page.items)
        .map(|i| i.id.to_string())
        .collect();
    assert_eq!(ids, all[2..], "every item after the cursor, once, in order");
    assert_eq!(ids.last().map(String::as_str), Some("tool"));
    assert!(store
        .load_timeline_newer(&"other".into(), 0, 4)
        .await
        .unwrap()
        .items
        .is_empty());

    // A message is searchable once complete (streaming text is on screen, and indexing each
    // flush of it cost the run's time): not while it streams.
    assert!(store
        .search_messages("zeb", None, 10)
        .await
        .unwrap()
        .is_empty());
    let mut done = streaming.clone();
    done.status = ItemStatus::Completed;
    store.upsert_timeline_items(&[done]).await.unwrap();
    let hits = store.search_messages("zeb", None, 10).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].item_id, "i3");
    assert!(
        hits[0]
            .snippet
            .iter()
            .any(|p| p.highlight && p.text == "zebra"),
        "{:?}",
        hits[0].snippet
    );
    assert!(
        store
            .search_messages("number3", None, 10)
            .await
            .unwrap()
            .is_empty(),
        "old text left the index"
    );
    assert_eq!(
        store
            .search_messages("message", Some(&"w".into()), 100)
            .await
            .unwrap()
            .len(),
        9
    );
    assert!(store
        .search_messages("message", Some(&"other".into()), 100)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .search_messages("\"", None, 10)
        .await
        .unwrap()
        .is_empty());

    // Running again (the store allows it): out of the index, then back in once closed.
    store.upsert_timeline_items(&[streaming]).await.unwrap();
    assert!(store
        .search_messages("zeb", None, 10)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        store
            .close_open_items(&"r".into(), ItemStatus::Interrupted, 50)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store.run_items(&"r".into()).await.unwrap()[3].status,
        ItemStatus::Interrupted
    );
    assert_eq!(
        store.search_messages("zeb", None, 10).await.unwrap().len(),
        1
    );
    assert_eq!(store.session_items(&"s".into()).await.unwrap().len(), 11);
}

#[tokio::test]
async fn approvals_are_decided_once() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s").await;
    run(&store, "s", "r").await;
    run(&store, "s", "r2").await;
    for (id, r) in [("a1", "r"), ("a2", "r"), ("a3", "r2"), ("a4", "r2")] {
        store.insert_approval(&approval(id, "s", r)).await.unwrap();
    }
    assert_eq!(store.pending_approvals().await.unwrap().len(), 4);
    let detail = ApprovalDecisionDetail {
        message: Some("no".into()),
        ..Default::default()
    };
    let end = ApprovalEnd {
        state: ApprovalState::Denied,
        decided_by: Some(DecidedBy::Notification),
        decision: Some(&detail),
        at: 50,
    };
    let a1 = store.end_approval(&"a1".into(), &end).await.unwrap();
    assert_eq!(
        (a1.state, a1.decided_by, a1.decided_at),
        (
            ApprovalState::Denied,
            Some(DecidedBy::Notification),
            Some(50)
        )
    );
    assert_eq!(a1.decision, Some(detail.clone()));
    let approve = ApprovalEnd {
        state: ApprovalState::ApprovedOnce,
        decided_by: Some(DecidedBy::User),
        decision: None,
        at: 51,
    };
    match store
        .end_approval(&"a1".into(), &approve)
        .await
        .unwrap_err()
    {
        StoreError::ApprovalNotPending { state, .. } => assert_eq!(state, ApprovalState::Denied),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        store.end_approval(&"zz".into(), &approve).await,
        Err(StoreError::NotFound { .. })
    ));

    let cancelled = store
        .end_run_approvals(&"r2".into(), ApprovalState::Cancelled, 52)
        .await
        .unwrap();
    assert_eq!(cancelled.len(), 2);
    assert!(cancelled.iter().all(|a| a.decided_by.is_none()));
    let expired = store.expire_all_pending_approvals(53).await.unwrap();
    assert_eq!(
        expired.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        ["a2"]
    );
    assert_eq!(expired[0].state, ApprovalState::Expired);
    assert!(store.pending_approvals().await.unwrap().is_empty());
    assert_eq!(store.session_approvals(&"s".into()).await.unwrap().len(), 4);
}

#[tokio::test]
async fn attachments_dedup_link_and_collect() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s").await;
    run(&store, "s", "r").await;
    let blob = |sha: &str, at: i64| Blob {
        sha256: sha.into(),
        mime: "image/png".into(),
        kind: AttachmentKind::Image,
        size: 3,
        created_at: at,
    };
    store.record_blob(&blob("aa", 1)).await.unwrap();
    store.record_blob(&blob("aa", 5)).await.unwrap();
    store.record_blob(&blob("bb", 1)).await.unwrap();
    assert_eq!(
        store.get_blob("aa").await.unwrap().created_at,
        5,
        "re-import refreshes"
    );
    store
        .link_run_attachments(&"r".into(), &[("aa", "one.png"), ("aa", "again.png")])
        .await
        .unwrap();
    let linked = store.run_attachments(&"r".into()).await.unwrap();
    assert_eq!(
        linked.iter().map(|l| &*l.name).collect::<Vec<_>>(),
        ["one.png", "again.png"]
    );
    assert!(store
        .link_run_attachments(&"r".into(), &[("zz", "x")])
        .await
        .is_err());
    assert_eq!(store.unreferenced_blobs(100).await.unwrap(), ["bb"]);
    assert!(
        store.unreferenced_blobs(1).await.unwrap().is_empty(),
        "recent imports are kept"
    );
    store.delete_session(&"s".into()).await.unwrap();
    let mut left = store.unreferenced_blobs(100).await.unwrap();
    left.sort();
    assert_eq!(left, ["aa", "bb"]);
    assert!(store.forget_blob_if_unreferenced("aa", 100).await.unwrap());
    assert!(!store.forget_blob_if_unreferenced("aa", 100).await.unwrap());
}

#[tokio::test]
async fn usage_sums_per_session_and_workspace() {
    let (_d, store) = store().await;
    workspace(&store, "w").await;
    session(&store, "w", "s1").await;
    session(&store, "w", "s2").await;
    run(&store, "s1", "r1").await;
    run(&store, "s1", "r2").await;
    run(&store, "s2", "r3").await;
    let u = |i, c: Option<f64>| TokenUsage {
        input: i,
        cached: 1,
        output: 2,
        reasoning: 3,
        cost_usd: c,
    };
    store
        .upsert_usage(&"r1".into(), &u(10, None), 1)
        .await
        .unwrap();
    store
        .upsert_usage(&"r1".into(), &u(100, Some(0.5)), 2)
        .await
        .unwrap();
    store
        .upsert_usage(&"r2".into(), &u(5, None), 1)
        .await
        .unwrap();
    store
        .upsert_usage(&"r3".into(), &u(1, Some(0.25)), 1)
        .await
        .unwrap();
    assert_eq!(
        store.run_usage(&"r1".into()).await.unwrap(),
        Some(Usage::from(u(100, Some(0.5))))
    );
    assert_eq!(store.run_usage(&"nope".into()).await.unwrap(), None);
    let s1 = store.session_usage(&"s1".into()).await.unwrap();
    assert_eq!(
        (
            s1.tokens.input,
            s1.tokens.cached,
            s1.tokens.cost_usd,
            s1.runs
        ),
        (105, 2, Some(0.5), 2)
    );
    let w = store.workspace_usage(&"w".into()).await.unwrap();
    assert_eq!(
        (w.tokens.input, w.tokens.output, w.tokens.cost_usd, w.runs),
        (106, 6, Some(0.75), 3)
    );
    let none = store.session_usage(&"empty".into()).await.unwrap();
    assert_eq!(none, Usage::default());
}
