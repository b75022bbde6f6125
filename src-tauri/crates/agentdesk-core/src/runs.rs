//! Run orchestration: a user message → a run → the engine → the recorder → a terminal state.
//!
//! # API (stable names; the shell and `agentdesk-cli` build on these)
//!
//! ```text
//! Desk::send_message(session_id, text, &[(sha256, name)]) -> Result<Run>
//!     Records the run (status Running, or Queued behind the session's active run: it starts
//!     when that run ends) and starts the engine in the background. Attachments are blobs from
//!     Desk::import_attachment (images → native image input; other files → their paths,
//!     mentioned in the prompt). The profile is snapshotted when the run *starts*.
//! Desk::interrupt(run_id) -> Result<()>          running → interrupted; queued → cancelled
//! Desk::decide_approval(approval_id, ApprovalDecision, DecidedBy) -> Result<Approval>
//!     ApprovalDecision (re-exported from agentdesk_engine): From<UserDecision>, ::deny(msg)
//!     Refused (CoreError, code Conflict) when no longer pending. `by` is User or
//!     Notification: Rule/Deadline are refused (rules decide inside the queue, from the
//!     profile's approval rules / permission mode; a script that answers everything the
//!     same way decides as DecidedBy::User).
//! Desk::answer_question(approval_id, BTreeMap<question id, Vec<answer>>, DecidedBy) -> Result<Approval>
//! Desk::subscribe_runs() -> RunUpdates   (a lossless per-subscriber queue: crate::fanout)
//! Desk::subscribe_runs_where(|u| ...) -> RunUpdates   only the updates the filter keeps
//!     RunUpdate::Status { run: Run }                              queued / running / ended
//!     RunUpdate::Event { session_id, run_id, event: AgentEvent }  canonical events, live
//!     RunUpdate::Live { session_id, run_id, seq, ops }   what the run's reducer changed
//!     A slow subscriber gets consecutive deltas of an item merged, never dropped; only
//!     past fanout::DEFAULT_CAP waiting non-mergeable updates does `recv` return
//!     Err(RecvError::Overflowed(n)): re-read with Desk::load_timeline / list_runs.
//! Desk::wait_run(run_id, Duration) -> Result<Run>   until the run is terminal (bounded)
//! Desk::active_run_ids() -> Vec<RunId>              runs this process drives now
//! Desk::run_engine_pid(run_id) -> Option<u32>       the engine process serving it
//! Desk::engine_settings() / set_engine_settings(EngineSettings) (stored, key "engines")
//!     EngineSettings: per program (`codex`, `claude`, `opencode`...) its executable and home
//! Desk::locate_program(name) -> Result<Executable>   settings > AGENTDESK_<NAME>_BIN > PATH > usual dirs
//! Desk::engine_version(Engine) -> Result<EngineVersion>
//! Desk::shutdown()     interrupts active runs (bounded wait), stops every engine process
//! ```
//!
//! Approvals: `approval.requested` / `question.asked` go through `ApprovalQueue::request`
//! with the run's policy (profile rules decide without reaching the pending set; the
//! profile's deadline ends in a safe deny recorded as `timed_out`) *before* the event reaches
//! the recorder, so the item is made naming the approval's id. The queue's record is the
//! approval's only state; watch it with `Desk::approvals().watch_pending()` / `.subscribe()`.
//! A request the engine withdraws (`approval.resolved` expired/cancelled, a question left
//! unanswered) ends the record too.
//!
//! The pipeline of a run (see [`crate::pipeline`]): the pump publishes the adapter's events
//! (`RunUpdate::Event`) and hands them to the recorder, which applies them through the run's
//! one reducer; that reducer publishes the live ops. This module imports `pipeline`,
//! `recorder`, `approvals` and `engines`; `live` and `fanout` never import it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_engine::{
    AgentEngine, AgentRun, ApprovalDecision, InputPart, NeutralRunRequest, RunHandle,
};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalKindName, ApprovalState, Attachment, AttachmentKind, DecidedBy, ItemStatus,
    Run, RunStatus,
};
use agentdesk_store::{now_ms, RunEnd, StoreError};
use tokio::sync::mpsc;

