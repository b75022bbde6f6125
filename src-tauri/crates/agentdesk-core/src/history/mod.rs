//! Importing the engines' own histories (issue 22): every session a terminal ran, in the
//! workspace whose folder it ran in, recorded with the same timeline reducer as a run here so
//! it renders, searches and continues like one. The engines' files are only read.
//!
//! A scan is incremental: each file's last read is remembered (identity, size, mtime, how far
//! it was read, where its last turn began). An unchanged file is not opened; a grown one is
//! read from its last turn on (that turn may have gone on) and that turn's run replaced; a
//! replaced or shrunk one is read again whole. Each file's turns are written in one
//! transaction with its new position (see `agentdesk_store::history`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use agentdesk_engine::history::{HistoryFile, HistoryRead, HistorySource, HistoryTurn, Stamp};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{ProfileId, RunId, SessionId};
use agentdesk_protocol::ui::{
    FolderCount, ImportProgress, ImportReport, Run, RunStatus, Session, SessionOrigin,
    SourceReport, Workspace,
};
use agentdesk_store::{now_ms, HistoryFileState, HistoryImport, ImportedTurn, Store};

use crate::pipeline::RunUpdate;
use crate::timeline::RunReducer;
use crate::{CoreError, Desk, Result};

/// A title longer than this is cut (the first prompt of a session can be pages).
const TITLE_CHARS: usize = 80;

mod shown;
mod watch;

use shown::UNFINISHED;
pub use watch::HistoryWatch;

/// History sources, each an engine's history on this machine.
pub type Sources = Vec<Arc<dyn HistorySource>>;

/// The desk's side of the histories.
#[derive(Debug, Default)]
pub(crate) struct Histories {
    /// The sources chosen instead of the engines' own folders.
    chosen: std::sync::Mutex<Option<Sources>>,
    /// One import at a time (the window's watch, a re-scan, the end of a run here): two
    /// would read the same entry and write its session twice.
    importing: tokio::sync::Mutex<()>,
}

/// What an import looks at and whether it writes.
#[derive(Debug, Default)]
pub struct ImportOptions {
    pub sources: Vec<Arc<dyn HistorySource>>,
    /// Count what would be imported; write nothing.
    pub dry_run: bool,
}

/// The workspace a session's folder belongs to (the folder itself, as stored).
fn workspace_for<'a>(workspaces: &'a [Workspace], cwd: &Path) -> Option<&'a Workspace> {
    let canonical = agentdesk_store::canonical::canonicalize(cwd).unwrap_or(cwd.to_path_buf());
    workspaces
        .iter()
        // This machine's histories are of this machine's folders.
        .filter(|w| w.host.is_none())
        .find(|w| Path::new(&w.path) == canonical || Path::new(&w.path) == cwd)
}

