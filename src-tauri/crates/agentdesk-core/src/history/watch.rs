//! Keeping the engines' histories current while the app runs: the first import in the
//! background (its progress in the window), then every source's folder watched (the `notify`
//! crate: inotify, FSEvents, ReadDirectoryChangesW) and scanned again a moment after it
//! changes, so a session a terminal is writing appears, and grows, within a couple of
//! seconds. A scan reads only what changed (see the module above), so scanning on every
//! burst of writes costs a few stats.
//!
//! A folder that cannot be watched (it does not exist yet, the platform refuses) is scanned
//! every [`POLL`] instead, and watched as soon as it can be. One task does all of this; the
//! [`HistoryWatch`] that owns it stops it (and its watchers) when dropped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_protocol::ui::{HistorySourceInfo, HistoryStatus, SessionOrigin};
use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::{ImportOptions, Sources};
use crate::Desk;

/// How long changes gather before a scan: a terminal writes a turn as a burst of lines.
const SETTLE: Duration = Duration::from_millis(250);
/// While an import runs, the window re-reads its lists this often (its sessions appear as
/// they are written).
const LISTS_EVERY: Duration = Duration::from_secs(2);
/// A source whose folder is not watched is scanned this often.
const POLL: Duration = Duration::from_secs(30);

/// Why the watch task woke.
#[derive(Debug)]
enum Wake {
    /// A watched folder changed.
    Changed(SessionOrigin),
    /// The folder a source waits for (or one of its parents) changed: watch it again.
    Appeared(SessionOrigin),
    /// The user asked for a scan.
    Rescan,
    /// The sources or their settings changed: list them again, scan every one.
    Sources,
}

/// The app's watch over the engines' histories. Dropping it stops the watching.
pub struct HistoryWatch {
    status: watch::Receiver<HistoryStatus>,
    wake: mpsc::UnboundedSender<Wake>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HistoryWatch {
    fn drop(&mut self) {
        // The task owns the watchers: they stop with it.
        self.task.abort();
    }
}

impl HistoryWatch {
    /// Where it stands now and on every change.
    pub fn status(&self) -> watch::Receiver<HistoryStatus> {
        self.status.clone()
    }

    /// Scan every source now (only what changed is read).
    pub fn rescan(&self) {
        let _ = self.wake.send(Wake::Rescan);
    }

    /// Stop watching now (the app is closing); dropping it does the same.
    pub fn stop(&self) {
        self.task.abort();
    }

    /// The sources or which of them are on changed: list them again and scan.
    pub fn sources_changed(&self) {
        let _ = self.wake.send(Wake::Sources);
    }
}

impl Desk {
    /// Import the histories in the background now, then keep them current until the watch
    /// is dropped.
    pub fn watch_histories(&self) -> HistoryWatch {
        let (status_tx, status) = watch::channel(HistoryStatus::default());
        let (wake, wake_rx) = mpsc::unbounded_channel();
        let looper = WatchLoop {
            desk: self.clone(),
            status: status_tx,
            wake: wake.clone(),
            watchers: HashMap::new(),
            sources: Vec::new(),
            off: Vec::new(),
        };
        let task = tokio::spawn(looper.run(wake_rx));
        HistoryWatch { status, wake, task }
    }
}

/// A source's folder as it is watched now.
struct Watching {
    /// Dropping it stops the watch.
    _watcher: RecommendedWatcher,
    /// The source's own folder is watched (else a parent, until it exists).
    whole: bool,
}

struct WatchLoop {
    desk: Desk,
    status: watch::Sender<HistoryStatus>,
    wake: mpsc::UnboundedSender<Wake>,
    watchers: HashMap<SessionOrigin, Watching>,
    /// The sources on.
    sources: Sources,
    /// The sources turned off, with their folders (Settings lists them).
    off: Vec<(SessionOrigin, String)>,
}

impl WatchLoop {
    async fn run(mut self, mut wake_rx: mpsc::UnboundedReceiver<Wake>) {
        let mut dirty = HashSet::new();
        let mut refresh = true;
        let mut last_poll = Instant::now();
        loop {
            if refresh {
                self.list_sources().await;
                dirty.extend(self.sources.iter().map(|s| s.origin()));
                refresh = false;
            }
            if last_poll.elapsed() >= POLL {
                last_poll = Instant::now();
                dirty.extend(self.unwatched());
            }
            if !dirty.is_empty() {
                self.scan(std::mem::take(&mut dirty)).await;
            }
            let first = tokio::select! {
                w = wake_rx.recv() => match w {
                    Some(w) => Some(w),
                    None => return,
                },
                _ = tokio::time::sleep_until(last_poll + POLL) => None,
            };
            // Let a burst of writes settle into one scan.
            let mut woken: Vec<Wake> = first.into_iter().collect();
            if !woken.is_empty() {
                let until = Instant::now() + SETTLE;
                while let Ok(Some(w)) = tokio::time::timeout_at(until, wake_rx.recv()).await {
                    woken.push(w);
                }
            }
            for w in woken {
                match w {
                    Wake::Changed(origin) => {
                        dirty.insert(origin);
                    }
                    Wake::Appeared(origin) => {
                        self.watchers.remove(&origin);
                        self.watch_all();
                        dirty.insert(origin);
                    }
                    Wake::Rescan => dirty.extend(self.sources.iter().map(|s| s.origin())),
                    Wake::Sources => refresh = true,
                }
            }
        }
    }

