//! Timeline persistence: items written per second in batches, and the time to the first
//! screenful (100 items) of a 50,000-item session. Dependency-free harness (best of 5).
//! `cargo bench -p agentdesk-store --bench timeline`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use agentdesk_protocol::ui::*;
use agentdesk_store::{NewRun, Store};

const ITEMS: usize = 50_000;
const BATCH: usize = 500;

fn item(i: usize) -> TimelineItem {
    TimelineItem {
        id: format!("r:{i}"),
        session_id: "s".into(),
        run_id: "r".into(),
        seq: i as i64,
        status: ItemStatus::Completed,
        body: ItemBody::AgentMessage {
            text: format!(
                "message {i}: the quick brown fox jumps over the lazy dog, again and again, {i}"
            ),
        },
        created_at: 1,
        updated_at: 1,
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        store
            .insert_workspace(&Workspace {
                id: "w".into(),
                name: "w".into(),
                path: "/w".into(),
                created_at: 1,
            })
            .await
            .unwrap();
        store
            .insert_session(&Session {
                id: "s".into(),
                workspace_id: "w".into(),
                profile_id: None,
                title: "t".into(),
                engine: Engine::Codex,
                engine_session_id: None,
                created_at: 1,
                updated_at: 1,
                archived_at: None,
            })
            .await
            .unwrap();
        store
            .create_run(&NewRun {
                id: "r",
                session_id: "s",
                status: RunStatus::Running,
                prompt: "p",
                profile_id: None,
                model: None,
                at: 1,
            })
            .await
            .unwrap();
        let items: Vec<TimelineItem> = (0..ITEMS).map(item).collect();
        let t = Instant::now();
        for chunk in items.chunks(BATCH) {
            store.upsert_timeline_items(chunk).await.unwrap();
        }
        let insert = t.elapsed();
        // Updating the same items again (what streaming flushes do).
        let t = Instant::now();
        for chunk in items.chunks(BATCH) {
            store.upsert_timeline_items(chunk).await.unwrap();
        }
        let update = t.elapsed();
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            let page = store.load_timeline("s", None, 100).await.unwrap();
            best = best.min(t.elapsed());
            assert_eq!(page.items.len(), 100);
        }
        let mut search = Duration::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            let hits = store
                .search_messages("lazy dog 4999", None, 20)
                .await
                .unwrap();
            search = search.min(t.elapsed());
            assert!(!hits.is_empty());
        }
        println!(
            "insert {ITEMS} items in batches of {BATCH}: {:.0} items/s ({insert:?})",
            ITEMS as f64 / insert.as_secs_f64()
        );
        println!(
            "upsert (update) {ITEMS} items: {:.0} items/s ({update:?})",
            ITEMS as f64 / update.as_secs_f64()
        );
        println!("first screenful (100 items) of a {ITEMS}-item session: {best:?}");
        println!("FTS search over {ITEMS} messages (top 20): {search:?}");
    });
}
