//! Process supervisor: one [`ChildProcess`] owns an engine child, its stderr reader and its
//! wait task. Dropping it stops the child (stop ladder); there are no orphans by design.
//!
//! # Containment per platform
//! - **Unix**: the child leads its own process group (`process_group(0)`), so signals reach the
//!   engine *and* everything it started (shell commands, MCP servers). The stop ladder signals
//!   the whole group, and after the leader exits the group is SIGKILLed so leftovers die too.
//! - **Linux**: `PR_SET_PDEATHSIG(SIGKILL)` is set in the child, so it dies even when the app is
//!   SIGKILLed and no destructor runs. Caveat: the signal fires when the *thread* that spawned
//!   the child exits, so spawn from a long-lived thread (a runtime worker or the main thread),
//!   never from `spawn_blocking` (those threads are reaped when idle).
//! - **macOS**: there is no PDEATHSIG. Both engines exit on EOF of stdin (codex in 30–60 ms),
//!   and the kernel closes our end of the stdin pipe when the app dies.
//! - **Unix, both**: every group is registered with the orphan watchdog (`watchdog.rs`), a
//!   forked process that SIGKILLs the registered groups when the app is gone: on macOS the
//!   engine and everything it started, on Linux what PDEATHSIG does not reach (the agent's
//!   commands and MCP servers, which the engine's death only reparents).
//! - **Windows**: the child runs in a Job Object with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`
//!   (process-wrap's `JobObject`, assigned while the child is still suspended), so its whole
//!   tree is in the job. The ladder's kill terminates the job, and closing the job handle,
//!   including by the app's death, kills what is left. There is no SIGTERM, so the ladder is
//!   close stdin → terminate the job. Details in `process_os.rs`.
//!
//! # Stop ladder
//! close stdin → wait `stdin_grace` → SIGTERM the group → wait `term_grace` → SIGKILL the group
//! → wait `kill_wait`. Run by [`ChildProcess::stop`] and, when not run, by `Drop`: `Drop`
//! cannot await, so it spawns the ladder on the current runtime (with a guard that SIGKILLs the
//! group if the runtime cancels it) or, without a runtime, SIGKILLs the group at once. The wait
//! task keeps the child until the first kill request after its exit (the ladder's last rung)
//! or until its owner is gone, so on Windows the job, and what is left in it, lives exactly as
//! long as the group does on Unix.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_protocol::sync::lock;
use serde::Serialize;
use tokio::io::AsyncRead;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource};
use crate::discovery::Executable;
use crate::error::EngineError;
use crate::transport::{
    Decode, Frame, JsonLines, LineFramer, LineWriter, Transport, TransportConfig,
};

pub use crate::child_env::ALWAYS_REMOVED_ENV;

#[path = "process_os.rs"]
mod os;
pub use os::process_alive;
use os::OsChild;

/// What a child's environment starts from, before [`ProcessSpec::env_remove`] and
/// [`ProcessSpec::env`] apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BaseEnv {
    /// The allow-listed basics of the app's environment ([`crate::child_env::common_env`]):
    /// engines never see the app's other variables (secrets of other tools, `RUST_LOG`).
    #[default]
    Allowlisted,
    /// The app's whole environment (for helpers that are not engines).
    Inherit,
    /// Nothing but what the spec adds.
    Empty,
}

/// How long the wait task lets stderr drain after the exit, so the tail in [`ChildExit`] holds
/// the engine's last words. Bounded because a grandchild may keep the pipe open.
const STDERR_DRAIN: Duration = Duration::from_millis(250);

/// Exit status in a portable, serialisable form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExitStatusInfo {
    /// Exit code when the process exited normally.
    pub code: Option<i32>,
    /// Terminating signal (Unix) when it was killed.
    pub signal: Option<i32>,
}

impl ExitStatusInfo {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl From<std::process::ExitStatus> for ExitStatusInfo {
    fn from(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
        }
    }
}

