//! The one poison-tolerant `Mutex` lock every crate uses (this crate is the leaf they all
//! depend on, which is the only reason it lives among the wire types).

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Lock `m`, taking the guard even when another thread panicked while holding it.
///
/// Agent Desk's mutexes guard maps, queues and flags whose critical sections are a single
/// insert, remove, assignment or read: a panic cannot leave them half-updated, so the data
/// behind a poisoned lock is still consistent. Propagating the poison would instead turn one
/// panicked task into a panic in every later user of the lock (a whole window or engine
/// connection); keep critical sections that short wherever this is used.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// [`lock`] for an `RwLock`'s readers (same reasoning).
pub fn read<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

/// [`lock`] for an `RwLock`'s writer (same reasoning).
pub fn write<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_poisoned_lock_still_gives_its_data() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let mut g = held.lock().unwrap();
            *g = 2;
            panic!("poison the lock");
        })
        .join();
        assert!(m.is_poisoned());
        assert_eq!(*lock(&m), 2);
        *lock(&m) = 3;
        assert_eq!(*lock(&m), 3);
    }

    #[test]
    fn a_poisoned_rwlock_still_gives_its_data() {
        let l = std::sync::Arc::new(RwLock::new(1));
        let held = l.clone();
        let _ = std::thread::spawn(move || {
            let mut g = held.write().unwrap();
            *g = 2;
            panic!("poison the lock");
        })
        .join();
        assert!(l.is_poisoned());
        assert_eq!(*read(&l), 2);
        *write(&l) = 3;
        assert_eq!(*read(&l), 3);
    }
}
