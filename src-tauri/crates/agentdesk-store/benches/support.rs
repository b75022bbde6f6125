//! Shared set-up for the store benches: deterministic message text and seeded databases.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;

use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::*;
use agentdesk_store::{NewRun, Store};

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn bench_data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../target"));
    target.join("bench-data")
}

/// 64 ordinary words plus numbered tokens: common words hit many rows, rare ones few, like
/// real chat text.
const WORDS: &[&str] = &[
    "the", "a", "file", "test", "run", "build", "error", "fix", "code", "change", "line", "rust",
    "function", "module", "crate", "value", "type", "trait", "async", "await", "write", "read",
    "path", "config", "server", "client", "request", "response", "json", "parse", "string",
    "vector", "index", "query", "table", "commit", "branch", "merge", "review", "patch", "diff",
    "output", "input", "command", "shell", "process", "thread", "lock", "zebra", "orbit", "kettle",
    "quartz", "lamp", "river", "stone", "cloud", "amber", "violet", "cedar", "maple", "falcon",
    "harbor", "meadow", "summit",
];

/// Deterministic text of message `i` (an LCG picks 14 words and a number).
pub fn text(i: u64) -> String {
    let mut x = i
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let mut out = String::with_capacity(120);
    for _ in 0..14 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        out.push_str(WORDS[(x >> 33) as usize % WORDS.len()]);
        out.push(' ');
    }
    out.push_str(&(i % 10_000).to_string());
    out
}

pub struct Seeded {
    pub store: Store,
    /// (session id, run id)
    pub sessions: Vec<(SessionId, RunId)>,
    _dir: Option<tempfile::TempDir>,
}

/// Items `from..from+n` of a session's single run, alternating user and agent messages.
pub fn items(session: &(SessionId, RunId), from: usize, n: usize) -> Vec<TimelineItem> {
    (from..from + n)
        .map(|i| TimelineItem {
            id: format!("{}:{i}", session.1),
            session_id: session.0.clone(),
            run_id: session.1.clone(),
            seq: i as i64,
            status: ItemStatus::Completed,
            body: if i % 2 == 0 {
                ItemBody::UserMessage {
                    text: text(i as u64),
                    attachments: Vec::new(),
                }
            } else {
                ItemBody::AgentMessage {
                    text: text(i as u64),
                }
            },
            created_at: 1,
            updated_at: 1,
            parent_id: None,
        })
        .collect()
}

/// A database with `sessions` sessions of `per_session` items each. With `dir`, the database
/// lives there and is reused when it already holds exactly that.
pub async fn seed(dir: Option<PathBuf>, sessions: usize, per_session: usize) -> Seeded {
    let (path, tmp) = match dir {
        Some(d) => (d, None),
        None => {
            let t = tempfile::tempdir().unwrap();
            (t.path().to_path_buf(), Some(t))
        }
    };
    let store = Store::open_in_dir(&path).await.unwrap();
    let ids: Vec<(SessionId, RunId)> = (0..sessions)
        .map(|s| (format!("s{s}").into(), format!("r{s}").into()))
        .collect();
    let have = store
        .list_sessions(&"w".into(), true)
        .await
        .map(|v| v.len())
        .unwrap_or(0);
    // The last session is written last: if it is full, the whole cache is.
    let complete = have == sessions
        && store
            .count_session_items(&ids[sessions - 1].0)
            .await
            .unwrap_or(0) as usize
            == per_session;
    if !complete {
        if have > 0 {
            // A half-built cache from an interrupted run: start over.
            store.close().await;
            std::fs::remove_dir_all(&path).unwrap();
            return Box::pin(seed(Some(path), sessions, per_session)).await;
        }
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
        for (s, r) in &ids {
            store
                .insert_session(&Session::begun(
                    s.clone(),
                    "w".into(),
                    Engine::Codex,
                    s.to_string(),
                    1,
                ))
                .await
                .unwrap();
            store
                .create_run(&NewRun::running(r, s, "p", 1))
                .await
                .unwrap();
            let mut from = 0;
            while from < per_session {
                let n = 2_000.min(per_session - from);
                store
                    .upsert_timeline_items(&items(&(s.clone(), r.clone()), from, n))
                    .await
                    .unwrap();
                from += n;
            }
        }
    }
    // Messages are indexed when the queue is drained (migration 0003); the search benches
    // measure searching, so the index is complete before they start.
    store.index_pending_messages().await.unwrap();
    Seeded {
        store,
        sessions: ids,
        _dir: tmp,
    }
}
