//! The soak bench's samples (`tests/tests/soak_bench.rs`): what a sampler thread reads from
//! /proc every so often, the CSV files they are written to and read back from, and the plot.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bench::{memory_kb, open_fds, proc_info, role, tree, HZ, ROLES};

/// One process at one sample.
pub struct Proc {
    pub name: String,
    /// Where it belongs in the figures ([`crate::bench::role`]; "watchdog" for the app's).
    pub role: &'static str,
    pub pid: u32,
    pub pss_kb: u64,
    pub anon_kb: u64,
    pub cpu_ticks: u64,
}

/// Every process of the app's tree (and its watchdog) at one moment.
pub struct Sample {
    /// Seconds since the soak began.
    pub at_s: f64,
    pub procs: Vec<Proc>,
    /// The database files' size.
    pub db_bytes: u64,
    /// The app's open descriptors.
    pub fds: usize,
}

fn db_bytes(data_dir: &Path) -> u64 {
    std::fs::read_dir(data_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".db"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

fn take_sample(app: u32, watchdog: Option<u32>, data_dir: &Path, t0: Instant) -> Sample {
    let procs = tree(app)
        .into_iter()
        .chain(watchdog)
        .filter_map(|pid| {
            let (name, _, ticks, _) = proc_info(pid)?;
            let role = if Some(pid) == watchdog {
                "watchdog"
            } else {
                role(&name)
            };
            let (pss_kb, anon_kb) = memory_kb(pid);
            Some(Proc {
                name,
                role,
                pid,
                pss_kb,
                anon_kb,
                cpu_ticks: ticks,
            })
        })
        .collect();
    Sample {
        at_s: t0.elapsed().as_secs_f64(),
        procs,
        db_bytes: db_bytes(data_dir),
        fds: open_fds(app),
    }
}

/// Samples the app (and its watchdog) `every` on its own thread until `stop` is set; a last
/// sample when it is.
pub fn start_sampler(
    (app, watchdog): (u32, Option<u32>),
    data_dir: PathBuf,
    (t0, every): (Instant, Duration),
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<Sample>> {
    std::thread::spawn(move || {
        let mut out = vec![take_sample(app, watchdog, &data_dir, t0)];
        let mut next = t0 + every;
        loop {
            while Instant::now() < next {
                if stop.load(Ordering::Relaxed) {
                    out.push(take_sample(app, watchdog, &data_dir, t0));
                    return out;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            out.push(take_sample(app, watchdog, &data_dir, t0));
            next += every;
        }
    })
}

/// kB per role in one sample, (PSS, anonymous).
pub fn by_role(s: &Sample) -> BTreeMap<&'static str, (u64, u64)> {
    let mut m = BTreeMap::new();
    for p in &s.procs {
        let e = m.entry(p.role).or_insert((0, 0));
        e.0 += p.pss_kb;
        e.1 += p.anon_kb;
    }
    m
}

/// The anonymous memory of the app, its web and its network process.
pub fn window_anon_kb(s: &Sample) -> u64 {
    let r = by_role(s);
    ["app", "web", "network"]
        .iter()
        .map(|k| r.get(k).map(|v| v.1).unwrap_or(0))
        .sum()
}

/// The window's lowest anonymous memory (kB) in each `bucket_s` from `from_s` up to `to_s`,
/// with each bucket's start. A single sample lands anywhere on the page's collection saw (the
/// soak's endpoint figure moved between −1.3 % and +9.9 % over runs whose lows moved +4–5 %);
/// the lows are the trend, and what issue 26 item 2 is judged on.
pub fn window_lows(samples: &[Sample], from_s: f64, to_s: f64, bucket_s: f64) -> Vec<(f64, u64)> {
    let mut lows: BTreeMap<u64, u64> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.at_s >= from_s && s.at_s < to_s) {
        let low = lows
            .entry(((s.at_s - from_s) / bucket_s) as u64)
            .or_insert(u64::MAX);
        *low = (*low).min(window_anon_kb(s));
    }
    lows.into_iter()
        .map(|(b, kb)| (from_s + b as f64 * bucket_s, kb))
        .collect()
}

/// CPU ticks the processes of `roles` used between `prev` and `s`: per process, so an engine
/// that exited meanwhile does not take its whole life's ticks off the total, and one that
/// started counts from zero.
pub fn cpu_ticks_between(prev: &Sample, s: &Sample, roles: &[&str]) -> u64 {
    s.procs
        .iter()
        .filter(|p| roles.contains(&p.role))
        .map(|p| {
            let before = prev
                .procs
                .iter()
                .find(|q| q.pid == p.pid)
                .map(|q| q.cpu_ticks)
                .unwrap_or(0);
            p.cpu_ticks.saturating_sub(before)
        })
        .sum()
}

/// The `p` quantile (0–1) of sorted values, NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// `samples.csv` (every process of every sample) and `summary.csv` (a line per sample) in `dir`.
pub fn write_csv(dir: &Path, samples: &[Sample]) -> std::io::Result<()> {
    let mut raw = String::from("t_s,process,pid,role,pss_kb,anon_kb,cpu_s\n");
    let mut sum = String::from(
        "t_s,app_anon_mb,web_anon_mb,network_anon_mb,window_anon_mb,window_pss_mb,engines_pss_mb,engines_anon_mb,watchdog_pss_mb,watchdog_anon_mb,window_cpu_cores,engines_cpu_cores,db_mb,app_fds\n",
    );
    for (i, s) in samples.iter().enumerate() {
        for p in &s.procs {
            raw += &format!(
                "{:.0},{},{},{},{},{},{:.2}\n",
                s.at_s,
                p.name,
                p.pid,
                p.role,
                p.pss_kb,
                p.anon_kb,
                p.cpu_ticks as f64 / HZ
            );
        }
        let r = by_role(s);
        let get = |k: &str| r.get(k).copied().unwrap_or((0, 0));
        let mb = |kb: u64| kb as f64 / 1024.0;
        let window_pss = get("app").0 + get("web").0 + get("network").0;
        let engines = (
            get("codex").0 + get("claude").0,
            get("codex").1 + get("claude").1,
        );
        let (wcpu, ecpu) = if i == 0 {
            (0.0, 0.0)
        } else {
            let prev = &samples[i - 1];
            let dt = (s.at_s - prev.at_s).max(0.001);
            let d = |roles: &[&str]| cpu_ticks_between(prev, s, roles) as f64 / HZ / dt;
            (d(&["app", "web", "network"]), d(&["codex", "claude"]))
        };
        sum += &format!(
            "{:.0},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.1},{:.3},{:.3},{:.2},{}\n",
            s.at_s,
            mb(get("app").1),
            mb(get("web").1),
            mb(get("network").1),
            mb(window_anon_kb(s)),
            mb(window_pss),
            mb(engines.0),
            mb(engines.1),
            mb(get("watchdog").0),
            mb(get("watchdog").1),
            wcpu,
            ecpu,
            s.db_bytes as f64 / 1_048_576.0,
            s.fds
        );
    }
    std::fs::write(dir.join("samples.csv"), raw)?;
    std::fs::write(dir.join("summary.csv"), sum)
}

/// A curve's name, colour and points (minutes, MB).
type Series = (&'static str, &'static str, Vec<(f64, f64)>);

fn curve(samples: &[Sample], kb: impl Fn(&Sample) -> u64) -> Vec<(f64, f64)> {
    samples
        .iter()
        .map(|s| (s.at_s / 60.0, kb(s) as f64 / 1024.0))
        .collect()
}

/// One chart of `series` at `top` (its own y scale from 0 to its largest value).
fn chart(svg: &mut String, title: &str, series: &[Series], top: f64, max_x: f64) {
    let (w, h, left, right) = (820.0, 250.0, 60.0, 220.0);
    let (plot_top, plot_bottom) = (top + 28.0, top + h - 30.0);
    let max_y = series
        .iter()
        .flat_map(|(_, _, p)| p.iter().map(|(_, y)| *y))
        .fold(1.0_f64, f64::max);
    // A round step: 1, 2 or 5 times a power of ten, about five of them.
    let raw = max_y / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(raw);
    let max_y = (max_y / step).ceil() * step;
    let x = |v: f64| left + v / max_x * (w - left - right);
    let y = |v: f64| plot_bottom - v / max_y * (plot_bottom - plot_top);
    *svg += &format!(
        "<text x=\"{left}\" y=\"{}\" font-size=\"13\">{title}</text>\n",
        top + 16.0
    );
    let mut v = 0.0;
    while v <= max_y + step / 2.0 {
        *svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.0}</text>\n",
            w - right,
            y(v),
            y(v),
            left - 6.0,
            y(v) + 4.0
        );
        v += step;
    }
    let tick = if max_x > 10.0 { 5.0 } else { 1.0 };
    let mut m = 0.0;
    while m <= max_x + 0.001 {
        *svg += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{m:.0}</text>\n",
            x(m),
            plot_bottom + 16.0
        );
        m += tick;
    }
    for (i, (name, colour, pts)) in series.iter().enumerate() {
        let d: Vec<String> = pts
            .iter()
            .map(|(a, b)| format!("{:.1},{:.1}", x(*a), y(*b)))
            .collect();
        let ly = plot_top + 20.0 * i as f64;
        *svg += &format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"3\" fill=\"{colour}\"/><text x=\"{}\" y=\"{}\">{name}</text>\n",
            d.join(" "),
            w - right + 12.0,
            ly,
            w - right + 32.0,
            ly + 4.0
        );
    }
}

