//! What the window benches (`chat_bench`, `startup_bench`) share: finding the app process and
//! when it started, the text of the items they seed, and reading processes from /proc.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Processes of `app` (its executable) with this data dir in their environment: the app and
/// its orphan watchdog (forked at start, adopted by init).
fn processes_of(app: &Path, data_dir: &Path) -> Vec<u32> {
    let Ok(app) = std::fs::canonicalize(app) else {
        return Vec::new();
    };
    let needle = format!("AGENTDESK_DATA_DIR={}", data_dir.display());
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .ok()
                .as_deref()
                == Some(app.as_path())
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .map(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
                    .unwrap_or(false)
        })
        .collect()
}

fn adopted_by_init(pid: u32) -> bool {
    proc_info(pid).is_some_and(|(_, ppid, _, _)| ppid == 1)
}

/// The app process of one environment: the app binary with this data dir in its environment
/// (not its watchdog).
pub fn find_app(app: &Path, data_dir: &Path) -> Option<u32> {
    processes_of(app, data_dir)
        .into_iter()
        .find(|pid| !adopted_by_init(*pid))
}

/// The app's orphan watchdog: the same executable and data dir, adopted by init.
pub fn find_watchdog(app: &Path, data_dir: &Path) -> Option<u32> {
    processes_of(app, data_dir)
        .into_iter()
        .find(|pid| adopted_by_init(*pid))
}

/// A bench's numeric setting from the environment (`default` when unset or not a number).
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A bench's extra variables for the app from the environment: `NAME="K=V K2=V2"` (words
/// without `=` are skipped).
pub fn env_vars(name: &str) -> Vec<(String, String)> {
    std::env::var(name)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Milliseconds since the epoch at which `pid` started: its start time in clock ticks after
/// boot (`/proc/<pid>/stat`), placed on the wall clock through `/proc/uptime` (`btime` in
/// `/proc/stat` is whole seconds, too coarse for a start-up measured in milliseconds).
pub fn start_epoch_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    let ticks: f64 = after.split_whitespace().nth(19).unwrap().parse().unwrap();
    let up: f64 = std::fs::read_to_string("/proc/uptime")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    (now - up + ticks / 100.0) * 1000.0
}

/// The text of seeded item `i` (the benches look for the last one to know a session is shown).
pub fn seeded_text(i: usize) -> String {
    format!("seeded item {i}: the build ran, a test failed, the fix is in module {i}")
}

