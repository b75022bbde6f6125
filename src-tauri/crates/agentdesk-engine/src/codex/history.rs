//! The Codex CLI's threads (`codex`, `codex exec`, the IDE extension), read through `codex
//! app-server`, the engine's own API, not its file layout: `thread/list` finds them,
//! `thread/turns/list` pages through a thread's turns with every item, which the run
//! translator turns into the same canonical events as a live run. A position is a turn's
//! index in its thread.
//!
//! A thread's stamp is its rollout file's (the listing names it), which grows with every
//! event: `updatedAt` has a one-second grain, and a turn ending within the second of a scan
//! would be missed by it.

use std::path::{Path, PathBuf};

use agentdesk_protocol::codex::requests::{ThreadList, ThreadTurnsList};
use agentdesk_protocol::codex::{
    SortDirection, Thread, ThreadItem, ThreadListParams, ThreadTurnsListParams, Turn, TurnStatus,
    UserInput, TERMINAL_SOURCES,
};
use agentdesk_protocol::events::{AgentEvent, DiagnosticSource};
use agentdesk_protocol::ui::{Engine, SessionOrigin};

use super::translate::{diagnostic, TurnTranslator};
use super::{CodexEngine, CodexProfile};
use crate::error::EngineError;
use crate::history::{
    HistoryFile, HistoryFuture, HistoryRead, HistorySource, HistoryTurn, Stamp, TURNS_PER_READ,
};
use crate::rpc::RpcPeer;

/// Threads and turns asked for at once: a page of a long thread stays small.
const PAGE: u32 = 50;

/// The threads of one Codex home.
#[derive(Debug, Clone)]
pub struct CodexHistory {
    engine: CodexEngine,
    home: PathBuf,
}

impl CodexHistory {
    /// `engine` runs the app-server that lists and reads `home`'s threads (the same resident
    /// process as the runs of that home).
    pub fn new(engine: CodexEngine, home: PathBuf) -> Self {
        Self { engine, home }
    }

    async fn peer(&self) -> Result<RpcPeer, EngineError> {
        let key = CodexProfile::default().server_key(Some(self.home.clone()));
        self.engine.server(key).peer().await
    }

    async fn list(&self) -> Result<Vec<Thread>, EngineError> {
        let peer = self.peer().await?;
        let mut threads = Vec::new();
        let mut cursor = None;
        loop {
            let page = peer
                .call::<ThreadList>(&ThreadListParams {
                    cursor: cursor.take(),
                    limit: Some(PAGE),
                    model_providers: Some(Vec::new()),
                    source_kinds: Some(TERMINAL_SOURCES.map(String::from).to_vec()),
                    archived: None,
                })
                .await?;
            let last = page.data.is_empty();
            threads.extend(page.data);
            match page.next_cursor {
                Some(next) if !last => cursor = Some(next),
                _ => return Ok(threads),
            }
        }
    }

    /// Every turn of `thread_id`, oldest first, a page at a time, each handed to `f` with its
    /// index until `f` says stop (`false`); the count of the turns handed (all of them,
    /// unless stopped). Pages holding a turn from index `full_from` on come with
    /// every item, earlier ones without (a re-read of a long thread's last turn does not fetch
    /// the whole thread's items again).
    async fn turns(
        &self,
        thread_id: &str,
        full_from: u64,
        mut f: impl FnMut(u64, Turn) -> bool,
    ) -> Result<u64, EngineError> {
        let peer = self.peer().await?;
        let mut index = 0u64;
        let mut cursor = None;
        loop {
            let page = peer
                .call::<ThreadTurnsList>(&ThreadTurnsListParams {
                    thread_id: thread_id.to_owned(),
                    cursor: cursor.take(),
                    limit: Some(PAGE),
                    sort_direction: Some(SortDirection::Asc),
                    items_view: Some(
                        if index + u64::from(PAGE) > full_from {
                            "full"
                        } else {
                            "notLoaded"
                        }
                        .to_owned(),
                    ),
                })
                .await?;
            let last = page.data.is_empty();
            for turn in page.data {
                let go_on = f(index, turn);
                index += 1;
                if !go_on {
                    return Ok(index);
                }
            }
            match page.next_cursor {
                Some(next) if !last => cursor = Some(next),
                _ => return Ok(index),
            }
        }
    }
}