use crate::engines::{inactivity_timeout, typed_image_path, Engines};
use crate::remote::upload_name;
use crate::{
    ApprovalAnswer, ApprovalAsk, ApprovalPolicy, CoreError, Desk, Responder, Result, RunInput,
    RunRecorder,
};

/// Events waiting for the recorder (it writes once a second; this only absorbs bursts).
const RECORDER_BACKLOG: usize = 1024;
/// How long `shutdown` lets interrupted runs end on their own before stopping them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(15);

pub use crate::pipeline::{RunUpdate, RunUpdates};

/// A run this process drives; `Default` is one just registered, its engine not started.
#[derive(Default)]
struct ActiveRun {
    session_id: Option<SessionId>,
    /// `None` while the engine is starting.
    control: Option<RunHandle>,
    /// The engine process serving it (Codex: the shared app-server; Claude: its own CLI).
    pid: Option<u32>,
    /// Asked before the engine had started: interrupt as soon as it has.
    interrupt_requested: bool,
    task: Option<tokio::task::AbortHandle>,
}

/// The orchestration's state, shared by every clone of a `Desk`.
pub(crate) struct Runs {
    pub(crate) engines: Engines,
    active: Mutex<HashMap<RunId, ActiveRun>>,
    /// Serialises "is the session busy? then queue, else start" against "a run ended: start
    /// the next queued one", so a queued run is never stranded.
    start_lock: tokio::sync::Mutex<()>,
    shutting_down: AtomicBool,
    /// Runs given up on because they could not be saved (see `run_faults`).
    pub(crate) faults: Arc<crate::run_faults::StorageFaults>,
    /// Indexes a run's completed messages for search once it has ended.
    pub(crate) indexer: crate::message_index::MessageIndexer,
    /// A run left `active`. Its final status is published just before, while it is still
    /// driven, so `wait_run` woken by that status can find it driven; this wakes it again
    /// (it used to sleep out a 250 ms tick: a quarter of a second on every CLI run's exit).
    left_active: tokio::sync::Notify,
    /// `wait_run`'s fallback tick (runs of other sessions, a lagging subscription).
    wait_tick_ms: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs").finish_non_exhaustive()
    }
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            engines: Engines::default(),
            active: Mutex::default(),
            start_lock: tokio::sync::Mutex::new(()),
            shutting_down: AtomicBool::new(false),
            faults: Default::default(),
            indexer: Default::default(),
            left_active: tokio::sync::Notify::new(),
            wait_tick_ms: std::sync::atomic::AtomicU64::new(250),
        }
    }
}

// Each critical section is a single map operation: a poisoned lock is still consistent.
use agentdesk_protocol::sync::lock;

impl Runs {
    /// The run is no longer driven by this process; whoever waits for that is woken.
    fn leave_active(&self, run_id: &RunId) {
        lock(&self.active).remove(run_id);
        self.left_active.notify_waiters();
    }
}

/// Answers an engine's request through the run's handle. The queue calls it synchronously
/// (inside its async methods), so the answer goes out on a task.
struct HandleResponder {
    control: RunHandle,
    request_id: String,
    is_question: bool,
}

impl Responder for HandleResponder {
    fn respond(self: Box<Self>, answer: ApprovalAnswer) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            tracing::error!(request = %self.request_id, "no runtime to answer the engine on");
            return;
        };
        rt.spawn(async move {
            let id = &self.request_id;
            let result = match answer {
                ApprovalAnswer::Answers(answers) => self.control.answer_question(id, answers).await,
                // A question is only ever denied (the queue refuses approving one): skipped.
                ApprovalAnswer::Decision(_) if self.is_question => {
                    self.control.skip_question(id).await
                }
                ApprovalAnswer::Decision(d) => self.control.resolve_approval(id, d).await,
            };
            if let Err(e) = result {
                tracing::warn!(request = %self.request_id, error = %e, "the engine did not take the answer");
            }
        });
    }
}

impl Desk {
    /// Runs this process is driving now.
    pub fn active_run_ids(&self) -> Vec<RunId> {
        lock(&self.runs.active).keys().cloned().collect()
    }

