//! The run pipeline: one reducer per run, and what it feeds.
//!
//! ```text
//!   engine adapter ──events──► runs (pump) ──RunInput──► recorder ──► store
//!                                  │                        │
//!                                  │ RunUpdate::Event       │ RunTimeline::apply
//!                                  ▼                        ▼
//!                              Pipeline ◄── the run's one RunReducer (timeline.rs)
//!                                  │  RunUpdate::Live (ops, numbered per run, published
//!                                  │  under the lock a view's snapshot takes)
//!                                  ▼
//!                     fanout (a lossless queue per subscriber)
//!                                  ▼
//!                  live::SessionFeed, activity, the CLI, the shell
//! ```
//!
//! A run's events go through exactly one [`RunReducer`]: the recorder applies each event
//! through the run's [`RunTimeline`], which publishes what it changed for the live views and
//! keeps the changed items for the recorder's next write. The live timeline and the stored
//! one are the same reducer's output, so they cannot disagree.
//!
//! Module dependencies in the core (arrows are imports; no cycle):
//!
//! ```text
//!   runs ──► recorder ──► pipeline ──► timeline (RunReducer)
//!    │  │                   ▲    └───► fanout (generic: knows nothing of runs)
//!    │  └───────────────────┘            ▲
//!    ▼                                   │
//!  approvals ◄── live (SessionFeed) ─────┘  (live ──► pipeline too)
//!                activity ──► pipeline, fanout
//! ```
//!
//! `runs` and `live` never import each other (a view reaches the run reducers through
//! `Desk::pipeline`, a field of the desk, not through `runs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{LiveOp, Run, TimelineItem};

use crate::fanout::{Coalesce, Fanout, Subscription};
use crate::timeline::{RunOutcome, RunReducer};
use crate::Desk;

/// What the shell and the CLI see of runs, live.
#[derive(Debug, Clone)]
pub enum RunUpdate {
    /// A run was queued, started, or ended (`run.status`).
    Status { run: Run },
    /// A canonical event of a running run, as the engine adapter produced it.
    Event {
        session_id: SessionId,
        run_id: RunId,
        event: AgentEvent,
    },
    /// What the run's events changed in its timeline, as the window's live view applies it;
    /// `seq` counts per run (see [`crate::live`]).
    Live {
        session_id: SessionId,
        run_id: RunId,
        seq: u64,
        ops: Vec<LiveOp>,
    },
    /// An import of the engine's own history rewrote the session's runs (a terminal went on
    /// with it): a view of it starts again from the database.
    Imported { session_id: SessionId },
}

/// One subscriber's queue of run updates.
pub type RunUpdates = Subscription<RunUpdate>;

struct LiveRun {
    session_id: SessionId,
    reducer: RunReducer,
    seq: u64,
}

/// A live run as a view starts from: its id, the last change number, its items.
pub(crate) type LiveSnapshot = Vec<(RunId, u64, Vec<TimelineItem>)>;

/// Every run update's publisher, and the reducer of every run being recorded.
#[derive(Default)]
pub(crate) struct Pipeline {
    updates: Fanout<RunUpdate>,
    runs: Mutex<HashMap<RunId, LiveRun>>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline").finish_non_exhaustive()
    }
}

