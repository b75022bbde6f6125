//! Issue 26's soak: eight sessions (four Codex, four Claude: the real pinned engines against the
//! fake model servers on 127.0.0.1) in the real app under Xvfb for 30 minutes, driven as a user
//! would through WebDriver. Not a timed test: it is `#[ignore]`d, prints what it measured and
//! writes its samples and a plot (figures land in BENCHMARKS.md).
//!
//! ```sh
//! npm --prefix ui run build && cargo build --release -p agentdesk
//! AGENTDESK_APP_BIN=$PWD/target/release/agentdesk CODEX_BIN=… CLAUDE_BIN=… \
//!   cargo test -p agentdesk-tests --test soak_bench -- --ignored --nocapture
//! # SOAK_MINUTES=30 (default): how long the soak lasts
//! # SOAK_SAMPLE_SECONDS=10 (default): how often the sampler records
//! # SOAK_SEND=0: the control run (the same visits, no messages sent, nothing streams)
//! # SOAK_ENV="K=V …": more variables for the app (JSC_logGC=1: the page's heap after each full GC)
//! # SOAK_LAUNCH=script: what WebDriver starts instead of the app, e.g. a script that `exec`s
//! #   `heaptrack` on AGENTDESK_APP_BIN (a heap profile over the whole soak); the process measured
//! #   is still AGENTDESK_APP_BIN's
//! ```
//!
//! What happens: every session answers at 10 deltas a second, one long paced answer after
//! another; between two answers the model runs a command — `mkdir …`, which the profiles' rule
//! allows, or `touch …`, which is asked and approved from the session's card in the window —
//! about once a minute per session. Each of the user's messages carries an image (pasted into
//! the composer) and starts a turn of about five minutes. The user opens the next session every
//! 10 s (round robin), types into its composer (every keystroke's delay to the next painted
//! frame is measured in the page), approves what waits there, and sends the next message
//! where the last turn ended.
//!
//! Every 10 s a sampler records, from /proc, the PSS and anonymous memory and the CPU of the app,
//! the web and network processes and each engine, the SQLite files' size and the app's open
//! file descriptors. The samples go to `target/test-artifacts/soak_bench/samples.csv`, a summary
//! per sample to `summary.csv`, and the memory curve to `soak-memory.svg`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentdesk_protocol::ui::{ApprovalRule, Engine, ProfileSpec, RuleAction};
use agentdesk_tests::bench::{env_number, env_vars, find_app, find_watchdog, HZ};
use agentdesk_tests::e2e::{
    add_claude_profile, artifacts_dir, prepare_codex_workspace, prerequisites, AppEnv, AppSession,
    BoxError, Desktop,
};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::soak::{
    by_role, cpu_ticks_between, js_heap_after_full_gcs, percentile, plot_svg, read_samples,
    start_sampler, window_anon_kb, window_lows, write_csv, Sample,
};
use agentdesk_tests::{fake_messages, fake_responses};
use serde_json::json;

const TEST: &str = "soak_bench";
/// Sessions of each engine.
const PER_ENGINE: usize = 4;
/// 10 deltas a second.
const PACE: Duration = Duration::from_millis(100);
/// Deltas of each answer between two commands: ~50 s at the pace.
const STEP_PIECES: usize = 500;
/// Commands per turn (a turn is ~5 minutes: one image every 5 minutes per session).
const STEPS_PER_TURN: usize = 5;
const SWITCH_EVERY: Duration = Duration::from_secs(10);
/// How often the sampler records (`SOAK_SAMPLE_SECONDS`, default 10; the issue asks for every
/// 30 s at least). Item 2 is judged on the window's lowest sample per 5 minutes, and the web
/// process's memory is a saw (64–96 MB): ten samples in 5 minutes missed its trough in one
/// soak of four (+10.1 % against +1.5 to +5.2), thirty land in it.
fn sample_every() -> Duration {
    Duration::from_secs(env_number("SOAK_SAMPLE_SECONDS", 10u64).max(1))
}

/// A 2×2 red PNG: the image every message carries.
const IMAGE_PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==";

fn minutes() -> f64 {
    env_number("SOAK_MINUTES", 30.0)
}

