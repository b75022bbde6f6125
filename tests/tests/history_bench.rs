//! Issue 22's window figure: while the app's first import of a 2 GB Claude Code history runs
//! (the background import its window starts), is a keystroke in the composer painted within
//! 50 ms (p95)? Measured on the real app under Xvfb; not a timed test: `#[ignore]`d, it prints
//! what it measured (BENCHMARKS.md).
//!
//! ```sh
//! cargo bench -p agentdesk-core --bench history_import   # makes the corpus (2,000 × 1 MiB)
//! npm --prefix ui run build && cargo build --release -p agentdesk
//! AGENTDESK_APP_BIN=$PWD/target/release/agentdesk \
//!   cargo test -p agentdesk-tests --test history_bench -- --ignored --nocapture
//! # HISTORY_BENCH_CORPUS=target/bench-data/history-<sessions>x<kib>k: another corpus
//! ```
//!
//! A key is pressed as a user's is, through the X server (`xdotool -`, one process reading a
//! `key a` line about every 100 ms); its latency is from just before that line is written (the
//! host's wall clock) to the first frame after the composer's `input` event (a frame callback,
//! then a task: the page has painted), on the page's wall clock (`performance.timeOrigin +
//! now()`; one machine, one clock). The page's own part (its `keydown` dispatched → painted) is
//! printed too. The same keys typed after the import ended give the baseline.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentdesk_tests::e2e::{artifacts_dir, prerequisites, target_dir, AppEnv, BoxError, Desktop};

const TEST: &str = "history_bench";
/// Keys typed after the import ended (the baseline).
const AFTER: usize = 60;
/// At most this many keys during the import.
const MAX_DURING: usize = 1_500;

const INSTALL: &str = r#"
    window.__keys = [];
    const box = document.querySelector('textarea[aria-label=Message]');
    let down = NaN;
    box.addEventListener('keydown', (e) => { down = e.timeStamp; });
    box.addEventListener('input', () => {
      const importing = document.querySelector("progress[aria-label='Import progress']") !== null;
      const at = down;
      requestAnimationFrame(() => setTimeout(() => {
        const now = performance.now();
        window.__keys.push([performance.timeOrigin + now, importing, now - at]);
      }, 0));
    });
    return 'ok';
"#;

fn epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(name: &str, mut v: Vec<f64>) {
    v.sort_by(f64::total_cmp);
    println!(
        "  {name}: {} keys, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        v.len(),
        percentile(&v, 0.5),
        percentile(&v, 0.95),
        v.last().copied().unwrap_or(f64::NAN)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run by hand, figures go to BENCHMARKS.md"]
async fn keystrokes_during_the_first_import() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    let corpus = std::env::var_os("HISTORY_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("bench-data/history-2000x1024k"));
    assert!(
        corpus.join("complete").exists(),
        "no corpus at {}: run `cargo bench -p agentdesk-core --bench history_import` first",
        corpus.display()
    );
    tokio::time::timeout(Duration::from_secs(900), scenario(pre, corpus))
        .await
        .expect("the bench timed out")
        .unwrap();
}

async fn scenario(
    pre: agentdesk_tests::e2e::Prerequisites,
    corpus: PathBuf,
) -> Result<(), BoxError> {
    println!("app: {}", pre.app.display());
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let work = corpus.join("work").canonicalize()?;
    // A workspace where the corpus ran, with a Claude profile (the composer opens at once).
    let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
    if let Some(bin) = std::env::var_os("CLAUDE_BIN") {
        let settings = agentdesk_core::EngineSettings::default().with_bin("claude", bin);
        desk.set_engine_settings(&settings).await?;
    }
    let ws = desk
        .add_workspace(work.to_str().ok_or("path")?, Some("bench"))
        .await?;
    let spec =
        agentdesk_protocol::ui::ProfileSpec::new("claude", agentdesk_protocol::ui::Engine::Claude);
    let profile = desk.create_profile(&ws.id, &spec).await?;
    desk.set_default_profile(&profile.id).await?;
    desk.close().await;
    env.extra.extend([
        (
            "CLAUDE_CONFIG_DIR".to_owned(),
            corpus.join("claude").display().to_string(),
        ),
        (
            "CODEX_HOME".to_owned(),
            env.root.join("codex-home").display().to_string(),
        ),
    ]);
    let artifacts = artifacts_dir(TEST);
    let launched = Instant::now();
    let app = desktop.launch(&env, "app", &artifacts).await?;
    let message = app.open_new_session(&artifacts).await?;
    message.click().await?;
    app.client.execute(INSTALL, vec![]).await?;
    let importing =
        "return document.querySelector(\"progress[aria-label='Import progress']\") !== null";
    let busy = |v: serde_json::Value| v.as_bool().unwrap_or(false);
    let started = busy(app.client.execute(importing, vec![]).await?);
    println!(
        "composer ready {:.1} s after launch; import running: {started}",
        launched.elapsed().as_secs_f64()
    );
    // One xdotool for every key: it runs each command line as it arrives on its stdin.
    let mut keys = Command::new("xdotool")
        .arg("-")
        .env("DISPLAY", desktop.display_name())
        .stdin(Stdio::piped())
        .spawn()?;
    let mut keys_in = keys.stdin.take().ok_or("xdotool's stdin")?;
    let mut sent = Vec::new();
    let mut after = 0;
    let mut import_end = None;
    while after < AFTER && sent.len() < MAX_DURING + AFTER {
        sent.push(epoch_ms());
        keys_in.write_all(b"key a\n")?;
        keys_in.flush()?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        if import_end.is_none() {
            if !busy(app.client.execute(importing, vec![]).await?) {
                import_end = Some(launched.elapsed());
            }
        } else {
            after += 1;
        }
    }
    drop(keys_in);
    keys.wait()?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let painted = app.client.execute("return window.__keys", vec![]).await?;
    let painted = painted.as_array().ok_or("no key record")?;
    println!(
        "import ended {:.1} s after launch",
        import_end.map_or(f64::NAN, |d| d.as_secs_f64())
    );
    assert_eq!(painted.len(), sent.len(), "every key reached the composer");
    // Per key: X event sent → painted, and (the page's part) keydown dispatched → painted.
    let (mut during, mut idle) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    for (t0, p) in sent.iter().zip(painted) {
        let at = p[0].as_f64().unwrap_or(f64::NAN);
        let page = p[2].as_f64().unwrap_or(f64::NAN);
        let into = if p[1].as_bool().unwrap_or(false) {
            &mut during
        } else {
            &mut idle
        };
        into.0.push(at - t0);
        into.1.push(page);
    }
    println!("key sent to the X server → painted:");
    summary("during the import", during.0);
    summary("after it", idle.0);
    println!("keydown dispatched in the page → painted:");
    summary("during the import", during.1);
    summary("after it", idle.1);
    app.quit().await?;
    env.passed();
    Ok(())
}