    /// Sessions with a run this process drives now.
    pub fn sessions_running_here(&self) -> std::collections::HashSet<SessionId> {
        lock(&self.runs.active)
            .values()
            .filter_map(|a| a.session_id.clone())
            .collect()
    }

    /// The engine process serving a run this process drives (diagnostics, crash tests).
    pub fn run_engine_pid(&self, run_id: &RunId) -> Option<u32> {
        lock(&self.runs.active).get(run_id).and_then(|a| a.pid)
    }

    /// Send a user message: a new run, started now or queued behind the session's active
    /// run. Returns the run as recorded (status `running` or `queued`).
    pub async fn send_message(
        &self,
        session_id: &SessionId,
        text: &str,
        attachments: &[(String, String)],
    ) -> Result<Run> {
        if self.runs.shutting_down.load(Ordering::SeqCst) {
            return Err(CoreError::ShuttingDown);
        }
        self.refuse_if_terminal_driving(session_id).await?;
        let _guard = self.runs.start_lock.lock().await;
        let run = self.create_run(session_id, text, attachments).await?;
        self.name_branch_after_title(session_id).await;
        self.pipeline
            .publish(RunUpdate::Status { run: run.clone() });
        if run.status == RunStatus::Running {
            self.spawn_run(run.clone());
        }
        Ok(run)
    }

    /// Stop a run: a running one is interrupted (it ends as `interrupted` once the engine
    /// confirms, bounded by the adapters), a queued one is cancelled before it starts.
    pub async fn interrupt(&self, run_id: &RunId) -> Result<()> {
        {
            let mut active = lock(&self.runs.active);
            if let Some(a) = active.get_mut(run_id) {
                a.interrupt_requested = true;
                if let Some(c) = &a.control {
                    c.interrupt();
                }
                return Ok(());
            }
        }
        let _guard = self.runs.start_lock.lock().await;
        let run = self.store.get_run(run_id).await?;
        match run.status {
            RunStatus::Queued => {
                let run = self.cancel_queued_run(run_id).await?;
                self.pipeline.publish(RunUpdate::Status { run });
                Ok(())
            }
            s if s.is_terminal() => Err(CoreError::InvalidInput(format!(
                "run {run_id} has already ended ({})",
                s.as_str()
            ))),
            _ => Err(CoreError::InvalidInput(format!(
                "run {run_id} is not driven by this process; it cannot be interrupted from here"
            ))),
        }
    }

    /// The user's decision on a pending approval (in the app, the CLI or a notification).
    /// Refused when the approval is no longer pending.
    pub async fn decide_approval(
        &self,
        approval_id: &ApprovalId,
        decision: ApprovalDecision,
        by: DecidedBy,
    ) -> Result<Approval> {
        let approval = self.store.get_approval(approval_id).await?;
        if decision.updated_input.is_some() || decision.stop {
            // Refused before the queue records anything: the engine could not carry it out.
            let session = self.store.get_session(&approval.session_id).await?;
            decision
                .check(session.engine)
                .map_err(CoreError::InvalidInput)?;
        }
        self.approvals
            .decide(approval_id, ApprovalAnswer::Decision(decision), by)
            .await
    }

    /// Answer a pending question (question id → chosen labels or typed text).
    pub async fn answer_question(
        &self,
        approval_id: &ApprovalId,
        answers: BTreeMap<String, Vec<String>>,
        by: DecidedBy,
    ) -> Result<Approval> {
        self.approvals
            .decide(approval_id, ApprovalAnswer::Answers(answers), by)
            .await
    }