/// One change a run's reducer made, as the recorder applied it.
enum Step<'a> {
    Event(&'a AgentEvent),
    Link(&'a str, ApprovalId),
}

impl Pipeline {
    fn lock(&self) -> MutexGuard<'_, HashMap<RunId, LiveRun>> {
        // Every critical section leaves the map consistent: a poisoned lock is still usable.
        agentdesk_protocol::sync::lock(&self.runs)
    }

    pub(crate) fn publish(&self, update: RunUpdate) {
        // No subscriber is fine: nobody is looking.
        self.updates.publish(update);
    }

    /// Register a run's reducer: from now on the run's live views see what it changes.
    pub(crate) fn start(self: &Arc<Self>, session_id: &SessionId, run_id: &RunId) -> RunTimeline {
        self.start_with(RunReducer::new(session_id, run_id), session_id)
    }

    fn start_with(self: &Arc<Self>, reducer: RunReducer, session_id: &SessionId) -> RunTimeline {
        let run_id = reducer.run_id().clone();
        self.lock().insert(
            run_id.clone(),
            LiveRun {
                session_id: session_id.clone(),
                reducer,
                seq: 0,
            },
        );
        RunTimeline {
            pipeline: self.clone(),
            run_id,
        }
    }

    /// The run's items are all stored now: views read them from the database.
    pub(crate) fn finish(&self, run_id: &RunId) {
        self.lock().remove(run_id);
    }

    /// Apply one step to the run's reducer and publish what it changed, under the same lock
    /// a view's snapshot takes: every change queued for a view is then newer than its
    /// snapshot, which lets a slow view's queue merge consecutive changes (see
    /// [`crate::fanout`]) without one ever straddling the snapshot. Returns whether the step
    /// ended the run.
    fn apply(&self, run_id: &RunId, step: Step<'_>) -> bool {
        let mut runs = self.lock();
        let Some(run) = runs.get_mut(run_id) else {
            return false;
        };
        let (ended, append) = match step {
            Step::Event(ev) => {
                let append = match ev {
                    AgentEvent::MessageDelta { item_id, text }
                    | AgentEvent::ReasoningDelta { item_id, text }
                        if run.reducer.has_item(item_id) =>
                    {
                        Some((run.reducer.item_key(item_id), text.clone()))
                    }
                    _ => None,
                };
                (run.reducer.apply(ev), append)
            }
            Step::Link(request_id, id) => {
                run.reducer.link_approval(request_id, id);
                (false, None)
            }
        };
        let ops = match append {
            Some((item_id, text)) => {
                // The view has the item: send what is new, not the whole text again.
                run.reducer.clear_changed();
                vec![LiveOp::Append { item_id, text }]
            }
            None => upserts(run.reducer.take_changed()),
        };
        if !ops.is_empty() {
            run.seq += 1;
            self.publish(RunUpdate::Live {
                session_id: run.session_id.clone(),
                run_id: run_id.clone(),
                seq: run.seq,
                ops,
            });
        }
        ended
    }

    /// Apply an event to a registered run's reducer as its recorder would (tests).
    #[cfg(test)]
    pub(crate) fn apply_event(&self, run_id: &RunId, ev: &AgentEvent) -> bool {
        self.apply(run_id, Step::Event(ev))
    }

    fn with_reducer<R>(&self, run_id: &RunId, f: impl FnOnce(&mut RunReducer) -> R) -> Option<R> {
        self.lock().get_mut(run_id).map(|r| f(&mut r.reducer))
    }

    /// The session's live runs (id, sequence number, items) and a subscription that carries
    /// every change after them, taken atomically with respect to `apply`.
    pub(crate) fn snapshot(
        &self,
        session_id: &SessionId,
        keep: impl Fn(&RunUpdate) -> bool + Send + Sync + 'static,
    ) -> (LiveSnapshot, RunUpdates) {
        let runs = self.lock();
        let rx = self.updates.subscribe_where(keep);
        let live = runs
            .iter()
            .filter(|(_, r)| r.session_id == *session_id)
            .map(|(id, r)| (id.clone(), r.seq, r.reducer.items().to_vec()))
            .collect();
        (live, rx)
    }
}

fn upserts(items: Vec<TimelineItem>) -> Vec<LiveOp> {
    items
        .into_iter()
        .map(|item| LiveOp::Upsert { item })
        .collect()
}

/// A run's one reducer, as its recorder drives it: each step is published to the live views
/// at once and kept for the recorder's next write.
pub struct RunTimeline {
    pipeline: Arc<Pipeline>,
    run_id: RunId,
}

impl std::fmt::Debug for RunTimeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunTimeline")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl RunTimeline {
    /// A reducer nobody watches live (a recorder on its own: tools and tests).
    pub fn unwatched(session_id: &SessionId, reducer: RunReducer) -> RunTimeline {
        Arc::new(Pipeline::default()).start_with(reducer, session_id)
    }

    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// Apply an engine event; true when it ended the run.
    pub fn apply(&self, ev: &AgentEvent) -> bool {
        self.pipeline.apply(&self.run_id, Step::Event(ev))
    }

    /// The queue recorded request `request_id` as approval `id` (see
    /// [`RunReducer::link_approval`]).
    pub fn link_approval(&self, request_id: &str, id: ApprovalId) {
        self.pipeline
            .apply(&self.run_id, Step::Link(request_id, id));
    }

    /// The file writes cut tool outputs owe (see [`crate::tool_output`]).
    pub fn take_output_spills(&self) -> Vec<(String, crate::tool_output::Spill)> {
        self.pipeline
            .with_reducer(&self.run_id, RunReducer::take_output_spills)
            .unwrap_or_default()
    }

    /// Items changed since the recorder last took them.
    pub fn take_dirty(&self) -> Vec<TimelineItem> {
        self.pipeline
            .with_reducer(&self.run_id, RunReducer::take_dirty)
            .unwrap_or_default()
    }

    pub fn has_dirty(&self) -> bool {
        self.pipeline
            .with_reducer(&self.run_id, |r| r.has_dirty())
            .unwrap_or(false)
    }

    pub fn outcome(&self) -> Option<RunOutcome> {
        self.pipeline
            .with_reducer(&self.run_id, |r| r.outcome().cloned())
            .flatten()
    }
}

impl Desk {
    /// Live run updates (status, canonical events, live timeline ops), every one (deltas
    /// merged while the subscriber is behind).
    pub fn subscribe_runs(&self) -> RunUpdates {
        self.pipeline.updates.subscribe()
    }

