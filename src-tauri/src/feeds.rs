//! Live views the window has open: one task per open session pulling batches from the core
//! and sending them on that session's channel, plus the app-wide activity stream. A session
//! that is not open has no task and costs no IPC.
//!
//! A view is paced by the page: after a batch, the next one waits until the page says (with
//! `live_ack`) that it applied and drew that one, so a page busy drawing gets fewer, larger
//! batches (merged in the core meanwhile) rather than a backlog of small ones to evaluate.

use std::collections::HashMap;
use std::sync::Mutex;

use agentdesk_core::{ActivityWatch, FeedAcks, SessionFeed, ACK_WAIT};
use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::rate_limits::EngineRateLimits;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{HistoryStatus, LiveBatch, SessionActivity};
use tauri::ipc::Channel;
use tokio::task::AbortHandle;

/// One open session view: its task, and where the page's acks go.
struct View {
    task: AbortHandle,
    /// The channel the view sends on: an ack naming another one is from an earlier view of
    /// the session (a reloaded page) and says nothing about this one.
    channel: u32,
    acks: FeedAcks,
}

/// The least time between two history statuses sent to the window.
const HISTORY_STATUS_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

#[derive(Default)]
pub struct Feeds {
    sessions: Mutex<HashMap<SessionId, View>>,
    activity: Mutex<Option<AbortHandle>>,
    histories: Mutex<Option<AbortHandle>>,
    rate_limits: Mutex<Option<AbortHandle>>,
}

impl Feeds {
    /// Stream `feed` to `channel` until closed, replacing an earlier view of the session
    /// (a reloaded window opens it again).
    pub fn open(&self, feed: SessionFeed, channel: Channel<LiveBatch>) {
        let session_id = feed.session_id().clone();
        let (mut feed, acks) = feed.paced(ACK_WAIT);
        let channel_id = channel.id();
        let task = tauri::async_runtime::spawn(async move {
            while let Some(batch) = feed.next_batch().await {
                if let Err(e) = channel.send(batch) {
                    // The webview is gone (reloaded or closed): nobody is looking.
                    tracing::debug!(session = %feed.session_id(), error = %e, "live view closed");
                    break;
                }
            }
        });
        let view = View {
            task: task.inner().abort_handle(),
            channel: channel_id,
            acks,
        };
        if let Some(old) = lock(&self.sessions).insert(session_id, view) {
            old.task.abort();
        }
    }

    /// The page applied batch `seq` of the view on `channel`: the next one may go.
    pub fn ack(&self, session_id: &SessionId, channel: u32, seq: u64) {
        if let Some(view) = lock(&self.sessions).get(session_id) {
            if view.channel == channel {
                tracing::trace!(session = %session_id, seq, "the page applied a live batch");
                view.acks.ack(seq);
            }
        }
    }

    pub fn close(&self, session_id: &SessionId) {
        if let Some(view) = lock(&self.sessions).remove(session_id) {
            view.task.abort();
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

    /// Send the histories' status now and on every change, replacing an earlier stream (a
    /// reloaded page asks again).
    pub fn watch_histories(
        &self,
        mut status: tokio::sync::watch::Receiver<HistoryStatus>,
        channel: Channel<HistoryStatus>,
    ) {
        let task = tauri::async_runtime::spawn(async move {
            loop {
                let now = status.borrow_and_update().clone();
                if channel.send(now).is_err() {
                    break;
                }
                // A first import changes the status per file: the window hears the latest a
                // few times a second, not every step.
                tokio::time::sleep(HISTORY_STATUS_EVERY).await;
                if status.changed().await.is_err() {
                    break;
                }
            }
        });
        if let Some(old) = lock(&self.histories).replace(task.inner().abort_handle()) {
            old.abort();
        }
    }

    /// Send the engines' rate limits now and on every change, replacing an earlier stream.
    pub fn watch_rate_limits(
        &self,
        mut limits: tokio::sync::watch::Receiver<Vec<EngineRateLimits>>,
        channel: Channel<Vec<EngineRateLimits>>,
    ) {
        let task = tauri::async_runtime::spawn(async move {
            loop {
                let now = limits.borrow_and_update().clone();
                if channel.send(now).is_err() || limits.changed().await.is_err() {
                    break;
                }
            }
        });
        if let Some(old) = lock(&self.rate_limits).replace(task.inner().abort_handle()) {
            old.abort();
        }
    }

    pub fn close_all(&self) {
        for (_, view) in lock(&self.sessions).drain() {
            view.task.abort();
        }
        for stream in [&self.activity, &self.histories, &self.rate_limits] {
            if let Some(task) = lock(stream).take() {
                task.abort();
            }
        }
    }
}