/// Scrolls the timeline until `arguments[0]` is in the page, as a user dragging to one end
/// again and again would: to the top (`arguments[1]` = "up": older pages come in, the newest
/// go) or to the bottom ("down": newer pages, and at the newest the live stream again).
/// Answers [ms, steps, most elements the page held at once, most timeline rows at once], or
/// null when not there within 15 minutes.
pub const TIMELINE_SCROLL: &str = r#"
    const [text, way, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
    const t0 = performance.now();
    let steps = 0, nodes = 0, rows = 0;
    const step = () => {
      // Looked up each time: a list that starts again (a new generation) is a new element.
      const log = document.querySelector('[role=log][aria-label=Timeline]');
      if (log) {
        nodes = Math.max(nodes, document.getElementsByTagName('*').length);
        rows = Math.max(rows, log.querySelectorAll('.row').length);
        if (log.textContent.includes(text)) { done([performance.now() - t0, steps, nodes, rows]); return; }
        log.scrollTop = way === 'up' ? 0 : log.scrollHeight;
      }
      if (performance.now() - t0 > 900000) { done(null); return; }
      steps++;
      setTimeout(step, 30);
    };
    step();
"#;

/// A workspace "demo" (folder `<root>/work`) in the data folder `data`, with the given sessions
/// (`(id, title, items, created at)`, see [`seed_session`]) written before the app starts.
pub async fn seed_workspace(
    root: &Path,
    data: &Path,
    sessions: &[(&str, &str, usize, i64)],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let work = root.join("work");
    std::fs::create_dir_all(&work)?;
    let desk = agentdesk_core::Desk::open(data).await?;
    let ws = desk
        .add_workspace(&work.to_string_lossy(), Some("demo"))
        .await?;
    for (sid, title, n, at) in sessions {
        seed_session(desk.store(), &ws.id, sid, title, *n, *at).await?;
    }
    desk.close().await;
    Ok(())
}

/// A session `sid` titled `title` in workspace `ws` holding `n` items (user and agent messages
/// in turn, `seeded_text(i)`) in one run, written straight to the store 2,000 a transaction.
/// The run is left running: the app's start-up recovery marks it interrupted. Its messages
/// are indexed for search before it returns.
pub async fn seed_session(
    store: &agentdesk_store::Store,
    ws: &agentdesk_protocol::ids::WorkspaceId,
    sid: &str,
    title: &str,
    n: usize,
    at: i64,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use agentdesk_protocol::ui::{Engine, ItemBody, ItemStatus, Session, TimelineItem};
    store
        .insert_session(&Session::begun(
            sid.into(),
            ws.clone(),
            Engine::Codex,
            title,
            at,
        ))
        .await?;
    let rid = agentdesk_protocol::ids::RunId::from(format!("{sid}-run"));
    store
        .create_run(&agentdesk_store::NewRun::running(
            &rid,
            &sid.into(),
            "p",
            at,
        ))
        .await?;
    let mut from = 0;
    while from < n {
        let k = 2_000.min(n - from);
        let items: Vec<TimelineItem> = (from..from + k)
            .map(|i| TimelineItem {
                id: format!("{rid}:{i}"),
                session_id: sid.into(),
                run_id: rid.clone(),
                seq: i as i64,
                status: ItemStatus::Completed,
                body: if i % 2 == 0 {
                    ItemBody::UserMessage {
                        text: seeded_text(i),
                        attachments: Vec::new(),
                    }
                } else {
                    ItemBody::AgentMessage {
                        text: seeded_text(i),
                    }
                },
                created_at: at,
                updated_at: at,
                parent_id: None,
            })
            .collect();
        store.upsert_timeline_items(&items).await?;
        from += k;
    }
    // Indexed for search, as a session used for a while is: left queued, the app's first run
    // would index all of it and a bench would count that against whatever it measures then
    // (the chat bench's answer, on 50,000 seeded messages).
    store.index_pending_messages().await?;
    Ok(())
}

// ---------------------------------------------------------------- /proc

/// Clock ticks per second of /proc/<pid>/stat times (USER_HZ is 100 on Linux).
pub const HZ: f64 = 100.0;

pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: fields start after its closing parenthesis.
    let close = raw.rfind(')')?;
    let mut v = vec![raw[..close].split('(').nth(1)?.to_string()];
    v.extend(raw[close + 2..].split_whitespace().map(str::to_string));
    Some(v)
}

/// (comm, ppid, utime+stime ticks, start ticks since boot)
pub fn proc_info(pid: u32) -> Option<(String, u32, u64, u64)> {
    let f = stat_fields(pid)?;
    // After the name: state=1, ppid=2, ..., utime=12, stime=13, starttime=20.
    Some((
        f[0].clone(),
        f[2].parse().ok()?,
        f[12].parse::<u64>().ok()? + f[13].parse::<u64>().ok()?,
        f[20].parse().ok()?,
    ))
}

