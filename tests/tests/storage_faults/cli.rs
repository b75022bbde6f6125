//! The CLI (`target/debug/agentdesk-cli`) over a damaged database and over a read-only
//! data directory.
//!
//! - Damaged pages (garbage written over pages in the middle of a real database with three
//!   sessions): `doctor` prints the integrity report; `sessions`, `show`, `search`, `export`
//!   say the file is damaged and how to recover, exit 7 (before: 2 of 3 sessions, exit 0).
//! - A read-only data directory (a read-only bind mount; we are root, so modes alone would
//!   not stop us): `sessions`, `show`, `search`, `export` work; a write says read-only.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use agentdesk_core::{Desk, NewSession, RunInput, RunRecorder, RunReducer};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ui::ProfileSpec;
use agentdesk_tests::real::{cli_output, skip_or_fail};
use agentdesk_tests::world::fresh_root;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::ConnectOptions;
use tokio::sync::mpsc;

use super::SUITE;

const CALL: Duration = Duration::from_secs(60);

fn cli_bin() -> Option<PathBuf> {
    agentdesk_tests::real::cli_bin(env!("CARGO_TARGET_TMPDIR"), SUITE)
}

async fn cli(bin: &Path, data: &Path, args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(bin);
    command
        .args(args)
        .env("AGENTDESK_DATA_DIR", data)
        .kill_on_drop(true);
    cli_output(command, args, CALL).await
}

