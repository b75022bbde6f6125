//! Indexing completed messages for search in the background, after each run.
//!
//! The store queues a completed message instead of indexing it in the write that completes
//! it (tokenising a 4 MB answer took ~0.3 s on the run's critical path); search drains the
//! queue first, so it never misses one. This drains it right after a run, so the next search
//! rarely has anything to wait for. The CLI turns it off: it is one run and then an exit,
//! and the next search (of the CLI or the app) indexes what it left.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use agentdesk_store::Store;

#[derive(Debug)]
pub(crate) struct MessageIndexer {
    enabled: AtomicBool,
    state: Arc<DrainState>,
}

#[derive(Debug, Default)]
struct DrainState {
    /// A drain task is running.
    running: AtomicBool,
    /// Messages may have been queued since the running drain last looked.
    again: AtomicBool,
}

impl Default for MessageIndexer {
    fn default() -> Self {
        MessageIndexer {
            enabled: AtomicBool::new(true),
            state: Arc::default(),
        }
    }
}

impl MessageIndexer {
    pub(crate) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::SeqCst);
    }

    /// Drain the store's queue on a background task. At most one task runs; a kick while it
    /// runs makes it look again, so nothing queued before a kick is left behind.
    pub(crate) fn kick(&self, store: &Store) {
        if !self.enabled.load(Ordering::SeqCst) {
            return;
        }
        self.state.again.store(true, Ordering::SeqCst);
        if self.state.running.swap(true, Ordering::SeqCst) {
            return;
        }
        let state = self.state.clone();
        let store = store.clone();
        tokio::spawn(async move {
            loop {
                while state.again.swap(false, Ordering::SeqCst) {
                    if let Err(e) = store.index_pending_messages().await {
                        // Not lost: the queue is in the database and the next search drains it.
                        tracing::warn!(error = %e, "indexing completed messages failed");
                    }
                }
                state.running.store(false, Ordering::SeqCst);
                // A kick between the last look and here saw a running task and left it the
                // work: take it back unless another task already did.
                if !state.again.load(Ordering::SeqCst) || state.running.swap(true, Ordering::SeqCst)
                {
                    break;
                }
            }
        });
    }
}