/// `SOAK_SEND=0`: the user never sends a message — the control run: the same visits, keys and
/// page scripts with no answer streaming, so what the driver alone costs the page is known.
fn sends() -> bool {
    env_number("SOAK_SEND", 1u8) != 0
}

// ---------------------------------------------------------------- the model's script

struct Fakes {
    responses: fake_responses::FakeResponses,
    messages: fake_messages::FakeMessages,
}

/// What starts turn `t` of session `s` (the fakes route on it; the dot ends the number).
fn turn_message(s: usize, t: usize) -> String {
    format!("soak s{s} turn {t}.")
}

/// The id of command `j` of turn `t` of session `s`: the model's next answer is routed on it.
fn call_id(engine: Engine, s: usize, t: usize, j: usize) -> String {
    match engine {
        Engine::Claude => format!("toolu_soak_s{s}_t{t}_{j}x"),
        _ => format!("call_soak_s{s}_t{t}_{j}x"),
    }
}

/// Half the commands are allowed by the profiles' rule (`mkdir`), half are asked (`touch`).
fn command(s: usize, t: usize, j: usize) -> String {
    if (s + t + j).is_multiple_of(2) {
        format!("mkdir -p soak-s{s}-t{t}-{j}")
    } else {
        format!("touch soak-s{s}-t{t}-{j}.txt")
    }
}

/// One answer's pieces: ~20 bytes each, a paragraph every 40.
fn answer(s: usize, t: usize, j: usize) -> Vec<String> {
    (0..STEP_PIECES)
        .map(|i| {
            if i % 40 == 39 {
                format!("s{s} t{t} a{j} w{i}.\n\n")
            } else {
                format!("s{s} t{t} a{j} w{i} ok. ")
            }
        })
        .collect()
}

/// Queue turn `t` of session `s`: an answer, then a command, `STEPS_PER_TURN` times, each
/// answer routed on what the engine sends after the command ran; a last short answer ends it.
fn script_turn(fakes: &Fakes, engine: Engine, s: usize, t: usize) {
    for j in 0..=STEPS_PER_TURN {
        let needle = if j == 0 {
            turn_message(s, t)
        } else {
            call_id(engine, s, t, j)
        };
        let text = if j == STEPS_PER_TURN {
            vec![format!("s{s} t{t} done.")]
        } else {
            answer(s, t, j)
        };
        let next =
            (j < STEPS_PER_TURN).then(|| (call_id(engine, s, t, j + 1), command(s, t, j + 1)));
        match engine {
            Engine::Claude => {
                let tool = next.as_ref().map(|(id, cmd)| {
                    (
                        id.as_str(),
                        "Bash",
                        json!({"command": cmd, "description": "Run a command"}),
                    )
                });
                fakes.messages.push_routed(
                    &needle,
                    fake_messages::Reply::paced_then_tool(text, PACE, tool),
                );
            }
            _ => {
                let tool = next
                    .as_ref()
                    .map(|(id, cmd)| (id.as_str(), "exec_command", json!({ "cmd": cmd })));
                fakes.responses.push_routed(
                    &needle,
                    fake_responses::Reply::paced_then_tool(text, PACE, tool),
                );
            }
        }
    }
}

// ---------------------------------------------------------------- the page

/// Installed once: while `__soakMeasure` is set, every keydown in a text field records its
/// delay to the frame painted after it (the next animation frame, then the task after it), from
/// the event's time stamp (the X server's time of the key press: WebKitGTK stamps DOM events
/// with the GDK event's time) and from when the page's handler ran (the page's own share).
/// Only real key presses are measured: WebDriver's typed keys carry the time its action began.
const WATCH_KEYS: &str = r#"
    if (!window.__soakKeys) {
      window.__soakKeys = [];
      document.addEventListener('keydown', (e) => {
        if (!window.__soakMeasure || !e.target || e.target.tagName !== 'TEXTAREA') return;
        const [t, h] = [e.timeStamp, performance.now()];
        requestAnimationFrame(() => setTimeout(() => {
          const p = performance.now();
          window.__soakKeys.push([p - t, p - h]);
        }, 0));
      }, true);
    }
    return true;
"#;

const TAKE_KEYS: &str = r#"
    const k = window.__soakKeys || []; window.__soakKeys = []; return k;
"#;

