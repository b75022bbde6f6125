//! `run`: one user turn, streamed. The run goes through the same core as the app
//! (`Desk::send_message`), so it is recorded, searchable and exportable like any other.
//!
//! Approvals are answered from here: `--approve ask` prompts on stderr and reads the answer
//! from stdin (a pipe works: tests and scripts write `y\n`); `accept` / `deny` answer every
//! request of the run the same way (recorded as the user's decision: the user chose the flag;
//! `rule` is reserved for profile rules). Ctrl-C (or SIGTERM)
//! interrupts the run and waits for it to end; a second Ctrl-C stops the engines and exits.

use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agentdesk_core::fanout::{RecvError, TryRecvError};
use agentdesk_core::owner::OwnerLock;
use agentdesk_core::profiles::parse_engine;
use agentdesk_core::{ApprovalDecision, Desk, NewSession, RunUpdate, RunUpdates};
use agentdesk_protocol::events::{AgentEvent, UserDecision};
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{
    Approval, ApprovalKindName, DecidedBy, ErrorCode, Profile, ProfileSpec, Run, RunStatus, Session,
};
use clap::{Args, ValueEnum};
use tokio::sync::mpsc;

use crate::error::{CliError, CliResult, EXIT_ENGINE, EXIT_FAILED, EXIT_INTERRUPTED};
use crate::escape::{json_safe, visible, VisibleStream};
use crate::render;
use crate::views::{find_session, workspace_for};

/// How long an interrupted run may take to end before the engines are stopped outright.
const INTERRUPT_WAIT: Duration = Duration::from_secs(30);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ApproveMode {
    /// Ask on the terminal: y = once, a = always for this session, n = deny.
    Ask,
    /// Approve every request of this run.
    Accept,
    /// Deny every request of this run.
    Deny,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The workspace folder (added as a workspace on first use). Default: the session's, or
    /// the current directory.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Run under this profile of the workspace (default: the workspace's default profile).
    #[arg(long, value_name = "NAME", conflicts_with = "engine")]
    profile: Option<String>,
    /// Run on this engine (codex or claude) without naming a profile; a profile called
    /// "<engine>" or "<engine> <model>" is created (or reused) for it.
    #[arg(long)]
    engine: Option<String>,
    /// The model. With --engine: the model of the profile made for the pair; otherwise the
    /// session's own model from this run on, over its profile's (as the window's picker).
    #[arg(long)]
    model: Option<String>,
    /// The session's reasoning effort from this run on, over its profile's (e.g. low, high).
    #[arg(long, value_name = "EFFORT")]
    effort: Option<String>,
    /// Attach a file or an image (repeatable).
    #[arg(long, value_name = "FILE")]
    attach: Vec<PathBuf>,
    /// How to answer the agent's approval requests.
    #[arg(long, value_enum, default_value_t = ApproveMode::Ask)]
    approve: ApproveMode,
    /// Start the new session in its own git worktree (a new branch from the workspace's
    /// current branch, in the data directory); see `agentdesk-cli worktree`.
    #[arg(long, conflicts_with = "session")]
    worktree: bool,
    /// The branch the worktree starts from and merges back into (with --worktree).
    #[arg(long, value_name = "BRANCH", requires = "worktree")]
    base: Option<String>,
    /// Continue this session (id or unambiguous prefix) instead of starting a new one.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print JSON lines instead of text: first {"type":"agentdesk.run","sessionId","runId",
    /// "workspaceId","engine","newSession"} (continue with --session SESSION_ID), then the
    /// run's canonical events.
    #[arg(long)]
    json: bool,
    /// What to ask the agent.
    prompt: String,
}

pub async fn run(data_dir: &Path, a: RunArgs) -> CliResult<ExitCode> {
    if a.prompt.trim().is_empty() {
        return Err(CliError::invalid("the prompt is empty"));
    }
    // Held until exit: tells other processes this one drives runs (see `owner`).
    let (_owner, alone) = OwnerLock::acquire(data_dir)?;
    let desk = Desk::open_checked(data_dir).await?;
    // One run, then an exit: indexing the answer for search now would only delay the exit
    // (or be cut off by it); the next search indexes it.
    desk.index_messages_after_runs(false);
    if alone {
        desk.recover().await?;
    }
    let result = drive(&desk, a).await;
    // Stops every engine process this run started (codex's resident app-server too).
    desk.shutdown().await;
    desk.close().await;
    result
}