/// The memory curves against minutes: the window's processes' anonymous memory (app, web and
/// network process, their sum) above, the engines' PSS below (their scale would flatten the rest).
pub fn plot_svg(samples: &[Sample]) -> String {
    let anon = |r: &'static str| move |s: &Sample| by_role(s).get(r).map(|v| v.1).unwrap_or(0);
    let pss = |r: &'static str| move |s: &Sample| by_role(s).get(r).map(|v| v.0).unwrap_or(0);
    let window: Vec<Series> = vec![
        (
            "app + web + network",
            "#1f6feb",
            curve(samples, window_anon_kb),
        ),
        ("web process", "#1a7f37", curve(samples, anon("web"))),
        ("app", "#8250df", curve(samples, anon("app"))),
        (
            "network process",
            "#9a6700",
            curve(samples, anon("network")),
        ),
        (
            "orphan watchdog",
            "#57606a",
            curve(samples, anon("watchdog")),
        ),
    ];
    let engines: Vec<Series> = vec![
        ("4 × claude", "#cf222e", curve(samples, pss("claude"))),
        (
            "codex (one app-server)",
            "#bf3989",
            curve(samples, pss("codex")),
        ),
    ];
    let max_x = samples
        .last()
        .map(|s| s.at_s / 60.0)
        .unwrap_or(1.0)
        .max(1.0);
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"820\" height=\"530\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"820\" height=\"530\" fill=\"#fff\"/>\n",
    );
    chart(
        &mut svg,
        "Soak, 8 sessions: anonymous memory (MB) of the window's processes, by minute",
        &window,
        0.0,
        max_x,
    );
    chart(
        &mut svg,
        "The engines' PSS (MB), by minute",
        &engines,
        270.0,
        max_x,
    );
    svg + "</svg>\n"
}

