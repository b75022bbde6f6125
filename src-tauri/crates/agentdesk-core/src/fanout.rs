//! Lossless fan-out of live updates: every subscriber has its own queue.
//!
//! A `tokio::sync::broadcast` ring drops the oldest updates for a subscriber that falls
//! behind, which is a hole in what the engine said (a terminal missing deltas). Here:
//! - the publisher pushes into each subscriber's own queue and wakes it; it never waits;
//! - while a subscriber is behind, a new streaming piece (a text, reasoning or tool-output
//!   delta) merges into the one of the same item still queued, so a slow reader gets fewer,
//!   longer pieces and the same text, and its queue grows by merging, not by count;
//! - updates that do not merge (an item started or finished, a run's status) keep their
//!   order. If more than the subscription's cap of them are waiting, the subscriber is
//!   *overflowed*: its queue is emptied and its next `recv` says so (`Overflowed`), so it
//!   re-reads a snapshot; it is never a silent gap;
//! - a subscription whose receiver was dropped is removed on the next publish;
//! - a subscription may filter at the source (`subscribe_where`), so a consumer that only
//!   wants run statuses never holds a copy of a delta.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// Non-mergeable updates a subscriber may have waiting before it is overflowed.
pub const DEFAULT_CAP: usize = 65_536;
/// How far back from the newest queued update a piece looks for one to merge into (past
/// pieces of other streams, which it may overtake: see [`Coalesce::independent`]).
const MERGE_SCAN: usize = 8;

/// An update that may merge with a later one of the same stream.
pub trait Coalesce: Clone + Send + 'static {
    /// Merge `next` (published after `self`) into `self` when both are pieces of one stream
    /// and the result says the same; otherwise hand `next` back untouched.
    fn merge(&mut self, next: Self) -> Option<Self>;
    /// Whether `next` may be delivered before `self` (both queued, `next` newer): only
    /// pieces of streams no consumer orders against each other. Anything else is a barrier.
    fn independent(&self, next: &Self) -> bool;
}

/// Why `recv` returned no update (a channel outcome, not a failure of the crate: see
/// `CoreError` for those).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecvError {
    /// The subscriber fell more than its cap behind: this many updates were discarded, and
    /// it should re-read a snapshot. Later updates follow normally.
    Overflowed(u64),
    /// The publisher is gone.
    Closed,
}

/// Why `try_recv` returned no update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing is waiting now.
    Empty,
    Overflowed(u64),
    Closed,
}

type Filter<T> = Box<dyn Fn(&T) -> bool + Send + Sync>;

struct Queue<T> {
    items: VecDeque<T>,
    /// Updates discarded by an overflow not yet reported.
    overflowed: u64,
    closed: bool,
}

struct Slot<T> {
    queue: Mutex<Queue<T>>,
    wake: Notify,
    /// Set when the receiver is dropped: the publisher forgets the slot.
    gone: AtomicBool,
    filter: Option<Filter<T>>,
    cap: usize,
    /// Off only for tests that count updates as published.
    merge: bool,
}

// Every critical section leaves the queue consistent: a poisoned lock is still usable.
use agentdesk_protocol::sync::lock;

impl<T: Coalesce> Slot<T> {
    fn push(&self, update: T) {
        let mut q = lock(&self.queue);
        // Only a queue going from empty to not empty wakes the receiver: one that has
        // updates waiting is awake or holds a wake-up already (it sleeps only on an empty
        // queue), and a burst then costs one wake-up, not one per update.
        let was_empty = q.items.is_empty();
        let mut next = update;
        let len = q.items.len();
        let scan = if self.merge { MERGE_SCAN } else { 0 };
        for i in (len.saturating_sub(scan)..len).rev() {
            let Some(queued) = q.items.get_mut(i) else {
                break;
            };
            next = match queued.merge(next) {
                None => return,
                Some(n) => n,
            };
            if !queued.independent(&next) {
                break;
            }
        }
        q.items.push_back(next);
        let overflowed = q.items.len() > self.cap;
        if overflowed {
            q.overflowed += q.items.len() as u64;
            q.items.clear();
            q.items.shrink_to(64);
        }
        drop(q);
        if was_empty || overflowed {
            self.wake.notify_one();
        }
    }
}

/// The publishing side. Dropping it closes every subscription (after what is queued).
pub struct Fanout<T> {
    slots: Mutex<Vec<Arc<Slot<T>>>>,
}

