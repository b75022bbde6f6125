//! Storage faults during a run: what the orchestration does when the recorder cannot save a
//! run (another program holds the database's write lock for too long, the disk is full, the
//! file is damaged or read-only).
//!
//! The recorder retries for its budget (see [`crate::recorder`]) and then gives up. The run
//! must not go on unrecorded, nor leave its watchers waiting: the engine is stopped (Codex:
//! the turn is interrupted; Claude: its CLI ends), and the run ends `failed` with the reason.
//! When even that row cannot be written, the failed run is kept in memory so `wait_run` and
//! every subscriber still see it end, its row is retried in the background, and the end is
//! written over the run's slot outside the database (see [`crate::run_ends`]): if the process
//! exits first, the next opening of the data directory saves it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_engine::AgentRun;
use agentdesk_protocol::ids::RunId;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{ApprovalState, ItemStatus, Run, RunStatus};
use agentdesk_store::{now_ms, RunEnd, Store, StoreError};

use crate::recorder::STORAGE_RETRY_BUDGET;
use crate::{ApprovalQueue, CoreError};

/// Test-only knob: the recorder's retry budget in seconds (fractions allowed), so a suite can
/// see a run given up on without waiting a minute. Not meant for users.
pub const STORAGE_RETRY_ENV: &str = "AGENTDESK_STORAGE_RETRY_SECS";

/// How long a stopped engine may take to end its run before it is left to the adapter's own
/// escalation (which ends it within its bounds) and the run is ended here.
const STOP_WAIT: Duration = Duration::from_secs(20);
/// Between two tries at writing a failed run's end in the background.
const END_RETRY_WAIT: Duration = Duration::from_secs(2);
/// How long a failed run's end is retried in the background (at least): as long as the app
/// stays open the row gets written once the lock is gone or space is freed; a process that
/// exits first leaves it to start-up recovery.
const END_RETRY_BUDGET: Duration = Duration::from_secs(300);
/// One try at writing a failed run's end (three writes, each within the busy timeout).
const END_ATTEMPT_LIMIT: Duration = Duration::from_secs(30);

/// Storage-fault state shared by every clone of a `Desk`.
#[derive(Debug)]
pub(crate) struct StorageFaults {
    budget_ms: AtomicU64,
    /// Runs that ended while their end could not be written, by id.
    unrecorded: Mutex<HashMap<RunId, Run>>,
}

impl Default for StorageFaults {
    fn default() -> Self {
        let budget = std::env::var(STORAGE_RETRY_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
            .unwrap_or(STORAGE_RETRY_BUDGET);
        StorageFaults {
            budget_ms: AtomicU64::new(u64::try_from(budget.as_millis()).unwrap_or(u64::MAX)),
            unrecorded: Mutex::default(),
        }
    }
}

impl StorageFaults {
    pub(crate) fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms.load(Ordering::Relaxed))
    }

    pub(crate) fn set_budget(&self, d: Duration) {
        self.budget_ms.store(
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    /// The run as it ended, when its end is not in the database (yet).
    pub(crate) fn unrecorded(&self, run_id: &RunId) -> Option<Run> {
        lock(&self.unrecorded).get(run_id).cloned()
    }

    fn remember(&self, run: Run) {
        lock(&self.unrecorded).insert(run.id.clone(), run);
    }

    fn forget(&self, run_id: &RunId) {
        lock(&self.unrecorded).remove(run_id);
    }
}

/// The recorder gave up on a run because of this error: a storage fault.
pub(crate) fn storage_fault(e: &CoreError) -> Option<&StoreError> {
    match e {
        CoreError::Store(s)
            if !matches!(s, StoreError::NotFound { .. } | StoreError::Conflict(_)) =>
        {
            Some(s)
        }
        _ => None,
    }
}

/// The reason a run given up on is failed with.
pub(crate) fn failure_reason(e: &StoreError) -> String {
    format!("Agent Desk could not save this run, so it stopped it: {e}")
}

/// After the engine was told to stop: let the run end (bounded), so the engine process is
/// not left working on a turn nobody records.
pub(crate) async fn drain_stopped(agent_run: &mut AgentRun) {
    let drained = tokio::time::timeout(STOP_WAIT, async {
        while let Some(ev) = agent_run.next_event().await {
            if ev.is_terminal() {
                break;
            }
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!("the engine did not end the stopped run in time");
    }
}

/// End a run given up on because of a storage fault. Watchers learn at once (the failed run
/// is published from memory); then the row is written if the database takes it, else
/// retried in the background for the retry budget.
pub(crate) async fn end_after_fault(
    data_dir: &std::path::Path,
    store: &Store,
    approvals: &ApprovalQueue,
    faults: &Arc<StorageFaults>,
    run_id: &RunId,
    reason: &str,
) -> Option<Run> {
    let at = now_ms();
    let mut failed = match store.get_run(run_id).await {
        Ok(run) => run,
        Err(e) => {
            tracing::error!(%run_id, error = %e, "cannot read the run given up on");
            return None;
        }
    };
    if failed.status.is_terminal() {
        return Some(failed);
    }
    failed.status = RunStatus::Failed;
    failed.error = Some(reason.to_string());
    failed.ended_at = Some(at);
    faults.remember(failed.clone());
    let attempt = write_end(store, approvals, run_id, reason, at);
    if let Ok(Ok(())) = tokio::time::timeout(END_ATTEMPT_LIMIT, attempt).await {
        faults.forget(run_id);
        return Some(failed);
    }
    // Kept outside the database too, should this process exit before it takes it.
    crate::run_ends::record_failed(data_dir, run_id, reason, at).await;
    let (store, approvals, faults, id, reason, data_dir) = (
        store.clone(),
        approvals.clone(),
        faults.clone(),
        run_id.clone(),
        reason.to_string(),
        data_dir.to_path_buf(),
    );
    let budget = faults.budget().max(END_RETRY_BUDGET);
    tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + budget;
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(END_RETRY_WAIT).await;
            // Each write waits the busy timeout at most; the bound is for a stuck pool.
            let attempt = write_end(&store, &approvals, &id, &reason, at);
            if let Ok(Ok(())) = tokio::time::timeout(END_ATTEMPT_LIMIT, attempt).await {
                faults.forget(&id);
                crate::run_ends::release(&data_dir, &id).await;
                return;
            }
        }
        tracing::error!(run_id = %id, "the failed run's end could not be saved; the next opening of the data directory saves it");
    });
    Some(failed)
}

/// The failed end itself first (the row that matters), then what the run left open. Each
/// write waits the busy timeout at most once.
async fn write_end(
    store: &Store,
    approvals: &ApprovalQueue,
    run_id: &RunId,
    reason: &str,
    at: i64,
) -> Result<(), CoreError> {
    let end = RunEnd {
        status: RunStatus::Failed,
        stop_reason: None,
        error: Some(reason),
        at,
    };
    match store.finish_run(run_id, &end).await {
        Ok(_) | Err(StoreError::Conflict(_)) => {}
        Err(e) => {
            tracing::warn!(%run_id, error = %e, "cannot save the failed run's end yet");
            return Err(e.into());
        }
    }
    store
        .close_open_items(run_id, ItemStatus::Interrupted, at)
        .await?;
    approvals.end_run(run_id, ApprovalState::Expired).await?;
    Ok(())
}

impl crate::Desk {
    /// How long the recorder may keep failing to save a run before it stops the run (default
    /// 60 s; `AGENTDESK_STORAGE_RETRY_SECS` for tests). Applies to runs started afterwards.
    pub fn set_storage_retry_budget(&self, d: Duration) {
        self.runs.faults.set_budget(d);
    }
}