/// The samples of `samples.csv` (as `write_csv` wrote them), for drawing the plot again.
pub fn read_samples(csv: &str) -> Vec<Sample> {
    let mut out: Vec<Sample> = Vec::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let [t, name, pid, role, pss, anon, cpu] = f[..] else {
            continue;
        };
        let at_s: f64 = t.parse().unwrap_or(0.0);
        if out.last().is_none_or(|s| s.at_s != at_s) {
            out.push(Sample {
                at_s,
                procs: Vec::new(),
                db_bytes: 0,
                fds: 0,
            });
        }
        if let Some(s) = out.last_mut() {
            s.procs.push(Proc {
                name: name.to_string(),
                role: ROLES
                    .iter()
                    .find(|r| **r == role)
                    .copied()
                    .unwrap_or("other"),
                pid: pid.parse().unwrap_or(0),
                pss_kb: pss.parse().unwrap_or(0),
                anon_kb: anon.parse().unwrap_or(0),
                cpu_ticks: (cpu.parse::<f64>().unwrap_or(0.0) * HZ) as u64,
            });
        }
    }
    out
}

/// JavaScriptCore's heap after each full collection, read from an app log written with
/// `JSC_logGC=1` (the web process's stderr lands in the app's log): (seconds, kB), for the VM
/// that collected most (the page's). GC lines carry no time: `marks` are (seconds, the log's
/// length then), taken while it was written; a line gets the first mark by which it was there.
pub fn js_heap_after_full_gcs(log: &str, marks: &[(f64, u64)]) -> Vec<(f64, u64)> {
    // Per VM: whether its collection in progress is a full one, and what it reported.
    let mut full: BTreeMap<&str, bool> = BTreeMap::new();
    let mut seen: BTreeMap<&str, Vec<(f64, u64)>> = BTreeMap::new();
    let mut end = 0u64;
    for line in log.split_inclusive('\n') {
        end += line.len() as u64;
        let line = line.trim_end();
        let Some(vm) = line
            .strip_prefix("[GC<")
            .and_then(|rest| rest.split_once('>'))
            .map(|(vm, _)| vm)
        else {
            continue;
        };
        if line.contains(": START ") {
            full.insert(vm, line.contains("=> FullCollection"));
        }
        if line.ends_with("END]") && full.get(vm) == Some(&true) {
            let after = line
                .rsplit_once("=> ")
                .and_then(|(_, rest)| rest.split_once("kb"))
                .and_then(|(kb, _)| kb.parse().ok());
            let at = marks
                .iter()
                .find(|m| m.1 >= end)
                .or(marks.last())
                .map_or(0.0, |m| m.0);
            if let Some(kb) = after {
                seen.entry(vm).or_default().push((at, kb));
            }
        }
    }
    seen.into_values()
        .max_by_key(|v| v.len())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windows_lows_are_the_lowest_sample_of_each_bucket_in_the_range() {
        let sample = |at_s: f64, app: u64, web: u64| Sample {
            at_s,
            procs: [("app", app), ("web", web), ("claude", 999_999)]
                .into_iter()
                .map(|(role, anon_kb)| Proc {
                    name: role.into(),
                    role,
                    pid: 1,
                    pss_kb: 0,
                    anon_kb,
                    cpu_ticks: 0,
                })
                .collect(),
            db_bytes: 0,
            fds: 0,
        };
        let samples = [
            sample(0.0, 1, 1),     // before the range
            sample(300.0, 40, 80), // the first bucket: 120, 110, 130
            sample(330.0, 40, 70),
            sample(599.0, 40, 90),
            sample(600.0, 41, 75), // the second: 116
            sample(900.0, 41, 60), // the end of the range: not counted
        ];
        assert_eq!(
            window_lows(&samples, 300.0, 900.0, 300.0),
            vec![(300.0, 110), (600.0, 116)]
        );
        assert!(window_lows(&samples, 1200.0, 1800.0, 300.0).is_empty());
    }

    #[test]
    fn the_page_vms_heap_after_full_collections_is_read_with_the_time_it_was_written_by() {
        let first = "  INFO starting\n\
[GC<0xa>: START M 100kb => FullCollection, a=0kb ...]\n\
[GC<0xa>: M a=0kb v=1kb => 80kb, p=1.5ms (max 1.5), cycle 1.4ms END]\n\
[GC<0xb>: START M 19944kb => FullCollection, a=0kb ...]\n\
[GC<0xb>: M a=0kb v=3719kb => 8430kb, p=9.8ms (max 9.8), cycle 38.6ms END]\n\
GC END!\n";
        let then = "[GC<0xb>: START M 19515kb => EdenCollection, a=0kb ...]\n\
[GC<0xb>: M a=0kb => 14273kb, p=6.0ms (max 9.8), cycle 9.1ms END]\n\
[GC<0xb>: START M 23600kb => FullCollection, a=0kb ...]\n\
[GC<0xb>: M a=0kb => 9100kb, p=6.0ms (max 9.8), cycle 9.1ms END]\n";
        let log = format!("{first}{then}");
        let marks = [
            (10.0, 0),
            (40.0, first.len() as u64),
            (70.0, log.len() as u64),
        ];
        assert_eq!(
            js_heap_after_full_gcs(&log, &marks),
            vec![(40.0, 8430), (70.0, 9100)]
        );
        assert!(js_heap_after_full_gcs("no collections here\n", &marks).is_empty());
    }
}