fn title_of(read: &HistoryRead, first_prompt: Option<&str>) -> String {
    let raw = read
        .title
        .as_deref()
        .or(first_prompt)
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let mut title: String = raw.chars().take(TITLE_CHARS).collect();
    if raw.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

/// One turn as a run of the session, its items made by the run reducer.
fn turn_to_run(session: &Session, seq: i64, turn: &HistoryTurn, last: bool) -> ImportedTurn {
    let run_id = RunId::new();
    let started = turn.started_at.unwrap_or(session.created_at);
    let ended = turn.ended_at.unwrap_or(started);
    let mut reducer = RunReducer::with_clock(&session.id, &run_id, Box::new(move || started));
    let mut usage = None;
    for ev in &turn.events {
        if let AgentEvent::Usage(u) = ev {
            usage = Some(*u);
        }
        reducer.apply(ev);
    }
    // A turn the file has not finished is being written (a terminal drives it) or was cut
    // off; only the last one can be the former, and the next scan reads it again.
    let (status, stop_reason) = if turn.complete {
        (RunStatus::Completed, Some("end_turn".to_owned()))
    } else if last {
        (RunStatus::Interrupted, Some(UNFINISHED.to_owned()))
    } else {
        (RunStatus::Interrupted, None)
    };
    ImportedTurn {
        run: Run {
            id: run_id,
            session_id: session.id.clone(),
            seq,
            status,
            prompt: turn.prompt.clone(),
            profile_id: session.profile_id.clone(),
            model: None,
            stop_reason,
            error: None,
            created_at: started,
            started_at: Some(started),
            ended_at: Some(ended),
        },
        items: reducer.items().to_vec(),
        usage,
    }
}

impl Desk {
    /// Scan the sources and import what is new; `progress` hears each file done.
    pub async fn import_histories(
        &self,
        opts: &ImportOptions,
        progress: &(dyn Fn(ImportProgress) + Send + Sync),
    ) -> Result<ImportReport> {
        let _one = self.history.importing.lock().await;
        let workspaces = self.store.list_workspaces().await?;
        let (mut found, mut reports) = discover(&opts.sources).await;
        let known: HashMap<String, HistoryFileState> = self
            .store
            .history_files()
            .await?
            .into_iter()
            .map(|s| (s.path.clone(), s))
            .collect();
        // Reading (parsing, on the blocking pool or in the engine) runs ahead of writing (on
        // the database's thread), a couple of entries at most: the two overlap on two cores,
        // and memory holds only those entries' turns.
        let (tx, mut rx) = tokio::sync::mpsc::channel(READ_AHEAD);
        // Entries of sessions started here are the app's own (a Claude run here writes its
        // transcript where the terminal's go): never imported.
        let app_owned = self.store.app_engine_session_ids().await?;
        found.retain(|(_, f)| {
            f.session_id
                .as_ref()
                .is_none_or(|id| !app_owned.contains(id))
        });
        let total = found.len() as u64;
        let reader = tokio::spawn(read_ahead(opts.sources.clone(), found, known, tx));
        let mut without: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); reports.len()];
        let mut done = 0;
        while let Some(entry) = rx.recv().await {
            let i = entry.source;
            let running_here = self.sessions_running_here();
            let scan = FileScan {
                store: &self.store,
                running_here: &running_here,
                source: &opts.sources[i],
                workspaces: &workspaces,
                dry_run: opts.dry_run,
            };
            let path = entry.file.path.display().to_string();
            let continued = entry.continued;
            match scan.run(entry).await {
                Ok(outcome) => {
                    if let Outcome::Imported {
                        session: Some(id), ..
                    } = &outcome
                    {
                        let session_id = id.clone();
                        self.pipeline.publish(RunUpdate::Imported { session_id });
                    }
                    outcome.count(&mut reports[i], &mut without[i], continued)
                }
                Err(e) => {
                    tracing::warn!(%path, error = %e, "history file not imported");
                    reports[i].unreadable += 1;
                }
            }
            if !continued {
                done += 1;
                progress(ImportProgress { done, total });
            }
        }
        reader
            .await
            .map_err(|e| CoreError::Internal(format!("the history reader stopped: {e}")))?;
        for (report, folders) in reports.iter_mut().zip(without) {
            report.without_workspace = folders
                .into_iter()
                .map(|(folder, sessions)| FolderCount { folder, sessions })
                .collect();
        }
        Ok(ImportReport {
            dry_run: opts.dry_run,
            sources: reports,
        })
    }
}

impl Desk {
    /// A run of the app on an imported session ended: the engine wrote its turn to its own
    /// history too, which the next scan must not import a second time. The entry is marked
    /// read to its current end, the next turn after this run.
    pub(crate) async fn after_app_run(&self, run: &Run) -> Result<()> {
        let Some(mut state) = self.store.history_file_of_session(&run.session_id).await? else {
            return Ok(());
        };
        // Not while a scan reads the entry (it skips this session while the run is on).
        let _one = self.history.importing.lock().await;
        let sources = self.history_sources().await;
        let Some(source) = sources.iter().find(|s| s.origin() == state.origin) else {
            return Ok(());
        };
        let Ok((stamp, end)) = source.end_of(Path::new(&state.path)).await else {
            return Ok(());
        };
        let end = i64::try_from(end).unwrap_or(i64::MAX);
        state.file_id = stamp.id;
        state.size = stamp.size;
        state.mtime_ms = stamp.mtime_ms;
        state.read_to = end;
        state.turn_at = end;
        state.turn_seq = run.seq + 1;
        state.updated_at = now_ms();
        self.store.set_history_file(&state).await?;
        Ok(())
    }