    /// Wait (at most `timeout`) until a run has ended; returns it as recorded.
    pub async fn wait_run(&self, run_id: &RunId, timeout: Duration) -> Result<Run> {
        // Only this run's statuses: waiting costs no copy of its stream.
        let id = run_id.clone();
        let mut updates = self
            .subscribe_runs_where(move |u| matches!(u, RunUpdate::Status { run } if run.id == id));
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // Armed before the check: a run leaving the active set between the check and the
            // wait below still wakes us (its final status came before, while it was driven).
            let left = self.runs.left_active.notified();
            tokio::pin!(left);
            left.as_mut().enable();
            let driven = lock(&self.runs.active).contains_key(run_id);
            // Ended, but the end could not be saved (the database is locked or full).
            if let Some(run) = self.runs.faults.unrecorded(run_id).filter(|_| !driven) {
                return Ok(run);
            }
            let run = self.store.get_run(run_id).await?;
            if run.status.is_terminal() && !driven {
                return Ok(run);
            }
            // The update wakes us early; the tick covers lagging and runs of other sessions.
            let tick = tokio::time::sleep(Duration::from_millis(
                self.runs.wait_tick_ms.load(Ordering::Relaxed),
            ));
            tokio::select! {
                _ = updates.recv() => {}
                _ = &mut left => {}
                _ = tick => {}
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(CoreError::TimedOut(format!(
                        "run {run_id} did not end within {} s (it is {})",
                        timeout.as_secs(),
                        run.status.as_str()
                    )));
                }
            }
        }
    }

    /// Stop everything this process runs: active runs are interrupted (and stopped if they
    /// do not end in time), queued ones cancelled, engine processes stopped. No orphans.
    pub async fn shutdown(&self) {
        self.runs.shutting_down.store(true, Ordering::SeqCst);
        let ids = self.active_run_ids();
        for id in &ids {
            let _ = self.interrupt(id).await;
        }
        let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
        while !lock(&self.runs.active).is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let stuck: Vec<(RunId, ActiveRun)> = lock(&self.runs.active).drain().collect();
        for (run_id, a) in stuck {
            if let Some(t) = &a.task {
                t.abort();
            }
            tracing::warn!(%run_id, "run did not end in time at shutdown; stopped");
            self.end_unfinished(&run_id, RunStatus::Interrupted, "Agent Desk shut down")
                .await;
            self.publish_status(&run_id).await;
        }
        // Queued behind a run that had to be stopped: they would never start now.
        if let Ok(runs) = self.store.active_runs().await {
            for r in runs.into_iter().filter(|r| r.status == RunStatus::Queued) {
                if let Ok(run) = self.cancel_queued_run(&r.id).await {
                    self.pipeline.publish(RunUpdate::Status { run });
                }
            }
        }
        self.runs.engines.shutdown().await;
        // The engines on hosts are stopped: their connections go too.
        self.close_ssh_links().await;
    }

    fn spawn_run(&self, run: Run) {
        let mut active = lock(&self.runs.active);
        let a = ActiveRun {
            session_id: Some(run.session_id.clone()),
            ..ActiveRun::default()
        };
        active.insert(run.id.clone(), a);
        let desk = self.clone();
        let run_id = run.id.clone();
        let task = tokio::spawn(async move { desk.drive(run).await });
        if let Some(a) = active.get_mut(&run_id) {
            a.task = Some(task.abort_handle());
        }
    }

    async fn publish_status(&self, run_id: &RunId) {
        if let Some(run) = self.runs.faults.unrecorded(run_id) {
            self.pipeline.publish(RunUpdate::Status { run });
        } else if let Ok(run) = self.store.get_run(run_id).await {
            self.pipeline.publish(RunUpdate::Status { run });
        }
    }

    /// End a run the recorder could not end (an error before or while recording).
    async fn end_unfinished(&self, run_id: &RunId, status: RunStatus, error: &str) {
        let approvals = if status == RunStatus::Interrupted {
            ApprovalState::Cancelled
        } else {
            ApprovalState::Expired
        };
        if let Err(e) = self.approvals.end_run(run_id, approvals).await {
            tracing::error!(%run_id, error = %e, "cannot end the run's approvals");
        }
        let at = now_ms();
        let _ = self
            .store
            .close_open_items(run_id, ItemStatus::Interrupted, at)
            .await;
        let end = RunEnd {
            status,
            stop_reason: None,
            error: Some(error),
            at,
        };
        match self.store.finish_run(run_id, &end).await {
            Ok(_) | Err(StoreError::Conflict(_)) => {}
            Err(e) => tracing::error!(%run_id, error = %e, "cannot end the run"),
        }
    }

    /// One run from start to end, then the session's next queued run.
    async fn drive(self, run: Run) {
        let run_id = run.id.clone();
        let session_id = run.session_id.clone();
        crate::run_ends::reserve(&self.data_dir, &run_id).await;
        if let Err(e) = self.drive_engine(&run).await {
            tracing::warn!(%run_id, error = %e, "run failed in the core");
            match crate::run_faults::storage_fault(&e) {
                Some(fault) => {
                    let reason = crate::run_faults::failure_reason(fault);
                    crate::run_faults::end_after_fault(
                        &self.data_dir,
                        &self.store,
                        &self.approvals,
                        &self.runs.faults,
                        &run_id,
                        &reason,
                    )
                    .await;
                }
                None => {
                    self.end_unfinished(&run_id, RunStatus::Failed, &e.to_string())
                        .await
                }
            }
        }
        // Its end is in the database: the slot that could have kept it goes (a failed end
        // the database refused keeps it, see `run_faults`).
        if matches!(self.store.get_run(&run_id).await, Ok(r) if r.status.is_terminal()) {
            crate::run_ends::release(&self.data_dir, &run_id).await;
        }
        // Announced before it leaves the active set: `wait_run` returns only after that, so
        // whoever waited has the final status in its subscription too.
        self.publish_status(&run_id).await;
        self.runs.leave_active(&run_id);
        self.start_next(&session_id).await;
        self.runs.indexer.kick(&self.store);
        // What the run allocated and freed (its texts, the engine's reads, the database's
        // statements) goes back to the system instead of staying in the allocator's heaps.
        let gave_back = crate::heap::give_back();
        tracing::trace!(%run_id, gave_back, "heap trimmed after the run");
    }

    /// The session's oldest queued run starts (or, when shutting down, is cancelled).
    async fn start_next(&self, session_id: &SessionId) {
        let _guard = self.runs.start_lock.lock().await;
        let queued = match self.store.list_runs(session_id).await {
            Ok(runs) => runs.into_iter().find(|r| r.status == RunStatus::Queued),
            Err(e) => {
                tracing::error!(%session_id, error = %e, "cannot read the session's queue");
                return;
            }
        };
        let Some(next) = queued else { return };
        if self.runs.shutting_down.load(Ordering::SeqCst) {
            if let Ok(run) = self.cancel_queued_run(&next.id).await {
                self.pipeline.publish(RunUpdate::Status { run });
            }
            return;
        }
        match self.store.start_run(&next.id, None, now_ms()).await {
            Ok(run) => {
                self.pipeline
                    .publish(RunUpdate::Status { run: run.clone() });
                self.spawn_run(run);
            }
            Err(e) => tracing::warn!(run = %next.id, error = %e, "queued run could not start"),
        }
    }
}

