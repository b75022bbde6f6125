//! Storage faults in the middle of a run, with the REAL engines (`CODEX_BIN`, `CLAUDE_BIN`)
//! streaming from the fake model servers on 127.0.0.1, through `Desk::send_message`:
//!
//! - another program holds the database's write lock (`BEGIN IMMEDIATE` on a second
//!   connection) longer than SQLite's busy timeout, then lets go: the run completes and the
//!   stored text is exactly the streamed text;
//! - the lock is held past the (test-shortened) retry budget: the run ends `failed` with
//!   "another program is using the database", the engine is stopped (Claude's process is
//!   gone, Codex's model stream is dropped), nothing hangs, and once the lock is gone the row
//!   says failed too;
//! - the disk fills up mid-run (the data dir is a 4 MB tmpfs, filled to the last byte): the
//!   run fails with "the disk is full", and what was written before is stored.
//!
//! The CLI over a damaged database and a read-only data dir: see `storage_faults/cli.rs`.
//!
//! A missing binary is a loud SKIP (a failure under `CI=true`); so is a sandbox where tmpfs
//! cannot be mounted. Every wait is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::fanout::RecvError;
use agentdesk_core::{Desk, RunUpdate};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::RunId;
use agentdesk_protocol::ui::{Engine, Run, RunStatus};
use agentdesk_tests::http::wait_until;
use agentdesk_tests::process::exited;
use agentdesk_tests::real::skip_or_fail;
use agentdesk_tests::scenarios;
use agentdesk_tests::world::{fresh_root, Fake, World};
use agentdesk_tests::{fake_messages, fake_responses};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};

const SUITE: &str = "storage faults suite";

#[path = "storage_faults/cli.rs"]
mod cli;
const TEST: Duration = Duration::from_secs(240);
const EVERY: Duration = Duration::from_millis(100);

/// The world of one scenario, its desk's data under `data` (default: its own folder).
async fn world(engine: Engine, name: &str, bin: &Path, data: Option<PathBuf>) -> World {
    let name = format!("{}-{name}", engine.as_str());
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "storage_faults", &name);
    World::new(root, engine, bin, data, |_| {}).await
}

/// `n` pieces `EVERY` apart; then the turn ends (`end`) or the stream stays open.
fn push_stream(w: &World, n: usize, end: bool) {
    push_padded_stream(w, n, end, 0);
}

/// Like `push_stream`, each piece padded to `pad` more characters (Claude only): a text
/// item that grows fast makes every write larger than what the database file already
/// holds, so a full disk shows at once.
fn push_padded_stream(w: &World, n: usize, end: bool, pad: usize) {
    match &w.fake {
        Fake::Codex(f) => f.push(if end {
            fake_responses::Reply::slow_text_then_end(n, EVERY)
        } else {
            fake_responses::Reply::slow_text(n, EVERY)
        }),
        Fake::Claude(f) => {
            let mut steps = Vec::new();
            for i in 0..n {
                let piece = format!("chunk{i:03}{} ", "z".repeat(pad));
                steps.push(fake_messages::Step::Text(vec![piece]));
                steps.push(fake_messages::Step::Sleep(EVERY));
            }
            if !end {
                steps.push(fake_messages::Step::Hang);
            }
            f.push(fake_messages::Reply::Stream(steps));
        }
    }
}

/// The stored agent text of the session.
async fn stored_text(w: &World) -> String {
    w.agent_messages().await.concat()
}

/// The text the engine streamed for a run, as the live updates carried it, until the run's
/// terminal status.
fn collect_streamed(
    mut updates: agentdesk_core::RunUpdates,
    run_id: RunId,
) -> tokio::task::JoinHandle<(String, Option<Run>)> {
    tokio::spawn(async move {
        let mut text = String::new();
        loop {
            match updates.recv().await {
                Ok(RunUpdate::Event {
                    run_id: r, event, ..
                }) if r == run_id => {
                    if let AgentEvent::MessageDelta { text: t, .. } = event {
                        text.push_str(&t);
                    }
                }
                Ok(RunUpdate::Status { run }) if run.id == run_id && run.status.is_terminal() => {
                    return (text, Some(run));
                }
                Ok(_) => {}
                Err(RecvError::Overflowed(n)) => panic!("overflowed {n}"),
                Err(RecvError::Closed) => return (text, None),
            }
        }
    })
}

/// Another program's connection to `db`, holding the write lock (`BEGIN IMMEDIATE`) until it
/// rolls back.
async fn write_lock(db: &Path) -> SqliteConnection {
    let mut conn = SqliteConnectOptions::new()
        .filename(db)
        .connect()
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut conn)
        .await
        .unwrap();
    conn
}

