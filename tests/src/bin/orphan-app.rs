//! Stands in for the app in the orphan suite (`tests/tests/engine_orphans.rs`): starts one
//! "engine" through agentdesk-engine's `ChildProcess` — a shell that starts a background
//! grandchild (as an agent's command or an MCP server would be) and then sleeps — prints
//! `engine=<pid> grandchild=<pid>` and waits to be killed.
//! `--no-pdeathsig`: without Linux's parent-death signal, as on macOS.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;

use agentdesk_engine::{ChildProcess, ProcessSpec};
use tokio::io::{AsyncBufReadExt, BufReader};

#[tokio::main]
async fn main() {
    let pdeathsig = !std::env::args().any(|a| a == "--no-pdeathsig");
    let mut spec = ProcessSpec::new("/bin/sh")
        .arg("-c")
        .arg("sleep 300 & echo $!; exec sleep 301");
    spec.parent_death_signal = pdeathsig;
    let mut engine = ChildProcess::spawn(spec).unwrap();
    let (_stdin, stdout) = engine.take_stdio().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).await.unwrap();
    let mut out = std::io::stdout();
    writeln!(
        out,
        "engine={} grandchild={}",
        engine.pid().unwrap(),
        line.trim()
    )
    .unwrap();
    out.flush().unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    drop(engine);
}
