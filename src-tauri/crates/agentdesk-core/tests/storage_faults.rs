//! The recorder against a real database that another connection locks: a lock held longer
//! than SQLite's busy timeout (5 s) loses nothing, and one held past the retry budget ends
//! the recording with a clear "another program is using the database" error, in bounded time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use agentdesk_core::{Desk, RunInput};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{ItemBody, Run, RunStatus};
use common::delta;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio::sync::mpsc;

/// Another program's connection holding the write lock (`BEGIN IMMEDIATE`) for `held`.
async fn hold_write_lock(db: &std::path::Path, held: Duration) -> tokio::task::JoinHandle<()> {
    let mut conn = SqliteConnectOptions::new()
        .filename(db)
        .connect()
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut conn)
        .await
        .unwrap();
    tokio::spawn(async move {
        tokio::time::sleep(held).await;
        sqlx::query("ROLLBACK").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    })
}

async fn stored_text(desk: &Desk, run: &RunId) -> String {
    let items = desk.store().run_items(run).await.unwrap();
    items
        .iter()
        .find_map(|i| match &i.body {
            ItemBody::AgentMessage { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// A recording with a 2 s retry budget, flushing every 100 ms, that has written `first`.
async fn recording_on_a_budget(
    desk: &Desk,
    session: &SessionId,
    run: &RunId,
    first: &str,
) -> (
    mpsc::Sender<RunInput>,
    tokio::task::JoinHandle<agentdesk_core::Result<Run>>,
) {
    let (tx, rx) = mpsc::channel(1024);
    let rec = common::recorder(desk, session, run)
        .flush_interval(Duration::from_millis(100))
        .storage_retry_budget(Duration::from_secs(2));
    let task = tokio::spawn(rec.run(rx));
    tx.send(delta(first)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    (tx, task)
}

/// The engine streaming on after the fault: `n` deltas (`piece(i)`) `every` apart, until the
/// recorder stops taking them.
fn keep_streaming(
    tx: mpsc::Sender<RunInput>,
    n: usize,
    every: Duration,
    piece: impl Fn(usize) -> String + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        for i in 0..n {
            if tx.send(delta(&piece(i))).await.is_err() {
                return;
            }
            tokio::time::sleep(every).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_held_past_the_busy_timeout_loses_no_text() {
    let (_d, _f, desk, session, run) = common::claude_run("tell me").await;
    let (tx, rx) = mpsc::channel(1024);
    let rec = common::recorder(&desk, &session, &run).flush_interval(Duration::from_millis(200));
    let task = tokio::spawn(rec.run(rx));
    let mut expected = String::new();
    let mut lock = None;
    // 90 deltas, 100 ms apart; the lock is taken after 1 s and held 7 s (SQLite's busy
    // timeout is 5 s, so at least one write fails).
    for i in 0..90 {
        if i == 10 {
            lock = Some(hold_write_lock(desk.database_path(), Duration::from_secs(7)).await);
        }
        let piece = format!("w{i} ");
        expected.push_str(&piece);
        tx.send(delta(&piece)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tx.send(RunInput::Event(AgentEvent::RunCompleted {
        stop_reason: "end_turn".into(),
    }))
    .await
    .unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .expect("the recorder hung")
        .unwrap()
        .unwrap();
    lock.unwrap().await.unwrap();
    assert_eq!(ended.status, RunStatus::Completed, "{ended:?}");
    assert_eq!(stored_text(&desk, &run).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_held_past_the_budget_gives_up_clearly_and_keeps_what_was_written() {
    let (_d, _f, desk, session, run) = common::claude_run("tell me").await;
    let (tx, task) = recording_on_a_budget(&desk, &session, &run, "before the lock ").await;
    let lock = hold_write_lock(desk.database_path(), Duration::from_secs(20)).await;
    let began = tokio::time::Instant::now();
    // The engine goes on streaming; the recorder must not block it for good.
    let feeder = keep_streaming(tx, 200, Duration::from_millis(50), |i| format!("d{i} "));
    let result = tokio::time::timeout(Duration::from_secs(15), task)
        .await
        .expect("the recorder did not give up in time")
        .unwrap();
    let err = result.expect_err("the recorder cannot have saved the run");
    assert!(
        began.elapsed() < Duration::from_secs(12),
        "gave up after {:?}",
        began.elapsed()
    );
    let msg = err.to_string();
    assert!(
        msg.contains("another program is using the database"),
        "{msg}"
    );
    assert!(!msg.contains("database error"), "{msg}");
    feeder.abort();
    lock.abort();
    // What was written before the lock is there.
    assert!(stored_text(&desk, &run)
        .await
        .starts_with("before the lock"));
}

/// A tmpfs on a fresh folder (we are root in the test sandbox), unmounted lazily on drop.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Option<(tempfile::TempDir, Tmpfs)> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let path = dir.path().to_path_buf();
        ok.then(|| (dir, Tmpfs(path)))
    }

    /// Write a file until the file system is full to the last byte.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0x5a_u8; 64 * 1024];
        for size in [64 * 1024, 4096, 512, 1] {
            while f.write_all(&block[..size]).is_ok() {}
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_gives_up_clearly_and_keeps_what_was_written() {
    let Some((_keep, fs)) = Tmpfs::mount("2m") else {
        eprintln!("SKIP: cannot mount a tmpfs here (not root?)");
        return;
    };
    let (_folder, desk, session, run) = common::claude_run_at(&fs.0.join("data"), "tell me").await;
    let (tx, task) = recording_on_a_budget(&desk, &session, &run, "before the disk filled ").await;
    fs.fill();
    // Large pieces, so the WAL must grow.
    let feeder = keep_streaming(tx, 400, Duration::from_millis(20), |i| {
        format!("{i:04}{}", "x".repeat(2000))
    });
    let result = tokio::time::timeout(Duration::from_secs(20), task)
        .await
        .expect("the recorder hung on a full disk")
        .unwrap();
    feeder.abort();
    let err = result.expect_err("nothing can be saved on a full disk");
    assert!(err.to_string().contains("the disk is full"), "{err}");
    assert!(stored_text(&desk, &run)
        .await
        .starts_with("before the disk filled"));
    // A write whose commit fails must say so, not return the row as if it were written
    // (an UPDATE … RETURNING read with fetch_optional lost its failed commit silently).
    let end = agentdesk_store::RunEnd {
        status: RunStatus::Failed,
        stop_reason: None,
        error: Some("x"),
        at: 1,
    };
    let ended = desk.store().finish_run(&run, &end).await;
    let row = desk.store().get_run(&run).await.unwrap();
    match ended {
        Ok(r) => assert_eq!(
            row.status, r.status,
            "reported written, but the row says otherwise"
        ),
        Err(e) => {
            assert!(e.to_string().contains("the disk is full"), "{e}");
            assert_eq!(row.status, RunStatus::Running);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attachment_on_a_full_disk_says_so_and_leaves_nothing_behind() {
    let Some((_keep, fs)) = Tmpfs::mount("1m") else {
        eprintln!("SKIP: cannot mount a tmpfs here (not root?)");
        return;
    };
    let data = fs.0.join("data");
    let desk = Desk::open(&data).await.unwrap();
    let src = tempfile::tempdir().unwrap();
    let big = src.path().join("notes.txt");
    std::fs::write(&big, "lorem ipsum ".repeat(60_000)).unwrap();
    fs.fill();
    let err = desk.import_attachment(&big).await.unwrap_err();
    assert!(err.to_string().contains("the disk is full"), "{err}");
    let left: Vec<_> = std::fs::read_dir(desk.attachments_dir())
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "partial files left: {left:?}");
    desk.close().await;
}
