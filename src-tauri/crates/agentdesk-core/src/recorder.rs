//! The persistence policy of a run: events go through the run's one reducer (its
//! [`RunTimeline`], which also feeds the live views: see [`crate::pipeline`]); changed items are
//! written in one transaction at most `flush_interval` (1 s) after the first unwritten
//! change, and at the end. So streaming text costs one write per second, not one per delta,
//! and a crash loses at most about a second of it.
//!
//! A write that fails (another program holds the database's write lock, the disk is full)
//! loses nothing: the batch stays in memory, merged with later changes (one copy per item,
//! so memory stays bounded by the run's own timeline), and is retried with backoff while
//! events keep being applied. Only when writes have failed for the whole retry budget
//! (`storage_retry_budget`, 60 s by default), or the file cannot be written at all (damaged,
//! read-only), does the recorder give up and return the storage error; the orchestration
//! then stops the engine and ends the run `failed` with that reason.

use std::time::Duration;

use agentdesk_protocol::events::{AgentEvent, FailureCode};
use agentdesk_protocol::ids::{ApprovalId, SessionId};
use agentdesk_protocol::ui::{ApprovalState, ItemStatus, Run, RunStatus, TimelineItem, TokenUsage};
use agentdesk_store::{now_ms, RunEnd, Store, StoreError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::pipeline::RunTimeline;
use crate::timeline::RunReducer;
use crate::{ApprovalQueue, Result};

pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// How long writes may keep failing before a run is given up on.
pub const STORAGE_RETRY_BUDGET: Duration = Duration::from_secs(60);
/// First wait before retrying a failed write; it doubles up to [`MAX_RETRY_WAIT`]. Each
/// attempt on a locked database also waits SQLite's busy timeout (5 s) before failing.
const FIRST_RETRY_WAIT: Duration = Duration::from_millis(250);
const MAX_RETRY_WAIT: Duration = Duration::from_secs(2);

/// What feeds a run's recorder.
#[derive(Debug, Clone)]
pub enum RunInput {
    Event(AgentEvent),
    /// The queue recorded the engine request `request_id` as approval `approval_id` (sent
    /// before the request's event, so its item is made naming it).
    Linked {
        request_id: String,
        approval_id: ApprovalId,
    },
}

/// One write of changed items (for tests and metrics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlushReport {
    /// When the write began.
    pub at: Instant,
    /// When the oldest change in the batch was applied (`at - since` ≤ the interval).
    pub since: Option<Instant>,
    pub items: usize,
    pub last: bool,
}

/// What the database has not taken yet. Items are merged by id (a later version of an item
/// replaces the earlier one: it holds all of its text), so this never grows past the run's
/// own timeline; the other fields keep only their latest value.
#[derive(Default)]
struct Unsaved {
    items: Vec<TimelineItem>,
    model: Option<String>,
    engine_session_id: Option<String>,
    usage: Option<TokenUsage>,
}

impl Unsaved {
    fn is_empty(&self) -> bool {
        self.items.is_empty()
            && self.model.is_none()
            && self.engine_session_id.is_none()
            && self.usage.is_none()
    }

    fn merge(&mut self, batch: Vec<TimelineItem>) {
        for item in batch {
            match self.items.iter_mut().find(|i| i.id == item.id) {
                Some(old) => *old = item,
                None => self.items.push(item),
            }
        }
    }
}

/// Failed writes so far: since when they fail, and how long to wait before the next try.
struct Retry {
    budget: Duration,
    failing_since: Option<Instant>,
    wait: Duration,
}

impl Retry {
    /// A write failed: `Ok` to try again later, or the error when it is time to give up.
    fn failed(&mut self, e: StoreError, attempt_began: Instant) -> Result<(), StoreError> {
        if !e.is_transient() {
            return Err(e);
        }
        let since = *self.failing_since.get_or_insert(attempt_began);
        if since.elapsed() >= self.budget {
            return Err(e);
        }
        tracing::warn!(error = %e, retry_in = ?self.wait, "cannot save the run yet; keeping it in memory and retrying");
        Ok(())
    }

    fn wait(&mut self) -> Duration {
        let w = self.wait;
        self.wait = (self.wait * 2).min(MAX_RETRY_WAIT);
        w
    }