    /// Read these sources instead of the engines' own folders (a data dir of its own, a
    /// test's engine homes).
    pub fn use_history_sources(&self, sources: Sources) {
        *agentdesk_protocol::sync::lock(&self.history.chosen) = Some(sources);
    }

    /// This machine's history sources: Claude Code's transcripts (files, always), and the
    /// sources of the engines that read theirs through the engine (Codex's threads, when
    /// its executable is found); or the ones [`Desk::use_history_sources`] chose.
    pub async fn history_sources(&self) -> Sources {
        if let Some(chosen) = agentdesk_protocol::sync::lock(&self.history.chosen).clone() {
            return chosen;
        }
        let mut engines = Vec::new();
        for engine in agentdesk_protocol::ui::Engine::ALL {
            if let Ok(e) = self.engine(*engine).await {
                engines.push(e);
            }
        }
        agentdesk_engine::history::sources(&|k| std::env::var_os(k), &engines)
    }
}

/// Every source's entries (each with its source's index), and a report per source counting
/// them (a source that cannot be listed counts one unreadable place).
async fn discover(sources: &Sources) -> (Vec<(usize, HistoryFile)>, Vec<SourceReport>) {
    let mut found = Vec::new();
    let mut reports = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let (files, unreadable) = match source.discover().await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(folder = %source.folder().display(), error = %e, "history not listed");
                (Vec::new(), 1)
            }
        };
        reports.push(SourceReport {
            origin: source.origin(),
            folder: source.folder().display().to_string(),
            files: files.len() as u64,
            unreadable,
            ..SourceReport::default()
        });
        found.extend(files.into_iter().map(|f| (i, f)));
    }
    (found, reports)
}

/// What scanning one file did.
enum Outcome {
    Unchanged,
    /// Its folder is not a workspace.
    NoWorkspace(String),
    /// Nothing to import yet (no prompt).
    Empty {
        skipped: u64,
    },
    Imported {
        /// The session written (`None` on a dry run).
        session: Option<SessionId>,
        added: bool,
        turns: u64,
        skipped: u64,
    },
}

impl Outcome {
    /// Count what a read did (`continued`: a later part of an entry, whose session and file
    /// were counted with its first part).
    fn count(self, r: &mut SourceReport, without: &mut BTreeMap<String, u64>, continued: bool) {
        if continued {
            match self {
                Outcome::Imported { turns, skipped, .. } => {
                    r.turns += turns;
                    r.skipped += skipped;
                }
                Outcome::Empty { skipped } => r.skipped += skipped,
                Outcome::Unchanged | Outcome::NoWorkspace(_) => {}
            }
            return;
        }
        match self {
            Outcome::Unchanged => r.unchanged += 1,
            Outcome::NoWorkspace(folder) => *without.entry(folder).or_default() += 1,
            Outcome::Empty { skipped } => r.skipped += skipped,
            Outcome::Imported {
                added,
                turns,
                skipped,
                ..
            } => {
                if added {
                    r.sessions_added += 1;
                } else {
                    r.sessions_updated += 1;
                }
                r.turns += turns;
                r.skipped += skipped;
            }
        }
    }
}

