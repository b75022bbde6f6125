//! The scripted state both fake model servers share (`fake_responses` for Codex,
//! `fake_messages` for Claude): replies queued by the test and handed out in order, every
//! request recorded, abandoned streams counted, and a sequence number for ids.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

pub struct Scripted<R, Q> {
    queue: Mutex<VecDeque<R>>,
    requests: Mutex<Vec<Q>>,
    disconnects: AtomicUsize,
    seq: AtomicUsize,
}

impl<R, Q> Default for Scripted<R, Q> {
    fn default() -> Self {
        Self {
            queue: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            disconnects: AtomicUsize::new(0),
            seq: AtomicUsize::new(0),
        }
    }
}

/// A test that panicked while holding a lock must not hide the next assertion behind poison.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<R, Q: Clone> Scripted<R, Q> {
    /// Queue the reply for the next scripted request.
    pub fn push(&self, reply: R) {
        lock(&self.queue).push_back(reply);
    }

    /// The next queued reply, if any is left.
    pub fn pop(&self) -> Option<R> {
        lock(&self.queue).pop_front()
    }

    pub fn record(&self, request: Q) {
        lock(&self.requests).push(request);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Q> {
        lock(&self.requests).clone()
    }

    /// How many recorded requests `keep` accepts (without copying them).
    pub fn count_requests(&self, keep: impl Fn(&Q) -> bool) -> usize {
        lock(&self.requests).iter().filter(|q| keep(q)).count()
    }

    /// A stream the client abandoned before its end.
    pub fn note_disconnect(&self) {
        self.disconnects.fetch_add(1, Ordering::SeqCst);
    }

    pub fn disconnects(&self) -> usize {
        self.disconnects.load(Ordering::SeqCst)
    }

    /// 0, 1, 2, ... (response and request ids).
    pub fn next_seq(&self) -> usize {
        self.seq.fetch_add(1, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_in_order_requests_recorded() {
        let s: Scripted<&str, u32> = Scripted::default();
        s.push("a");
        s.push("b");
        assert_eq!(s.pop(), Some("a"));
        s.record(1);
        s.record(2);
        assert_eq!(s.pop(), Some("b"));
        assert_eq!(s.pop(), None);
        assert_eq!(s.requests(), vec![1, 2]);
        assert_eq!(s.count_requests(|q| *q > 1), 1);
        assert_eq!((s.next_seq(), s.next_seq()), (0, 1));
        s.note_disconnect();
        assert_eq!(s.disconnects(), 1);
    }
}
