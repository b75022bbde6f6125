//! The window's live view of one session: a stream of [`LiveBatch`]es, at most one per
//! frame, that never loses or repeats what the engine said.
//!
//! How it stays exact:
//! - Every active run has its one reducer in the [`crate::pipeline`], driven by the run's
//!   recorder, and every change it makes is published with a per-run sequence number.
//! - A view starts by taking, under one lock, the live runs' current items and sequence
//!   numbers and a fresh subscription (its own lossless queue, see [`crate::fanout`]: a
//!   view that falls behind gets the text it missed as merged appends). Changes published
//!   later carry higher numbers; ones already in the snapshot are skipped by number. Only
//!   a view overflowed by non-mergeable changes (or lagging on approvals) restarts from a
//!   snapshot.
//! - Streaming text travels as appends; within a frame, appends to one item merge, and an
//!   item replaced in the frame drops the earlier ops about it.
//!
//! A session that is not open has no view and costs nothing but the reducer the recorder
//! needs anyway.
//!
//! Approvals reach the view as one stream: the queue's changes ([`LiveOp::Approval`], every
//! record of the session in a reset). Items only name their approval; the window draws the
//! card from the record.
//!
//! Depends on `pipeline` (run updates, live reducers), `fanout` and `approvals`; never on
//! `runs`.
//!
//! A view may be *paced* by its window ([`SessionFeed::paced`]): after a batch it sends the
//! next only once the window says it applied that one (or after [`ACK_WAIT`], or at once for
//! a change the window draws at once: a run's status, an approval, a finished item). Meanwhile it
//! keeps taking changes into its frame, where they merge as above: a window that is behind
//! gets fewer, larger batches instead of a queue of small ones to evaluate.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalChange, ApprovalState, LiveBatch, LiveOp, TimelineItem,
};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use crate::fanout::RecvError;
use crate::pipeline::{RunUpdate, RunUpdates};
use crate::{Desk, Result};

/// A frame at 60 Hz: the most often a view sends.
pub const FRAME: Duration = Duration::from_millis(16);
/// How long a paced view waits for the window's word on its last batch before sending the
/// next anyway: an ack lost on the way, or a window that stopped painting, still gets the
/// stream (merged) once a second.
pub const ACK_WAIT: Duration = Duration::from_secs(1);
/// Items in a view's first page (older ones are paged in by the window as it scrolls up):
/// the first screenful, as `load_timeline` gives by default. A tall window shows a few dozen
/// rows; every item more is IPC, parsing and store work between the click and the first
/// screen (200 here made the 50,000-item open miss its 100 ms, BENCHMARKS.md).
const FIRST_PAGE: u32 = crate::sessions::FIRST_SCREEN;

/// Where a view starts: its subscriptions, what they start after, and the reset op.
struct FeedStart {
    known_runs: HashSet<RunId>,
    runs_rx: RunUpdates,
    approvals_rx: broadcast::Receiver<ApprovalChange>,
    seen: HashMap<RunId, u64>,
    reset: LiveOp,
}

/// Ops of one frame, merged: appends to one item join, a replaced item drops what came
/// before it.
#[derive(Default)]
struct Frame {
    ops: Vec<Option<LiveOp>>,
    /// Item id → index of the last op about it.
    last: HashMap<String, usize>,
    live: usize,
    /// The frame holds an op the window draws at once (see [`draws_at_once`]).
    urgent: bool,
}

/// Ops the window draws on its next frame instead of at its streaming pace (the same rule as
/// `isUrgent` in ui/src/state/sessionStore.ts): everything but streamed text. A paced view
/// sends these without waiting for the window's ack of the last batch, so a run's end or an
/// approval is not held behind a redraw of text (the window acks only after its paced redraw,
/// up to a few hundred milliseconds later).
fn draws_at_once(op: &LiveOp) -> bool {
    match op {
        LiveOp::Append { .. } => false,
        LiveOp::Upsert { item } => item.status != agentdesk_protocol::ui::ItemStatus::Running,
        LiveOp::Reset { .. } | LiveOp::Run { .. } | LiveOp::Approval { .. } => true,
    }
}

impl Frame {
    fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn push(&mut self, op: LiveOp) {
        // Read before the op moves; set after, as a reset starts the frame afresh.
        let urgent = draws_at_once(&op);
        match op {
            LiveOp::Append { item_id, text } => self.append(item_id, text),
            LiveOp::Upsert { item } => {
                let id = item.id.clone();
                self.drop_ops_about(&id);
                self.insert(Some(id), LiveOp::Upsert { item });
            }
            LiveOp::Reset { .. } => {
                *self = Frame::default();
                self.insert(None, op);
            }
            other => self.insert(None, other),
        }
        self.urgent |= urgent;
    }