impl<T> Default for Fanout<T> {
    fn default() -> Self {
        Fanout {
            slots: Mutex::new(Vec::new()),
        }
    }
}

impl<T> std::fmt::Debug for Fanout<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fanout")
            .field("subscribers", &lock(&self.slots).len())
            .finish()
    }
}

impl<T: Coalesce> Fanout<T> {
    /// Every update from now on.
    pub fn subscribe(&self) -> Subscription<T> {
        self.add(None, DEFAULT_CAP, true)
    }

    /// Every update exactly as published, nothing merged (overflow still applies): for
    /// tests that count what was published.
    pub fn subscribe_unmerged(&self) -> Subscription<T> {
        self.add(None, DEFAULT_CAP, false)
    }

    /// Only the updates `keep` accepts (decided when published, so the rest cost nothing).
    pub fn subscribe_where(
        &self,
        keep: impl Fn(&T) -> bool + Send + Sync + 'static,
    ) -> Subscription<T> {
        self.add(Some(Box::new(keep)), DEFAULT_CAP, true)
    }

    /// Like `subscribe`, overflowing after `cap` waiting updates instead of the default.
    pub fn subscribe_with_cap(&self, cap: usize) -> Subscription<T> {
        self.add(None, cap.max(1), true)
    }

    fn add(&self, filter: Option<Filter<T>>, cap: usize, merge: bool) -> Subscription<T> {
        let slot = Arc::new(Slot {
            queue: Mutex::new(Queue {
                items: VecDeque::new(),
                overflowed: 0,
                closed: false,
            }),
            wake: Notify::new(),
            gone: AtomicBool::new(false),
            filter,
            cap,
            merge,
        });
        lock(&self.slots).push(slot.clone());
        Subscription { slot }
    }

    /// Live subscriptions (dropped ones are counted until the next publish).
    pub fn subscriber_count(&self) -> usize {
        lock(&self.slots).len()
    }

    /// Queue `update` for every subscriber that wants it. Never waits for a subscriber.
    pub fn publish(&self, update: T) {
        let mut slots = lock(&self.slots);
        slots.retain(|s| !s.gone.load(Ordering::Acquire));
        // Each wanted slot but the last gets a copy; the last takes the update itself, so
        // one subscriber costs no copy (and nothing is allocated to find it).
        let mut previous: Option<&Arc<Slot<T>>> = None;
        for s in slots.iter() {
            if s.filter.as_ref().is_none_or(|keep| keep(&update)) {
                if let Some(p) = previous.replace(s) {
                    p.push(update.clone());
                }
            }
        }
        if let Some(last) = previous {
            last.push(update);
        }
    }
}

impl<T> Drop for Fanout<T> {
    fn drop(&mut self) {
        for s in lock(&self.slots).drain(..) {
            lock(&s.queue).closed = true;
            s.wake.notify_one();
        }
    }
}

/// One subscriber's end. Dropping it unsubscribes.
pub struct Subscription<T> {
    slot: Arc<Slot<T>>,
}

impl<T> std::fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("waiting", &lock(&self.slot.queue).items.len())
            .finish()
    }
}

impl<T> Subscription<T> {
    /// The next update, waiting for one. `Overflowed` once after an overflow; `Closed`
    /// when the publisher is gone and everything queued was taken.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        loop {
            match self.try_recv() {
                Ok(u) => return Ok(u),
                Err(TryRecvError::Overflowed(n)) => return Err(RecvError::Overflowed(n)),
                Err(TryRecvError::Closed) => return Err(RecvError::Closed),
                Err(TryRecvError::Empty) => self.slot.wake.notified().await,
            }
        }
    }

    /// The next update if one is waiting.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut q = lock(&self.slot.queue);
        if q.overflowed > 0 {
            let n = std::mem::take(&mut q.overflowed);
            return Err(TryRecvError::Overflowed(n));
        }
        match q.items.pop_front() {
            Some(u) => Ok(u),
            None if q.closed => Err(TryRecvError::Closed),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Updates waiting (after merging).
    pub fn len(&self) -> usize {
        lock(&self.slot.queue).items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Drop for Subscription<T> {
    fn drop(&mut self) {
        self.slot.gone.store(true, Ordering::Release);
        // Free what was queued now rather than at the next publish.
        lock(&self.slot.queue).items = VecDeque::new();
    }
}

// Its tests (fanout_tests.rs) run over run updates, so they live with them in `pipeline`.
