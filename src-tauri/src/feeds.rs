//! Live views the window has open: one task per open session pulling batches from the core
//! and sending them on that session's channel, plus the app-wide activity stream. A session
//! that is not open has no task and costs no IPC.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use agentdesk_core::{ActivityWatch, SessionFeed};
use agentdesk_protocol::ui::{LiveBatch, SessionActivity};
use tauri::ipc::Channel;
use tokio::task::AbortHandle;

#[derive(Default)]
pub struct Feeds {
    sessions: Mutex<HashMap<String, AbortHandle>>,
    activity: Mutex<Option<AbortHandle>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each critical section is one map operation: a poisoned lock is still consistent.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Feeds {
    /// Stream `feed` to `channel` until closed, replacing an earlier view of the session
    /// (a reloaded window opens it again).
    pub fn open(&self, mut feed: SessionFeed, channel: Channel<LiveBatch>) {
        let session_id = feed.session_id().to_string();
        let task = tauri::async_runtime::spawn(async move {
            while let Some(batch) = feed.next_batch().await {
                if let Err(e) = channel.send(batch) {
                    // The webview is gone (reloaded or closed): nobody is looking.
                    tracing::debug!(session = %feed.session_id(), error = %e, "live view closed");
                    break;
                }
            }
        });
        if let Some(old) = lock(&self.sessions).insert(session_id, task.inner().abort_handle()) {
            old.abort();
        }
    }

    pub fn close(&self, session_id: &str) {
        if let Some(task) = lock(&self.sessions).remove(session_id) {
            task.abort();
        }
    }

    pub fn watch_activity(&self, mut watch: ActivityWatch, channel: Channel<Vec<SessionActivity>>) {
        let task = tauri::async_runtime::spawn(async move {
            while let Some(snapshot) = watch.next().await {
                if channel.send(snapshot).is_err() {
                    break;
                }
            }
        });
        if let Some(old) = lock(&self.activity).replace(task.inner().abort_handle()) {
            old.abort();
        }
    }

    pub fn close_all(&self) {
        for (_, task) in lock(&self.sessions).drain() {
            task.abort();
        }
        if let Some(task) = lock(&self.activity).take() {
            task.abort();
        }
    }
}