    fn succeeded(&mut self) {
        if self.failing_since.take().is_some() {
            tracing::info!("the run is being saved again");
        }
        self.wait = FIRST_RETRY_WAIT;
    }

    fn failing(&self) -> bool {
        self.failing_since.is_some()
    }
}

pub struct RunRecorder {
    store: Store,
    timeline: RunTimeline,
    session_id: SessionId,
    interval: Duration,
    approvals: Option<ApprovalQueue>,
    reports: Option<mpsc::UnboundedSender<FlushReport>>,
    unsaved: Unsaved,
    /// When the oldest change not yet written was applied.
    unsaved_since: Option<Instant>,
    retry: Retry,
    /// Where whole tool outputs past the timeline's limit go (`None`: nowhere, tests).
    outputs_dir: Option<std::path::PathBuf>,
}

impl RunRecorder {
    /// A recorder with a reducer of its own, that no live view watches.
    pub fn new(store: Store, session_id: &SessionId, reducer: RunReducer) -> RunRecorder {
        Self::with_timeline(
            store,
            session_id,
            RunTimeline::unwatched(session_id, reducer),
        )
    }

    /// A recorder driving the run's one reducer, as registered in the pipeline.
    pub fn with_timeline(
        store: Store,
        session_id: &SessionId,
        timeline: RunTimeline,
    ) -> RunRecorder {
        RunRecorder {
            store,
            timeline,
            session_id: session_id.clone(),
            interval: FLUSH_INTERVAL,
            approvals: None,
            reports: None,
            unsaved: Unsaved::default(),
            unsaved_since: None,
            retry: Retry {
                budget: STORAGE_RETRY_BUDGET,
                failing_since: None,
                wait: FIRST_RETRY_WAIT,
            },
            outputs_dir: None,
        }
    }

    /// Write whole tool outputs past the timeline's limit into `dir` (one file per item).
    pub fn outputs_dir(mut self, dir: std::path::PathBuf) -> Self {
        self.outputs_dir = Some(dir);
        self
    }

    /// Carry out the file writes of cut tool outputs. A failed write is logged: the
    /// timeline keeps the head and tail either way, and the run goes on.
    async fn spill_outputs(&mut self) {
        let spills = self.timeline.take_output_spills();
        let Some(dir) = self.outputs_dir.as_ref().filter(|_| !spills.is_empty()) else {
            return;
        };
        use tokio::io::AsyncWriteExt;
        if let Err(e) = tokio::fs::create_dir_all(dir).await {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot make the tool output folder");
            return;
        }
        for (item_id, spill) in spills {
            let path = dir.join(crate::tool_output::file_name(&item_id));
            let written = match spill {
                crate::tool_output::Spill::Replace(text) => tokio::fs::write(&path, text).await,
                crate::tool_output::Spill::Append(text) => {
                    async {
                        let mut f = tokio::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(&path)
                            .await?;
                        f.write_all(text.as_bytes()).await
                    }
                    .await
                }
            };
            if let Err(e) = written {
                tracing::warn!(path = %path.display(), error = %e, "cannot write a tool's whole output");
            }
        }
    }

    pub fn flush_interval(mut self, d: Duration) -> Self {
        self.interval = d;
        self
    }

    /// How long writes may keep failing before the recorder gives up (default 60 s).
    pub fn storage_retry_budget(mut self, d: Duration) -> Self {
        self.retry.budget = d;
        self
    }

    /// End the run's pending approvals when the run ends (expired, or cancelled on interrupt).
    pub fn approvals(mut self, queue: ApprovalQueue) -> Self {
        self.approvals = Some(queue);
        self
    }

    pub fn on_flush(mut self, tx: mpsc::UnboundedSender<FlushReport>) -> Self {
        self.reports = Some(tx);
        self
    }

    /// Write what is unsaved. A failure keeps it for the next try (`Ok`), unless it is time
    /// to give up (`Err`).
    async fn flush(&mut self, last: bool) -> Result<()> {
        self.unsaved.merge(self.timeline.take_dirty());
        if self.unsaved.is_empty() && !last {
            return Ok(());
        }
        let at = Instant::now();
        match self.write_unsaved().await {
            Ok(batch) => {
                self.retry.succeeded();
                let since = self.unsaved_since.take();
                if let Some(r) = &self.reports {
                    let _ = r.send(FlushReport {
                        at,
                        since,
                        items: batch.len(),
                        last,
                    });
                }
                Ok(())
            }
            Err(e) => Ok(self.retry.failed(e, at)?),
        }
    }