impl fmt::Display for ExitStatusInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(sig)) => write!(f, "killed by signal {sig}{}", signal_name(sig)),
            (None, None) => f.write_str("unknown exit status"),
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// What is known once the child is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChildExit {
    pub status: ExitStatusInfo,
    /// The last stderr lines (see [`ProcessSpec::stderr_tail_lines`]).
    pub stderr_tail: String,
    /// The host of a child that ran there (its `ssh` exit codes mean the connection).
    #[serde(skip)]
    pub remote: Option<agentdesk_protocol::remote::SshLocation>,
    /// Set when this app stopped the child for using too much memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_memory: Option<MemoryOver>,
}

/// An engine stopped for its memory: what it used when it was measured, and its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MemoryOver {
    pub resident_bytes: u64,
    pub limit_bytes: u64,
}

impl fmt::Display for MemoryOver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "it used {} of memory, over its limit of {} (Settings → Engines)",
            human_bytes(self.resident_bytes),
            human_bytes(self.limit_bytes)
        )
    }
}

/// "4.0 GB", "612 MB".
fn human_bytes(n: u64) -> String {
    const MB: u64 = 1024 * 1024;
    const GB: u64 = 1024 * MB;
    if n >= GB {
        format!("{:.1} GB", n as f64 / GB as f64)
    } else {
        format!("{} MB", n.div_ceil(MB))
    }
}

/// How often an engine's memory is measured against its limit: cheap (one small read of
/// `/proc` on Linux), and a leak that reaches gigabytes takes far longer than this.
pub const MEMORY_CHECK_EVERY: Duration = Duration::from_secs(2);

impl ChildExit {
    /// The error every pending call fails with.
    pub fn to_error(&self) -> EngineError {
        if let Some(host) = &self.remote {
            let code = self.status.code;
            // Anything else is the engine's own exit, reported as for a local one.
            if matches!(
                code,
                Some(
                    crate::ssh::EXIT_SSH | crate::ssh::EXIT_NO_FOLDER | crate::ssh::EXIT_NO_PROGRAM
                ) | None
            ) && self.status.signal.is_none()
            {
                return EngineError::Remote {
                    host: host.host_label(),
                    reason: crate::ssh::reason(code, &self.stderr_tail, host),
                };
            }
        }
        if let Some(over) = self.over_memory {
            return EngineError::MemoryLimit(over);
        }
        EngineError::ChildExited {
            status: Some(self.status),
            stderr_tail: self.stderr_tail.clone(),
        }
    }
}

/// Observe the child's exit: cheap to clone, resolves once (after stderr drained briefly).
#[derive(Debug, Clone)]
pub struct ExitWatch {
    rx: watch::Receiver<Option<ChildExit>>,
}

impl ExitWatch {
    /// A sender/watch pair, for anything that is not a [`ChildProcess`] (tests, other hosts).
    pub fn channel() -> (watch::Sender<Option<ChildExit>>, Self) {
        let (tx, rx) = watch::channel(None);
        (tx, Self { rx })
    }

    /// The exit, if it already happened.
    pub fn get(&self) -> Option<ChildExit> {
        self.rx.borrow().clone()
    }

    /// Wait for the exit. `None` if the supervisor vanished without reporting one.
    pub async fn wait(&mut self) -> Option<ChildExit> {
        let waited = match self.rx.wait_for(Option::is_some).await {
            Ok(exit) => exit.clone(),
            Err(_) => None,
        };
        waited.or_else(|| self.rx.borrow().clone())
    }
}

/// Timings of the stop ladder. Total worst case: the sum of the three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopConfig {
    /// After closing stdin (engines exit on EOF: codex in 30–60 ms).
    pub stdin_grace: Duration,
    /// After SIGTERM to the group.
    pub term_grace: Duration,
    /// After SIGKILL, for the kernel to deliver and us to reap.
    pub kill_wait: Duration,
}

impl Default for StopConfig {
    fn default() -> Self {
        Self {
            stdin_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
            kill_wait: Duration::from_secs(1),
        }
    }
}

