//! Full-text search ranking against a real database file: rare terms ranked by bm25 over
//! every match, common terms over their most recent matches only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::*;
use agentdesk_store::{NewRun, Store};

async fn store_with(texts: &[&str]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    for ws in ["w", "v"] {
        store
            .insert_workspace(&Workspace {
                id: ws.into(),
                name: format!("workspace {ws}"),
                path: format!("/{ws}"),
                host: None,
                created_at: 1,
            })
            .await
            .unwrap();
    }
    for (s, ws) in [("s", "w"), ("t", "v")] {
        store
            .insert_session(&Session::begun(
                s.into(),
                ws.into(),
                Engine::Codex,
                format!("title {s}"),
                1,
            ))
            .await
            .unwrap();
        store
            .create_run(&NewRun::running(&format!("r{s}").into(), &s.into(), "p", 1))
            .await
            .unwrap();
    }
    // Written one by one, in order: item `m{i}` is older than `m{i+1}`. Odd items go to the
    // second workspace's session.
    for (i, text) in texts.iter().enumerate() {
        let (s, r) = if i % 2 == 0 { ("s", "rs") } else { ("t", "rt") };
        store
            .upsert_timeline_items(&[TimelineItem {
                id: format!("m{i}"),
                session_id: s.into(),
                run_id: r.into(),
                seq: i as i64,
                status: ItemStatus::Completed,
                body: ItemBody::AgentMessage {
                    text: (*text).into(),
                },
                created_at: 100 + i as i64,
                updated_at: 100 + i as i64,
                parent_id: None,
            }])
            .await
            .unwrap();
    }
    (dir, store)
}

fn ids(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.item_id.as_str()).collect()
}

#[tokio::test]
async fn fewer_matches_than_the_window_are_all_ranked_by_bm25() {
    // The oldest message says "kettle" three times: the best match, first although oldest.
    let (_dir, store) = store_with(&[
        "kettle kettle kettle",
        "a kettle among many other words in a long sentence here",
        "nothing to see",
        "the kettle boils",
    ])
    .await;
    let hits = store.search_messages("kettle", None, 10).await.unwrap();
    assert_eq!(ids(&hits), ["m0", "m3", "m1"]);
    assert!(hits.windows(2).all(|w| w[0].rank <= w[1].rank), "{hits:?}");
    // Same shape as ever: session, workspace, highlighted snippet, the item's date.
    assert_eq!(hits[1].session_title, "title t");
    assert_eq!(hits[1].workspace_id, "v");
    assert_eq!(hits[1].created_at, 103);
    assert_eq!(hits[1].kind, "agent_message");
    assert_eq!(
        hits[1].snippet,
        vec![
            SnippetPart {
                text: "the ".into(),
                highlight: false
            },
            SnippetPart {
                text: "kettle".into(),
                highlight: true
            },
            SnippetPart {
                text: " boils".into(),
                highlight: false
            },
        ]
    );
    // The first page is the best `limit`, not the first `limit` found.
    let top = store.search_messages("kettle", None, 1).await.unwrap();
    assert_eq!(ids(&top), ["m0"]);
}

#[tokio::test]
async fn a_common_term_is_ranked_over_its_most_recent_matches() {
    // Six matches, a window of three: the strong old match (m0) is outside it, so the page
    // holds the newest three, ranked among themselves.
    let (_dir, store) = store_with(&[
        "kettle kettle kettle",
        "kettle in a long sentence with plenty of other words around it",
        "kettle in a long sentence with plenty of other words around it too",
        "kettle and more words after it",
        "kettle kettle",
        "kettle here in a long sentence with plenty of other words around it",
    ])
    .await;
    let hits = store
        .search_messages_within("kettle", None, 3, 3)
        .await
        .unwrap();
    assert_eq!(ids(&hits), ["m4", "m3", "m5"]);
    // The full window (the default is far larger) finds the old one first again.
    let all = store.search_messages("kettle", None, 10).await.unwrap();
    assert_eq!(all.len(), 6);
    assert_eq!(all[0].item_id, "m0");
    // A page larger than the window widens it: never fewer hits than asked when they exist.
    let wide = store
        .search_messages_within("kettle", None, 5, 3)
        .await
        .unwrap();
    assert_eq!(wide.len(), 5);
}

#[tokio::test]
async fn the_window_counts_matches_of_the_workspace_searched() {
    // In workspace "w" (even items) the newest matches are m4 and m2; the newer odd items
    // of the other workspace must not use up the window.
    let (_dir, store) = store_with(&[
        "kettle kettle kettle",
        "kettle",
        "kettle here",
        "kettle",
        "kettle there",
        "kettle",
        "kettle again",
        "kettle",
    ])
    .await;
    let hits = store
        .search_messages_within("kettle", Some(&"w".into()), 2, 2)
        .await
        .unwrap();
    assert_eq!(ids(&hits).len(), 2);
    assert!(
        ids(&hits).iter().all(|id| ["m4", "m6"].contains(id)),
        "{hits:?}"
    );
}