    fn append(&mut self, item_id: String, text: String) {
        if let Some(&i) = self.last.get(&item_id) {
            match self.ops.get_mut(i).and_then(Option::as_mut) {
                Some(LiveOp::Append { text: t, .. }) => {
                    t.push_str(&text);
                    return;
                }
                Some(LiveOp::Upsert { item }) => {
                    use agentdesk_protocol::ui::ItemBody;
                    if let ItemBody::AgentMessage { text: t } | ItemBody::Reasoning { text: t } =
                        &mut item.body
                    {
                        t.push_str(&text);
                        return;
                    }
                }
                _ => {}
            }
        }
        self.insert(Some(item_id.clone()), LiveOp::Append { item_id, text });
    }

    fn drop_ops_about(&mut self, id: &str) {
        // Earlier appends to the same item are covered by the newer whole item.
        let mut dropped = 0;
        for op in self.ops.iter_mut() {
            let about = match op {
                Some(LiveOp::Append { item_id, .. }) => item_id == id,
                Some(LiveOp::Upsert { item }) => item.id == id,
                _ => false,
            };
            if about {
                *op = None;
                dropped += 1;
            }
        }
        self.live -= dropped;
        self.last.remove(id);
    }

    fn insert(&mut self, item_id: Option<String>, op: LiveOp) {
        if let Some(id) = item_id {
            self.last.insert(id, self.ops.len());
        }
        self.ops.push(Some(op));
        self.live += 1;
    }

    fn take(&mut self) -> Vec<LiveOp> {
        let ops = std::mem::take(&mut self.ops);
        *self = Frame::default();
        ops.into_iter().flatten().collect()
    }
}

/// A live view of one session. Dropping it ends the subscription.
pub struct SessionFeed {
    desk: Desk,
    session_id: SessionId,
    runs_rx: RunUpdates,
    approvals_rx: broadcast::Receiver<ApprovalChange>,
    /// Per live run, the last sequence number already in the view.
    seen: HashMap<RunId, u64>,
    /// Runs the view knows of: a new one brings its user message (written by `send_message`,
    /// not by the engine, so it never passes through the live reducer).
    known_runs: HashSet<RunId>,
    frame: Frame,
    seq: u64,
    /// How long a frame collects before it is sent.
    frame_len: Duration,
    /// When the last batch was sent.
    sent_at: Option<Instant>,
    /// Paced views: the highest batch number the window applied, and how long to wait for it.
    acks: Option<(watch::Receiver<u64>, Duration)>,
}

/// The window's side of a paced view: it reports each batch it applied.
#[derive(Clone, Debug)]
pub struct FeedAcks(Arc<watch::Sender<u64>>);

impl FeedAcks {
    /// The window applied batch `seq` (and everything before it).
    pub fn ack(&self, seq: u64) {
        self.0.send_if_modified(|acked| {
            let newer = seq > *acked;
            if newer {
                *acked = seq;
            }
            newer
        });
    }
}

/// What arrived on a view's subscriptions (taken by [`SessionFeed::take`]).
// Both variants are large and the value lives only from `incoming` to `take`, on the stack:
// boxing either would allocate per update for nothing.
#[allow(clippy::large_enum_variant)]
enum Incoming {
    Run(std::result::Result<RunUpdate, RecvError>),
    Approval(std::result::Result<ApprovalChange, broadcast::error::RecvError>),
}

impl Desk {
    /// Open a live view of a session. Its first batch is a [`LiveOp::Reset`].
    pub async fn open_session_feed(&self, session_id: &SessionId) -> Result<SessionFeed> {
        self.store.get_session(session_id).await?;
        let FeedStart {
            known_runs,
            runs_rx,
            approvals_rx,
            seen,
            reset,
        } = self.feed_reset(session_id).await?;
        let mut frame = Frame::default();
        frame.push(reset);
        Ok(SessionFeed {
            desk: self.clone(),
            session_id: session_id.clone(),
            runs_rx,
            approvals_rx,
            seen,
            known_runs,
            frame,
            seq: 0,
            frame_len: FRAME,
            sent_at: None,
            acks: None,
        })
    }