    /// Everything unsaved in as few writes as possible; returns the items written. What was
    /// written stays written when a later step fails.
    async fn write_unsaved(&mut self) -> Result<Vec<TimelineItem>, StoreError> {
        let run_id = self.timeline.run_id().clone();
        if let Some(m) = &self.unsaved.model {
            self.store.set_run_model(&run_id, m).await?;
            self.unsaved.model = None;
        }
        if let Some(id) = &self.unsaved.engine_session_id {
            self.store
                .set_engine_session_id(&self.session_id, Some(id))
                .await?;
            self.unsaved.engine_session_id = None;
        }
        if let Some(u) = &self.unsaved.usage {
            self.store.upsert_usage(&run_id, u, now_ms()).await?;
            self.unsaved.usage = None;
        }
        if !self.unsaved.items.is_empty() {
            self.store
                .upsert_timeline_items(&self.unsaved.items)
                .await?;
        }
        Ok(std::mem::take(&mut self.unsaved.items))
    }

    /// Keep what an event says about the run itself; written at once unless writes are
    /// failing (then with the next retry, instead of waiting out a lock per event).
    async fn side_effects(&mut self, ev: &AgentEvent) -> Result<()> {
        match ev {
            AgentEvent::RunStarted {
                model,
                engine_session_id,
                ..
            } => {
                if let Some(m) = model {
                    self.unsaved.model = Some(m.clone());
                }
                if let Some(id) = engine_session_id {
                    self.unsaved.engine_session_id = Some(id.clone());
                }
            }
            AgentEvent::Usage(tokens) => self.unsaved.usage = Some(*tokens),
            _ => return Ok(()),
        }
        if self.retry.failing() {
            return Ok(());
        }
        let at = Instant::now();
        match self.write_unsaved_effects().await {
            Ok(()) => Ok(()),
            Err(e) => Ok(self.retry.failed(e, at)?),
        }
    }

    async fn write_unsaved_effects(&mut self) -> Result<(), StoreError> {
        let items = std::mem::take(&mut self.unsaved.items);
        let result = self.write_unsaved().await;
        // Items wait for their interval; only the run's own fields were due now.
        self.unsaved.items = items;
        result.map(|_| ())
    }

    /// Record until the run ends (a terminal event, or the input closing: then the run
    /// failed, since the engine side went away without saying how it ended).
    pub async fn run(mut self, mut inputs: mpsc::Receiver<RunInput>) -> Result<Run> {
        let mut deadline: Option<Instant> = None;
        loop {
            tokio::select! {
                biased;
                input = inputs.recv() => match input {
                    Some(RunInput::Event(ev)) => {
                        // Applied first: the live views need not wait for a write.
                        let ended = self.timeline.apply(&ev);
                        // Only a tool's output can owe its file a write: no look at the
                        // reducer for every other event (text deltas are the hot path).
                        if matches!(ev, AgentEvent::ToolUpdated { .. } | AgentEvent::ToolCompleted { .. }) {
                            self.spill_outputs().await;
                        }
                        self.side_effects(&ev).await?;
                        if ended {
                            break;
                        }
                    }
                    Some(RunInput::Linked { request_id, approval_id }) => {
                        self.timeline.link_approval(&request_id, approval_id)
                    }
                    None => {
                        self.timeline.apply(&AgentEvent::run_failed(
                            "the engine stopped without ending the run",
                            FailureCode::NoEnd,
                        ));
                        break;
                    }
                },
                _ = sleep_until(deadline), if deadline.is_some() => {
                    self.flush(false).await?;
                    deadline = None;
                }
            }
            let dirty = self.timeline.has_dirty() || !self.unsaved.is_empty();
            if dirty {
                self.unsaved_since.get_or_insert_with(Instant::now);
            }
            if deadline.is_none() && dirty {
                let wait = if self.retry.failing() {
                    self.retry.wait()
                } else {
                    self.interval
                };
                deadline = Some(Instant::now() + wait);
            }
        }
        self.finish().await
    }