impl Desk {
    /// Start the engine for a run and pump its events into the recorder and the queue.
    async fn drive_engine(&self, run: &Run) -> Result<()> {
        let session = self.store.get_session(&run.session_id).await?;
        let workspace = self.store.get_workspace(&session.workspace_id).await?;
        // A remote workspace's folder is on its host: the engine runs there.
        let remote = workspace.remote();
        // The session's worktree when it has one: the engine, the approval boundary and
        // relative paths in requests all take it as the workspace.
        let cwd = match &remote {
            Some(_) => PathBuf::from(&workspace.path),
            None => self.run_folder(&session, &workspace.path).await?,
        };
        // The profile as it is now: edits made after this point apply to the next run.
        let profile = match &session.profile_id {
            Some(id) => Some(self.store.get_profile(id).await?),
            None => None,
        };
        // The session's own model and effort (the composer's picker) over the profile's.
        let spec = crate::models::session_spec(&session, profile.as_ref().map(|p| &p.spec));
        let spec = spec.as_ref();
        let policy = spec.map_or_else(
            || ApprovalPolicy {
                workspace_root: cwd.clone(),
                ..Default::default()
            },
            |s| ApprovalPolicy::from_profile(s, &cwd),
        );
        let mut options = self.engine_options(session.engine, spec).await?;
        if session.origin != agentdesk_protocol::ui::SessionOrigin::App {
            // Continued from its engine's terminal too.
            options = options.for_terminal_session();
        }
        // Files copied to the host for the run stay there until it ends (the guard).
        let (input, _uploaded) = match &remote {
            Some(loc) => self.remote_run_input(run, loc).await?,
            None => (self.run_input(run, &cwd).await?, None),
        };
        // Read only to continue it: a run is not refused for want of it.
        let plan = match self.store.latest_plan(&session.id).await {
            Ok(plan) => plan,
            Err(e) => {
                tracing::warn!(session = %session.id, error = %e, "the session's plan could not be read");
                None
            }
        };

        let (tx, rx) = mpsc::channel(RECORDER_BACKLOG);
        // The run's one reducer: the recorder drives it, the live views watch it.
        let timeline = self.pipeline.start(&session.id, &run.id);
        let recorder = RunRecorder::with_timeline(self.store.clone(), &session.id, timeline)
            .outputs_dir(crate::tool_output::session_dir(&self.data_dir, &session.id))
            .approvals(self.approvals.clone())
            .storage_retry_budget(self.runs.faults.budget());
        let mut recording = tokio::spawn(recorder.run(rx));

        let engine = match &remote {
            Some(loc) => {
                let forward = spec.is_some_and(|s| {
                    agentdesk_protocol::engine_options::ssh_forward_agent(&s.engine_options)
                });
                self.run_engine_on_host(session.engine, loc, forward).await
            }
            None => self.engine(session.engine).await,
        };
        let started = match engine {
            Ok(engine) => engine
                .start_run(NeutralRunRequest {
                    cwd,
                    resume_session_id: session.engine_session_id.clone(),
                    plan,
                    input,
                    options,
                    inactivity_timeout: inactivity_timeout(spec),
                })
                .await
                .map_err(CoreError::from),
            Err(e) => Err(e),
        };
        let mut recorder_ended = None;
        match started {
            Ok(agent_run) => {
                let ctx = PumpContext {
                    session_id: &session.id,
                    engine: session.engine,
                    run_id: &run.id,
                    policy: &policy,
                    remote: remote.as_ref(),
                    tx: &tx,
                    recording: &mut recording,
                };
                recorder_ended = self.pump(agent_run, ctx).await;
            }
            Err(e) => {
                // The code is the core's error code (engine_missing, engine_not_logged_in...):
                // adapters never use those, so it also marks a run that never reached its
                // engine.
                let event = AgentEvent::RunFailed {
                    error: e.to_string(),
                    code: Some(e.code().as_str().into()),
                };
                self.pipeline.publish(RunUpdate::Event {
                    session_id: session.id.clone(),
                    run_id: run.id.clone(),
                    event: event.clone(),
                });
                let _ = tx.send(RunInput::Event(event)).await;
            }
        }
        drop(tx);
        let recorded = match recorder_ended {
            Some(r) => r,
            None => recording.await,
        };
        // Everything is stored now (or the run failed): views read it from the database.
        self.pipeline.finish(&run.id);
        let ended = recorded
            .map_err(|e| CoreError::Internal(format!("the run's recorder stopped: {e}")))??;
        // An imported session's engine wrote this turn to its own history too.
        if let Err(e) = self.after_app_run(&ended).await {
            tracing::warn!(run = %ended.id, error = %e, "history position not updated");
        }
        Ok(())
    }