    /// Every run update exactly as published, nothing merged: for tests that count what
    /// the core published (a consumer wants `subscribe_runs`).
    #[doc(hidden)]
    pub fn subscribe_runs_unmerged(&self) -> RunUpdates {
        self.pipeline.updates.subscribe_unmerged()
    }

    /// Only the run updates `keep` accepts: the rest are never queued for this subscriber
    /// (a consumer of statuses holds no copy of a streaming answer).
    pub fn subscribe_runs_where(
        &self,
        keep: impl Fn(&RunUpdate) -> bool + Send + Sync + 'static,
    ) -> RunUpdates {
        self.pipeline.updates.subscribe_where(keep)
    }
}

// ---- what merges (for the fan-out's slow subscribers) ----

impl Coalesce for RunUpdate {
    fn merge(&mut self, next: Self) -> Option<Self> {
        match (self, next) {
            (
                RunUpdate::Event {
                    run_id, event: a, ..
                },
                RunUpdate::Event {
                    session_id,
                    run_id: next_run,
                    event: b,
                },
            ) if *run_id == next_run => merge_event(a, b).map(|event| RunUpdate::Event {
                session_id,
                run_id: next_run,
                event,
            }),
            (
                RunUpdate::Live {
                    run_id, seq, ops, ..
                },
                RunUpdate::Live {
                    session_id,
                    run_id: next_run,
                    seq: next_seq,
                    ops: next_ops,
                },
            ) if *run_id == next_run => match merge_live(ops, next_ops) {
                None => {
                    // The merged change stands for every number up to the newer one.
                    *seq = next_seq;
                    None
                }
                Some(ops) => Some(RunUpdate::Live {
                    session_id,
                    run_id: next_run,
                    seq: next_seq,
                    ops,
                }),
            },
            (_, next) => Some(next),
        }
    }

    fn independent(&self, next: &Self) -> bool {
        // A run's canonical events and its live ops are two views of the same stream (each
        // consumer reads one of them), and no consumer orders one run's pieces against
        // another's. Within one view of one run, order is kept.
        let piece = |u: &RunUpdate| match u {
            RunUpdate::Event { run_id, event, .. } => {
                stream_piece(event).map(|_| (run_id.clone(), false))
            }
            RunUpdate::Live { run_id, ops, .. } => {
                single_piece(ops).map(|_| (run_id.clone(), true))
            }
            _ => None,
        };
        match (piece(self), piece(next)) {
            (Some((run_a, live_a)), Some((run_b, live_b))) => run_a != run_b || live_a != live_b,
            _ => false,
        }
    }
}

/// The item a streaming event appends to, if it is one.
fn stream_piece(ev: &AgentEvent) -> Option<&str> {
    match ev {
        AgentEvent::MessageDelta { item_id, .. }
        | AgentEvent::ReasoningDelta { item_id, .. }
        | AgentEvent::ToolUpdated { item_id, .. } => Some(item_id),
        _ => None,
    }
}

/// The item a single-op live change is about, if it appends to or replaces one.
fn single_piece(ops: &[LiveOp]) -> Option<&str> {
    match ops {
        [LiveOp::Append { item_id, .. }] => Some(item_id),
        [LiveOp::Upsert { item }] => Some(&item.id),
        _ => None,
    }
}

/// Appends of one item join; anything else comes back.
fn merge_event(a: &mut AgentEvent, b: AgentEvent) -> Option<AgentEvent> {
    match (a, b) {
        (
            AgentEvent::MessageDelta { item_id, text },
            AgentEvent::MessageDelta {
                item_id: id,
                text: more,
            },
        )
        | (
            AgentEvent::ReasoningDelta { item_id, text },
            AgentEvent::ReasoningDelta {
                item_id: id,
                text: more,
            },
        ) if *item_id == id => {
            text.push_str(&more);
            None
        }
        (
            AgentEvent::ToolUpdated {
                item_id,
                kind,
                output,
            },
            AgentEvent::ToolUpdated {
                item_id: id,
                kind: k,
                output: more,
            },
        ) if *item_id == id && *kind == k => {
            output.push_str(&more);
            None
        }
        (_, b) => Some(b),
    }
}

/// Appends to one item join; a newer whole item replaces an older one. Anything else
/// comes back.
fn merge_live(a: &mut Vec<LiveOp>, b: Vec<LiveOp>) -> Option<Vec<LiveOp>> {
    match (a.as_mut_slice(), b.as_slice()) {
        (
            [LiveOp::Append { item_id, text }],
            [LiveOp::Append {
                item_id: id,
                text: more,
            }],
        ) if item_id == id => {
            text.push_str(more);
            None
        }
        ([LiveOp::Upsert { item }], [LiveOp::Upsert { item: newer }]) if item.id == newer.id => {
            *a = b;
            None
        }
        _ => Some(b),
    }
}

#[cfg(test)]
#[path = "fanout_tests.rs"]
mod tests;
