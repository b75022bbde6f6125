//! Who may run start-up recovery. [`crate::Desk::recover`] turns every run left `running`
//! into `interrupted`, which is only right when no other live process is driving those runs:
//! the app and any number of `agentdesk-cli run` may share one data directory.
//!
//! Every process that drives engines holds a *shared* advisory lock on `<data dir>/engines.lock`
//! for its lifetime. A process that can take the lock *exclusively* knows nobody else is
//! driving runs, so whatever is still `running` was left by a process that died (the kernel
//! drops a dead process's locks, even after SIGKILL). `fs4` takes them with `flock` on Unix
//! and `LockFileEx` on Windows, so the rule holds on every platform.

use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::{CoreError, Result};

pub const OWNER_LOCK_FILE: &str = "engines.lock";

/// Held while this process drives engines; dropping it releases the lock.
#[derive(Debug)]
pub struct OwnerLock {
    _file: File,
}

fn open(data_dir: &Path) -> Result<File> {
    std::fs::create_dir_all(data_dir).map_err(|source| CoreError::Io {
        what: format!("cannot create the data directory {}", data_dir.display()),
        source,
    })?;
    let path = data_dir.join(OWNER_LOCK_FILE);
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| CoreError::Io {
            what: format!("cannot open {}", path.display()),
            source,
        })
}

/// Try a lock without waiting; `false` when another open file holds a conflicting one.
/// Called through the trait: std's own `File::try_lock` needs Rust 1.89.
fn try_exclusive(file: &File) -> bool {
    fs4::FileExt::try_lock(file).is_ok()
}

fn try_shared(file: &File) -> bool {
    fs4::FileExt::try_lock_shared(file).is_ok()
}

/// True when no other process holds the lock (so leftovers may be recovered). Does not keep
/// the lock: read-only commands call this, then go on without owning anything.
pub fn nobody_else_owns(data_dir: &Path) -> Result<bool> {
    let file = open(data_dir)?;
    Ok(try_exclusive(&file))
}

impl OwnerLock {
    /// [`Self::acquire`] on a blocking thread: its retry sleeps must not stall an async
    /// worker (the app takes the lock while its runtime serves the window).
    pub async fn take(data_dir: &Path) -> Result<(OwnerLock, bool)> {
        let dir = data_dir.to_path_buf();
        tokio::task::spawn_blocking(move || Self::acquire(&dir))
            .await
            .map_err(|e| CoreError::Internal(format!("the owner lock task failed: {e}")))?
    }

    /// Take the shared lock (never blocks: shared locks only wait for an exclusive holder,
    /// which only holds it for the instant of a check, so a short retry is enough). Returns
    /// the lock and whether this process was alone when it took it.
    pub fn acquire(data_dir: &Path) -> Result<(OwnerLock, bool)> {
        let file = open(data_dir)?;
        let alone = try_exclusive(&file);
        // Unix converts the exclusive lock to a shared one in place (`flock`); Windows cannot
        // convert, and a shared lock over our own exclusive one would keep others out.
        if alone && cfg!(windows) {
            let _ = fs4::FileExt::unlock(&file);
        }
        // Downgrading (or taking shared directly) lets other owners in alongside.
        for _ in 0..200 {
            if try_shared(&file) {
                return Ok((OwnerLock { _file: file }, alone));
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Only an exclusive holder blocks a shared lock: another process is checking
        // (or holding) the data directory.
        Err(CoreError::Busy(format!(
            "another program holds {} (another Agent Desk?); try again in a moment",
            data_dir.join(OWNER_LOCK_FILE).display()
        )))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn taking_the_lock_leaves_the_async_thread_free() {
        let dir = tempfile::tempdir().unwrap();
        let (_lock, alone) = OwnerLock::take(dir.path()).await.unwrap();
        assert!(alone);
        {
            // An exclusive holder (another process checking) keeps the shared lock away for
            // the whole retry (~2 s); a ticker on this single-threaded runtime keeps ticking.
            let other = open(dir.path()).unwrap();
            drop(_lock);
            assert!(try_exclusive(&other));
            let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
            let t = ticks.clone();
            let ticker = tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    t.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            });
            let taken = OwnerLock::take(dir.path()).await;
            assert!(matches!(taken, Err(CoreError::Busy(_))));
            ticker.abort();
            let n = ticks.load(std::sync::atomic::Ordering::SeqCst);
            assert!(
                n > 20,
                "the runtime was blocked during the retry ({n} ticks)"
            );
        }
    }

    #[test]
    fn a_holder_blocks_recovery_and_releases_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        assert!(nobody_else_owns(dir.path()).unwrap());
        let (first, alone) = OwnerLock::acquire(dir.path()).unwrap();
        assert!(alone);
        // The locks belong to the open file (description or handle), so a second open in the
        // same process behaves like another process, on every platform.
        let (second, alone) = OwnerLock::acquire(dir.path()).unwrap();
        assert!(!alone);
        assert!(!nobody_else_owns(dir.path()).unwrap());
        drop(first);
        drop(second);
        // A child forked by another test between our open and its exec shares the open file
        // description (and so the lock) for that instant: allow it to pass.
        let released = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            nobody_else_owns(dir.path()).unwrap()
        });
        assert!(released);
    }
}