    /// The message as the engine gets it: the text (with other files' paths mentioned),
    /// then the images natively.
    /// The message as the engine gets it: its text (attached files listed), its images, and
    /// the files it mentions (`@path` inside `cwd`).
    async fn run_input(&self, run: &Run, cwd: &Path) -> Result<Vec<InputPart>> {
        let attachments = self.run_attachments(&run.id).await?;
        let paths: Vec<String> = attachments
            .iter()
            .filter(|a| a.kind == AttachmentKind::File)
            .map(|f| f.path.clone())
            .collect();
        let mut input = message_parts(run, &attachments, &paths).await?;
        for (name, path) in crate::files::mentioned_files(&run.prompt, cwd) {
            input.push(InputPart::FileMention { name, path });
        }
        Ok(input)
    }

    /// [`Self::run_input`] for a workspace on `loc`'s host: attached files are copied there
    /// (to a private folder removed after the run) and listed at their paths there; images
    /// go inline; `@`-mentions are read by the engine there.
    async fn remote_run_input(
        &self,
        run: &Run,
        loc: &agentdesk_protocol::remote::SshLocation,
    ) -> Result<(Vec<InputPart>, Option<crate::remote::RemoteUpload>)> {
        let attachments = self.run_attachments(&run.id).await?;
        let to_copy: Vec<(String, PathBuf)> = attachments
            .iter()
            .filter(|a| a.kind == AttachmentKind::File)
            .map(|f| (upload_name(&f.name), PathBuf::from(&f.path)))
            .collect();
        let uploaded = self.upload_to_host(loc, &to_copy).await?;
        let paths = uploaded
            .as_ref()
            .map(|u| u.files.clone())
            .unwrap_or_default();
        let input = message_parts(run, &attachments, &paths).await?;
        Ok((input, uploaded))
    }