    /// The sources on now, each watched; every source listed (the ones turned off too).
    async fn list_sources(&mut self) {
        let hidden = self
            .desk
            .history_settings()
            .await
            .unwrap_or_default()
            .hidden;
        let all = self.desk.history_sources().await;
        self.off = all
            .iter()
            .filter(|s| hidden.contains(&s.origin()))
            .map(|s| (s.origin(), s.folder().display().to_string()))
            .collect();
        self.sources = all
            .into_iter()
            .filter(|s| !hidden.contains(&s.origin()))
            .collect();
        let on: Vec<SessionOrigin> = self.sources.iter().map(|s| s.origin()).collect();
        self.watchers.retain(|o, _| on.contains(o));
        self.watch_all();
    }

    /// Watch every source not yet watched as a whole; publish which are.
    fn watch_all(&mut self) {
        for source in &self.sources {
            let origin = source.origin();
            if self.watchers.get(&origin).is_some_and(|w| w.whole) {
                continue;
            }
            match watch_folder(origin, &source.watched(), self.wake.clone()) {
                Ok(w) => {
                    self.watchers.insert(origin, w);
                }
                Err(e) => {
                    tracing::info!(folder = %source.watched().display(), error = %e, "history folder not watched; polled");
                    self.watchers.remove(&origin);
                }
            }
        }
        let sources = self.source_infos();
        self.status.send_modify(|s| s.sources = sources);
    }

    fn source_infos(&self) -> Vec<HistorySourceInfo> {
        let on = self.sources.iter().map(|s| HistorySourceInfo {
            origin: s.origin(),
            folder: s.folder().display().to_string(),
            enabled: true,
            watching: self.watchers.get(&s.origin()).is_some_and(|w| w.whole),
        });
        let off = self.off.iter().map(|(origin, folder)| HistorySourceInfo {
            origin: *origin,
            folder: folder.clone(),
            enabled: false,
            watching: false,
        });
        on.chain(off).collect()
    }

    /// Sources whose own folder is not watched (polled instead).
    fn unwatched(&self) -> Vec<SessionOrigin> {
        self.sources
            .iter()
            .map(|s| s.origin())
            .filter(|o| !self.watchers.get(o).is_some_and(|w| w.whole))
            .collect()
    }

    async fn scan(&mut self, origins: HashSet<SessionOrigin>) {
        let sources: Sources = self
            .sources
            .iter()
            .filter(|s| origins.contains(&s.origin()))
            .cloned()
            .collect();
        if sources.is_empty() {
            return;
        }
        let opts = ImportOptions {
            sources,
            dry_run: false,
        };
        let status = self.status.clone();
        // A long import shows its sessions as they come: the lists are re-read every
        // [`LISTS_EVERY`] while it runs.
        let shown = std::sync::Mutex::new(Instant::now());
        let progress = move |p| {
            let mut shown = agentdesk_protocol::sync::lock(&shown);
            let again = shown.elapsed() >= LISTS_EVERY;
            if again {
                *shown = Instant::now();
            }
            status.send_modify(|s| {
                s.importing = Some(p);
                if again {
                    s.generation += 1;
                }
            });
        };
        let result = self.desk.import_histories(&opts, &progress).await;
        self.status.send_modify(|s| {
            s.importing = None;
            s.last_at = Some(agentdesk_store::now_ms());
            match result {
                Ok(report) => {
                    let changed = report
                        .sources
                        .iter()
                        .any(|r| r.sessions_added + r.sessions_updated > 0);
                    if changed {
                        s.generation += 1;
                    }
                    s.error = None;
                    s.last = Some(merge_reports(s.last.take(), report));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "history scan failed");
                    s.error = Some(e.to_string());
                }
            }
        });
    }
}

/// The last report of every source: a scan of some sources replaces only theirs.
fn merge_reports(
    last: Option<agentdesk_protocol::ui::ImportReport>,
    now: agentdesk_protocol::ui::ImportReport,
) -> agentdesk_protocol::ui::ImportReport {
    let mut merged = last.unwrap_or_default();
    for r in now.sources {
        match merged.sources.iter_mut().find(|m| m.origin == r.origin) {
            Some(m) => *m = r,
            None => merged.sources.push(r),
        }
    }
    merged
}

/// Changes that mean an entry was written (not read: the import's own reads must not wake it).
fn is_write(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(m)) => !matches!(m, MetadataKind::AccessTime),
        _ => true,
    }
}

/// Watch `folder` (recursively) for `origin`; when it does not exist yet, its nearest
/// existing parent (not recursively), which says when to try again.
fn watch_folder(
    origin: SessionOrigin,
    folder: &Path,
    wake: mpsc::UnboundedSender<Wake>,
) -> notify::Result<Watching> {
    let (target, whole) = match nearest_existing(folder) {
        Some(p) if p == folder => (p, true),
        Some(p) => (p, false),
        None => {
            return Err(notify::Error::path_not_found().add_path(folder.to_path_buf()));
        }
    };
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let wake_now = match &event {
            Ok(e) if !is_write(&e.kind) => None,
            Ok(_) if whole => Some(Wake::Changed(origin)),
            Ok(_) => Some(Wake::Appeared(origin)),
            // The platform lost events (an overflowed queue): scan to be sure.
            Err(_) => Some(Wake::Changed(origin)),
        };
        if let Some(w) = wake_now {
            let _ = wake.send(w);
        }
    })?;
    let mode = if whole {
        RecursiveMode::Recursive
    } else {
        RecursiveMode::NonRecursive
    };
    watcher.watch(&target, mode)?;
    Ok(Watching {
        _watcher: watcher,
        whole,
    })
}

fn nearest_existing(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .find(|p| p.is_dir())
        .map(Path::to_path_buf)
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
