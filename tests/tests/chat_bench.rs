//! Issue #12's figures for the chat window, measured on the real app under Xvfb with the real
//! pinned `codex` against the fake Responses API (figures land in BENCHMARKS.md). Not a timed
//! test: it is `#[ignore]`d and only prints what it measured.
//!
//! ```sh
//! npm --prefix ui run build && cargo build --release -p agentdesk
//! AGENTDESK_APP_BIN=$PWD/target/release/agentdesk \
//! CODEX_BIN=$PWD/target/engines/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex \
//!   cargo test -p agentdesk-tests --test chat_bench -- --ignored --nocapture
//! # CHAT_BENCH_VARIANT=default (the app's WebKit settings) or webkit-defaults
//! # (AGENTDESK_WEBKIT_ACCELERATION=1: WebKit's own): one look only
//! # CHAT_BENCH_PERF=1: perf record of the app and web process per phase (see `Perf`);
//! #   CHAT_BENCH_PERF=syscalls: every system call instead of CPU samples
//! # CHAT_BENCH_MUTATIONS=1: where the page's DOM changed during each turn (=attributes: attribute
//! #   changes too, and when each kind came first and last)
//! # CHAT_BENCH_ENV="K=V ...": more environment for the app (a setting under trial)
//! # CHAT_BENCH_ROWS=1: the timeline's rows in the DOM after the answer, and their heights
//! # CHAT_BENCH_SMAPS=1: what grew in each process during the answer, mapping by mapping
//! #   (/proc/<pid>/smaps at the start and at the tree's peak; slows the sampling)
//! # CHAT_BENCH_TRACE=1: every sample (100 ms) of each phase, and the answer's next 12 s
//! # CHAT_BENCH_DELTAS=<n>: an answer of n deltas instead of 20,000 (what scales with it)
//! # CHAT_BENCH_SESSION_FIRST=1: open the new session before the idle sample, so the answer's
//! #   peak counts the answer alone and not the session view's first load as well; with
//! #   CHAT_BENCH_WARMUP=1 also a one-line turn in it (the answer is then not the page's first)
//! ```
//!
//! Every process figure comes from /proc: PSS from `smaps_rollup`, CPU from `stat`
//! (utime + stime) of the app and all its descendants (WebKitWebProcess, WebKitNetworkProcess,
//! codex), sampled every 100 ms. Timings are taken inside the page (`performance.now()`), so
//! WebDriver round trips do not count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentdesk_tests::bench::{
    find_app, memory_by_mapping_kb, proc_info, pss_kb, seed_session, seeded_text, start_epoch_ms,
    tree, HZ,
};
use agentdesk_tests::e2e::{
    artifacts_dir, prepare_codex_workspace, prerequisites, AppEnv, AppSession, BoxError,
    CodexWorkspace, Desktop,
};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::real::engine_bin;

const TEST: &str = "chat_bench";
const SEEDED_ITEMS: usize = 50_000;
const SEEDED_TITLE: &str = "seeded 50k";

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------- /proc sampling

/// A snapshot of a tree: PSS per process name (kB) and CPU ticks per pid.
fn snapshot(root: u32) -> (BTreeMap<String, u64>, HashMap<u32, (String, u64)>) {
    let mut pss = BTreeMap::new();
    let mut cpu = HashMap::new();
    for pid in tree(root) {
        if let Some((comm, _, ticks, _)) = proc_info(pid) {
            *pss.entry(comm.clone()).or_insert(0) += pss_kb(pid);
            cpu.insert(pid, (comm, ticks));
        }
    }
    (pss, cpu)
}

/// CPU ticks per pid, with the process name.
type CpuByPid = HashMap<u32, (String, u64)>;

/// Samples a process tree every 100 ms until stopped: peak total PSS and the CPU each process
/// used since the sampler started (a process that exits keeps its last reading).
struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<(PssByName, CpuByPid)>>,
    /// `CHAT_BENCH_SMAPS=1`: each process's mappings at the start and at the peak.
    mappings: Option<Arc<std::sync::Mutex<(Mappings, Mappings)>>>,
}

/// (PSS, anonymous) kB per mapping name, per process name.
type Mappings = BTreeMap<String, BTreeMap<String, (u64, u64)>>;