async fn drive(desk: &Desk, a: RunArgs) -> CliResult<ExitCode> {
    // Attachments first: one that cannot be taken must not leave a new session behind.
    let mut attachments = Vec::new();
    for path in &a.attach {
        let att = desk.import_attachment(path).await?;
        attachments.push((att.sha256, att.name));
    }
    let (session, created) = session_for(desk, &a).await?;
    let session = match session_model(desk, &a, &session).await {
        Ok(s) => s,
        Err(e) => {
            if created {
                discard(desk, &session.id).await;
            }
            return Err(e);
        }
    };
    // Subscribed before sending so no event of the run is missed: the session's events and
    // statuses only, each one (a slow stdout gets deltas merged, never skipped).
    let sid = session.id.clone();
    let mut updates = desk.subscribe_runs_where(move |u| match u {
        RunUpdate::Event { session_id, .. } => *session_id == sid,
        RunUpdate::Status { run } => run.session_id == sid,
        _ => false,
    });
    let mut pending = desk.approvals().watch_pending();
    let run = match desk
        .send_message(&session.id, &a.prompt, &attachments)
        .await
    {
        Ok(run) => run,
        Err(e) => {
            if created {
                discard(desk, &session.id).await;
            }
            return Err(e.into());
        }
    };
    if a.json {
        print_ids(&session, &run, created)?;
    } else {
        eprintln!("session {} · run {}", session.id, run.id);
    }
    let mut s = Streamer {
        desk,
        run_id: run.id.clone(),
        mode: a.approve,
        json: a.json,
        live: render::LiveText::default(),
        handled: HashSet::new(),
        waiting: VecDeque::new(),
        prompted: None,
        stdin: None,
        interrupted: false,
        failure_code: None,
        text: VisibleStream::default(),
    };
    let ended = s.stream(&mut updates, &mut pending).await?;
    // The recorder writes the last batch after the terminal event: wait for it.
    let run = desk
        .wait_run(&ended.id, INTERRUPT_WAIT)
        .await
        .unwrap_or(ended);
    // A run whose engine could not be started (missing, not logged in, unsupported, refused
    // to start) fails with one of the core's error codes, never an engine's own: the engine
    // is unavailable, the run did not fail.
    let start_failure = s
        .failure_code
        .as_deref()
        .filter(|_| run.status == RunStatus::Failed)
        .and_then(|c| serde_json::from_value::<ErrorCode>(serde_json::Value::from(c)).ok());
    if let Some(code) = start_failure {
        if created {
            discard(desk, &session.id).await;
        }
        if !a.json {
            eprintln!(
                "error: the engine could not start: {} [{}]",
                visible(run.error.as_deref().unwrap_or("no reason given")),
                code.as_str()
            );
        }
        return Ok(ExitCode::from(EXIT_ENGINE));
    }
    Ok(finish(&run, a.json))
}

/// `--json`'s first line: Agent Desk's own ids, so a script continues with `--session`
/// without matching the engine's ids.
fn print_ids(session: &Session, run: &Run, created: bool) -> CliResult<()> {
    let line = serde_json::json!({
        "type": "agentdesk.run",
        "sessionId": session.id,
        "runId": run.id,
        "workspaceId": session.workspace_id,
        "engine": session.engine,
        "newSession": created,
    });
    let mut out = std::io::stdout().lock();
    out.write_all((json_safe(&line.to_string()) + "\n").as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("stdout", e))
}

/// Remove the session this invocation created for a run that never reached its engine.
async fn discard(desk: &Desk, session_id: &SessionId) {
    if let Err(e) = desk.discard_unstarted_session(session_id).await {
        eprintln!("note: could not remove the unused session {session_id}: {e}");
    }
}

fn finish(run: &Run, json: bool) -> ExitCode {
    match run.status {
        RunStatus::Completed => ExitCode::SUCCESS,
        RunStatus::Failed => {
            if !json {
                eprintln!(
                    "error: the run failed: {} [run_failed]",
                    visible(run.error.as_deref().unwrap_or("no reason given"))
                );
            }
            ExitCode::from(EXIT_FAILED)
        }
        _ => {
            if !json {
                eprintln!("error: the run was interrupted [interrupted]");
            }
            ExitCode::from(EXIT_INTERRUPTED)
        }
    }
}