/// Everything needed to start an engine child.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    /// What the environment starts from (default: the allow-listed basics).
    pub base_env: BaseEnv,
    /// Removed from the base (secrets the profile does not pass on). [`ALWAYS_REMOVED_ENV`]
    /// is removed in any case.
    pub env_remove: Vec<OsString>,
    /// Added last (profile variables); entries named in [`ALWAYS_REMOVED_ENV`] are ignored.
    pub env: Vec<(OsString, OsString)>,
    /// Folders put first on the child's `PATH` (the engine's own, see
    /// [`Executable::path_first`]). The `PATH` they go before is the profile's when it sets
    /// one, else the app's merged with the login shell's ([`crate::login_path`]).
    pub path_first: Vec<PathBuf>,
    /// Linux: `PR_SET_PDEATHSIG(SIGKILL)` on the child (default). Off only in tests that
    /// check the orphan watchdog alone (what macOS has).
    pub parent_death_signal: bool,
    pub stop: StopConfig,
    /// Stderr lines kept for error messages.
    pub stderr_tail_lines: usize,
    /// Longer stderr lines are cut (memory bound against a child spewing without newlines).
    pub stderr_max_line_bytes: usize,
    /// Where stderr lines go as diagnostics (besides the tail and `tracing`).
    pub diagnostics: Option<mpsc::UnboundedSender<Diagnostic>>,
    /// Short name for logs ("codex", "claude").
    pub label: String,
    /// Literal values redacted from stderr (besides the shapes [`crate::redact`] knows):
    /// every [`Self::env`] value whose name looks secret is added automatically.
    pub secrets: Vec<String>,
    /// Run on another machine: the child is an `ssh` channel starting `program` (a name
    /// found on the host's login `PATH`) in `cwd` there, with only [`Self::env`] sent (and
    /// the agent forwarded when the host says so).
    pub remote: Option<crate::ssh::RemoteHost>,
    /// Stop the child when its resident memory passes this many bytes (measured every
    /// [`MEMORY_CHECK_EVERY`]; `None`: never). Not applied to a child on another machine
    /// (what runs here is `ssh`).
    pub memory_limit: Option<u64>,
}

/// `tracing` target of engine stderr lines. Logged at TRACE: the default filters (app and
/// CLI) leave them out of the log file; they are kept, redacted, as diagnostics instead.
pub const STDERR_LOG_TARGET: &str = "agentdesk_engine::stderr";