fn mappings(root: u32) -> Mappings {
    let mut out = Mappings::new();
    for pid in tree(root) {
        if let Some((comm, _, _, _)) = proc_info(pid) {
            let by = out.entry(comm).or_default();
            for (name, (pss, anon)) in memory_by_mapping_kb(pid) {
                let e = by.entry(name).or_default();
                e.0 += pss;
                e.1 += anon;
            }
        }
    }
    out
}

/// Prints, per process, the mappings whose PSS changed most between the two captures.
fn print_mapping_growth(base: &Mappings, peak: &Mappings) {
    for (comm, at_peak) in peak {
        let before = base.get(comm).cloned().unwrap_or_default();
        let total = |m: &BTreeMap<String, (u64, u64)>| m.values().map(|v| v.0 as i64).sum::<i64>();
        let mut rows: Vec<(i64, i64, &String)> = at_peak
            .iter()
            .map(|(name, (pss, anon))| {
                let (p0, a0) = before.get(name).copied().unwrap_or_default();
                (*pss as i64 - p0 as i64, *anon as i64 - a0 as i64, name)
            })
            .filter(|(dp, da, _)| dp.abs() >= 256 || da.abs() >= 256)
            .collect();
        rows.sort_by_key(|r| -r.0.abs());
        println!(
            "  {comm}: PSS {:+.1} MB; the mappings that moved most (an unnamed region that changed size shows under its old size and its new one):",
            (total(at_peak) - total(&before)) as f64 / 1024.0
        );
        for (dp, da, name) in rows.iter().take(12) {
            println!(
                "    PSS {:+7.1} MB, anon {:+7.1} MB  {name}",
                *dp as f64 / 1024.0,
                *da as f64 / 1024.0
            );
        }
    }
}

/// PSS (kB) per process name, at the sample where the tree's total peaked.
type PssByName = BTreeMap<String, u64>;