/// `profile add` (a write) of a second profile in the workspace `work`.
async fn add_a_profile(bin: &Path, data: &Path, work: &Path) -> Output {
    let ws = work.to_string_lossy();
    let args = [
        "profile",
        "add",
        "--workspace",
        &ws,
        "second",
        "--engine",
        "codex",
    ];
    cli(bin, data, &args).await
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// A data dir with three sessions ("alpha", "beta", "gamma"), each with a run whose agent
/// message is long enough (about 200 KB) to spread the database over many pages. Returns the
/// session ids.
async fn three_sessions(data: &Path, work: &Path) -> Vec<String> {
    std::fs::create_dir_all(work).unwrap();
    let desk = Desk::open(data).await.unwrap();
    let ws = desk
        .add_workspace(work.to_str().unwrap(), None)
        .await
        .unwrap();
    let spec: ProfileSpec =
        serde_json::from_value(serde_json::json!({"name": "p", "engine": "claude"})).unwrap();
    desk.create_profile(&ws.id, &spec).await.unwrap();
    let mut ids = Vec::new();
    for title in ["alpha", "beta", "gamma"] {
        let s = desk
            .create_session(&NewSession {
                title: Some(title.into()),
                ..NewSession::new(ws.id.clone())
            })
            .await
            .unwrap();
        let run = desk
            .create_run(&s.id, &format!("tell me about {title}"), &[])
            .await
            .unwrap();
        let (tx, rx) = mpsc::channel(4096);
        let rec = RunRecorder::new(desk.store().clone(), &s.id, RunReducer::new(&s.id, &run.id));
        let task = tokio::spawn(rec.run(rx));
        for i in 0..2000 {
            let piece = format!("{title} quartz{i} lorem ipsum dolor sit amet consectetur {i} ");
            tx.send(RunInput::Event(AgentEvent::MessageDelta {
                item_id: "m".into(),
                text: piece,
            }))
            .await
            .unwrap();
        }
        tx.send(RunInput::Event(AgentEvent::RunCompleted {
            stop_reason: "end_turn".into(),
        }))
        .await
        .unwrap();
        task.await.unwrap().unwrap();
        ids.push(s.id.into_string());
    }
    desk.close().await;
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_pages_are_reported_not_half_read() {
    let Some(bin) = cli_bin() else { return };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "storage_faults", "damaged");
    let data = root.join("data");
    let ids = three_sessions(&data, &root.join("work")).await;
    // Healthy first: all three listed.
    let out = cli(&bin, &data, &["sessions"]).await;
    assert!(out.status.success());
    for t in ["alpha", "beta", "gamma"] {
        assert!(text(&out.stdout).contains(t), "{t} missing");
    }

    // Garbage over eight pages in the middle of the file (the header page stays intact,
    // so the file still opens).
    let db = data.join(agentdesk_core::DATABASE_FILE_NAME);
    let bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    let pages = bytes.len() / page;
    assert!(
        pages > 40,
        "database too small to damage its middle: {pages} pages"
    );
    let mut damaged = bytes.clone();
    let first = pages / 2;
    for (i, b) in damaged[first * page..(first + 8) * page]
        .iter_mut()
        .enumerate()
    {
        *b = (i as u8).wrapping_mul(37) ^ 0xa5;
    }
    std::fs::write(&db, &damaged).unwrap();

    let out = cli(&bin, &data, &["doctor", "--no-login"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(7), "doctor: {stderr}");
    let integrity = stdout
        .lines()
        .find(|l| l.starts_with("integrity:"))
        .unwrap_or_else(|| panic!("no integrity report: {stdout}"));
    assert!(!integrity.ends_with(" ok"), "{integrity}");
    assert!(stderr.contains("damaged"), "{stderr}");

    let id = ids[0].as_str();
    for args in [
        vec!["sessions"],
        vec!["show", id],
        vec!["search", "quartz7"],
        vec!["export", id, "--format", "md"],
    ] {
        let out = cli(&bin, &data, &args).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {stderr}");
        assert!(
            stderr.contains("is damaged") && stderr.contains(".recover"),
            "{args:?} must say the file is damaged and how to recover: {stderr}"
        );
        assert!(
            text(&out.stdout).trim().is_empty(),
            "{args:?} printed a partial result: {}",
            text(&out.stdout)
        );
    }
    // Nothing was changed by looking.
    assert_eq!(std::fs::read(&db).unwrap(), damaged);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_data_dir_can_still_be_read() {
    let Some(bin) = cli_bin() else { return };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "storage_faults", "read-only");
    let data = root.join("data");
    let work = root.join("work");
    let ids = three_sessions(&data, &work).await;
    let Some(_ro) = super::Mount::read_only(&data) else {
        skip_or_fail(SUITE, "cannot make a read-only bind mount (not root?)");
        return;
    };
    assert!(
        std::fs::write(data.join("probe"), "x").is_err(),
        "the mount is not read-only"
    );
    let id = ids[1].as_str();
    let out = cli(&bin, &data, &["sessions"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    for t in ["alpha", "beta", "gamma"] {
        assert!(text(&out.stdout).contains(t), "{t} missing");
    }
    let out = cli(&bin, &data, &["show", id]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("beta quartz1999"));
    let out = cli(&bin, &data, &["search", "quartz1234"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("quartz1234"));
    let out = cli(&bin, &data, &["export", id, "--format", "md"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("beta quartz0 "));

    // A write says why it cannot be done.
    let out = add_a_profile(&bin, &data, &work).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
}

/// What keeps `run` from saving its run, past the (shortened) retry budget.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// Another program holds the database's write lock.
    Locked,
    /// Another program fills the data directory's disk (a 4 MB tmpfs) to the last byte.
    DiskFull,
}

/// `run` while another program holds the database's write lock past the (shortened) retry
/// budget: the CLI says so and exits 1 in bounded time, with the engine stopped (before: the
/// run stayed `running` and the CLI hung for good). Once the lock is gone, the next command
/// (a read) finds the run `failed` with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_exits_when_the_database_stays_locked() {
    run_past_a_storage_fault(Fault::Locked).await;
}

/// `run` while another program fills the disk mid-answer: the CLI exits 1 after its retry
/// window; the failed end the database refused is kept in the run's slot outside it (see
/// `agentdesk_core::run_ends`), and once space is freed the next command — `sessions`, a
/// read — writes it: the run ends `failed` with "the disk is full", never left `running`
/// (before: `running` for good, through `sessions` and `export`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_on_a_disk_filled_by_another_program_ends_failed_once_space_returns() {
    run_past_a_storage_fault(Fault::DiskFull).await;
}

async fn run_past_a_storage_fault(fault: Fault) {
    use agentdesk_tests::fake_messages::{FakeMessages, Reply, Step, FAKE_MODEL};
    use tokio::io::AsyncReadExt;

    let Some(bin) = cli_bin() else { return };
    let Some(claude) = agentdesk_tests::real::engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    let name = match fault {
        Fault::Locked => "cli-locked",
        Fault::DiskFull => "cli-disk-full",
    };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "storage_faults", name);
    let (data, work, home, tmp) = (
        root.join("data"),
        root.join("work"),
        root.join("home"),
        root.join("t"),
    );
    let disk = match fault {
        Fault::Locked => None,
        Fault::DiskFull => {
            let Some(m) = super::Mount::tmpfs(&data, "4m") else {
                skip_or_fail(
                    SUITE,
                    "cannot mount a tmpfs (not root?) for the full-disk scenario",
                );
                return;
            };
            Some(m)
        }
    };
    for d in [&work, &home.join(".claude"), &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let fake = FakeMessages::start().await.unwrap();
    let mut steps = Vec::new();
    // Padded pieces on a full disk: each write needs pages the file does not have yet.
    let pad = if fault == Fault::DiskFull { 2000 } else { 0 };
    for i in 0..600 {
        steps.push(Step::Text(vec![format!("chunk{i:03}{} ", "z".repeat(pad))]));
        steps.push(Step::Sleep(Duration::from_millis(100)));
    }
    steps.push(Step::Hang);
    fake.push(Reply::Stream(steps));
    let vars: Vec<(&str, String)> = vec![
        ("AGENTDESK_DATA_DIR", data.display().to_string()),
        ("AGENTDESK_CLAUDE_BIN", claude.display().to_string()),
        ("AGENTDESK_STORAGE_RETRY_SECS", "2".into()),
        ("HOME", home.display().to_string()),
        (
            "CLAUDE_CONFIG_DIR",
            home.join(".claude").display().to_string(),
        ),
        ("CLAUDE_CODE_TMPDIR", tmp.display().to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("NO_PROXY", "127.0.0.1,localhost".into()),
        ("AGENTDESK_TEST_MODEL_KEY", "dummy".into()),
    ];
    let command = |args: &[&str]| {
        let mut c = tokio::process::Command::new(&bin);
        c.args(args).kill_on_drop(true);
        for (k, v) in &vars {
            c.env(k, v);
        }
        c
    };
    let ws = work.display().to_string();
    let base_url = fake.base_url();
    let added = command(&[
        "profile",
        "add",
        "--workspace",
        &ws,
        "test",
        "--engine",
        "claude",
        "--model",
        FAKE_MODEL,
        "--base-url",
        &base_url,
        "--api-key-env",
        "AGENTDESK_TEST_MODEL_KEY",
    ])
    .output()
    .await
    .unwrap();
    assert!(added.status.success(), "{}", text(&added.stderr));

    let mut child = command(&["run", "--workspace", &ws, "--approve", "deny", "stream"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Mid-stream: the first pieces are on screen (and the first batch is being written).
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let streaming = tokio::time::timeout(Duration::from_secs(60), async {
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains("chunk005") {
            let n = stdout.read(&mut buf).await.unwrap();
            assert!(n > 0, "the run ended before streaming");
            seen.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    assert!(streaming.is_ok(), "no text streamed");
    let db = data.join(agentdesk_core::DATABASE_FILE_NAME);
    let mut conn = match fault {
        Fault::Locked => Some(super::write_lock(&db).await),
        Fault::DiskFull => {
            disk.as_ref().unwrap().fill();
            None
        }
    };
    let faulted_at = std::time::Instant::now();
    let drain = tokio::spawn(async move {
        let mut rest = Vec::new();
        let _ = stdout.read_to_end(&mut rest).await;
    });
    let status = tokio::time::timeout(Duration::from_secs(90), child.wait())
        .await
        .expect("the CLI hung past the storage fault")
        .unwrap();
    let took = faulted_at.elapsed();
    let mut err = Vec::new();
    let _ = child.stderr.take().unwrap().read_to_end(&mut err).await;
    let _ = drain.await;
    let err = text(&err);
    eprintln!("{err}");
    assert_eq!(status.code(), Some(1), "{err}");
    let reason = match fault {
        Fault::Locked => {
            super::says_another_program_has_the_database(&err);
            assert!(took < Duration::from_secs(45), "took {took:?}");
            "another program is using the database"
        }
        Fault::DiskFull => {
            assert!(err.contains("the disk is full"), "{err}");
            "the disk is full"
        }
    };
    // The failed end could not be written and the CLI exited: it waits in the run's slot.
    let slots: Vec<String> = std::fs::read_dir(data.join("run-ends"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(slots.len(), 1, "{slots:?}");
    assert!(slots[0].contains(reason), "{slots:?}");
    // The fault goes away; the next command, a read, saves the end.
    if let Some(c) = conn.as_mut() {
        sqlx::query("ROLLBACK").execute(c).await.unwrap();
    }
    drop(conn);
    if let Some(d) = &disk {
        d.free();
    }
    let out = command(&["sessions"]).output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut check = SqliteConnectOptions::new()
        .filename(&db)
        .read_only(true)
        .connect()
        .await
        .unwrap();
    let rows: Vec<(String, Option<String>)> = sqlx::query_as("SELECT status, error FROM runs")
        .fetch_all(&mut check)
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, "failed", "{rows:?}");
    assert!(
        rows[0].1.as_deref().unwrap_or("").contains(reason),
        "{rows:?}"
    );
    drop(check);
    let left = std::fs::read_dir(data.join("run-ends")).unwrap().count();
    assert_eq!(left, 0, "the settled slot is still there");
    // And nothing is left for start-up recovery.
    let out = command(&["doctor", "--no-login"]).output().await.unwrap();
    assert!(
        !text(&out.stderr).contains("left running"),
        "{}",
        text(&out.stderr)
    );
    drop(disk);
}

/// Another program holds the write lock: reading commands work; a write waits the busy
/// timeout, then says who is in the way and names the file (not SQLite's "database is
/// locked").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_write_lock_reads_fine_and_writes_say_who_is_in_the_way() {
    let Some(bin) = cli_bin() else { return };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "storage_faults", "held");
    let (data, work) = (root.join("data"), root.join("work"));
    three_sessions(&data, &work).await;
    let db = data.join(agentdesk_core::DATABASE_FILE_NAME);
    let mut other = super::write_lock(&db).await;
    let out = cli(&bin, &data, &["sessions"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("gamma"));
    let out = add_a_profile(&bin, &data, &work).await;
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "another program is using the database ({})",
            db.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("database is locked"), "{stderr}");
}
