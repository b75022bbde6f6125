//! Importing Claude Code histories (issue 22's figures): `cargo bench -p agentdesk-core --bench
//! history_import`. A corpus of generated transcripts shaped like the ones claude 2.1.328
//! writes (a prompt, bookkeeping lines, text, a Bash call and its output, a closing text per
//! turn) is made once under `target/bench-data/history-<sessions>x<kib>k/`; then, in a fresh
//! data dir: the first import (wall time, peak RSS above the idle process), and a re-scan of
//! the unchanged corpus. `HISTORY_BENCH_SESSIONS` (default 2,000) and `HISTORY_BENCH_KIB` (per
//! session, default 1,024: 2 GB in all) scale it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agentdesk_core::history::ImportOptions;
use agentdesk_core::Desk;
use agentdesk_engine::claude::history::ClaudeHistory;
use serde_json::json;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target")
}

/// One session's transcript of about `kib` KiB, in `work`.
fn write_session(path: &Path, sid: &str, work: &str, kib: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let output: String = "drwxr-xr-x  2 dev dev 4096 Dec  2 04:54 src\n".repeat(40);
    let meta = |uuid: String, ts: &str| {
        json!({"uuid": uuid, "timestamp": ts, "cwd": work, "sessionId": sid, "version": "2.1.328",
            "isSidechain": false, "userType": "external", "entrypoint": "cli", "gitBranch": "main"})
    };
    let mut turn = 0;
    let mut written = 0usize;
    while written < kib * 1024 {
        let ts = format!(
            "2026-11-{:02}T10:{:02}:{:02}.000Z",
            1 + turn % 28,
            turn % 60,
            turn % 60
        );
        let mut lines = Vec::new();
        let mut user = meta(format!("{sid}-u{turn}"), &ts);
        user["type"] = json!("user");
        user["message"] = json!({"role": "user", "content": [{"type": "text",
            "text": format!("Please look at module {turn} and list the files in src")}]});
        lines.push(user);
        lines.push(json!({"type": "queue-operation", "operation": "dequeue", "timestamp": ts, "sessionId": sid}));
        for (i, content) in [
            json!({"type": "text", "text": format!("I will list the files of module {turn} first. ").repeat(4)}),
            json!({"type": "tool_use", "id": format!("toolu_{sid}_{turn}"), "name": "Bash",
                "input": {"command": "ls -la src", "description": "List files"}}),
        ]
        .into_iter()
        .enumerate()
        {
            let mut a = meta(format!("{sid}-a{turn}-{i}"), &ts);
            a["type"] = json!("assistant");
            a["message"] = json!({"id": format!("msg_{sid}_{turn}"), "role": "assistant",
                "model": "claude-sonnet-4-5", "content": [content], "stop_reason": "tool_use",
                "usage": {"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 900}});
            lines.push(a);
        }
        let mut result = meta(format!("{sid}-r{turn}"), &ts);
        result["type"] = json!("user");
        result["message"] = json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": format!("toolu_{sid}_{turn}"), "content": output, "is_error": false}]});
        result["toolUseResult"] = json!({"stdout": output, "stderr": "", "interrupted": false});
        lines.push(result);
        let mut end = meta(format!("{sid}-e{turn}"), &ts);
        end["type"] = json!("assistant");
        end["message"] = json!({"id": format!("msg_{sid}_{turn}_end"), "role": "assistant",
            "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "The module has a src folder with the usual files. ".repeat(6)}],
            "usage": {"input_tokens": 1500, "output_tokens": 120}});
        lines.push(end);
        for l in lines {
            let s = l.to_string();
            written += s.len() + 1;
            writeln!(f, "{s}").unwrap();
        }
        turn += 1;
    }
    f.flush().unwrap();
}

/// The corpus (made once): its config dir and the workspace folder its sessions ran in.
fn corpus(sessions: usize, kib: usize) -> (PathBuf, PathBuf) {
    let root = target_dir().join(format!("bench-data/history-{sessions}x{kib}k"));
    let (config, work) = (root.join("claude"), root.join("work"));
    if root.join("complete").exists() {
        return (config, work);
    }
    let project = config.join("projects/-bench-work");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let work_s = work.canonicalize().unwrap().display().to_string();
    for s in 0..sessions {
        let sid = format!("00000000-0000-4000-8000-{s:012}");
        write_session(&project.join(format!("{sid}.jsonl")), &sid, &work_s, kib);
    }
    std::fs::write(root.join("complete"), b"").unwrap();
    (config, work)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sessions = env_or("HISTORY_BENCH_SESSIONS", 2_000);
    let kib = env_or("HISTORY_BENCH_KIB", 1_024);
    let made = Instant::now();
    let (config, work) = corpus(sessions, kib);
    eprintln!(
        "corpus ready in {:.1} s: {sessions} sessions of ~{kib} KiB",
        made.elapsed().as_secs_f64()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let data = tempfile::tempdir_in(target_dir()).unwrap();
    rt.block_on(async {
        let desk = Desk::open(data.path()).await.unwrap();
        desk.add_workspace(work.to_str().unwrap(), None)
            .await
            .unwrap();
        let opts = ImportOptions {
            sources: vec![Arc::new(ClaudeHistory::new(config.clone()))],
            dry_run: false,
        };
        let idle = status_kib("VmRSS:");
        let t = Instant::now();
        let report = desk.import_histories(&opts, &|_| {}).await.unwrap();
        let first = t.elapsed();
        let peak = status_kib("VmHWM:");
        let r = &report.sources[0];
        assert_eq!(r.sessions_added as usize, sessions, "{r:?}");
        let t = Instant::now();
        let again = desk.import_histories(&opts, &|_| {}).await.unwrap();
        let rescan = t.elapsed();
        assert_eq!(again.sources[0].unchanged as usize, sessions);
        println!(
            "history import: {sessions} sessions, {} turns, {:.0} MiB of transcripts",
            r.turns,
            (sessions * kib) as f64 / 1024.0
        );
        println!("  first import   {:>8.1} s", first.as_secs_f64());
        println!("  unchanged scan {:>8.1} ms", rescan.as_secs_f64() * 1000.0);
        println!(
            "  peak RSS above idle {:.1} MiB (idle {:.1} MiB)",
            peak.saturating_sub(idle) as f64 / 1024.0,
            idle as f64 / 1024.0
        );
        desk.close().await;
    });
}