/// Where to read an entry from (position, and the seq its first turn read gets); `None`
/// when it has not changed since its last read. Grown: from the last turn on, replacing
/// its run. Replaced (another identity, or smaller) or new: from the start.
fn where_to_read(state: Option<&HistoryFileState>, now: &Stamp) -> Option<(i64, i64)> {
    let same = state.filter(|s| s.file_id == now.id && now.size >= s.size);
    match same {
        Some(s) if s.size == now.size && s.mtime_ms == now.mtime_ms => None,
        Some(s) if s.session_id.is_some() => Some((s.turn_at, s.turn_seq)),
        _ => Some((0, 1)),
    }
}

/// How many read entries may wait for their write.
const READ_AHEAD: usize = 2;

/// An entry as the reader hands it to the writer.
struct Entry {
    /// Its source's index in the import's sources.
    source: usize,
    file: HistoryFile,
    /// Lines its earlier reads skipped.
    prior_skipped: i64,
    /// What was read (the seq its first turn gets, and the read); `None`: unchanged.
    read: Option<(i64, std::io::Result<HistoryRead>)>,
    /// A later part of an entry read in parts (see `HistoryRead::more`): its session and the
    /// file are counted with its first part.
    continued: bool,
}

/// Read the entries that changed since their last read (every entry's last read comes from
/// one query, not one per entry: an unchanged re-scan touches the database once) and hand
/// them on in order; stops when the writer is gone.
async fn read_ahead(
    sources: Vec<Arc<dyn HistorySource>>,
    found: Vec<(usize, HistoryFile)>,
    known: HashMap<String, HistoryFileState>,
    tx: tokio::sync::mpsc::Sender<Entry>,
) {
    for (source, file) in found {
        let state = known.get(&file.path.display().to_string());
        let mut prior_skipped = state.map_or(0, |s| s.skipped);
        let Some((from, mut from_seq)) = where_to_read(state, &file.stamp) else {
            let entry = Entry {
                source,
                file,
                prior_skipped,
                read: None,
                continued: false,
            };
            if tx.send(entry).await.is_err() {
                return;
            }
            continue;
        };
        // A part at a time: each is written before memory holds more than a couple.
        let mut at = u64::try_from(from).unwrap_or(0);
        let mut continued = false;
        loop {
            let read = sources[source].read(&file, at).await;
            let next = match &read {
                Ok(r) if r.more => Some((r.read_to, r.turns.len() as i64, r.skipped)),
                _ => None,
            };
            let entry = Entry {
                source,
                file: file.clone(),
                prior_skipped,
                read: Some((from_seq, read)),
                continued,
            };
            if tx.send(entry).await.is_err() {
                return;
            }
            let Some((read_to, turns, skipped)) = next else {
                break;
            };
            (at, continued) = (read_to, true);
            from_seq += turns;
            prior_skipped += skipped as i64;
        }
    }
}

struct FileScan<'a> {
    store: &'a Store,
    /// Sessions a run of this process is on now.
    running_here: &'a HashSet<SessionId>,
    source: &'a Arc<dyn HistorySource>,
    workspaces: &'a [Workspace],
    dry_run: bool,
}