/// The session to run in: the given one, or a new one in the workspace under the chosen
/// profile (then `true`). A new session is only made once its engine has been found, so a
/// missing engine leaves nothing behind.
async fn session_for(desk: &Desk, a: &RunArgs) -> CliResult<(Session, bool)> {
    if let Some(id) = &a.session {
        if a.profile.is_some() || a.engine.is_some() {
            return Err(CliError::invalid(
                "a session keeps its profile: drop --profile/--engine when continuing with --session",
            ));
        }
        let s = find_session(desk, id).await?;
        if let Some(dir) = &a.workspace {
            let ws = workspace_for(desk, dir, false).await?;
            if ws.id != s.workspace_id {
                return Err(CliError::invalid(format!(
                    "session {} belongs to another workspace than {}",
                    s.id, ws.path
                )));
            }
        }
        return Ok((s, false));
    }
    let dir = a.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
    let ws = workspace_for(desk, &dir, true).await?;
    let profile = match (&a.profile, &a.engine) {
        (Some(name), _) => Some(crate::profile::find(desk, &ws.id, name).await?),
        (None, Some(engine)) => {
            Some(adhoc_profile(desk, &ws.id, engine, a.model.as_deref()).await?)
        }
        (None, None) => None,
    };
    let engine = match &profile {
        Some(p) => p.spec.engine,
        None => match desk.default_profile(&ws.id).await? {
            Some(p) => p.spec.engine,
            None => {
                return Err(CliError::invalid(format!(
                    "{} has no profile yet: pass --engine codex|claude (and --model), or add one with `agentdesk-cli profile add`",
                    ws.path
                )))
            }
        },
    };
    // Found and of a supported version before anything is created for it (an engine that
    // runs the profile's command is checked when the run starts it).
    if !agentdesk_core::engines::descriptor(engine).command_from_profile() {
        desk.check_engine_for(&ws, engine).await?;
    }
    let session = desk
        .create_session(&NewSession {
            workspace_id: ws.id,
            engine: Some(engine),
            profile_id: profile.map(|p| p.id),
            title: None,
            worktree: a.worktree.then(|| agentdesk_protocol::ui::NewWorktree {
                base: a.base.clone(),
                name_hint: Some(a.prompt.clone()),
            }),
        })
        .await?;
    Ok((session, true))
}

/// `--model` (without `--engine`) and `--effort`: the session's own model and effort, kept for
/// its later runs as the window's picker keeps them; what is not given stays as it was.
async fn session_model(desk: &Desk, a: &RunArgs, session: &Session) -> CliResult<Session> {
    let model = a.model.as_deref().filter(|_| a.engine.is_none());
    if model.is_none() && a.effort.is_none() {
        return Ok(session.clone());
    }
    let model = model.or(session.model.as_deref());
    let effort = a.effort.as_deref().or(session.effort.as_deref());
    Ok(desk.set_session_model(&session.id, model, effort).await?)
}

/// `--engine E [--model M]`: the model lives in a profile, so one named after the pair is
/// reused or created (visible in `profile list`, editable like any other).
async fn adhoc_profile(
    desk: &Desk,
    workspace_id: &WorkspaceId,
    engine: &str,
    model: Option<&str>,
) -> CliResult<Profile> {
    let engine = parse_engine(engine)?;
    let name = match model {
        Some(m) => format!("{} {}", engine.as_str(), m.trim()),
        None => engine.as_str().to_string(),
    };
    if let Some(p) = desk.find_profile(workspace_id, &name).await? {
        return Ok(p);
    }
    let spec = ProfileSpec {
        model: model.map(str::to_string),
        ..ProfileSpec::new(name, engine)
    };
    Ok(desk.create_profile(workspace_id, &spec).await?)
}

struct Streamer<'a> {
    desk: &'a Desk,
    run_id: RunId,
    mode: ApproveMode,
    json: bool,
    live: render::LiveText,
    /// Approvals already answered or queued for an answer.
    handled: HashSet<ApprovalId>,
    /// Approvals waiting for a line on stdin, oldest first.
    waiting: VecDeque<Approval>,
    /// The approval whose prompt is on screen.
    prompted: Option<ApprovalId>,
    stdin: Option<mpsc::UnboundedReceiver<Option<String>>>,
    interrupted: bool,
    /// The code of the run's `run.failed` event, if it failed.
    failure_code: Option<String>,
    /// Printed text, made visible across delta boundaries.
    text: VisibleStream,
}