    /// The engine on a remote workspace's host, its program checked there first.
    async fn run_engine_on_host(
        &self,
        engine: agentdesk_protocol::ui::Engine,
        loc: &agentdesk_protocol::remote::SshLocation,
        forward_agent: bool,
    ) -> Result<AgentEngine> {
        self.check_remote_program(engine, loc).await?;
        self.remote_engine(engine, loc, forward_agent).await
    }

    /// Returns the recorder's result when it ended before the run did (it could not save the
    /// run); the engine has been stopped then.
    async fn pump(&self, mut agent_run: AgentRun, ctx: PumpContext<'_>) -> Option<RecorderResult> {
        let PumpContext {
            session_id,
            engine,
            run_id,
            policy,
            remote,
            tx,
            recording,
        } = ctx;
        if let Err(e) = self
            .store
            .set_engine_session_id(session_id, Some(&agent_run.session_id))
            .await
        {
            tracing::warn!(%session_id, error = %e, "cannot store the engine session id");
        }
        let control = agent_run.control();
        if let Some(a) = lock(&self.runs.active).get_mut(run_id) {
            a.control = Some(control.clone());
            a.pid = agent_run.pid;
            if a.interrupt_requested {
                control.interrupt();
            }
        }
        // Engine request id → the queue's approval, for requests the engine withdraws.
        let mut asked: HashMap<String, ApprovalId> = HashMap::new();
        loop {
            tokio::select! {
                ev = agent_run.next_event() => {
                    // `None`: the adapter went away without a terminal event; the recorder
                    // fails the run when its input closes.
                    let Some(ev) = ev else { break };
                    let ev = self.rate_limit_event(engine, ev).await;
                    if let AgentEvent::CommandsAvailable { commands } = &ev {
                        self.commands_announced(session_id, commands.clone()).await;
                    }
                    let terminal = ev.is_terminal();
                    self.pipeline.publish(RunUpdate::Event {
                        session_id: session_id.clone(),
                        run_id: run_id.clone(),
                        event: ev.clone(),
                    });
                    if let Some(ask) = ApprovalAsk::from_event(session_id, run_id, &ev) {
                        // Recorded first, so the event's item is made naming it.
                        let request_id = ask.engine_request_id.clone();
                        if let Some(id) = self.ask(ask, policy, remote, &control).await {
                            asked.insert(request_id.clone(), id.clone());
                            let link = RunInput::Linked { request_id, approval_id: id };
                            let _ = tx.send(link).await;
                        }
                    }
                    self.withdrawn(&ev, &mut asked).await;
                    if tx.send(RunInput::Event(ev)).await.is_err() {
                        // The recorder is gone: the run must not go on unrecorded.
                        control.interrupt();
                        crate::run_faults::drain_stopped(&mut agent_run).await;
                        break;
                    }
                    if terminal {
                        break;
                    }
                }
                ended = &mut *recording => {
                    // The recorder gave up (it could not save the run): stop the engine rather
                    // than let it work on unrecorded (Codex: the turn is interrupted too).
                    tracing::warn!(%run_id, "the run cannot be saved; stopping its engine");
                    control.interrupt();
                    crate::run_faults::drain_stopped(&mut agent_run).await;
                    return Some(ended);
                }
            }
        }
        None
    }