impl FileScan<'_> {
    async fn run(&self, entry: Entry) -> Result<Outcome> {
        let Entry {
            file,
            prior_skipped,
            read,
            ..
        } = entry;
        let key = file.path.display().to_string();
        let now = &file.stamp;
        let Some((from_seq, read)) = read else {
            return Ok(Outcome::Unchanged);
        };
        let read = read.map_err(|e| CoreError::InvalidInput(format!("cannot read {key}: {e}")))?;
        let Some(cwd) = read.cwd.clone() else {
            return Ok(Outcome::Empty {
                skipped: read.skipped,
            });
        };
        let Some(ws) = workspace_for(self.workspaces, &cwd) else {
            return Ok(Outcome::NoWorkspace(cwd.display().to_string()));
        };
        let (Some(engine_sid), false) = (read.session_id.clone(), read.turns.is_empty()) else {
            return Ok(Outcome::Empty {
                skipped: read.skipped,
            });
        };
        let existing = match self
            .store
            .session_of_engine_session(self.source.engine(), &engine_sid)
            .await?
        {
            // Started here after the scan began.
            Some((_, SessionOrigin::App)) => return Ok(Outcome::Unchanged),
            // A run here goes on with it and writes to the same history: once it ends, the
            // entry is marked read to its end (`after_app_run`).
            Some((id, _)) if self.running_here.contains(&id) => return Ok(Outcome::Unchanged),
            found => found.map(|(id, _)| id),
        };
        let added = existing.is_none();
        let turns = read.turns.len() as u64;
        if self.dry_run {
            return Ok(Outcome::Imported {
                session: None,
                added,
                turns,
                skipped: read.skipped,
            });
        }
        let session = self.session(existing, ws, &engine_sid, &read).await?;
        let last = read.turns.len() - 1;
        let runs: Vec<ImportedTurn> = read
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| turn_to_run(&session, from_seq + i as i64, t, i == last))
            .collect();
        let file = self.read_state(key, now, &read, from_seq, prior_skipped, &session.id);
        self.store
            .import_history(&HistoryImport {
                session: &session,
                replace_from_seq: from_seq,
                turns: &runs,
                file: &file,
            })
            .await?;
        Ok(Outcome::Imported {
            session: Some(session.id),
            added,
            turns,
            skipped: read.skipped,
        })
    }

    /// Where the entry stands after this read: its stamp, how far it was read, where its last
    /// turn began and that turn's seq (a next read starts there).
    fn read_state(
        &self,
        path: String,
        now: &Stamp,
        read: &HistoryRead,
        from_seq: i64,
        prior_skipped: i64,
        session_id: &SessionId,
    ) -> HistoryFileState {
        let last = read.turns.len().saturating_sub(1);
        HistoryFileState {
            path,
            origin: self.source.origin(),
            session_id: Some(session_id.clone()),
            file_id: now.id.clone(),
            size: now.size,
            mtime_ms: now.mtime_ms,
            read_to: i64::try_from(read.read_to).unwrap_or(i64::MAX),
            turn_at: read
                .turns
                .get(last)
                .map_or(0, |t| i64::try_from(t.at).unwrap_or(i64::MAX)),
            turn_seq: from_seq + last as i64,
            skipped: prior_skipped + read.skipped as i64,
            updated_at: now_ms(),
        }
    }

    /// The session the file's turns go to: the one imported before, or a new one in `ws`
    /// with the workspace's profile for the engine (default first).
    async fn session(
        &self,
        existing: Option<SessionId>,
        ws: &Workspace,
        engine_sid: &str,
        read: &HistoryRead,
    ) -> Result<Session> {
        let first_prompt = read.turns.first().map(|t| t.prompt.as_str());
        let updated = read
            .turns
            .iter()
            .filter_map(|t| t.ended_at.or(t.started_at))
            .max()
            .unwrap_or_else(now_ms);
        if let Some(id) = existing {
            let mut s = self.store.get_session(&id).await?;
            if read.title.is_some() {
                s.title = title_of(read, None);
            }
            s.updated_at = updated;
            return Ok(s);
        }
        let created = read
            .turns
            .first()
            .and_then(|t| t.started_at)
            .unwrap_or(updated);
        let title = title_of(read, first_prompt);
        Ok(Session {
            profile_id: self.profile_for(ws).await?,
            engine_session_id: Some(engine_sid.to_owned()),
            origin: self.source.origin(),
            updated_at: updated,
            ..Session::begun(
                SessionId::new(),
                ws.id.clone(),
                self.source.engine(),
                title,
                created,
            )
        })
    }

    async fn profile_for(&self, ws: &Workspace) -> Result<Option<ProfileId>> {
        let engine = self.source.engine();
        if let Some(p) = self.store.default_profile(&ws.id).await? {
            if p.spec.engine == engine {
                return Ok(Some(p.id));
            }
        }
        let profiles = self.store.list_profiles(&ws.id).await?;
        Ok(profiles
            .into_iter()
            .find(|p| p.spec.engine == engine)
            .map(|p| p.id))
    }
}

#[cfg(test)]
mod tests;