fn io(e: EngineError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// The rollout file's stamp when there is one (the thread's id stands for the file's: a
/// rollout keeps its thread), else the thread's own time.
fn stamp_of(thread: &Thread) -> Stamp {
    let file = thread
        .path
        .as_deref()
        .and_then(|p| Stamp::of_file(Path::new(p)).ok());
    match file {
        Some(s) => Stamp {
            id: thread.id.clone(),
            ..s
        },
        None => Stamp {
            id: thread.id.clone(),
            size: 0,
            mtime_ms: thread.updated_at.unwrap_or(0).saturating_mul(1000),
        },
    }
}

fn entry(thread: Thread) -> HistoryFile {
    let stamp = stamp_of(&thread);
    let path = thread.path.map_or_else(
        || PathBuf::from(format!("codex-thread:{}", thread.id)),
        PathBuf::from,
    );
    HistoryFile {
        origin: SessionOrigin::CodexCli,
        path,
        session_id: Some(thread.id),
        cwd: thread.cwd.map(PathBuf::from),
        title: thread.name.filter(|n| !n.trim().is_empty()),
        stamp,
    }
}

/// The user's words of a turn: its first user message (later ones steered it and are kept as
/// notices). An image is named by its file.
fn prompt_of(content: &[UserInput]) -> String {
    let parts: Vec<String> = content
        .iter()
        .filter_map(|c| match c {
            UserInput::Text { text, .. } => Some(text.clone()),
            UserInput::LocalImage { path, .. } => Some(format!("[image: {path}]")),
            UserInput::Image { .. } => Some("[image]".to_owned()),
            // The text names it (`$name`).
            UserInput::Skill { .. } | UserInput::Unknown(_) => None,
        })
        .collect();
    parts.join("\n\n")
}

/// Whether the turn may still be going on: in progress, or — as the app-server reports a turn
/// another process (a terminal) is answering — "interrupted" with no end time (seen with
/// 0.169; a turn stopped for real has one).
fn goes_on(turn: &Turn) -> bool {
    match turn.status {
        TurnStatus::InProgress => true,
        TurnStatus::Interrupted => turn.completed_at.is_none(),
        _ => false,
    }
}

/// One turn as the canonical events of a run: its items as completed ones (no terminal
/// event: the core ends the run from `complete`).
fn history_turn(index: u64, turn: Turn) -> HistoryTurn {
    let complete = !goes_on(&turn);
    let mut translator = TurnTranslator::new(None);
    translator.set_turn_id(turn.id.clone());
    let mut events: Vec<AgentEvent> = Vec::new();
    let mut prompt = None;
    for item in turn.items {
        match item {
            ThreadItem::UserMessage(m) if prompt.is_none() => prompt = Some(prompt_of(&m.content)),
            ThreadItem::UserMessage(m) => events.push(diagnostic(
                DiagnosticSource::Notice,
                format!("The user added: {}", prompt_of(&m.content)),
                None,
            )),
            item => translator.replay_item(item, &mut events),
        }
    }
    if let Some(e) = turn.error.filter(|_| turn.status == TurnStatus::Failed) {
        events.push(diagnostic(
            DiagnosticSource::Warning,
            format!("The turn failed: {}", e.message),
            None,
        ));
    }
    let ms = |s: Option<i64>| s.map(|s| s.saturating_mul(1000));
    HistoryTurn {
        at: index,
        prompt: prompt.unwrap_or_default(),
        started_at: ms(turn.started_at),
        ended_at: ms(turn.completed_at),
        complete,
        events,
    }
}

impl HistorySource for CodexHistory {
    fn origin(&self) -> SessionOrigin {
        SessionOrigin::CodexCli
    }

    fn engine(&self) -> Engine {
        Engine::Codex
    }

    fn folder(&self) -> &Path {
        &self.home
    }

    /// The CLI writes each thread's rollout under `sessions/<year>/<month>/<day>/` as it goes.
    fn watched(&self) -> PathBuf {
        self.home.join("sessions")
    }

    fn discover(&self) -> HistoryFuture<'_, std::io::Result<(Vec<HistoryFile>, u64)>> {
        Box::pin(async move {
            // No thread was ever written here: no app-server is started to say so.
            let sessions = self.watched();
            if !crate::history::blocking(move || Ok(sessions.is_dir())).await? {
                return Ok((Vec::new(), 0));
            }
            let threads = self.list().await.map_err(io)?;
            // A stat per rollout file: off the async threads.
            let files = crate::history::blocking(move || {
                Ok(threads.into_iter().map(entry).collect::<Vec<_>>())
            })
            .await?;
            Ok((files, 0))
        })
    }

    fn read<'a>(
        &'a self,
        entry: &'a HistoryFile,
        from: u64,
    ) -> HistoryFuture<'a, std::io::Result<HistoryRead>> {
        Box::pin(async move {
            let thread_id = entry.session_id.clone().unwrap_or_default();
            let mut turns = Vec::new();
            let mut more = false;
            let read_to = self
                .turns(&thread_id, from, |i, turn| {
                    if i >= from {
                        turns.push(history_turn(i, turn));
                    }
                    // A long thread is read and written a part at a time.
                    more = turns.len() >= TURNS_PER_READ;
                    !more
                })
                .await
                .map_err(io)?;
            // Turns without a prompt (a thread opened and left) are not runs.
            turns.retain(|t| !t.prompt.is_empty() || !t.events.is_empty());
            Ok(HistoryRead {
                origin: SessionOrigin::CodexCli,
                session_id: Some(thread_id),
                cwd: entry.cwd.clone(),
                title: entry.title.clone(),
                turns,
                read_to,
                skipped: 0,
                version: None,
                more,
            })
        })
    }

    fn end_of<'a>(&'a self, path: &'a Path) -> HistoryFuture<'a, std::io::Result<(Stamp, u64)>> {
        Box::pin(async move {
            let thread_id = thread_id_of(path).ok_or_else(|| {
                std::io::Error::other(format!("no thread id in {}", path.display()))
            })?;
            let total = self
                .turns(&thread_id, u64::MAX, |_, _| true)
                .await
                .map_err(io)?;
            let file = path.to_path_buf();
            let stamp = crate::history::blocking(move || Stamp::of_file(&file))
                .await
                .unwrap_or_default();
            Ok((
                Stamp {
                    id: thread_id,
                    ..stamp
                },
                total,
            ))
        })
    }
}

/// The thread a stored key names: `codex-thread:<id>`, or a rollout file
/// `rollout-<time>-<id>.jsonl` (a thread id is a UUID: its last 36 characters).
fn thread_id_of(path: &Path) -> Option<String> {
    let text = path.to_string_lossy();
    if let Some(id) = text.strip_prefix("codex-thread:") {
        return Some(id.to_owned());
    }
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    (id.len() == 36 && id.chars().filter(|c| *c == '-').count() == 4).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollout_file_names_its_thread() {
        let p = Path::new(
            "/h/.codex/sessions/2026/12/02/rollout-2026-12-02T07-57-06-01a235c1-dbf0-7b30-ade7-ebf6e2d023b2.jsonl",
        );
        assert_eq!(
            thread_id_of(p).as_deref(),
            Some("01a235c1-dbf0-7b30-ade7-ebf6e2d023b2")
        );
        assert_eq!(
            thread_id_of(Path::new("codex-thread:abc")).as_deref(),
            Some("abc")
        );
        assert_eq!(thread_id_of(Path::new("/x/short.jsonl")), None);
    }
}
