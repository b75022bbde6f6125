//! The orphan watchdog (Unix): a tiny process that outlives the app only to kill what the
//! app started when the app dies without stopping it (crash, force quit, SIGKILL).
//!
//! macOS has no parent-death signal, and on Linux `PR_SET_PDEATHSIG` reaches only the engine
//! itself: the commands and MCP servers it started (in its process group) are reparented
//! and live on. So, at start (`start`, called by the app and the CLI first thing) or at the
//! first engine spawn, the process forks a watchdog (forked twice,
//! so it is init's child, not a zombie of ours; a new session, so a terminal's Ctrl-C does not
//! reach it; stdio on `/dev/null` and every other descriptor closed, so it holds no engine
//! pipe open) that keeps one end of a socket pair whose other end only this process holds.
//! Every engine's process group is registered with it when spawned and unregistered when
//! its supervisor lets go of it. When its end reads EOF — the kernel closed ours because this
//! process is gone, however it went — it SIGKILLs every group still registered and exits.
//! A normal exit closes the socket too: groups still registered then (an engine whose stop
//! ladder had not finished) die the same way, which is the design's "no orphans, ever".
//!
//! The forked child runs no Rust runtime code: only async-signal-safe calls (`read`, `kill`,
//! `close`, `_exit`…) on stack memory, since the fork copied a multi-threaded process whose
//! locks (malloc's among them) may be held by threads that do not exist in the child.

use std::sync::{Mutex, OnceLock};

use agentdesk_protocol::sync::lock;

/// The most groups tracked at once (the child has no heap; a fixed table on its stack).
pub const MAX_GROUPS: usize = 1024;

/// One message to the watchdog: `+` or `-`, three zero bytes, the group id (little endian).
pub type Record = [u8; 8];

const ADD: u8 = b'+';
const REMOVE: u8 = b'-';

pub fn record(add: bool, pgid: u32) -> Record {
    let mut rec = [0u8; 8];
    rec[0] = if add { ADD } else { REMOVE };
    rec[4..].copy_from_slice(&pgid.to_le_bytes());
    rec
}

/// Apply a record to the table of groups (`0` = free slot). A full table drops the new
/// group (logged by nobody: the child cannot log), an unknown removal is ignored.
pub fn apply(groups: &mut [i32], rec: &Record) {
    let pgid = i32::from_le_bytes([rec[4], rec[5], rec[6], rec[7]]);
    if pgid <= 0 {
        return;
    }
    match rec[0] {
        ADD => {
            if let Some(slot) = groups.iter_mut().find(|g| **g == 0) {
                *slot = pgid;
            }
        }
        REMOVE => {
            if let Some(slot) = groups.iter_mut().find(|g| **g == pgid) {
                *slot = 0;
            }
        }
        _ => {}
    }
}

/// Feed `bytes` (any split) into `pending`/`have`, applying each whole record.
pub fn feed(groups: &mut [i32], pending: &mut Record, have: &mut usize, bytes: &[u8]) {
    for &b in bytes {
        if let Some(slot) = pending.get_mut(*have) {
            *slot = b;
        }
        *have += 1;
        if *have == pending.len() {
            apply(groups, pending);
            *have = 0;
        }
    }
}

/// Our end of the socket pair; `None` when the watchdog could not be started (logged).
static CHANNEL: OnceLock<Option<Mutex<std::os::fd::OwnedFd>>> = OnceLock::new();

/// Start the watchdog now, if it is not running yet. Hosts call this first thing in `main`,
/// while the process is single-threaded and small: the watchdog is forked, so it keeps a
/// copy-on-write copy of everything the process held at that moment. Started at the first
/// engine spawn instead (what `register` still does for hosts that do not call this), it
/// held the app's whole heap of that time — 38 MB measured, a growing share of it private as
/// the app rewrote its pages (11 MB after 2 minutes of the soak bench).
pub fn start() {
    let _ = CHANNEL.get_or_init(unix::start);
}

/// Register an engine's process group (starting the watchdog on first use).
pub(crate) fn register(pgid: u32) {
    send(record(true, pgid));
}

/// The group is gone (its supervisor SIGKILLed it and reaped the leader): forget it, so a
/// later group with the same id is not killed.
pub(crate) fn unregister(pgid: u32) {
    if CHANNEL.get().is_some() {
        send(record(false, pgid));
    }
}

fn send(rec: Record) {
    use std::os::fd::AsRawFd;
    let Some(channel) = CHANNEL.get_or_init(unix::start) else {
        return;
    };
    let fd = lock(channel);
    let mut sent = 0;
    while sent < rec.len() {
        let rest = &rec[sent..];
        // SAFETY: send(2) on our own open socket with a pointer/length into `rec`.
        // MSG_NOSIGNAL (Linux) / SO_NOSIGPIPE (macOS, set at creation): a dead watchdog is
        // an EPIPE error, not a SIGPIPE that would end the app (the CLI restores SIGPIPE's
        // default action for `| head`).
        let n = unsafe {
            libc::send(
                fd.as_raw_fd(),
                rest.as_ptr().cast(),
                rest.len(),
                unix::SEND_FLAGS,
            )
        };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            tracing::warn!(error = %err, "orphan watchdog unreachable: engines may outlive a crash");
            return;
        }
        sent += usize::try_from(n).unwrap_or(rest.len());
    }
}

mod unix {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::sync::Mutex;