impl ProcessSpec {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        let program = program.into();
        let label = program
            .file_stem()
            .map_or_else(|| "engine".to_owned(), |s| s.to_string_lossy().into_owned());
        Self {
            program,
            args: Vec::new(),
            cwd: None,
            base_env: BaseEnv::Allowlisted,
            env_remove: Vec::new(),
            env: Vec::new(),
            path_first: Vec::new(),
            parent_death_signal: true,
            stop: StopConfig::default(),
            stderr_tail_lines: 100,
            stderr_max_line_bytes: 64 * 1024,
            diagnostics: None,
            label,
            secrets: Vec::new(),
            remote: None,
            memory_limit: None,
        }
    }

    /// Start from a discovered executable: what it launches (on Windows a `.cmd` shim's
    /// `node <script>` or native executable), the variables that launch needs, and the
    /// engine's folder first on `PATH`.
    pub fn for_executable(exe: &Executable) -> Self {
        let mut spec = Self::new(exe.launch_program.clone());
        spec.args.clone_from(&exe.launch_prefix_args);
        spec.path_first.clone_from(&exe.path_first);
        if let Some(stem) = exe.path.file_stem() {
            spec.label = stem.to_string_lossy().into_owned();
        }
        for (key, value) in &exe.launch_env {
            spec = spec.env(key, value);
        }
        spec
    }

    /// [`Self::for_executable`] for an engine path from settings or discovery.
    pub fn for_engine(program: &std::path::Path) -> Self {
        Self::for_executable(&Executable::new(
            program.to_path_buf(),
            crate::discovery::FoundVia::Override,
        ))
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        let (key, value) = (key.into(), value.into());
        if let (Some(k), Some(v)) = (key.to_str(), value.to_str()) {
            if crate::redact::looks_like_secret_name(k) && !v.is_empty() {
                self.secrets.push(v.to_owned());
            }
        }
        self.env.push((key, value));
        self
    }

    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env_remove.push(key.into());
        self
    }

    pub fn stop_config(mut self, stop: StopConfig) -> Self {
        self.stop = stop;
        self
    }

    pub fn diagnostics(mut self, sink: mpsc::UnboundedSender<Diagnostic>) -> Self {
        self.diagnostics = Some(sink);
        self
    }

    fn command(&self) -> Command {
        if let Some(remote) = &self.remote {
            return self.remote_command(remote);
        }
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Last resort if the wait task is dropped with the runtime: SIGKILL the leader.
            .kill_on_drop(true);
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        match self.base_env {
            BaseEnv::Inherit => {}
            BaseEnv::Empty => {
                cmd.env_clear();
            }
            BaseEnv::Allowlisted => {
                cmd.env_clear();
                cmd.envs(crate::child_env::common_env(std::env::vars_os()));
            }
        }
        for key in &self.env_remove {
            cmd.env_remove(key);
        }
        for key in ALWAYS_REMOVED_ENV {
            cmd.env_remove(key);
        }
        for (key, value) in &self.env {
            if crate::child_env::always_removed(key) {
                continue;
            }
            cmd.env(key, value);
        }
        if let Some(path) = self.child_path() {
            cmd.env("PATH", path);
        }
        // Process group, PDEATHSIG, Job Object: added by `OsChild::spawn`.
        cmd
    }

    /// The `ssh` channel that runs this spec on its host: the local process has the
    /// allow-listed basics (ssh needs `HOME`, `SSH_AUTH_SOCK`); the remote one gets what
    /// `sshd` sets, the login shell's `PATH` and [`Self::env`] — never the app's variables.
    fn remote_command(&self, host: &crate::ssh::RemoteHost) -> Command {
        let env: Vec<(OsString, OsString)> = self
            .env
            .iter()
            .filter(|(k, _)| !crate::child_env::always_removed(k))
            .cloned()
            .collect();
        let cwd = self
            .cwd
            .as_ref()
            .map_or_else(|| ".".to_owned(), |c| c.to_string_lossy().into_owned());
        let line =
            crate::ssh::launch_command(&cwd, &self.program.to_string_lossy(), &self.args, &env);
        let mut cmd = Command::new(&host.ssh_program);
        cmd.args(host.channel_args(host.forward_agent, line))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .env_clear()
            .envs(crate::ssh::ssh_env());
        cmd
    }

    /// The child's `PATH` when it differs from what the base gives: the profile's `PATH`, else
    /// the inherited one merged with the login shell's; then [`Self::path_first`] before it.
    fn child_path(&self) -> Option<OsString> {
        let is_path = |k: &OsString| {
            k.to_str()
                .is_some_and(|k| crate::child_env::same_name(k, "PATH"))
        };
        let profile = self
            .env
            .iter()
            .rev()
            .find(|(k, _)| is_path(k))
            .map(|(_, v)| v.clone());
        let removed = self.env_remove.iter().any(is_path);
        let inherited = match self.base_env {
            BaseEnv::Empty => None,
            BaseEnv::Allowlisted | BaseEnv::Inherit if !removed => {
                crate::login_path::effective_path()
            }
            BaseEnv::Allowlisted | BaseEnv::Inherit => None,
        };
        let path = profile.or(inherited)?;
        if self.path_first.is_empty() {
            return Some(path);
        }
        Some(crate::login_path::prepend(&self.path_first, Some(&path)))
    }
}

/// Bounded ring of the last stderr lines.
#[derive(Debug)]
struct StderrRing {
    lines: Mutex<VecDeque<String>>,
    max_lines: usize,
}

