//! Store speed (divan): `cargo bench -p agentdesk-store --bench timeline`.
//!
//! - `persist_batched`: timeline items written per second, in batches of 500 per transaction
//!   (what a run's recorder does, at far higher rates than any engine streams).
//! - `reflush_batched`: the same items upserted again (what each flush of a stream does).
//! - `first_screenful_of_50k`: the last 100 items of a 50,000-item session (opening a session).
//! - `search_1m_messages`: FTS5 search, bm25-ranked with snippets (the 2,000 newest matches of
//!   a common word), over 1,000,000 messages. The
//!   database is built once (about a minute) and kept under `target/bench-data/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support.rs"]
mod support;

use std::sync::LazyLock;

use divan::counter::ItemsCount;
use divan::Bencher;
use support::{items, runtime, seed, Seeded};

fn main() {
    divan::main();
}

const BATCH: usize = 500;

static RT: LazyLock<tokio::runtime::Runtime> = LazyLock::new(runtime);

/// A fresh database with one session of 50,000 items.
static FIFTY_K: LazyLock<Seeded> = LazyLock::new(|| RT.block_on(seed(None, 1, 50_000)));

/// 1,000,000 messages in 20 sessions, built once and reused across runs.
static ONE_M: LazyLock<Seeded> = LazyLock::new(|| {
    let dir = support::bench_data_dir().join("fts-1m");
    RT.block_on(seed(Some(dir), 20, 50_000))
});

#[divan::bench(sample_count = 10, sample_size = 1)]
fn persist_batched(b: Bencher) {
    const N: usize = 10_000;
    b.counter(ItemsCount::new(N))
        .with_inputs(|| RT.block_on(seed(None, 1, 0)))
        .bench_values(|seeded| {
            RT.block_on(async {
                let batch = items(&seeded.sessions[0], 0, N);
                for chunk in batch.chunks(BATCH) {
                    seeded.store.upsert_timeline_items(chunk).await.unwrap();
                }
                seeded
            })
        });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn reflush_batched(b: Bencher) {
    const N: usize = 10_000;
    let seeded = &*FIFTY_K;
    let batch = items(&seeded.sessions[0], 0, N);
    b.counter(ItemsCount::new(N)).bench(|| {
        RT.block_on(async {
            for chunk in batch.chunks(BATCH) {
                seeded.store.upsert_timeline_items(chunk).await.unwrap();
            }
        })
    });
}

#[divan::bench(sample_count = 50)]
fn first_screenful_of_50k(b: Bencher) {
    let seeded = &*FIFTY_K;
    b.bench(|| {
        RT.block_on(async {
            let page = seeded
                .store
                .load_timeline(&seeded.sessions[0].0, None, 100)
                .await
                .unwrap();
            assert_eq!(page.items.len(), 100);
            page
        })
    });
}

#[divan::bench(sample_count = 30, args = ["kettle", "zebra orbit", "quartz 4242"])]
fn search_1m_messages(b: Bencher, query: &str) {
    let seeded = &*ONE_M;
    b.bench(|| {
        RT.block_on(async {
            let hits = seeded.store.search_messages(query, None, 20).await.unwrap();
            assert!(!hits.is_empty(), "no hits for {query}");
            hits
        })
    });
}