    use super::{feed, Record, MAX_GROUPS};

    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const SEND_FLAGS: libc::c_int = libc::MSG_NOSIGNAL;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub const SEND_FLAGS: libc::c_int = 0;

    /// The highest descriptor the child closes up to (computed before the fork: getrlimit is
    /// not on the async-signal-safe list).
    fn max_fd() -> libc::c_int {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct we pass.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
        let cur = if ok { lim.rlim_cur } else { 1024 };
        // RLIM_INFINITY or a huge limit: the first Mi descriptors are what is realistic (and
        // Linux closes all of them with close_range anyway).
        libc::c_int::try_from(cur.min(1 << 20)).unwrap_or(1 << 20)
    }

    fn cloexec(fd: libc::c_int) {
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }

    /// Fork the watchdog; our end of the pair, or `None` (logged).
    pub fn start() -> Option<Mutex<OwnedFd>> {
        let mut fds = [0 as libc::c_int; 2];
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let kind = libc::SOCK_STREAM | libc::SOCK_CLOEXEC;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let kind = libc::SOCK_STREAM;
        // SAFETY: socketpair writes two descriptors into `fds`.
        if unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) } != 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "cannot create the orphan watchdog's socket");
            return None;
        }
        let (ours, theirs) = (fds[0], fds[1]);
        // Close-on-exec, so no engine inherits our end (it would keep the watchdog from
        // seeing EOF). Linux sets it atomically above; elsewhere a spawn racing these two
        // calls could inherit it, and then only delays the watchdog until that child exits.
        cloexec(ours);
        cloexec(theirs);
        #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
        // SAFETY: setsockopt with a pointer to a c_int of the right size.
        unsafe {
            let one: libc::c_int = 1;
            libc::setsockopt(
                ours,
                libc::SOL_SOCKET,
                libc::SO_NOSIGPIPE,
                std::ptr::addr_of!(one).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        let max_fd = max_fd();
        // SAFETY: fork(2). In the child only async-signal-safe calls run (see `child`),
        // which never returns. The parent closes the child's end and owns its own.
        let pid = unsafe { libc::fork() };
        match pid {
            -1 => {
                tracing::warn!(error = %std::io::Error::last_os_error(), "cannot fork the orphan watchdog");
                // SAFETY: both descriptors are ours and open.
                unsafe {
                    libc::close(ours);
                    libc::close(theirs);
                }
                None
            }
            0 => {
                // SAFETY: in the forked child; see `child`.
                unsafe { child(theirs, max_fd) }
            }
            pid => {
                // SAFETY: the child's end is open and ours to close; `ours` is owned from
                // here on by the OwnedFd.
                unsafe {
                    libc::close(theirs);
                    let mut status = 0;
                    // The intermediate child exits at once; reap it.
                    while libc::waitpid(pid, &mut status, 0) == -1
                        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                    {
                    }
                    tracing::debug!("orphan watchdog started");
                    Some(Mutex::new(OwnedFd::from_raw_fd(ours)))
                }
            }
        }
    }

    /// The forked side: fork again (the grandchild is the watchdog, adopted by init), then
    /// wait for EOF and kill the registered groups.
    ///
    /// # Safety
    /// Only in a freshly forked child: calls nothing but async-signal-safe functions and
    /// touches only its stack.
    unsafe fn child(fd: libc::c_int, max_fd: libc::c_int) -> ! {
        if libc::fork() != 0 {
            // The intermediate child (or a failed fork): done either way.
            libc::_exit(0);
        }
        libc::setsid();
        // Default dispositions: handlers inherited from the app (tokio's, which write into
        // a pipe closed below) would swallow SIGTERM.
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for std_fd in 0..3 {
                libc::dup2(null, std_fd);
            }
        }
        // Every other descriptor closed: a copy of an engine's stdin pipe kept here would hide
        // the EOF the stop ladder sends it. Ours moves to 3, then everything above goes.
        let moved = fd == 3 || libc::dup2(fd, 3) == 3;
        let fd = if moved { 3 } else { fd };
        if !(moved && close_above(3)) {
            for other in 3..max_fd {
                if other != fd {
                    libc::close(other);
                }
            }
        }
        let mut groups = [0i32; MAX_GROUPS];
        let mut pending: Record = [0; 8];
        let mut have = 0usize;
        let mut buf = [0u8; 512];
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if n == 0 {
                break;
            }
            if n < 0 {
                if *errno() == libc::EINTR {
                    continue;
                }
                break;
            }
            let n = (n as usize).min(buf.len());
            feed(&mut groups, &mut pending, &mut have, &buf[..n]);
        }
        for pgid in groups {
            if pgid > 0 {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }

    /// close_range(2) (Linux ≥ 5.9): every descriptor above `fd`, whatever the limit says.
    #[cfg(target_os = "linux")]
    unsafe fn close_above(fd: libc::c_int) -> bool {
        let first = libc::c_uint::try_from(fd + 1).unwrap_or(4);
        libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) == 0
    }

    /// Elsewhere the caller closes up to the descriptor limit one by one.
    #[cfg(not(target_os = "linux"))]
    unsafe fn close_above(_fd: libc::c_int) -> bool {
        false
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    unsafe fn errno() -> *mut libc::c_int {
        libc::__errno_location()
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    unsafe fn errno() -> *mut libc::c_int {
        libc::__error()
    }
}

#[cfg(test)]
#[path = "watchdog_tests.rs"]
mod tests;
