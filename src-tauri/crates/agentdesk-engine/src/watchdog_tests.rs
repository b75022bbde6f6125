#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use super::*;

#[test]
fn records_add_and_remove_groups_whatever_the_reads_split() {
    let mut groups = [0i32; 4];
    let mut pending = [0u8; 8];
    let mut have = 0;
    let mut stream = Vec::new();
    for rec in [
        record(true, 100),
        record(true, 200),
        record(false, 100),
        record(true, 300),
        record(false, 999),
    ] {
        stream.extend_from_slice(&rec);
    }
    // One byte at a time, then the rest at once: same table.
    for b in &stream[..5] {
        feed(
            &mut groups,
            &mut pending,
            &mut have,
            std::slice::from_ref(b),
        );
    }
    feed(&mut groups, &mut pending, &mut have, &stream[5..]);
    let mut live: Vec<i32> = groups.iter().copied().filter(|g| *g != 0).collect();
    live.sort_unstable();
    assert_eq!(live, [200, 300]);
    // A full table drops the newcomer rather than overwriting; bad ids are ignored.
    for pgid in [1, 2, 3, 4] {
        apply(&mut groups, &record(true, pgid));
    }
    assert!(!groups.contains(&4), "{groups:?}");
    apply(&mut groups, &record(true, 0));
    apply(&mut groups, &record(true, u32::MAX));
    assert!(!groups.contains(&-1));
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    // A zombie (killed, not reaped yet by its parent) counts as dead.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    })
}

fn wait_dead(pid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A watchdog of its own (not the process-wide one): registered groups die when our end
/// closes, as when the app dies; unregistered ones are left alone.
#[test]
fn closing_the_apps_end_kills_the_registered_groups() {
    let mut doomed = std::process::Command::new("sleep")
        .arg("300")
        .process_group(0)
        .spawn()
        .unwrap();
    let mut spared = std::process::Command::new("sleep")
        .arg("300")
        .process_group(0)
        .spawn()
        .unwrap();
    let channel = unix::start().unwrap();
    let fd = channel.into_inner().unwrap();
    let send = |rec: Record| {
        // SAFETY: send on our open socket, pointer/length into `rec`.
        let n = unsafe { libc::send(fd.as_raw_fd(), rec.as_ptr().cast(), rec.len(), 0) };
        assert_eq!(n, 8);
    };
    send(record(true, doomed.id()));
    send(record(true, spared.id()));
    send(record(false, spared.id()));
    std::thread::sleep(Duration::from_millis(100));
    assert!(alive(doomed.id() as i32));
    drop(fd);
    let status = {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(status) = doomed.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the registered group survived");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    assert!(!wait_dead(spared.id() as i32, Duration::from_millis(300)));
    spared.kill().unwrap();
    spared.wait().unwrap();
}

/// The watchdog keeps no copy of the app's other descriptors: an engine's stdin pipe still
/// reads EOF when the app closes its end (the stop ladder's first rung).
#[cfg(target_os = "linux")]
#[test]
fn the_watchdog_holds_no_copy_of_an_engine_pipe() {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`; close-on-exec keeps other tests'
    // spawns from inheriting the write end.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let (read, write) = (fds[0], fds[1]);
    let channel = unix::start().unwrap();
    // SAFETY: closing our own write end; then poll/read on our own read end.
    let n = unsafe {
        libc::close(write);
        let mut pfd = libc::pollfd {
            fd: read,
            events: libc::POLLIN,
            revents: 0,
        };
        assert_eq!(
            libc::poll(&mut pfd, 1, 5_000),
            1,
            "no EOF: the watchdog kept the pipe"
        );
        let mut byte = 0u8;
        let n = libc::read(read, std::ptr::addr_of_mut!(byte).cast(), 1);
        libc::close(read);
        n
    };
    assert_eq!(n, 0);
    drop(channel);
}