/// Per sidebar session: [title, running, waiting].
const SIDEBAR: &str = r#"
    return [...document.querySelectorAll('[data-testid=session-item]')].map((b) => [
      (b.querySelector('.session-title') || b).textContent.trim(),
      !!b.querySelector('.activity-dot'),
      Number((b.querySelector('.badge.waiting') || { firstChild: { textContent: '0' } }).firstChild.textContent) || 0,
    ]);
"#;

const OPEN: &str = r#"
    const b = [...document.querySelectorAll('[data-testid=session-item]')].find(
      (b) => (b.querySelector('.session-title') || b).textContent.trim() === arguments[0]);
    if (!b) return false; b.click(); return true;
"#;

/// Approves every approval card shown in the open session (as a user pressing its button).
const APPROVE_SHOWN: &str = r#"
    const bs = [...document.querySelectorAll('[role=log][aria-label=Timeline] button.approve')].filter((b) => !b.disabled);
    bs.forEach((b) => b.click());
    return bs.length;
"#;

/// Pastes the image into the composer as a paste of image data does.
const PASTE_IMAGE: &str = r#"
    const ta = document.querySelector('textarea[aria-label=Message]');
    if (!ta) return 'no composer';
    const raw = atob(arguments[0]);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], arguments[1], { type: 'image/png' }));
    const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
    ta.dispatchEvent(ev);
    return ev.defaultPrevented ? 'ok' : 'not taken';
"#;

/// The page's element count and the IPC callbacks it holds (Tauri keeps each channel's
/// handler, and what it closes over, until the channel ends: a view left without its channel
/// ending leaks there), in one script: each script the bench runs is work in the page measured.
const PAGE_COUNTS: &str = "return [document.getElementsByTagName('*').length, window.__TAURI_INTERNALS__.callbacks.size];";

struct SessionState {
    title: String,
    engine: Engine,
    index: usize,
    turns: usize,
}

#[derive(Default)]
struct Counts {
    visits: usize,
    turns: usize,
    images: usize,
    approved_in_window: usize,
    /// Per keystroke: ms from the event's time stamp to the painted frame, and from the
    /// page's handler to it.
    keys: Vec<(f64, f64)>,
    /// The page's element count at each visit.
    dom_nodes: Vec<u64>,
    /// The IPC callbacks the page holds at each visit.
    ipc_callbacks: Vec<u64>,
    /// (seconds into the soak, the app log's length then): the time of what the log says.
    log_marks: Vec<(f64, u64)>,
    problems: Vec<String>,
}

async fn visit(
    app: &AppSession,
    display: &str,
    fakes: &Fakes,
    s: &mut SessionState,
    counts: &mut Counts,
) -> Result<(), BoxError> {
    counts.visits += 1;
    let opened = app
        .client
        .execute(OPEN, vec![s.title.clone().into()])
        .await?;
    if opened != json!(true) {
        counts
            .problems
            .push(format!("{} not in the sidebar", s.title));
        return Ok(());
    }
    // Let the session's view open before acting in it.
    let composer = app.find("textarea[aria-label=Message]").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let approved = app.client.execute(APPROVE_SHOWN, vec![]).await?;
    counts.approved_in_window += approved.as_u64().unwrap_or(0) as usize;

    // The user types a note and takes it back: real key presses from the X server, each
    // measured in the page.
    composer.click().await?;
    app.client
        .execute("window.__soakMeasure = true; return true;", vec![])
        .await?;
    let keys = ["d", "r", "a", "f", "t"]
        .into_iter()
        .chain(["BackSpace"; 5])
        .collect::<Vec<_>>();
    let typed = tokio::process::Command::new("xdotool")
        .args(["key", "--delay", "100"])
        .args(&keys)
        .env("DISPLAY", display)
        .status()
        .await?;
    if !typed.success() {
        counts.problems.push(format!("xdotool: {typed}"));
    }
    // The last key's frame.
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.client
        .execute("window.__soakMeasure = false; return true;", vec![])
        .await?;

    let rows = app.client.execute(SIDEBAR, vec![]).await?;
    let running = rows
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r[0] == json!(s.title))
        .map(|r| r[1] == json!(true))
        .unwrap_or(true);
    if !running && sends() {
        s.turns += 1;
        script_turn(fakes, s.engine, s.index, s.turns);
        composer
            .send_keys(&format!("{} Keep going", turn_message(s.index, s.turns)))
            .await?;
        let pasted = app
            .client
            .execute(
                PASTE_IMAGE,
                vec![
                    IMAGE_PNG_B64.into(),
                    format!("soak-{}-{}.png", s.index, s.turns).into(),
                ],
            )
            .await?;
        if pasted == json!("ok") {
            counts.images += 1;
            // The chip appears once the image is imported; Send waits for it.
            app.find("[data-testid=composer] button[aria-label^='Remove ']")
                .await?;
        } else {
            counts
                .problems
                .push(format!("paste into {}: {pasted}", s.title));
        }
        app.press("Send").await?;
        counts.turns += 1;
    }
    let page = app.client.execute(PAGE_COUNTS, vec![]).await?;
    let count = |i: usize| page.get(i).and_then(|v| v.as_u64()).unwrap_or(0);
    counts.dom_nodes.push(count(0));
    counts.ipc_callbacks.push(count(1));
    let keys = app.client.execute(TAKE_KEYS, vec![]).await?;
    counts.keys.extend(
        keys.as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| Some((v.get(0)?.as_f64()?, v.get(1)?.as_f64()?))),
    );
    Ok(())
}