    /// The session's approvals for a reset: the decided ones from the database (so a card
    /// still says who decided and when after a restart), the pending ones as the queue holds
    /// them now. Oldest first.
    async fn reset_approvals(&self, session_id: &SessionId) -> Result<Vec<Approval>> {
        let mut all = self.store.session_approvals(session_id).await?;
        let pending: HashMap<ApprovalId, Approval> = self
            .approvals()
            .pending()
            .into_iter()
            .filter(|a| a.session_id == *session_id)
            .map(|a| (a.id.clone(), a))
            .collect();
        // Pending only while this process's queue holds it (another process's request cannot
        // be decided from here; the view behaved the same before).
        all.retain(|a| a.state != ApprovalState::Pending || pending.contains_key(&a.id));
        let stored: HashSet<ApprovalId> = all.iter().map(|a| a.id.clone()).collect();
        for a in all.iter_mut() {
            if let Some(p) = pending.get(&a.id) {
                a.clone_from(p);
            }
        }
        all.extend(pending.into_values().filter(|p| !stored.contains(&p.id)));
        all.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(all)
    }

    /// A consistent starting point: subscriptions, what they start after, and the view.
    async fn feed_reset(&self, session_id: &SessionId) -> Result<FeedStart> {
        // Approvals first: a change between the two subscriptions is then seen twice at
        // worst, and approval ops are idempotent.
        let approvals_rx = self.approvals().subscribe();
        // The session's statuses and live ops only: other sessions' streams and the raw
        // events are never queued for this view.
        let sid = session_id.clone();
        let (live, runs_rx) = self.pipeline.snapshot(session_id, move |u| match u {
            RunUpdate::Status { run } => run.session_id == sid,
            RunUpdate::Live { session_id, .. } | RunUpdate::Imported { session_id } => {
                *session_id == sid
            }
            _ => false,
        });
        let page = self
            .load_timeline(session_id, None, Some(FIRST_PAGE))
            .await?;
        let runs = self.list_runs(session_id).await?;
        let approvals = self.reset_approvals(session_id).await?;
        let live_ids: HashSet<&str> = live
            .iter()
            .flat_map(|(_, _, items)| items.iter().map(|i| i.id.as_str()))
            .collect();
        // The live reducers are newer than the database for their runs' items.
        let mut items: Vec<TimelineItem> = page
            .items
            .into_iter()
            .filter(|i| !live_ids.contains(i.id.as_str()))
            .collect();
        let order: HashMap<&str, i64> = runs.iter().map(|r| (r.id.as_str(), r.seq)).collect();
        for (_, _, live_items) in &live {
            items.extend(live_items.iter().cloned());
        }
        items.sort_by_key(|i| {
            (
                order.get(i.run_id.as_str()).copied().unwrap_or(i64::MAX),
                i.seq,
            )
        });
        let seen = live.into_iter().map(|(id, seq, _)| (id, seq)).collect();
        Ok(FeedStart {
            known_runs: runs.iter().map(|r| r.id.clone()).collect(),
            runs_rx,
            approvals_rx,
            seen,
            reset: LiveOp::Reset {
                items,
                before: page.before,
                runs,
                approvals,
            },
        })
    }
}

impl SessionFeed {
    pub fn session_id(&self) -> &SessionId {
        &self.session_id
    }

    /// Collect for this long after the first change of a batch (tests use longer frames).
    pub fn frame_len(mut self, d: Duration) -> Self {
        self.frame_len = d;
        self
    }

    /// Pace the view by its window: after a batch, the next one waits until `FeedAcks::ack`
    /// says the window applied it (or `ack_wait` passed), and gathers what came meanwhile.
    pub fn paced(mut self, ack_wait: Duration) -> (Self, FeedAcks) {
        let (tx, rx) = watch::channel(0);
        self.acks = Some((rx, ack_wait));
        (self, FeedAcks(Arc::new(tx)))
    }

    /// The next batch: waits (when paced) for the window to have applied the last one, then
    /// for a change, then gathers for one frame. `None` when the core is gone.
    pub async fn next_batch(&mut self) -> Option<LiveBatch> {
        self.wait_for_ack().await?;
        // Changes that waited for the window have gathered long enough.
        let waited = !self.frame.is_empty();
        while self.frame.is_empty() {
            self.receive().await?;
        }
        let now = Instant::now();
        let deadline = if waited {
            // Still at most one batch a frame.
            self.sent_at
                .map_or(now, |at| (at + self.frame_len).max(now))
        } else {
            now + self.frame_len
        };
        while let Ok(incoming) = tokio::time::timeout_at(deadline, self.incoming()).await {
            if self.take(incoming).await.is_none() {
                break;
            }
        }
        self.seq += 1;
        self.sent_at = Some(Instant::now());
        Some(LiveBatch {
            session_id: self.session_id.clone(),
            seq: self.seq,
            ops: self.frame.take(),
        })
    }