impl StderrRing {
    fn push(&self, line: String) {
        let mut lines = lock(&self.lines);
        if lines.len() >= self.max_lines.max(1) {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn tail(&self) -> String {
        let lines = lock(&self.lines);
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// Sends signals to the child's group (Unix) and kill requests to the wait task (all; on
/// Windows that terminates the job).
#[derive(Debug, Clone)]
struct Killer {
    pid: Option<u32>,
    kill_tx: mpsc::UnboundedSender<()>,
}

#[derive(Debug, Clone, Copy)]
enum Sig {
    Term,
    Kill,
}

impl Killer {
    fn signal(&self, sig: Sig) {
        if let Some(pid) = self.pid {
            os::signal_group(pid, sig);
        }
        if matches!(sig, Sig::Kill) {
            // Unix: backup for a leader that left our group (setsid). Windows: the kill itself.
            let _ = self.kill_tx.send(());
        }
    }
}

/// The stop ladder, moved into a future. If that future is dropped before it finished, even
/// unpolled (runtime shutting down right after `Drop` spawned it), `Drop` SIGKILLs the group.
struct Ladder {
    armed: bool,
    writer: Option<LineWriter>,
    stdin: Option<ChildStdin>,
    exit: ExitWatch,
    killer: Killer,
    config: StopConfig,
    label: String,
}

impl Ladder {
    async fn run(mut self) -> Option<ChildExit> {
        if let Some(writer) = self.writer.take() {
            writer.close();
        }
        drop(self.stdin.take());
        let steps = [
            (None, self.config.stdin_grace),
            (Some(Sig::Term), self.config.term_grace),
            (Some(Sig::Kill), self.config.kill_wait),
        ];
        let mut result = None;
        // Without SIGTERM (Windows) the middle rung would only wait: skip it.
        let steps = steps
            .into_iter()
            .filter(|(sig, _)| cfg!(unix) || !matches!(sig, Some(Sig::Term)));
        for (sig, grace) in steps {
            if let Some(sig) = sig {
                tracing::debug!(engine = %self.label, ?sig, "stop ladder: signalling group");
                self.killer.signal(sig);
            }
            if let Ok(exit) = tokio::time::timeout(grace, self.exit.wait()).await {
                result = exit;
                break;
            }
        }
        // The leader is gone (or unkillable); whatever is left in its group is an orphan.
        self.killer.signal(Sig::Kill);
        self.armed = false;
        if result.is_none() {
            tracing::warn!(engine = %self.label, "stop ladder: child did not exit after SIGKILL");
        }
        result
    }
}

impl Drop for Ladder {
    fn drop(&mut self) {
        if self.armed {
            self.killer.signal(Sig::Kill);
        }
    }
}

/// A running engine child. See the module docs for the guarantees.
#[derive(Debug)]
pub struct ChildProcess {
    label: String,
    pid: Option<u32>,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    writer: Option<LineWriter>,
    exit: ExitWatch,
    ring: Arc<StderrRing>,
    killer: Killer,
    stop: StopConfig,
    stopped: bool,
}

impl ChildProcess {
    /// Spawn the child with piped stdio. Must be called inside a tokio runtime, from a
    /// long-lived thread (see the Linux note in the module docs).
    pub fn spawn(spec: ProcessSpec) -> Result<Self, EngineError> {
        if cfg!(windows) && spec.remote.is_none() {
            os::check_command_line(&spec.program, &spec.args)?;
        }
        let mut child =
            OsChild::spawn(spec.command(), spec.parent_death_signal).map_err(|source| {
                if let (Some(host), std::io::ErrorKind::NotFound) = (&spec.remote, source.kind()) {
                    EngineError::Remote {
                        host: host.label(),
                        reason: format!(
                            "the SSH client ({}) is not installed on this machine: install OpenSSH",
                            host.ssh_program.display()
                        ),
                    }
                } else if source.kind() == std::io::ErrorKind::NotFound {
                    EngineError::NotFound {
                        program: spec.program.display().to_string(),
                        hint: "the executable does not exist (check the engine path in Settings)"
                            .to_owned(),
                        searched: vec![spec.program.clone()],
                    }
                } else {
                    EngineError::Spawn {
                        program: spec.program.clone(),
                        source,
                    }
                }
            })?;
        let pid = child.id();
        tracing::debug!(engine = %spec.label, ?pid, program = %spec.program.display(), "spawned");
        // The group dies with the app even when no destructor runs (crash, SIGKILL).
        #[cfg(unix)]
        if let Some(pid) = pid {
            crate::watchdog::register(pid);
        }
        let ring = Arc::new(StderrRing {
            lines: Mutex::new(VecDeque::new()),
            max_lines: spec.stderr_tail_lines,
        });
        let pipes = child.take_pipes();
        let stderr_task = pipes.stderr.map(|stderr| {
            tokio::spawn(stderr_loop(
                stderr,
                Arc::clone(&ring),
                spec.diagnostics.clone(),
                spec.label.clone(),
                spec.stderr_max_line_bytes,
                spec.secrets.clone(),
            ))
        });
        let (stdin, stdout) = (pipes.stdin, pipes.stdout);
        let (exit_tx, exit) = ExitWatch::channel();
        let (kill_tx, kill_rx) = mpsc::unbounded_channel();
        let memory_limit = spec.memory_limit.filter(|_| spec.remote.is_none());
        tokio::spawn(wait_loop(
            child,
            Watched {
                pid,
                label: spec.label.clone(),
                memory_limit,
                remote: spec.remote.as_ref().map(|h| h.location.clone()),
            },
            stderr_task,
            Arc::clone(&ring),
            exit_tx,
            kill_rx,
        ));
        Ok(Self {
            label: spec.label,
            pid,
            stdin,
            stdout,
            writer: None,
            exit,
            ring,
            killer: Killer { pid, kill_tx },
            stop: spec.stop,
            stopped: false,
        })
    }

    /// OS process id (also the process group id on Unix).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// A JSON-line transport over the child's stdio. The stop ladder closes stdin through its
    /// writer. Fails if the stdio was already taken.
    pub fn transport(&mut self, config: &TransportConfig) -> Result<Transport, EngineError> {
        self.transport_with(config, JsonLines)
    }

    /// [`Self::transport`] with the engine's own line decoder (typed hot paths).
    pub fn transport_with<D: Decode>(
        &mut self,
        config: &TransportConfig,
        decoder: D,
    ) -> Result<Transport<D::Item>, EngineError> {
        let (stdin, stdout) = self
            .take_stdio()
            .ok_or_else(|| EngineError::Closed("child stdio already taken".to_owned()))?;
        let transport = Transport::with_decoder(stdout, stdin, config, decoder);
        self.writer = Some(transport.writer.clone());
        Ok(transport)
    }

    /// Raw stdio, for callers that frame by themselves. The stop ladder then cannot close stdin
    /// (drop it yourself), and goes straight from the grace wait to SIGTERM.
    pub fn take_stdio(&mut self) -> Option<(ChildStdin, ChildStdout)> {
        Some((self.stdin.take()?, self.stdout.take()?))
    }

    /// Resolves when the child has exited.
    pub fn exit_watch(&self) -> ExitWatch {
        self.exit.clone()
    }

    /// The exit, if it already happened.
    pub fn try_exit(&self) -> Option<ChildExit> {
        self.exit.get()
    }

    /// The last stderr lines so far.
    pub fn stderr_tail(&self) -> String {
        self.ring.tail()
    }

    /// Run the stop ladder and return how the child ended (`None` only if it survived SIGKILL).
    pub async fn stop(&mut self) -> Option<ChildExit> {
        if self.stopped {
            return self.exit.get();
        }
        let ladder = self.ladder();
        let exit = ladder.run().await;
        self.stopped = true;
        exit
    }

    fn ladder(&mut self) -> Ladder {
        Ladder {
            armed: true,
            writer: self.writer.take(),
            stdin: self.stdin.take(),
            exit: self.exit.clone(),
            killer: self.killer.clone(),
            config: self.stop,
            label: self.label.clone(),
        }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        let ladder = self.ladder();
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(ladder.run());
            }
            // No runtime: dropping the ladder unrun SIGKILLs the group.
            Err(_) => drop(ladder),
        }
    }
}

/// What the wait loop knows of its child besides the handle.
struct Watched {
    pid: Option<u32>,
    label: String,
    memory_limit: Option<u64>,
    remote: Option<agentdesk_protocol::remote::SshLocation>,
}

async fn wait_loop(
    mut child: OsChild,
    watched: Watched,
    stderr_task: Option<JoinHandle<()>>,
    ring: Arc<StderrRing>,
    exit_tx: watch::Sender<Option<ChildExit>>,
    mut kill_rx: mpsc::UnboundedReceiver<()>,
) {
    let Watched {
        pid,
        label,
        memory_limit,
        remote,
    } = watched;
    let mut over_memory = None;
    let mut memory_check = tokio::time::interval(MEMORY_CHECK_EVERY);
    memory_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let measured = pid.filter(|_| memory_limit.is_some());
    let status = loop {
        tokio::select! {
            status = child.wait() => break status,
            Some(()) = kill_rx.recv() => {
                // Error means it already exited; wait() will say so.
                let _ = child.start_kill();
            }
            _ = memory_check.tick(), if over_memory.is_none() && measured.is_some() => {
                let (Some(pid), Some(limit)) = (measured, memory_limit) else { continue };
                let Some(used) = os::resident_bytes(pid).filter(|used| *used > limit) else {
                    continue;
                };
                let over = MemoryOver { resident_bytes: used, limit_bytes: limit };
                tracing::warn!(engine = %label, pid, used, limit, "engine over its memory limit; stopping it");
                over_memory = Some(over);
                // The whole group: what it started goes with it, as at any other stop.
                os::signal_group(pid, Sig::Kill);
                let _ = child.start_kill();
            }
        }
    };
    let status = match status {
        Ok(status) => ExitStatusInfo::from(status),
        Err(err) => {
            tracing::warn!(error = %err, "waiting for engine child failed");
            ExitStatusInfo {
                code: None,
                signal: None,
            }
        }
    };
    if let Some(task) = stderr_task {
        let _ = tokio::time::timeout(STDERR_DRAIN, task).await;
    }
    let _ = exit_tx.send(Some(ChildExit {
        status,
        stderr_tail: ring.tail(),
        remote,
        over_memory,
    }));
    // Hold the child until the ladder's last rung asks for the kill or every owner is gone.
    // On Windows the child owns the Job Object: dropping it closes the job, which kills what
    // the engine left running, so dropping it at the leader's exit would end the tree before
    // the owner says so (Unix leaves the group alone until the ladder's final SIGKILL too).
    if kill_rx.recv().await.is_some() {
        // Windows: terminates what is left in the job. Unix: the leader is reaped; the
        // group was signalled by the ladder itself.
        let _ = child.start_kill();
    }
    drop(child);
    // The group was SIGKILLed by the ladder's last rung: the watchdog forgets it, so a later
    // group that gets the same id is not killed at the app's exit.
    #[cfg(unix)]
    if let Some(pid) = pid {
        crate::watchdog::unregister(pid);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

async fn stderr_loop<R: AsyncRead + Unpin>(
    stderr: R,
    ring: Arc<StderrRing>,
    sink: Option<mpsc::UnboundedSender<Diagnostic>>,
    label: String,
    max_line: usize,
    secrets: Vec<String>,
) {
    let mut framer = LineFramer::new(stderr, max_line);
    while let Ok(Some(frame)) = framer.next_frame().await {
        let line = match frame {
            Frame::Line(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Frame::Oversized { len, head } => {
                format!("{}… ({len} bytes, cut)", String::from_utf8_lossy(&head))
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        // Redacted before anything keeps it: the tail ends up in error messages (stored).
        let line = crate::redact::redact(&line, &secrets);
        tracing::trace!(target: "agentdesk_engine::stderr", engine = %label, "{line}");
        if let Some(sink) = &sink {
            let _ = sink.send(Diagnostic::new(
                DiagnosticSource::Stderr,
                DiagnosticKind::StderrLine,
                line.clone(),
            ));
        }
        ring.push(line);
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