    /// The engine let a request go without a decision (it withdrew it, or its side of the
    /// conversation ended): the record ends too, so no card waits for an answer nobody takes.
    /// A request that was decided is no longer held by the queue: nothing happens then.
    async fn withdrawn(&self, ev: &AgentEvent, asked: &mut HashMap<String, ApprovalId>) {
        let (request_id, state) = match ev {
            AgentEvent::ApprovalResolved {
                request_id,
                outcome: s @ (ApprovalState::Expired | ApprovalState::Cancelled),
            } => (request_id, *s),
            AgentEvent::QuestionAnswered {
                request_id,
                answers: None,
            } => (request_id, ApprovalState::Expired),
            AgentEvent::ApprovalResolved { request_id, .. }
            | AgentEvent::QuestionAnswered { request_id, .. } => {
                asked.remove(request_id);
                return;
            }
            _ => return,
        };
        let Some(id) = asked.remove(request_id) else {
            return;
        };
        if let Err(e) = self.approvals.withdraw(&id, state).await {
            tracing::debug!(%id, error = %e, "a withdrawn request had already ended");
        }
    }

    /// Hand an engine's request to the queue; rules may answer it at once. Returns the
    /// approval's id, or `None` when it could not be recorded (then it was denied).
    async fn ask(
        &self,
        ask: ApprovalAsk,
        policy: &ApprovalPolicy,
        remote: Option<&agentdesk_protocol::remote::SshLocation>,
        control: &RunHandle,
    ) -> Option<ApprovalId> {
        // On a host, "inside the workspace" is where the host says the paths lead.
        let on_host;
        let policy = match remote {
            Some(loc) => {
                on_host = self.policy_on_host(policy, &ask, loc).await;
                &on_host
            }
            None => policy,
        };
        let responder = Box::new(HandleResponder {
            control: control.clone(),
            request_id: ask.engine_request_id.clone(),
            is_question: ask.kind == ApprovalKindName::Question,
        });
        let request_id = ask.engine_request_id.clone();
        match self.approvals.request(ask, policy, responder).await {
            Ok(r) => Some(r.approval().id.clone()),
            Err(e) => {
                // The request cannot be recorded, so it cannot be decided safely: deny it.
                tracing::error!(request = %request_id, error = %e, "cannot record an approval; denied");
                let deny = ApprovalDecision::deny(format!(
                    "Agent Desk could not record this request: {e}"
                ));
                let _ = control.resolve_approval(&request_id, deny).await;
                None
            }
        }
    }
}

struct PumpContext<'a> {
    session_id: &'a SessionId,
    engine: agentdesk_protocol::ui::Engine,
    run_id: &'a RunId,
    policy: &'a ApprovalPolicy,
    /// The workspace's host, for a remote one.
    remote: Option<&'a agentdesk_protocol::remote::SshLocation>,
    tx: &'a mpsc::Sender<RunInput>,
    recording: &'a mut tokio::task::JoinHandle<Result<Run>>,
}

type RecorderResult = std::result::Result<Result<Run>, tokio::task::JoinError>;

/// The message's text (its attached files listed at `file_paths`, in order) and its images.
async fn message_parts(
    run: &Run,
    attachments: &[Attachment],
    file_paths: &[String],
) -> Result<Vec<InputPart>> {
    let mut text = run.prompt.clone();
    let files = attachments
        .iter()
        .filter(|a| a.kind == AttachmentKind::File);
    if !file_paths.is_empty() {
        text.push_str("\n\nAttached files (read them at these paths):");
        for (f, path) in files.zip(file_paths) {
            text.push_str(&format!(
                "\n- {} ({}, {} bytes): {}",
                f.name, f.mime, f.size, path
            ));
        }
    }
    let mut input = vec![InputPart::Text(text)];
    for a in attachments
        .iter()
        .filter(|a| a.kind == AttachmentKind::Image)
    {
        let path = typed_image_path(Path::new(&a.path), &a.mime).await?;
        input.push(InputPart::LocalImage(path));
    }
    Ok(input)
}

#[cfg(test)]
#[path = "runs_tests.rs"]
mod tests;
