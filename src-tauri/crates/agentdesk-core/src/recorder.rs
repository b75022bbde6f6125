//! The persistence policy of a run: events go through the run's reducer; changed items are
//! written in one transaction at most `flush_interval` (1 s) after the first unwritten
//! change, and at the end. So streaming text costs one write per second, not one per delta,
//! and a crash loses at most about a second of it.

use std::time::Duration;

use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ui::{
    Approval, ApprovalState, ItemStatus, Run, RunStatus, TimelineItem, Usage,
};
use agentdesk_store::{now_ms, RunEnd, Store, StoreError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::timeline::RunReducer;
use crate::{ApprovalQueue, Result};

pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// What feeds a run's recorder.
#[derive(Debug, Clone)]
pub enum RunInput {
    Event(AgentEvent),
    /// The queue's record of one of this run's approvals changed (boxed: it is rare and
    /// much larger than an event).
    Approval(Box<Approval>),
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

pub struct RunRecorder {
    store: Store,
    reducer: RunReducer,
    session_id: String,
    interval: Duration,
    approvals: Option<ApprovalQueue>,
    reports: Option<mpsc::UnboundedSender<FlushReport>>,
    sink: Option<mpsc::UnboundedSender<Vec<TimelineItem>>>,
}

impl RunRecorder {
    pub fn new(store: Store, session_id: &str, reducer: RunReducer) -> RunRecorder {
        RunRecorder {
            store,
            reducer,
            session_id: session_id.to_string(),
            interval: FLUSH_INTERVAL,
            approvals: None,
            reports: None,
            sink: None,
        }
    }

    pub fn flush_interval(mut self, d: Duration) -> Self {
        self.interval = d;
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

    /// Also hand every written batch to the shell (which coalesces per frame).
    pub fn sink(mut self, tx: mpsc::UnboundedSender<Vec<TimelineItem>>) -> Self {
        self.sink = Some(tx);
        self
    }

    async fn flush(&mut self, last: bool, since: Option<Instant>) -> Result<()> {
        let batch = self.reducer.take_dirty();
        if batch.is_empty() && !last {
            return Ok(());
        }
        let at = Instant::now();
        self.store.upsert_timeline_items(&batch).await?;
        if let Some(r) = &self.reports {
            let _ = r.send(FlushReport {
                at,
                since,
                items: batch.len(),
                last,
            });
        }
        if let Some(s) = &self.sink {
            if !batch.is_empty() {
                let _ = s.send(batch);
            }
        }
        Ok(())
    }

    async fn side_effects(&self, ev: &AgentEvent) -> Result<()> {
        let run_id = self.reducer.run_id();
        match ev {
            AgentEvent::RunStarted {
                model,
                engine_session_id,
                ..
            } => {
                if let Some(m) = model {
                    self.store.set_run_model(run_id, m).await?;
                }
                if let Some(id) = engine_session_id {
                    self.store
                        .set_engine_session_id(&self.session_id, Some(id))
                        .await?;
                }
            }
            AgentEvent::Usage {
                input,
                cached,
                output,
                reasoning,
                cost_usd,
            } => {
                let u = Usage {
                    input: *input,
                    cached: *cached,
                    output: *output,
                    reasoning: *reasoning,
                    cost_usd: *cost_usd,
                    runs: 1,
                };
                self.store.upsert_usage(run_id, &u, now_ms()).await?;
            }
            _ => {}
        }
        Ok(())
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
                        self.side_effects(&ev).await?;
                        if self.reducer.apply(&ev) {
                            break;
                        }
                    }
                    Some(RunInput::Approval(a)) => self.reducer.set_approval(&a),
                    None => {
                        self.reducer.apply(&AgentEvent::RunFailed {
                            error: "the engine stopped without ending the run".into(),
                            code: Some("no_end".into()),
                        });
                        break;
                    }
                },
                _ = sleep_until(deadline), if deadline.is_some() => {
                    self.flush(false, deadline.map(|d| d - self.interval)).await?;
                    deadline = None;
                }
            }
            if deadline.is_none() && self.reducer.has_dirty() {
                deadline = Some(Instant::now() + self.interval);
            }
        }
        let since = deadline.map(|d| d - self.interval);
        self.finish(since).await
    }

    async fn finish(mut self, since: Option<Instant>) -> Result<Run> {
        let outcome = self.reducer.outcome().cloned();
        let (status, stop_reason, error) = match outcome {
            Some(o) => (o.status, o.stop_reason, o.error),
            None => (
                RunStatus::Failed,
                None,
                Some("the run ended without an outcome".to_string()),
            ),
        };
        let run_id = self.reducer.run_id().to_string();
        if let Some(q) = &self.approvals {
            let state = if status == RunStatus::Interrupted {
                ApprovalState::Cancelled
            } else {
                ApprovalState::Expired
            };
            for a in q.end_run(&run_id, state).await? {
                self.reducer.set_approval(&a);
            }
        }
        self.flush(true, since).await?;
        let at = now_ms();
        // Items a previous flush wrote as running but the reducer never saw again.
        self.store
            .close_open_items(&run_id, ItemStatus::Interrupted, at)
            .await?;
        let end = RunEnd {
            status,
            stop_reason: stop_reason.as_deref(),
            error: error.as_deref(),
            at,
        };
        match self.store.finish_run(&run_id, &end).await {
            Ok(run) => Ok(run),
            // Already ended elsewhere (recovery, a cancel): the first end stands.
            Err(StoreError::Conflict(_)) => Ok(self.store.get_run(&run_id).await?),
            Err(e) => Err(e.into()),
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