/// Another program's connection holding the write lock until the returned task ends.
async fn hold_write_lock(db: &Path, held: Duration) -> tokio::task::JoinHandle<()> {
    let mut conn = write_lock(db).await;
    tokio::spawn(async move {
        tokio::time::sleep(held).await;
        sqlx::query("ROLLBACK").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    })
}

/// `error` names the cause in words, not in SQLite's.
fn says_another_program_has_the_database(error: &str) {
    assert!(
        error.contains("another program is using the database"),
        "{error}"
    );
    assert!(
        !error.contains("database is locked"),
        "raw SQLite text: {error}"
    );
}

/// Send a message whose reply streams (see [`push_stream`]); once `40` characters of it
/// have streamed, its id and the task collecting its stream (see [`collect_streamed`]).
async fn start_streaming(w: &World) -> (RunId, tokio::task::JoinHandle<(String, Option<Run>)>) {
    let updates = w.desk.subscribe_runs();
    let run = w.send("stream").await;
    let streamed = collect_streamed(updates, run.clone());
    wait_streamed(w, &run, 40).await;
    (run, streamed)
}

/// Until the run has streamed at least `n` characters of text (bounded).
async fn wait_streamed(w: &World, run_id: &RunId, n: usize) {
    let mut updates = w.desk.subscribe_runs();
    let mut seen = 0;
    let ok = tokio::time::timeout(Duration::from_secs(60), async {
        while seen < n {
            if let Ok(RunUpdate::Event {
                run_id: r,
                event: AgentEvent::MessageDelta { text, .. },
                ..
            }) = updates.recv().await
            {
                if r == *run_id {
                    seen += text.len();
                }
            }
        }
    })
    .await;
    assert!(ok.is_ok(), "the run streamed no text");
}