    /// Paced views: until the window acked the last batch (or gave no word for the ack wait,
    /// or a change came that the window draws at once), keep taking changes into the frame.
    /// `None` when the core is gone.
    async fn wait_for_ack(&mut self) -> Option<()> {
        // A copy of the receiver: this wait may be cut short (a caller's timeout), and the
        // view must stay paced after that.
        let Some((acks, wait)) = &self.acks else {
            return Some(());
        };
        let (mut acks, give_up) = (acks.clone(), self.sent_at.map(|at| at + *wait));
        loop {
            // Checked on entry too: a wait cut short may have left such a change in the frame.
            if *acks.borrow_and_update() >= self.seq || self.frame.urgent {
                return Some(());
            }
            let incoming = tokio::select! {
                biased;
                changed = acks.changed() => match changed {
                    Ok(()) => continue,
                    // Nobody can ack any more: stop pacing rather than stall.
                    Err(_) => return Some(()),
                },
                _ = tokio::time::sleep_until(give_up.unwrap_or_else(Instant::now)), if give_up.is_some() => {
                    return Some(());
                }
                incoming = self.incoming() => incoming,
            };
            self.take(incoming).await?;
        }
    }

    /// Take one update into the frame; `Some(false)` when it was not about this session.
    async fn receive(&mut self) -> Option<bool> {
        let incoming = self.incoming().await;
        self.take(incoming).await
    }

    /// The next update of either subscription. Cancel-safe (both receivers are): waiting for
    /// it may be cut short by a deadline without losing anything.
    async fn incoming(&mut self) -> Incoming {
        tokio::select! {
            biased;
            update = self.runs_rx.recv() => Incoming::Run(update),
            change = self.approvals_rx.recv() => Incoming::Approval(change),
        }
    }

    /// Apply what arrived to the frame (never cut short: it may read the database).
    async fn take(&mut self, incoming: Incoming) -> Option<bool> {
        match incoming {
            Incoming::Run(update) => match update {
                Ok(u) => Some(self.on_run_update(u).await),
                Err(RecvError::Overflowed(_)) => {
                    self.restart().await;
                    Some(true)
                }
                Err(RecvError::Closed) => None,
            },
            Incoming::Approval(change) => match change {
                Ok(ApprovalChange::Added { approval } | ApprovalChange::Resolved { approval })
                    if approval.session_id == self.session_id =>
                {
                    self.frame.push(LiveOp::Approval { approval });
                    Some(true)
                }
                Ok(_) => Some(false),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    self.restart().await;
                    Some(true)
                }
                Err(broadcast::error::RecvError::Closed) => None,
            },
        }
    }

    async fn on_run_update(&mut self, update: RunUpdate) -> bool {
        match update {
            RunUpdate::Status { run } if run.session_id == self.session_id => {
                let new = self.known_runs.insert(run.id.clone());
                let run_id = run.id.clone();
                self.frame.push(LiveOp::Run { run });
                if new {
                    self.push_user_message(&run_id).await;
                }
                true
            }
            RunUpdate::Live {
                session_id,
                run_id,
                seq,
                ops,
            } if session_id == self.session_id => {
                let seen = self.seen.entry(run_id).or_insert(0);
                if seq <= *seen {
                    // Already in the view's starting snapshot.
                    return false;
                }
                *seen = seq;
                for op in ops {
                    self.frame.push(op);
                }
                true
            }
            RunUpdate::Imported { session_id } if session_id == self.session_id => {
                // Imported turns never pass through a live reducer: the view is re-read.
                self.restart().await;
                true
            }
            _ => false,
        }
    }

    async fn push_user_message(&mut self, run_id: &RunId) {
        let id = crate::sessions::user_item_id(run_id);
        match self.desk.store().run_items(run_id).await {
            Ok(items) => {
                if let Some(item) = items.into_iter().find(|i| i.id == id) {
                    self.frame.push(LiveOp::Upsert { item });
                }
            }
            Err(e) => {
                tracing::warn!(run = %run_id, error = %e, "cannot read a new run's message");
            }
        }
    }

    /// The view overflowed (or lagged on approvals): start again from a snapshot (nothing
    /// lost, nothing twice).
    async fn restart(&mut self) {
        match self.desk.feed_reset(&self.session_id).await {
            Ok(start) => {
                self.known_runs = start.known_runs;
                self.runs_rx = start.runs_rx;
                self.approvals_rx = start.approvals_rx;
                self.seen = start.seen;
                self.frame.push(start.reset);
            }
            Err(e) => {
                tracing::warn!(session = %self.session_id, error = %e, "cannot re-read the session after a lag");
            }
        }
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