    /// Run a write until it succeeds, waiting between tries, or until it is time to give up.
    async fn retrying<T, F, Fut>(&mut self, mut write: F) -> Result<T>
    where
        F: FnMut(Store) -> Fut,
        Fut: std::future::Future<Output = Result<T, StoreError>>,
    {
        loop {
            let at = Instant::now();
            match write(self.store.clone()).await {
                Ok(v) => {
                    self.retry.succeeded();
                    return Ok(v);
                }
                Err(e) => {
                    self.retry.failed(e, at)?;
                    tokio::time::sleep(self.retry.wait()).await;
                }
            }
        }
    }

    async fn finish(mut self) -> Result<Run> {
        let outcome = self.timeline.outcome();
        let (status, stop_reason, error) = match outcome {
            Some(o) => (o.status, o.stop_reason, o.error),
            None => (
                RunStatus::Failed,
                None,
                Some("the run ended without an outcome".to_string()),
            ),
        };
        let run_id = self.timeline.run_id().clone();
        if let Some(q) = &self.approvals {
            let state = if status == RunStatus::Interrupted {
                ApprovalState::Cancelled
            } else {
                ApprovalState::Expired
            };
            // The records say how they ended (the items only name them).
            loop {
                let at = Instant::now();
                match q.end_run(&run_id, state).await {
                    Ok(_) => break,
                    Err(crate::CoreError::Store(e)) => {
                        self.retry.failed(e, at)?;
                        tokio::time::sleep(self.retry.wait()).await;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        // The last batch: retried like the others, but now without new events to wait for.
        self.flush(true).await?;
        while !self.unsaved.is_empty() {
            tokio::time::sleep(self.retry.wait()).await;
            self.flush(true).await?;
        }
        let at = now_ms();
        // Items a previous flush wrote as running but the reducer never saw again.
        let rid = run_id.clone();
        self.retrying(move |store| {
            let rid = rid.clone();
            async move {
                store
                    .close_open_items(&rid, ItemStatus::Interrupted, at)
                    .await
            }
        })
        .await?;
        let rid = run_id.clone();
        let ended = self
            .retrying(move |store| {
                let rid = rid.clone();
                let (stop_reason, error) = (stop_reason.clone(), error.clone());
                async move {
                    let end = RunEnd {
                        status,
                        stop_reason: stop_reason.as_deref(),
                        error: error.as_deref(),
                        at,
                    };
                    match store.finish_run(&rid, &end).await {
                        Ok(run) => Ok(Some(run)),
                        // Already ended elsewhere (recovery, a cancel): the first end stands.
                        Err(StoreError::Conflict(_)) => Ok(None),
                        Err(e) => Err(e),
                    }
                }
            })
            .await?;
        let run = match ended {
            Some(run) => run,
            None => self.store.get_run(&run_id).await?,
        };
        Ok(run)
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use agentdesk_protocol::ui::ItemBody;

    fn item(id: &str, text: &str) -> TimelineItem {
        TimelineItem {
            id: id.into(),
            session_id: "s".into(),
            run_id: "r".into(),
            seq: 0,
            status: ItemStatus::Running,
            body: ItemBody::AgentMessage { text: text.into() },
            created_at: 0,
            updated_at: 0,
            parent_id: None,
        }
    }

    /// While writes fail, every flush adds the latest version of each changed item: one copy
    /// per item is kept (the latest, which holds all its text), in first-seen order.
    #[test]
    fn unsaved_batches_merge_by_item() {
        let mut u = Unsaved::default();
        let mut text = String::new();
        for i in 0..1000 {
            text.push_str(&format!("w{i} "));
            u.merge(vec![
                item("r:m", &text),
                item(&format!("r:t{}", i % 3), "x"),
            ]);
        }
        assert_eq!(
            u.items.len(),
            4,
            "one entry per item, however many failed flushes"
        );
        assert_eq!(u.items[0].id, "r:m");
        assert_eq!(u.items[0].body, ItemBody::AgentMessage { text });
        assert!(!u.is_empty());
    }
}