pub fn pss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// `root` and every process below it.
pub fn tree(root: u32) -> Vec<u32> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|n| n.parse().ok()) {
            if let Some((_, ppid, _, _)) = proc_info(pid) {
                parent.insert(pid, ppid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        out.extend(parent.iter().filter(|(_, pp)| **pp == p).map(|(c, _)| *c));
        i += 1;
    }
    out
}

/// Every role a process of the benches has ([`role`], and the app's watchdog).
pub const ROLES: [&str; 7] = [
    "app", "web", "network", "codex", "claude", "watchdog", "other",
];

/// Where a process belongs in the benches' figures, by its name: the app, the web and network
/// processes, an engine (the app's watchdog has the app's name: the caller knows it apart).
pub fn role(comm: &str) -> &'static str {
    if comm.starts_with("WebKitWebProces") {
        "web"
    } else if comm.starts_with("WebKitNetwork") {
        "network"
    } else if comm.starts_with("codex") {
        "codex"
    } else if comm.starts_with("claude") {
        "claude"
    } else if comm.starts_with("agentdesk") {
        "app"
    } else {
        "other"
    }
}

/// (PSS, anonymous) memory of `pid` in kB, from `smaps_rollup`; zeros for a process gone.
pub fn memory_kb(pid: u32) -> (u64, u64) {
    let Ok(t) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
        return (0, 0);
    };
    let field = |name: &str| {
        t.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("Pss:"), field("Anonymous:"))
}

/// Memory only `pid` holds (`Private_Clean` + `Private_Dirty`, kB): what its exit would free.
pub fn private_kb(pid: u32) -> u64 {
    let Ok(t) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
        return 0;
    };
    t.lines()
        .filter(|l| l.starts_with("Private_Clean:") || l.starts_with("Private_Dirty:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// How many file descriptors `pid` has open.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// One mapping's header line of `/proc/<pid>/maps` or `/proc/<pid>/smaps`: its addresses,
/// permissions (`r-xp`) and what is mapped (a file's path, `[heap]`, `[vdso]`…; empty for
/// anonymous memory).
pub struct Mapping {
    pub range: String,
    pub perms: String,
    pub path: String,
}

impl Mapping {
    /// The mapping a line starts, `None` for smaps' attribute lines (`Pss: …`).
    pub fn parse(line: &str) -> Option<Mapping> {
        // "start-end perms offset dev inode [path]"
        let mut fields = line.split_whitespace();
        let range = fields.next()?;
        if !range.contains('-') || range.ends_with(':') {
            return None;
        }
        Some(Mapping {
            range: range.to_owned(),
            perms: fields.next().unwrap_or("").to_owned(),
            path: fields.nth(3).unwrap_or("").to_owned(),
        })
    }

    /// Its size in bytes (0 for a malformed range).
    pub fn size(&self) -> u64 {
        let (a, b) = self.range.split_once('-').unwrap_or(("0", "0"));
        u64::from_str_radix(b, 16)
            .unwrap_or(0)
            .saturating_sub(u64::from_str_radix(a, 16).unwrap_or(0))
    }
}

/// Every mapping of `pid` (`/proc/<pid>/maps`), in address order.
pub fn mappings(pid: u32) -> std::io::Result<Vec<Mapping>> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    Ok(maps.lines().filter_map(Mapping::parse).collect())
}

/// (PSS, anonymous) memory of `pid` in kB per mapping name from `/proc/<pid>/smaps`: a file's
/// path, `[heap]`, `[stack]`, or `[anon <size> kB]` for unnamed regions; for telling apart
/// what grew.
pub fn memory_by_mapping_kb(pid: u32) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let Ok(t) = std::fs::read_to_string(format!("/proc/{pid}/smaps")) else {
        return out;
    };
    let mut name = String::new();
    for line in t.lines() {
        if let Some(mapping) = Mapping::parse(line) {
            name = if mapping.path.is_empty() {
                // Unnamed regions by their size: allocators' arenas are told apart by it.
                format!("[anon {} kB]", mapping.size() / 1024)
            } else {
                mapping.path
            };
            continue;
        }
        let mut fields = line.split_whitespace();
        let first = fields.next().unwrap_or("");
        if first == "Pss:" || first == "Anonymous:" {
            let kb: u64 = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            let e = out.entry(name.clone()).or_default();
            if first == "Pss:" {
                e.0 += kb;
            } else {
                e.1 += kb;
            }
        }
    }
    out
}
