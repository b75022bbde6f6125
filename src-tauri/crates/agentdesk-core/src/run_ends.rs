//! A run's end written outside the database, for when the database cannot take it.
//!
//! A disk filled by another program fails the run (see [`crate::run_faults`]) and then may
//! keep its row from being written at all: a process that exits before space returns (the
//! CLI, after its retry window) would leave the run `running`. So each run driven here has a
//! slot — `<data dir>/run-ends/<run id>`, a small file filled with spaces when the run starts,
//! while there is room — and a failed end that the database refuses is written *over* that
//! slot: rewriting blocks the file already has needs no free space. Whoever opens the data
//! directory next settles what the slots hold: the row ends `failed` with the reason.
//!
//! A slot is removed once its run's end is in the database. An empty slot (a run still
//! driven, or one whose process died before recording anything) is left to its process or
//! to start-up recovery.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use agentdesk_protocol::ids::RunId;
use agentdesk_protocol::ui::{ApprovalState, ItemStatus, RunStatus};
use agentdesk_store::{now_ms, RunEnd, Store, StoreError};
use serde::{Deserialize, Serialize};

use crate::ApprovalQueue;

const DIR: &str = "run-ends";
/// A slot's size: the end and a reason of a few hundred characters.
const SLOT_BYTES: usize = 1024;

#[derive(Debug, Serialize, Deserialize)]
struct RecordedEnd {
    error: String,
    at: i64,
}

fn slot(data_dir: &Path, run_id: &RunId) -> PathBuf {
    data_dir.join(DIR).join(run_id.to_string())
}

/// Make the run's slot while there is room (a full disk already: no slot, the run's own
/// retries and start-up recovery still apply).
pub(crate) async fn reserve(data_dir: &Path, run_id: &RunId) {
    let path = slot(data_dir, run_id);
    let made = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::File::create(&path)?;
        f.write_all(&[b' '; SLOT_BYTES])?;
        f.sync_all()
    })
    .await;
    if !matches!(made, Ok(Ok(()))) {
        tracing::warn!(%run_id, "no room for the run's end slot");
    }
}

/// The run's end is in the database: its slot goes.
pub(crate) async fn release(data_dir: &Path, run_id: &RunId) {
    let path = slot(data_dir, run_id);
    let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(path)).await;
}

/// The database refused the run's failed end: written over its slot (in place), for the
/// next opening of the data directory to settle.
pub(crate) async fn record_failed(data_dir: &Path, run_id: &RunId, reason: &str, at: i64) {
    let path = slot(data_dir, run_id);
    let mut error: String = reason.to_owned();
    let text = loop {
        let text = serde_json::to_vec(&RecordedEnd {
            error: error.clone(),
            at,
        })
        .unwrap_or_default();
        if text.len() <= SLOT_BYTES || error.is_empty() {
            break text;
        }
        // Cut the reason (on a character boundary) until it fits.
        let keep = error.chars().count().saturating_sub(32);
        error = error.chars().take(keep).collect();
    };
    let written = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new().write(true).open(&path)?;
        let mut padded = text;
        padded.resize(SLOT_BYTES, b' ');
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&padded)?;
        f.sync_all()
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        tracing::error!(%run_id, "the failed run's end could not be kept either; the next start marks it interrupted");
    }
}

/// Write the ends the slots hold into the database (each run still `running` ends `failed`
/// with its reason), and drop the slots of runs whose end the database has. Safe beside a
/// live process: a recorded end is final, and an empty slot is never touched.
pub(crate) async fn settle(data_dir: &Path, store: &Store, approvals: &ApprovalQueue) {
    let dir = data_dir.join(DIR);
    let listed = tokio::task::spawn_blocking(move || -> Vec<(String, Vec<u8>)> {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                let text = std::fs::read(e.path()).ok()?;
                Some((name, text))
            })
            .collect()
    })
    .await
    .unwrap_or_default();
    for (name, text) in listed {
        let run_id = RunId::from(name);
        let recorded: Option<RecordedEnd> = serde_json::from_slice(text.trim_ascii()).ok();
        let settled = match (store.get_run(&run_id).await, recorded) {
            // A run this database does not know (another data dir's copy): not ours to keep.
            (Err(StoreError::NotFound { .. }), _) => true,
            (Ok(run), _) if run.status.is_terminal() => true,
            (Ok(run), Some(end)) if run.status == RunStatus::Running => {
                write(store, approvals, &run_id, &end).await
            }
            _ => false,
        };
        if settled {
            release(data_dir, &run_id).await;
        }
    }
}

async fn write(
    store: &Store,
    approvals: &ApprovalQueue,
    run_id: &RunId,
    end: &RecordedEnd,
) -> bool {
    let row = RunEnd {
        status: RunStatus::Failed,
        stop_reason: None,
        error: Some(&end.error),
        at: end.at,
    };
    match store.finish_run(run_id, &row).await {
        Ok(_) | Err(StoreError::Conflict(_)) => {}
        Err(e) => {
            tracing::warn!(%run_id, error = %e, "the recorded end of a run cannot be saved yet");
            return false;
        }
    }
    let closed = store
        .close_open_items(run_id, ItemStatus::Interrupted, now_ms())
        .await
        .is_ok();
    let expired = approvals
        .end_run(run_id, ApprovalState::Expired)
        .await
        .is_ok();
    tracing::info!(%run_id, "a failed run's end kept outside the database is now saved");
    closed && expired
}