// ---------------------------------------------------------------- the soak

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run by hand, figures go to BENCHMARKS.md"]
async fn soak() {
    let Some(mut pre) = prerequisites(TEST) else {
        return;
    };
    let (Some(codex), Some(claude)) = (
        engine_bin("CODEX_BIN", "soak bench"),
        engine_bin("CLAUDE_BIN", "soak bench"),
    ) else {
        return;
    };
    let app_bin = pre.app.clone();
    // The app is found (and measured) by its executable, whatever started it.
    if let Some(launch) = std::env::var_os("SOAK_LAUNCH") {
        pre.app = PathBuf::from(launch);
    }
    println!("app: {}, {} minutes", app_bin.display(), minutes());
    let desktop = Desktop::start(pre).unwrap();
    let artifacts = artifacts_dir(TEST);
    let mut env = AppEnv::new(TEST).unwrap();
    // More variables for the app, e.g. `JSC_logGC=1` to follow the page's heap while it soaks
    // (WebKit's inspector server cannot be used: WebDriver holds the app's inspector).
    env.extra = env_vars("SOAK_ENV");
    let fakes = Fakes {
        responses: fake_responses::FakeResponses::start().await.unwrap(),
        messages: fake_messages::FakeMessages::start().await.unwrap(),
    };

    // One workspace, a Codex and a Claude profile, both allowing `mkdir` by rule.
    let rule = |spec: &mut ProfileSpec| {
        spec.approval_rules.push(ApprovalRule {
            kind: None,
            tool: None,
            command_prefix: Some("mkdir".into()),
            action: RuleAction::Allow,
        })
    };
    let ws = prepare_codex_workspace(&env, codex.clone(), fakes.responses.base_url(), rule)
        .await
        .unwrap();
    let claude_profile =
        add_claude_profile(&env, &ws, (codex, claude), &fakes.messages.base_url(), rule)
            .await
            .unwrap();
    let mut sessions = Vec::new();
    for i in 0..2 * PER_ENGINE {
        let engine = if i % 2 == 0 {
            Engine::Codex
        } else {
            Engine::Claude
        };
        let title = format!(
            "soak {i} {}",
            if engine == Engine::Codex {
                "codex"
            } else {
                "claude"
            }
        );
        ws.desk
            .create_session(&agentdesk_core::NewSession {
                profile_id: (engine == Engine::Claude).then(|| claude_profile.clone()),
                title: Some(title.clone()),
                ..agentdesk_core::NewSession::new(ws.workspace_id.clone())
            })
            .await
            .unwrap();
        sessions.push(SessionState {
            title,
            engine,
            index: i,
            turns: 0,
        });
    }
    let work = ws.work.clone();
    ws.desk.close().await;

    let display = desktop.display_name().to_string();
    let app = desktop.launch(&env, "app", &artifacts).await.unwrap();
    app.find("[data-testid=session-item]").await.unwrap();
    app.client.execute(WATCH_KEYS, vec![]).await.unwrap();
    let pid = find_app(&app_bin, &env.data_dir).expect("app process");

    let t0 = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let watchdog = find_watchdog(&app_bin, &env.data_dir);
    let sampler = start_sampler(
        (pid, watchdog),
        env.data_dir.clone(),
        (t0, sample_every()),
        stop.clone(),
    );
    let end = t0 + Duration::from_secs_f64(minutes() * 60.0);
    let mut counts = Counts::default();
    let mut i = 0;
    while Instant::now() < end {
        let arrived = Instant::now();
        let n = sessions.len();
        if let Err(e) = visit(&app, &display, &fakes, &mut sessions[i % n], &mut counts).await {
            counts.problems.push(format!(
                "{:.0} s, {}: {e}",
                t0.elapsed().as_secs_f64(),
                sessions[i % n].title
            ));
            let _ = app
                .screenshot(&artifacts.join(format!("problem-{i}.png")))
                .await;
        }
        if i % 40 == 0 {
            let _ = app
                .screenshot(
                    &artifacts.join(format!("at-{:02}min.png", t0.elapsed().as_secs() / 60)),
                )
                .await;
        }
        i += 1;
        if let Ok(meta) = std::fs::metadata(artifacts.join("app.log")) {
            counts
                .log_marks
                .push((t0.elapsed().as_secs_f64(), meta.len()));
        }
        tokio::time::sleep(SWITCH_EVERY.saturating_sub(arrived.elapsed())).await;
    }
    stop.store(true, Ordering::Relaxed);
    let samples = tokio::task::spawn_blocking(move || sampler.join().unwrap())
        .await
        .unwrap();
    app.screenshot(&artifacts.join("end.png")).await.unwrap();

    write_csv(&artifacts, &samples).unwrap();
    std::fs::write(artifacts.join("soak-memory.svg"), plot_svg(&samples)).unwrap();

    // What ran: the commands' traces in the workspace.
    let (mut made, mut touched) = (0, 0);
    for e in std::fs::read_dir(&work).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("soak-") && n.ends_with(".txt") {
            touched += 1;
        } else if n.starts_with("soak-") {
            made += 1;
        }
    }
    let sorted = |f: fn(&(f64, f64)) -> f64| {
        let mut v: Vec<f64> = counts.keys.iter().map(f).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v
    };
    let (keys, in_page) = (sorted(|k| k.0), sorted(|k| k.1));
    let at = |min: f64| {
        samples
            .iter()
            .find(|s| s.at_s >= min * 60.0)
            .or(samples.last())
            .unwrap()
    };
    let last = samples.last().unwrap();
    let (m5, end_s) = (window_anon_kb(at(5.0)), window_anon_kb(last));
    println!(
        "\n== soak, {:.1} minutes, {} samples",
        last.at_s / 60.0,
        samples.len()
    );
    println!(
        "user: {} visits, {} messages sent ({} with an image), {} approvals from the window",
        counts.visits, counts.turns, counts.images, counts.approved_in_window
    );
    println!(
        "commands run: {made} allowed by the rule (mkdir), {touched} approved in the window (touch); model requests: codex {}, claude {}",
        fakes.responses.model_requests().len(),
        fakes.messages.model_requests().len()
    );
    for (what, v) in [("event time stamp", &keys), ("page's handler", &in_page)] {
        println!(
            "keystroke → painted frame, from the {what}: {} keys, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            v.len(),
            percentile(v, 0.5),
            percentile(v, 0.95),
            v.last().copied().unwrap_or(f64::NAN)
        );
    }
    // WebKitGTK turns the X server's (monotonic) key time into wall time in the UI process and
    // back in the page: a step of the wall clock during the run (a VM paused and resumed, NTP)
    // shifts every later key by the step. The handler's figure does not go through it.
    let step = percentile(&keys, 0.5) - percentile(&in_page, 0.5);
    if step > 1000.0 {
        println!(
            "  the event time stamps are {:.1} s behind the page's clock (the wall clock stepped during the run?): use the handler's figure",
            step / 1000.0
        );
    }
    println!(
        "app + web + network anonymous memory: at 5 min {:.1} MB, at the end {:.1} MB ({:+.1} %)",
        m5 as f64 / 1024.0,
        end_s as f64 / 1024.0,
        (end_s as f64 / m5.max(1) as f64 - 1.0) * 100.0
    );
    print_window_lows(&samples);
    for s in [at(0.0), at(5.0), at(15.0), last] {
        let r = by_role(s);
        println!(
            "  {:>5.1} min: {}; db {:.1} MB; app fds {}",
            s.at_s / 60.0,
            r.iter()
                .map(|(k, (p, a))| format!(
                    "{k} pss {:.0} anon {:.0} MB",
                    *p as f64 / 1024.0,
                    *a as f64 / 1024.0
                ))
                .collect::<Vec<_>>()
                .join(", "),
            s.db_bytes as f64 / 1_048_576.0,
            s.fds
        );
    }
    let cpu = |roles: &[&str]| {
        let ticks: u64 = samples
            .windows(2)
            .map(|w| cpu_ticks_between(&w[0], &w[1], roles))
            .sum();
        ticks as f64 / HZ / (last.at_s - samples[0].at_s).max(1.0)
    };
    println!(
        "CPU over the soak: window (app + web + network) {:.3} cores, engines {:.3} cores",
        cpu(&["app", "web", "network"]),
        cpu(&["codex", "claude"])
    );
    for (what, v) in [
        ("DOM nodes", &counts.dom_nodes),
        ("IPC callbacks in the page", &counts.ipc_callbacks),
    ] {
        if let (Some(a), Some(b), Some(max)) = (v.first(), v.last(), v.iter().max()) {
            println!("{what}: {a} at the start, {b} at the end, at most {max}");
        }
    }
    // With `SOAK_ENV=JSC_logGC=1`: the page's JavaScript heap after each full collection, the
    // part of the web process a heap snapshot would show.
    let log = std::fs::read_to_string(artifacts.join("app.log")).unwrap_or_default();
    let gcs = js_heap_after_full_gcs(&log, &counts.log_marks);
    if !gcs.is_empty() {
        let mut buckets: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
        for (at, kb) in &gcs {
            buckets.entry((at / 300.0) as usize).or_default().push(*kb);
        }
        let shown: Vec<String> = buckets
            .iter()
            .map(|(bucket, kb)| {
                let (lo, hi) = (kb.iter().min().unwrap(), kb.iter().max().unwrap());
                format!(
                    "{}–{} min {:.1}–{:.1} ({})",
                    bucket * 5,
                    bucket * 5 + 5,
                    *lo as f64 / 1024.0,
                    *hi as f64 / 1024.0,
                    kb.len()
                )
            })
            .collect();
        println!(
            "JavaScript heap after full collections, per 5 minutes (MB, collections): {}",
            shown.join("; ")
        );
    }
    for p in &counts.problems {
        println!("problem: {p}");
    }
    println!("samples, summary and plot in {}", artifacts.display());
    app.quit().await.unwrap();
}

