//! Sessions in worktrees (issue 23's figures): `cargo bench -p agentdesk-core --bench
//! worktrees`. A repository of `WORKTREE_BENCH_FILES` files (default 50,000: 100 folders of
//! 500 files of ~200 bytes, one commit) is made once under
//! `target/bench-data/worktree-repo-<files>/` (or under `WORKTREE_BENCH_DIR`) with `git
//! fast-import`; then, `RUNS` times in a
//! fresh data dir: a session created in a worktree (`git worktree add` of the whole tree),
//! and — after a "run" that changed 1,000 files in it (500 edited, 500 new) — the review's
//! file list (`worktree_status`), read `READS` times. While each read runs, a task ticking
//! every 5 ms on the same runtime records its longest gap: the read awaits git's processes
//! and never holds a runtime thread, which is what keeps the window's IPC answering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentdesk_core::{Desk, NewSession};
use agentdesk_protocol::ui::{Engine, NewWorktree};

const RUNS: usize = 3;
const READS: usize = 5;
const CHANGED: usize = 1000;

fn files() -> usize {
    std::env::var("WORKTREE_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000)
}

/// Where the repository and the data dirs go: `WORKTREE_BENCH_DIR` (e.g. another disk), else
/// `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("WORKTREE_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target"))
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn content(i: usize) -> String {
    format!(
        "// file {i}\nfn f{i}() -> usize {{\n    {i}\n}}\n{}\n",
        "x".repeat(120)
    )
}

/// The repository, made once: one commit of `n` files through `git fast-import`.
fn repo(n: usize) -> PathBuf {
    let dir = target_dir().join(format!("bench-data/worktree-repo-{n}"));
    if dir.join(".git/agentdesk-bench-ready").exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["config", "user.name", "Bench"]);
    git(&dir, &["config", "user.email", "bench@example.com"]);
    let mut child = Command::new("git")
        .arg("-C")
        .arg(&dir)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut w = std::io::BufWriter::new(child.stdin.take().unwrap());
        let msg = "generated";
        write!(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata {}\n{msg}\n", msg.len()).unwrap();
        for i in 0..n {
            let body = content(i);
            write!(
                w,
                "M 100644 inline src/d{:03}/f{i:05}.rs\ndata {}\n{body}\n",
                i / 500,
                body.len()
            )
            .unwrap();
        }
        w.flush().unwrap();
    }
    assert!(child.wait().unwrap().success());
    git(&dir, &["checkout", "-q", "-f", "main"]);
    std::fs::write(dir.join(".git/agentdesk-bench-ready"), "").unwrap();
    dir
}

fn summary(label: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = v[v.len() / 2];
    println!(
        "{label}: median {median:.0} ms, range {:.0}–{:.0} ms over {} ({:?})",
        v[0],
        v[v.len() - 1],
        v.len(),
        v.iter().map(|x| format!("{x:.0}")).collect::<Vec<_>>()
    );
}

/// One read of the review's file list: (the longest gap a 5 ms ticker saw meanwhile, the
/// read's time, both in ms; the files it listed).
async fn timed_read(desk: &Desk, s: &agentdesk_protocol::ui::Session) -> (f64, f64, usize) {
    let max_gap = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let ticker = tokio::spawn({
        let (max_gap, done) = (max_gap.clone(), done.clone());
        async move {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let gap = last.elapsed().as_micros() as u64;
                max_gap.fetch_max(gap, Ordering::Relaxed);
                last = Instant::now();
            }
        }
    });
    let t = Instant::now();
    let st = desk.worktree_status(&s.id).await.unwrap();
    let took = t.elapsed().as_secs_f64() * 1000.0;
    done.store(true, Ordering::Relaxed);
    ticker.await.unwrap();
    let gap = max_gap.load(Ordering::Relaxed) as f64 / 1000.0;
    (gap, took, st.uncommitted.len())
}

fn main() {
    let n = files();
    let started = Instant::now();
    let repo = repo(n);
    println!(
        "repository of {n} files ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (mut creates, mut reads, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
    let mut first_reads = Vec::new();
    // Every run's worktree is made before any is removed: removing 50,000 files is the
    // bench's doing, and on a disk mounted with `discard` (this VM's root) the TRIMs it
    // issues stall the next checkout for seconds (see BENCHMARKS.md).
    let mut made = Vec::new();
    for run in 0..RUNS {
        let data = target_dir().join(format!("bench-data/worktree-data-{run}"));
        let _ = std::fs::remove_dir_all(&data);
        rt.block_on(async {
            let desk = Desk::open(&data).await.unwrap();
            let ws = desk
                .add_workspace(repo.to_str().unwrap(), None)
                .await
                .unwrap();
            let t = Instant::now();
            let s = desk
                .create_session(&NewSession {
                    engine: Some(Engine::Codex),
                    title: Some(format!("bench {run}")),
                    worktree: Some(NewWorktree::default()),
                    ..NewSession::new(ws.id.clone())
                })
                .await
                .unwrap();
            creates.push(t.elapsed().as_secs_f64() * 1000.0);
            made.push((data.clone(), desk, s));
        });
    }
    for (_, desk, s) in &made {
        rt.block_on(async {
            let root = PathBuf::from(s.worktree.clone().unwrap());
            for i in 0..CHANGED / 2 {
                let p = root.join(format!("src/d{:03}/f{i:05}.rs", i / 500));
                std::fs::write(p, content(i) + "// edited\n").unwrap();
                std::fs::write(root.join(format!("src/new{i:04}.rs")), content(i)).unwrap();
            }
            for read in 0..READS {
                let (gap, took, files) = timed_read(desk, s).await;
                if read == 0 {
                    first_reads.push(took);
                }
                reads.push(took);
                gaps.push(gap);
                assert_eq!(files, CHANGED);
            }
        });
    }
    for (data, desk, s) in made {
        rt.block_on(async {
            desk.remove_worktree(&s.id, true).await.unwrap();
            desk.close().await;
        });
        let _ = std::fs::remove_dir_all(&data);
    }
    summary(
        &format!("session in a worktree of {n} files created"),
        creates,
    );
    summary(
        &format!("review file list after {CHANGED} changed files"),
        reads,
    );
    summary("the first read after the changes", first_reads);
    summary("longest gap of a 5 ms ticker during a read", gaps);
}