impl Sampler {
    fn start(root: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let (_, base) = snapshot(root);
        let maps = std::env::var_os("CHAT_BENCH_SMAPS")
            .is_some_and(|v| v == "1")
            .then(|| Arc::new(std::sync::Mutex::new((mappings(root), Mappings::new()))));
        let peak_maps = maps.clone();
        let trace = std::env::var_os("CHAT_BENCH_TRACE").is_some();
        let t0 = Instant::now();
        let handle = std::thread::spawn(move || {
            let mut peak = PssByName::new();
            let mut last: HashMap<u32, (String, u64)> = HashMap::new();
            loop {
                let (pss, cpu) = snapshot(root);
                if trace {
                    println!("trace {:>5} ms: {}", t0.elapsed().as_millis(), fmt_mb(&pss));
                }
                if pss.values().sum::<u64>() > peak.values().sum::<u64>() {
                    peak = pss;
                    if let Some(m) = &peak_maps {
                        m.lock().unwrap().1 = mappings(root);
                    }
                }
                for (pid, (comm, ticks)) in cpu {
                    let before = base.get(&pid).map(|b| b.1).unwrap_or(0);
                    last.insert(pid, (comm, ticks.saturating_sub(before)));
                }
                if flag.load(Ordering::Relaxed) {
                    return (peak, last);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Sampler {
            stop,
            handle: Some(handle),
            mappings: maps,
        }
    }

    /// (peak PSS kB, CPU-seconds of every process, CPU-seconds without codex, CPU-seconds
    /// per process name)
    fn finish(self) -> (u64, f64, f64, BTreeMap<String, f64>) {
        let (peak, all, ui, by_name, _) = self.finish_with_peak();
        (peak, all, ui, by_name)
    }

    /// `finish`, plus the PSS of each process at the tree's peak.
    fn finish_with_peak(mut self) -> (u64, f64, f64, BTreeMap<String, f64>, PssByName) {
        self.stop.store(true, Ordering::Relaxed);
        let (peak, cpu) = self
            .handle
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default();
        let all: u64 = cpu.values().map(|(_, t)| t).sum();
        let ui: u64 = cpu
            .values()
            .filter(|(c, _)| !c.starts_with("codex"))
            .map(|(_, t)| t)
            .sum();
        let mut by_name = BTreeMap::new();
        for (comm, t) in cpu.values() {
            *by_name.entry(comm.clone()).or_insert(0.0) += *t as f64 / HZ;
        }
        let total = peak.values().sum();
        if let Some(m) = &self.mappings {
            let m = m.lock().unwrap();
            println!("mappings, start → the tree's peak:");
            print_mapping_growth(&m.0, &m.1);
        }
        (total, all as f64 / HZ, ui as f64 / HZ, by_name, peak)
    }
}

/// `CHAT_BENCH_PERF=1`: a `perf record` (flat samples, 999 Hz) of the app and of each web
/// process during a phase, written to the variant's artifacts as `perf-<phase>-<comm>.data`
/// (`perf report -i <file> --sort dso` / `--sort sym`), to see where the window's CPU goes.
struct Perf(Vec<std::process::Child>);

impl Perf {
    fn start(root: u32, phase: &str, dir: &Path) -> Perf {
        if std::env::var_os("CHAT_BENCH_PERF").is_none() {
            return Perf(Vec::new());
        }
        let mut children = Vec::new();
        for pid in tree(root) {
            let Some((comm, _, _, _)) = proc_info(pid) else {
                continue;
            };
            if !(pid == root || comm.starts_with("WebKitWebProces")) {
                continue;
            }
            let out = dir.join(format!("perf-{phase}-{}.data", comm.replace('/', "_")));
            let child = std::process::Command::new("perf")
                .args(["record", "-q"])
                .args(match std::env::var("CHAT_BENCH_PERF").as_deref() {
                    Ok("syscalls") => ["-e", "raw_syscalls:sys_enter"],
                    _ => ["-F", "999"],
                })
                .args(["-p", &pid.to_string(), "-o"])
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
            match child {
                Ok(c) => children.push(c),
                Err(e) => println!("perf record not started: {e}"),
            }
        }
        // perf needs a moment to attach before the phase starts.
        std::thread::sleep(Duration::from_millis(300));
        Perf(children)
    }

    fn stop(self) {
        for mut c in self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let _ = c.wait();
        }
    }
}

fn epoch_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

// ---------------------------------------------------------------- set-up

/// A workspace with a default Codex profile at the fake model, plus a session of
/// `SEEDED_ITEMS` items written through the store.
async fn prepare(env: &AppEnv, bin: PathBuf, fake: &FakeResponses) -> Result<PathBuf, BoxError> {
    let CodexWorkspace {
        work,
        workspace_id,
        desk,
    } = prepare_codex_workspace(env, bin, fake.base_url(), |_| {}).await?;

    // Old (created at 1): the sessions the benchmark creates list above it.
    seed_session(
        desk.store(),
        &workspace_id,
        "seeded-session",
        SEEDED_TITLE,
        SEEDED_ITEMS,
        1,
    )
    .await?;
    desk.close().await;
    Ok(work)
}

/// The 20,000-delta, ~401 KB answer (20 bytes a delta, a paragraph break every 50).
fn big_answer() -> Vec<String> {
    // `CHAT_BENCH_DELTAS=<n>`: another size of answer (how the figures scale with it).
    let n = agentdesk_tests::bench::env_number("CHAT_BENCH_DELTAS", 20_000usize).max(1);
    (0..n)
        .map(|i| {
            if i == n - 1 {
                "THE-LAST-WORDS.\n".to_string()
            } else if i % 50 == 49 {
                format!("w{i:05} lorem ips.\n\n")
            } else {
                format!("w{i:05} lorem ipsum. ")
            }
        })
        .collect()
}

// ---------------------------------------------------------------- in-page steps

/// `CHAT_BENCH_REGEXPS=1`: count every regular expression run (`exec`, which `test`,
/// `match`, `replace` and `split` go through once it is replaced), per pattern.
const COUNT_REGEXPS: &str = r#"
    const counts = (window.__regexps = new Map());
    const exec = RegExp.prototype.exec;
    RegExp.prototype.exec = function (s) {
      const t = performance.now();
      const out = exec.call(this, s);
      const c = counts.get(this.source) || [0, 0, 0];
      c[0] += 1; c[1] += performance.now() - t; c[2] += String(s).length;
      counts.set(this.source, c);
      return out;
    };
"#;

/// `CHAT_BENCH_TYPING=1 CHAT_BENCH_MUTATIONS=attributes`: every DOM change while the prompt is
/// typed, by kind and element.
const WATCH_TYPING: &str = r#"
    const seen = (window.__typing = {});
    const name = (e) => e.nodeType === 1 ? e.tagName + '.' + (e.getAttribute('class') || '') : '#text';
    window.__typingObserver = new MutationObserver((list) => {
      for (const m of list) { const k = m.type + ' ' + (m.attributeName || '') + ' ' + name(m.target); seen[k] = (seen[k] || 0) + 1; }
    });
    window.__typingObserver.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
"#;
const TYPING_SEEN: &str = r#"
    window.__typingObserver.disconnect();
    return window.__typing;
"#;

/// The 20,000-delta answer's prompt, in the app and for codex alone (19 characters, typed key
/// by key in the app).
const PROMPT: &str = "Write a long answer";

/// `CHAT_BENCH_ROWS=1`: the timeline's rows in the DOM (index, height in px) and its viewport.
const ROWS: &str = r#"
    const list = document.querySelector('[role="log"]');
    const rows = [...document.querySelectorAll('[data-index]')];
    return { viewport: list ? list.clientHeight : null, width: list ? list.clientWidth : null,
             rows: rows.map((e) => [Number(e.dataset.index) - 1e9, Math.round(e.getBoundingClientRect().height)]) };
"#;

const TOP_REGEXPS: &str = r#"
    const all = [...window.__regexps.entries()].sort((a, b) => b[1][1] - a[1][1]);
    const total = all.reduce((n, [, c]) => n + c[0], 0);
    const ms = all.reduce((n, [, c]) => n + c[1], 0);
    return { total, ms: Math.round(ms), top: all.slice(0, 12).map(([p, c]) => [c[0], Math.round(c[1]), c[2], p.slice(0, 70)]) };
"#;

/// Type `text` and press Send; resolves (in ms, page clock) when the newest run line reads
/// `Completed` and the timeline holds `last`. Event-driven: a MutationObserver wakes a check
/// at most once per 16 ms, and the check reads only the newest run line and the newest rows, so
/// the measurer adds little to the CPU it measures (it used to poll the whole log every 50 ms).
const SEND_AND_WAIT: &str = r#"
    const [last, attributes, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
    const send = [...document.querySelectorAll('button')].find(
      (b) => (b.getAttribute('aria-label') || b.textContent).trim() === 'Send' && !b.disabled);
    if (!send) { done(-1); return; }
    // The observer's wake-ups (one per task that changed the DOM) and, per kind and place,
    // the mutations, with the timeline rows (data-index) mounted (+) and unmounted (-).
    let wakes = 0;
    let pending = false, finished = false;
    const check = () => {
      pending = false;
      if (finished) return;
      const st = document.querySelectorAll('[data-testid=run-status] .run-status-text');
      const line = st[st.length - 1];
      if (!line || line.textContent.trim() !== 'Completed') return;
      const rows = document.querySelectorAll('[role=log][aria-label=Timeline] .row');
      for (let i = rows.length - 1; i >= 0 && i >= rows.length - 4; i--) {
        if (rows[i].textContent.includes(last)) {
          finished = true;
          observer.disconnect();
          done([performance.now() - t0, wakes, JSON.stringify(where)]);
          return;
        }
      }
    };
    // A timer, not requestAnimationFrame: in accelerated compositing mode WebKit under Xvfb
    // stopped running frame callbacks during the paced stream and the wait never ended.
    const where = {};
    const name = (n) => {
      const e = n && (n.nodeType === 1 ? n : n.parentElement);
      return e ? (e.tagName + '.' + (e.getAttribute('class') || '') + '/' + ((e.parentElement && e.parentElement.getAttribute('class')) || '')).slice(0, 80) : '?';
    };
    const observer = new MutationObserver((list) => {
      for (const m of list) {
        const k = m.type + (m.attributeName ? ' ' + m.attributeName : '') + ' ' + name(m.target); where[k] = (where[k] || 0) + 1;
        // With attributes: when each kind changed first and last (ms after the click).
        if (attributes) { const at = Math.round(performance.now() - t0); const w = (where['@ ' + k] ||= [at, at]); w[1] = at; }
        for (const a of m.addedNodes) { const i = a.getAttribute && a.getAttribute('data-index'); if (i) { const kk = '+' + i; where[kk] = (where[kk] || 0) + 1; } }
        for (const a of m.removedNodes) { const i = a.getAttribute && a.getAttribute('data-index'); if (i) { const kk = '-' + i; where[kk] = (where[kk] || 0) + 1; } }
      }
      wakes++;
      if (!pending) { pending = true; setTimeout(check, 16); }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: !!attributes });
    const t0 = performance.now();
    send.click();
"#;

/// Click the seeded session; resolves (ms) at the first frame its newest item is in the page.
const OPEN_SEEDED: &str = r#"
    const [title, last, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
    const item = [...document.querySelectorAll('[data-testid=session-item]')].find(
      (b) => b.textContent.includes(title));
    if (!item) { done(-1); return; }
    const t0 = performance.now();
    item.click();
    const tick = () => {
      const log = document.querySelector('[role=log][aria-label=Timeline]');
      if (log && log.textContent.includes(last)) done(performance.now() - t0);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
"#;

/// The page paces its live stream with `live_ack` (the shell waits for it before the next
/// batch; a second without it and the next batch goes anyway, so a missing command would only
/// show as slowness): check the shell answers it.
const PROBE_ACK: &str = r#"
    const done = arguments[arguments.length - 1];
    window.__TAURI_INTERNALS__.invoke('live_ack', { sessionId: 'none', channel: 0, seq: 0 })
      .then(() => done('ok'), (e) => done('failed: ' + ((e && e.message) || JSON.stringify(e))));
"#;

async fn type_message(app: &AppSession, text: &str) -> Result<(), BoxError> {
    let message = app.find("textarea[aria-label=Message]").await?;
    message.send_keys(text).await?;
    Ok(())
}

/// Send → shown (ms); prints how often the DOM changed meanwhile (`CHAT_BENCH_MUTATIONS=1`:
/// where, and which timeline rows were mounted and unmounted).
/// `CHAT_BENCH_TYPING=1`: the answer's prompt is typed before its figures start, as a phase of
/// its own ("typing": its CPU, and its perf record with `CHAT_BENCH_PERF`; `=x`: typed as real
/// X key presses, 40 ms apart, instead of through WebDriver). Without it the
/// answer's figures include typing the 19-character prompt (through WebDriver), as they
/// always have.
fn typed_apart() -> bool {
    std::env::var_os("CHAT_BENCH_TYPING").is_some()
}

/// `CHAT_BENCH_MUTATIONS=attributes`: attribute changes too (the observer then wakes more
/// often: a diagnostic, not a figure), with when each kind of change came first and last.
fn mutations_with_attributes() -> bool {
    std::env::var("CHAT_BENCH_MUTATIONS").as_deref() == Ok("attributes")
}

async fn send_and_wait(app: &AppSession, text: &str, last: &str) -> Result<f64, BoxError> {
    send_typed(app, text, last, false).await
}

/// `send_and_wait` with the prompt already typed (`typed`) or not.
async fn send_typed(
    app: &AppSession,
    text: &str,
    last: &str,
    typed: bool,
) -> Result<f64, BoxError> {
    if !typed {
        type_message(app, text).await?;
    }
    let got = app
        .client
        .execute_async(
            SEND_AND_WAIT,
            vec![last.into(), mutations_with_attributes().into()],
        )
        .await?;
    let got = got.as_array().ok_or("no Send button")?;
    let n = |i: usize| got.get(i).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
    println!(
        "  \"{text}\": {:.0} ms, {} DOM-observer wake-ups",
        n(0),
        n(1)
    );
    if std::env::var_os("CHAT_BENCH_MUTATIONS").is_some() {
        println!(
            "  mutations: {}",
            got.get(2).and_then(|v| v.as_str()).unwrap_or("")
        );
    }
    Ok(n(0))
}

// ---------------------------------------------------------------- scenario

struct Figures {
    cold_fcp_ms: Option<f64>,
    cold_sidebar_ms: f64,
    idle: BTreeMap<String, u64>,
    /// CPU-seconds of app + webview over the 10 s idle (a page that works while nothing
    /// happens would show here and in every other figure).
    idle_cpu: f64,
    big_ms: f64,
    big_cpu_all: f64,
    big_peak_kb: u64,
    big_peak_by: PssByName,
    big_cpu_by: BTreeMap<String, f64>,
    big_after_cpu_all: f64,
    big_after_cpu_by: BTreeMap<String, f64>,
    paced_ms: f64,
    paced_cpu_by: BTreeMap<String, f64>,
    paced_cpu_ui: f64,
    open_50k_ms: f64,
}

async fn run_variant(
    desktop: &Desktop,
    app_bin: &Path,
    bin: &Path,
    variant: &str,
    extra: &[(&str, &str)],
) -> Result<Figures, BoxError> {
    let artifacts = artifacts_dir(&format!("{TEST}/{variant}"));
    let mut env = AppEnv::new(TEST)?;
    env.extra = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let fake = FakeResponses::start().await?;
    prepare(&env, bin.to_path_buf(), &fake).await?;

    let app = desktop.launch(&env, "app", &artifacts).await?;
    app.find("[data-testid=workspace-item]").await?;
    let found_at = epoch_now();
    // The page's waits (a 20,000-delta turn) can pass WebDriver's 30 s script limit on a
    // loaded machine; this is a measurement, not a timed test.
    app.set_script_timeout(Duration::from_secs(300)).await?;
    let pid = find_app(app_bin, &env.data_dir).ok_or("app process not found")?;
    let started = start_epoch_ms(pid) / 1000.0;
    let cold_sidebar_ms = (found_at - started) * 1000.0;
    // First contentful paint, on the page's clock, placed on the wall clock.
    let fcp = app
        .client
        .execute(
            "const p = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint'); \
             return p ? performance.timeOrigin + p.startTime : null;",
            vec![],
        )
        .await?;
    let cold_fcp_ms = fcp.as_f64().map(|at| at - started * 1000.0);

    let session_first = std::env::var_os("CHAT_BENCH_SESSION_FIRST").is_some_and(|v| v == "1");
    if session_first {
        app.button("New session").await?.click().await?;
        app.find("textarea[aria-label=Message]").await?;
        if std::env::var_os("CHAT_BENCH_WARMUP").is_some_and(|v| v == "1") {
            // One short turn first, so the answer is not the first turn of the page's life.
            fake.push(Reply::text(&["WARM-UP-DONE."]));
            send_and_wait(&app, "Warm up", "WARM-UP-DONE").await?;
        }
    }
    let sampler = Sampler::start(pid);
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (_, _, idle_cpu, _) = sampler.finish();
    let (idle, _) = snapshot(pid);
    app.screenshot(&artifacts.join("idle.png")).await?;

    let probe = app.client.execute_async(PROBE_ACK, vec![]).await?;
    assert_eq!(probe.as_str(), Some("ok"), "live_ack: {probe}");

    // The 20,000-delta answer.
    let answer = big_answer();
    let refs: Vec<&str> = answer.iter().map(String::as_str).collect();
    fake.push(Reply::text(&refs));
    if !session_first {
        app.button("New session").await?.click().await?;
    }
    let regexps = std::env::var_os("CHAT_BENCH_REGEXPS").is_some();
    if regexps {
        app.client.execute(COUNT_REGEXPS, vec![]).await?;
    }
    if typed_apart() {
        let perf = Perf::start(pid, "typing", &artifacts);
        if mutations_with_attributes() {
            app.client.execute(WATCH_TYPING, vec![]).await?;
        }
        let sampler = Sampler::start(pid);
        if std::env::var("CHAT_BENCH_TYPING").as_deref() == Ok("x") {
            // Real key presses from the X server, 40 ms apart, as a user types.
            app.find("textarea[aria-label=Message]")
                .await?
                .click()
                .await?;
            let typed = tokio::process::Command::new("xdotool")
                .args(["type", "--delay", "40", PROMPT])
                .env("DISPLAY", desktop.display_name())
                .status()
                .await?;
            if !typed.success() {
                return Err(format!("xdotool: {typed}").into());
            }
        } else {
            type_message(&app, PROMPT).await?;
        }
        // The last key's redraw.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (_, cpu, _, by) = sampler.finish();
        perf.stop();
        println!("typing the prompt: {cpu:.2} CPU-s tree ({})", fmt_cpu(&by));
        if mutations_with_attributes() {
            let seen = app.client.execute(TYPING_SEEN, vec![]).await?;
            println!("  mutations while typing: {seen}");
        }
    }
    let perf = Perf::start(pid, "big", &artifacts);
    let sampler = Sampler::start(pid);
    let big_ms = send_typed(&app, PROMPT, "THE-LAST-WORDS", typed_apart()).await?;
    let (big_peak_kb, big_cpu_all, _, big_cpu_by, big_peak_by) = sampler.finish_with_peak();
    if regexps {
        let top = app.client.execute(TOP_REGEXPS, vec![]).await?;
        println!(
            "regular expressions run during the answer (runs, ms, characters given, pattern): {top}"
        );
    }
    if std::env::var_os("CHAT_BENCH_ROWS").is_some() {
        let rows = app.client.execute(ROWS, vec![]).await?;
        println!("the timeline after the answer: {rows}");
    }
    // What the answer still costs once shown (its search indexing, the page settling): the
    // next 3 s (the idle tree's share of them is ~0.01 CPU-s).
    let sampler = Sampler::start(pid);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, big_after_cpu_all, _, big_after_cpu_by) = sampler.finish();
    perf.stop();
    if std::env::var_os("CHAT_BENCH_TRACE").is_some() {
        for _ in 0..12 {
            let (now, _) = snapshot(pid);
            println!("trace, after the answer: {}", fmt_mb(&now));
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    app.screenshot(&artifacts.join("big-answer.png")).await?;

    // A paced stream: 1,000 deltas 10 ms apart.
    // One message of 1,000 deltas 10 ms apart (`slow_text_then_end` would be 1,000 messages).
    fake.push(Reply::paced_message(1_000, Duration::from_millis(10)));
    let perf = Perf::start(pid, "paced", &artifacts);
    let sampler = Sampler::start(pid);
    let wall = Instant::now();
    let paced_ms = send_and_wait(&app, "Now slowly", "chunk999").await?;
    let wall = wall.elapsed().as_secs_f64();
    let (_, _, ui_cpu, paced_cpu_by) = sampler.finish();
    perf.stop();
    let paced_cpu_ui = ui_cpu / wall;

    // Opening the 50,000-item session.
    let last = seeded_text(SEEDED_ITEMS - 1);
    let ms = app
        .client
        .execute_async(OPEN_SEEDED, vec![SEEDED_TITLE.into(), last.into()])
        .await?;
    let open_50k_ms = ms.as_f64().ok_or("no timing")?;
    app.screenshot(&artifacts.join("seeded-50k.png")).await?;
    app.quit().await?;
    env.passed();
    Ok(Figures {
        cold_fcp_ms,
        cold_sidebar_ms,
        idle,
        idle_cpu,
        big_ms,
        big_cpu_all,
        big_peak_kb,
        big_peak_by,
        big_cpu_by,
        big_after_cpu_all,
        big_after_cpu_by,
        paced_ms,
        paced_cpu_by,
        paced_cpu_ui,
        open_50k_ms,
    })
}

/// The same 20,000-delta turn through `agentdesk-cli run` (codex and the core, no window).
async fn codex_alone(cli: &Path, bin: &Path) -> Result<(f64, f64, u64), BoxError> {
    let env = AppEnv::new(TEST)?;
    let fake = FakeResponses::start().await?;
    let work = prepare(&env, bin.to_path_buf(), &fake).await?;
    let answer = big_answer();
    let refs: Vec<&str> = answer.iter().map(String::as_str).collect();
    fake.push(Reply::text(&refs));
    let t0 = Instant::now();
    let child = std::process::Command::new(cli)
        .env("AGENTDESK_DATA_DIR", &env.data_dir)
        .args(["run", "--workspace", &s(&work), PROMPT])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let pid = child.id();
    let sampler = Sampler::start(pid);
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    let secs = t0.elapsed().as_secs_f64();
    let (peak, cpu, _, by) = sampler.finish();
    println!("codex alone, CPU-s by process: {}", fmt_cpu(&by));
    if !out.status.success() {
        return Err(format!("agentdesk-cli run failed: {}", out.status).into());
    }
    Ok((secs * 1000.0, cpu, peak))
}

fn fmt_mb(by: &PssByName) -> String {
    by.iter()
        .map(|(k, v)| format!("{k} {:.1} MB", *v as f64 / 1024.0))
        .collect::<Vec<_>>()
        .join(", ")
}

fn fmt_cpu(by: &BTreeMap<String, f64>) -> String {
    by.iter()
        .filter(|(_, v)| **v > 0.0)
        .map(|(k, v)| format!("{k} {v:.2}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run by hand, figures go to BENCHMARKS.md"]
async fn chat_window_figures() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    let Some(bin) = engine_bin("CODEX_BIN", "chat bench") else {
        return;
    };
    let app_bin = pre.app.clone();
    let cli = std::env::var_os("AGENTDESK_CLI_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let t = agentdesk_tests::e2e::target_dir();
            let rel = t.join("release/agentdesk-cli");
            if rel.is_file() {
                rel
            } else {
                t.join("debug/agentdesk-cli")
            }
        });
    println!("app: {}\ncli: {}", app_bin.display(), cli.display());
    let desktop = Desktop::start(pre).unwrap();

    let alone = codex_alone(&cli, &bin).await.unwrap();
    println!(
        "codex alone (agentdesk-cli run): {:.0} ms, {:.2} CPU-s, peak PSS {:.0} MB",
        alone.0,
        alone.1,
        alone.2 as f64 / 1024.0
    );
    // `default` is the app as shipped (its WebKit settings, src-tauri/src/webkit.rs);
    // `webkit-defaults` opts out of them (WebKit's own: accelerated compositing on).
    let variants: [(&str, &[(&str, &str)]); 2] = [
        ("default", &[]),
        ("webkit-defaults", &[("AGENTDESK_WEBKIT_ACCELERATION", "1")]),
    ];
    // `CHAT_BENCH_VARIANT=default` (or `webkit-defaults`) measures one look only.
    let only = std::env::var("CHAT_BENCH_VARIANT").ok();
    for (name, extra) in variants {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        // `CHAT_BENCH_ENV="K=V K2=V2"`: more environment for the app (a setting under trial).
        let trial = std::env::var("CHAT_BENCH_ENV").unwrap_or_default();
        let mut extra: Vec<(&str, &str)> = extra.to_vec();
        extra.extend(trial.split_whitespace().filter_map(|kv| kv.split_once('=')));
        let f = run_variant(&desktop, &app_bin, &bin, name, &extra)
            .await
            .unwrap();
        let idle_total: u64 = f.idle.values().sum();
        println!("\n== {name}");
        println!(
            "cold start: first contentful paint {} ms, sidebar found over WebDriver {:.0} ms",
            f.cold_fcp_ms
                .map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "n/a".into()),
            f.cold_sidebar_ms
        );
        println!(
            "idle PSS after 10 s: {:.1} MB total; {}",
            idle_total as f64 / 1024.0,
            fmt_mb(&f.idle)
        );
        println!("idle CPU over 10 s: {:.2} CPU-s app + webview", f.idle_cpu);
        println!(
            "20,000-delta answer: {:.0} ms send→shown ({:.2}× codex alone), {:.2} CPU-s tree, peak PSS {:.0} MB",
            f.big_ms,
            f.big_ms / alone.0,
            f.big_cpu_all,
            f.big_peak_kb as f64 / 1024.0
        );
        println!("  CPU-s by process: {}", fmt_cpu(&f.big_cpu_by));
        println!("  PSS at the peak: {}", fmt_mb(&f.big_peak_by));
        println!(
            "  the next 3 s: {:.2} CPU-s tree ({})",
            f.big_after_cpu_all,
            fmt_cpu(&f.big_after_cpu_by)
        );
        println!(
            "paced 1,000 × 10 ms: {:.0} ms, app + webview {:.3} cores",
            f.paced_ms, f.paced_cpu_ui
        );
        println!("  CPU-s by process: {}", fmt_cpu(&f.paced_cpu_by));
        println!("open the 50,000-item session: {:.0} ms", f.open_50k_ms);
    }
}