/// The window's lowest sample per 5 minutes from minute 5 to the soak's end (item 2's figure).
fn print_window_lows(samples: &[Sample]) {
    let lows = window_lows(samples, 5.0 * 60.0, minutes() * 60.0, 5.0 * 60.0);
    if let (Some(first), Some(end)) = (lows.first(), lows.last()) {
        println!(
            "  its lowest sample per 5 minutes from minute 5: {} MB ({:+.1} % first to last)",
            lows.iter()
                .map(|(_, kb)| format!("{:.1}", *kb as f64 / 1024.0))
                .collect::<Vec<_>>()
                .join(", "),
            (end.1 as f64 / first.1.max(1) as f64 - 1.0) * 100.0
        );
    }
}

/// Draws the plot again from a soak's `samples.csv`: `SOAK_SAMPLES=<dir with samples.csv>`;
/// prints the window's lows per 5 minutes too (`SOAK_MINUTES`: the run's length).
#[test]
#[ignore = "a tool for the benchmark's plot"]
fn replot() {
    let Some(dir) = std::env::var_os("SOAK_SAMPLES").map(PathBuf::from) else {
        return;
    };
    let samples = read_samples(&std::fs::read_to_string(dir.join("samples.csv")).unwrap());
    std::fs::write(dir.join("soak-memory.svg"), plot_svg(&samples)).unwrap();
    println!("app + web + network anonymous memory:");
    print_window_lows(&samples);
}