/// The run's row once it says failed (bounded).
async fn failed_row(desk: &Desk, run_id: &RunId, within: Duration) -> Option<Run> {
    tokio::time::timeout(within, async {
        loop {
            if let Ok(r) = desk.store().get_run(run_id).await {
                if r.status == RunStatus::Failed {
                    return r;
                }
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    })
    .await
    .ok()
}

// ---- the scenarios ----

async fn lock_held_mid_run_loses_nothing(engine: Engine, bin: PathBuf) {
    let w = world(engine, "lock-brief", &bin, None).await;
    // 120 pieces, 100 ms apart: the lock (8 s, longer than the 5 s busy timeout) falls in
    // the middle of the stream.
    push_stream(&w, 120, true);
    let (run, streamed) = start_streaming(&w).await;
    let lock = hold_write_lock(w.desk.database_path(), Duration::from_secs(8)).await;
    let ended = w
        .desk
        .wait_run(&run, Duration::from_secs(90))
        .await
        .unwrap();
    lock.await.unwrap();
    let (text, status) = streamed.await.unwrap();
    assert_eq!(ended.status, RunStatus::Completed, "{ended:#?}");
    assert_eq!(status.map(|r| r.status), Some(RunStatus::Completed));
    assert!(
        text.contains("chunk119") || text.contains("chunk119 "),
        "{text}"
    );
    assert_eq!(
        stored_text(&w).await,
        text,
        "the stored text is the streamed text"
    );
    w.finish(&[]).await;
}

async fn lock_past_budget_fails_the_run(engine: Engine, bin: PathBuf) {
    let w = world(engine, "lock-long", &bin, None).await;
    w.desk.set_storage_retry_budget(Duration::from_secs(2));
    push_stream(&w, 600, false);
    let (run, streamed) = start_streaming(&w).await;
    let pid = w.desk.run_engine_pid(&run).expect("no engine pid");
    // Let the recorder write what it has before the lock.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let before_lock = stored_text(&w).await;
    assert!(!before_lock.is_empty());
    let locked_at = tokio::time::Instant::now();
    let lock = hold_write_lock(w.desk.database_path(), Duration::from_secs(25)).await;
    let ended = w
        .desk
        .wait_run(&run, Duration::from_secs(40))
        .await
        .expect("the run did not end while the database stayed locked");
    let took = locked_at.elapsed();
    assert_eq!(ended.status, RunStatus::Failed, "{ended:#?}");
    says_another_program_has_the_database(&ended.error.clone().unwrap_or_default());
    // Budget 2 s + one busy timeout (5 s) + stopping the engine.
    assert!(took < Duration::from_secs(25), "took {took:?}");
    let (text, status) = streamed.await.unwrap();
    assert_eq!(status.map(|r| r.status), Some(RunStatus::Failed));
    assert!(text.starts_with(&before_lock), "streamed text diverged");
    if agentdesk_core::engines::descriptor(engine)
        .capabilities()
        .resident_server
    {
        // The shared app-server stays; the turn is interrupted, so the model stream is
        // dropped.
        assert!(
            wait_until(Duration::from_secs(15), || w.disconnects() > 0).await,
            "the turn was not interrupted (its model stream is still open)"
        );
    } else {
        // Its own CLI process: gone.
        assert!(
            wait_until(Duration::from_secs(15), || exited(pid)).await,
            "the engine process {pid} is still running"
        );
    }
    // Once the lock is gone, the row says failed too (retried in the background).
    lock.await.unwrap();
    let row = failed_row(&w.desk, &run, Duration::from_secs(15))
        .await
        .expect("the failed end was never written once the lock was gone");
    assert!(row
        .error
        .unwrap_or_default()
        .contains("another program is using the database"));
    w.finish(&[]).await;
}

/// `mount <args> <dir>`; whether it worked (we are root in the test sandbox, or not).
fn mount(args: &[&str], dir: &Path) -> bool {
    std::process::Command::new("mount")
        .args(args)
        .arg(dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn unmount(dir: &Path) {
    // Quiet: before a mount there is usually nothing to unmount, and umount says so.
    let _ = std::process::Command::new("umount")
        .arg("-l")
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status();
}

/// A mount on a folder, unmounted (lazily) on drop.
struct Mount(PathBuf);

impl Mount {
    /// A tmpfs of `size` on `dir` (created; a mount left there by an earlier run removed).
    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        unmount(dir);
        std::fs::create_dir_all(dir).unwrap();
        let options = format!("size={size},mode=0700");
        mount(&["-t", "tmpfs", "-o", &options, "tmpfs"], dir).then(|| Mount(dir.to_path_buf()))
    }

    /// `dir` made read-only in place (a read-only bind mount onto itself; as root, modes
    /// alone would not stop a write).
    fn read_only(dir: &Path) -> Option<Mount> {
        if !mount(&["--bind", &dir.to_string_lossy()], dir) {
            return None;
        }
        let guard = Mount(dir.to_path_buf());
        mount(&["-o", "remount,ro,bind"], dir).then_some(guard)
    }

    /// Write a file until the file system says it is full.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0x5a_u8; 64 * 1024];
        loop {
            if f.write_all(&block).is_err() {
                break;
            }
        }
        // Down to the last bytes.
        for size in [4096, 512, 1] {
            while f.write_all(&block[..size]).is_ok() {}
        }
        let _ = f.sync_all();
    }

    fn free(&self) {
        let _ = std::fs::remove_file(self.0.join("filler"));
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        unmount(&self.0);
    }
}

async fn full_disk_fails_the_run_and_keeps_earlier_text(engine: Engine, bin: PathBuf) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "storage_faults/{}-tmpfs-{}",
        engine.as_str(),
        std::process::id()
    ));
    let Some(fs) = Mount::tmpfs(&dir, "4m") else {
        skip_or_fail(
            SUITE,
            "cannot mount a tmpfs (not root?) for the full-disk scenario",
        );
        return;
    };
    let w = world(engine, "disk-full", &bin, Some(dir.join("data"))).await;
    w.desk.set_storage_retry_budget(Duration::from_secs(2));
    push_padded_stream(&w, 600, false, 2000);
    let (run, streamed) = start_streaming(&w).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let before_fill = stored_text(&w).await;
    assert!(
        !before_fill.is_empty(),
        "nothing stored before the disk filled"
    );
    fs.fill();
    let ended = w
        .desk
        .wait_run(&run, Duration::from_secs(60))
        .await
        .expect("the run did not end on a full disk");
    assert_eq!(ended.status, RunStatus::Failed, "{ended:#?}");
    let error = ended.error.clone().unwrap_or_default();
    assert!(error.contains("the disk is full"), "{error}");
    let (text, _) = streamed.await.unwrap();
    let stored = stored_text(&w).await;
    assert!(
        stored.starts_with(&before_fill) && text.starts_with(&stored),
        "stored text is not the streamed text's beginning:\nstored: {stored}\nstreamed: {text}"
    );
    // Space again: the failed end reaches the row.
    fs.free();
    let saved = failed_row(&w.desk, &run, Duration::from_secs(20))
        .await
        .expect("the failed end was never written once space was freed");
    assert!(saved.error.unwrap_or_default().contains("the disk is full"));
    w.finish(&[]).await;
    drop(fs);
}

scenarios! {
    both: [lock_held_mid_run_loses_nothing, lock_past_budget_fails_the_run],
    codex: [],
    claude: [full_disk_fails_the_run_and_keeps_earlier_text],
}