/// Lines of stdin, read on a plain thread (stdin reads block); `None` = end of input.
fn stdin_lines() -> mpsc::UnboundedReceiver<Option<String>> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        loop {
            let mut line = String::new();
            match stdin.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(None);
                    return;
                }
                Ok(_) => {
                    if tx.send(Some(line.trim().to_string())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

async fn next_line(rx: &mut Option<mpsc::UnboundedReceiver<Option<String>>>) -> Option<String> {
    match rx {
        Some(rx) => rx.recv().await.flatten(),
        None => std::future::pending().await,
    }
}

impl Streamer<'_> {
    /// Print the run until it ends; returns it as it ended.
    async fn stream(
        &mut self,
        updates: &mut RunUpdates,
        pending: &mut tokio::sync::watch::Receiver<Vec<Approval>>,
    ) -> CliResult<Run> {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut stdin_open = true;
        // Created once (and again after each firing) so a signal between two turns of the
        // loop is not lost.
        let mut ctrl_c = Box::pin(tokio::signal::ctrl_c());
        let mut term = Box::pin(sigterm());
        loop {
            tokio::select! {
                u = updates.recv() => match u {
                    Ok(u) => {
                        if let Some(run) = self.on_update(u)? {
                            return Ok(run);
                        }
                    }
                    Err(RecvError::Overflowed(n)) => {
                        // Only past tens of thousands of waiting non-text updates: said, not hidden.
                        eprintln!("note: the output fell {n} updates behind and lost them; `agentdesk-cli show` has everything");
                    }
                    Err(RecvError::Closed) => {
                        return Err(CliError::internal("the run updates stopped"));
                    }
                },
                changed = pending.changed() => {
                    if changed.is_ok() {
                        let set = pending.borrow_and_update().clone();
                        self.on_pending(&set).await?;
                    }
                }
                line = next_line(&mut self.stdin), if stdin_open && self.stdin.is_some() => {
                    match line {
                        Some(l) => self.on_answer(&l).await?,
                        None => {
                            stdin_open = false;
                            if self.prompted.is_some() {
                                eprintln!("stdin closed before the approval was answered: interrupting the run");
                                self.interrupt().await;
                            }
                        }
                    }
                }
                _ = &mut ctrl_c => {
                    ctrl_c = Box::pin(tokio::signal::ctrl_c());
                    if self.interrupted {
                        // Second Ctrl-C: give up waiting; `run()` still stops the engines.
                        eprintln!("stopping the engines");
                        return Err(CliError { message: "stopped by a second Ctrl-C".into(), code: "interrupted", exit: 130 });
                    }
                    eprintln!("\ninterrupting the run (Ctrl-C again to stop at once)");
                    self.interrupt().await;
                }
                _ = &mut term => {
                    term = Box::pin(sigterm());
                    self.interrupt().await;
                }
                _ = tick.tick() => {
                    // Safety net for a missed status update.
                    let run = self
                        .desk
                        .store()
                        .get_run(&self.run_id)
                        .await
                        .map_err(agentdesk_core::CoreError::from)?;
                    if run.status.is_terminal() {
                        // What is still queued was said before the end: print it first.
                        return self.drain(updates, run);
                    }
                }
            }
        }
    }

    /// Print a run update; the run when it says the run ended.
    fn on_update(&mut self, u: RunUpdate) -> CliResult<Option<Run>> {
        match u {
            RunUpdate::Event { run_id, event, .. } if run_id == self.run_id => {
                if let AgentEvent::RunFailed { code, .. } = &event {
                    self.failure_code.clone_from(code);
                }
                self.print_event(&event)?;
            }
            RunUpdate::Status { run } if run.id == self.run_id && run.status.is_terminal() => {
                return Ok(Some(run));
            }
            _ => {}
        }
        Ok(None)
    }

    /// The run ended (read from the database): print every update still queued.
    fn drain(&mut self, updates: &mut RunUpdates, ended: Run) -> CliResult<Run> {
        loop {
            match updates.try_recv() {
                Ok(u) => {
                    if let Some(run) = self.on_update(u)? {
                        return Ok(run);
                    }
                }
                Err(TryRecvError::Overflowed(n)) => {
                    eprintln!("note: the output fell {n} updates behind and lost them; `agentdesk-cli show` has everything");
                }
                Err(TryRecvError::Empty | TryRecvError::Closed) => return Ok(ended),
            }
        }
    }

    async fn interrupt(&mut self) {
        self.interrupted = true;
        if let Err(e) = self.desk.interrupt(&self.run_id).await {
            eprintln!("note: {}", visible(&e.to_string()));
        }
    }

    fn print_event(&mut self, ev: &AgentEvent) -> CliResult<()> {
        let mut out = std::io::stdout().lock();
        let text = if self.json {
            let line = serde_json::to_string(ev)
                .map_err(|e| CliError::internal(format!("cannot serialise an event: {e}")))?;
            Some(json_safe(&line) + "\n")
        } else {
            let more = matches!(ev, AgentEvent::MessageDelta { .. });
            self.live.event(ev).map(|t| self.text.piece(&t, more))
        };
        if let Some(t) = text {
            out.write_all(t.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| CliError::io("stdout", e))?;
        }
        Ok(())
    }

    async fn on_pending(&mut self, set: &[Approval]) -> CliResult<()> {
        // An approval answered elsewhere (the app, a notification) or ended with the run
        // leaves the set: forget its prompt.
        self.waiting.retain(|w| set.iter().any(|p| p.id == w.id));
        if let Some(id) = &self.prompted {
            if !set.iter().any(|p| &p.id == id) {
                self.prompted = None;
            }
        }
        for ap in set.iter().filter(|p| p.run_id == self.run_id) {
            if !self.handled.insert(ap.id.clone()) {
                continue;
            }
            match self.mode {
                ApproveMode::Ask => self.waiting.push_back(ap.clone()),
                ApproveMode::Accept | ApproveMode::Deny => self.auto_answer(ap).await,
            }
        }
        self.prompt_next();
        Ok(())
    }

    async fn auto_answer(&self, ap: &Approval) {
        let accept = self.mode == ApproveMode::Accept;
        eprintln!(
            "[approval] {} → {} (--approve {})",
            visible(&render::approval_summary(ap)),
            if accept { "approved" } else { "denied" },
            if accept { "accept" } else { "deny" }
        );
        let result = if ap.kind == ApprovalKindName::Question && accept {
            // Accepting a question means taking each question's first option.
            let answers = ap
                .request
                .questions
                .iter()
                .map(|q| {
                    let first = q.options.first().map(|o| o.label.clone());
                    (q.id.clone(), first.into_iter().collect())
                })
                .collect();
            self.desk
                .answer_question(&ap.id, answers, DecidedBy::User)
                .await
        } else {
            let d = if accept {
                ApprovalDecision::from(UserDecision::ApproveOnce)
            } else {
                ApprovalDecision::deny("denied by agentdesk-cli --approve deny")
            };
            self.desk.decide_approval(&ap.id, d, DecidedBy::User).await
        };
        if let Err(e) = result {
            eprintln!(
                "note: could not answer {}: {}",
                ap.id,
                visible(&e.to_string())
            );
        }
    }

    fn prompt_next(&mut self) {
        if self.prompted.is_some() {
            return;
        }
        let Some(ap) = self.waiting.front() else {
            return;
        };
        if self.stdin.is_none() {
            self.stdin = Some(stdin_lines());
        }
        let mut err = std::io::stderr().lock();
        if ap.kind == ApprovalKindName::Question {
            for q in &ap.request.questions {
                let _ = writeln!(err, "\n[question] {}", visible(&q.question));
                for (i, o) in q.options.iter().enumerate() {
                    let _ = writeln!(err, "  {}. {}", i + 1, visible(&o.label));
                }
            }
            let _ = write!(err, "answer (an option's number or text; one line): ");
        } else {
            let _ = writeln!(err, "\n{}", visible(&render::approval_prompt(ap)));
            let _ = write!(err, "approve? [y]es once / [a]lways this session / [n]o: ");
        }
        let _ = err.flush();
        self.prompted = Some(ap.id.clone());
    }

    async fn on_answer(&mut self, line: &str) -> CliResult<()> {
        let Some(ap) = self.waiting.front().cloned() else {
            return Ok(());
        };
        if self.prompted.as_ref() != Some(&ap.id) {
            return Ok(());
        }
        let result = if ap.kind == ApprovalKindName::Question {
            let answers = ap
                .request
                .questions
                .iter()
                .map(|q| {
                    let chosen = line
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| n.checked_sub(1))
                        .and_then(|i| q.options.get(i))
                        .map_or_else(|| line.to_string(), |o| o.label.clone());
                    (q.id.clone(), vec![chosen])
                })
                .collect();
            self.desk
                .answer_question(&ap.id, answers, DecidedBy::User)
                .await
        } else {
            let decision = match line.to_ascii_lowercase().as_str() {
                "y" | "yes" => UserDecision::ApproveOnce,
                "a" | "always" => UserDecision::ApproveForSession,
                "n" | "no" => UserDecision::Deny,
                _ => {
                    eprint!("answer y, a or n: ");
                    return Ok(());
                }
            };
            self.desk
                .decide_approval(&ap.id, decision.into(), DecidedBy::User)
                .await
        };
        self.waiting.pop_front();
        self.prompted = None;
        if let Err(e) = result {
            eprintln!("note: {}", visible(&e.to_string()));
        }
        self.prompt_next();
        Ok(())
    }
}

/// Resolves when SIGTERM arrives (Unix); never elsewhere.
async fn sigterm() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut s) = signal(SignalKind::terminate()) {
            s.recv().await;
            return;
        }
    }
    std::future::pending::<()>().await
}
