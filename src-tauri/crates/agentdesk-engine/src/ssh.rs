//! Engines on another machine, over the system OpenSSH client.
//!
//! Why `ssh` and not an SSH library: the user's `~/.ssh/config` (Host aliases, ProxyJump,
//! IdentityFile, `Match`), their agent and keys, and `known_hosts` semantics (a changed host
//! key is refused) all come with it, exactly as the user's terminal sees them; a library
//! would re-implement a subset of each. The price is that errors arrive as stderr text,
//! which [`reason`] turns into what the user should do.
//!
//! One connection per host: a master (`ssh -M -N`, owned by an [`SshLink`], stopped with it)
//! and every engine, check and upload as a channel multiplexed over it (`ControlMaster=no`
//! with the master's `ControlPath`), so a run starts without a new handshake. Windows'
//! OpenSSH has no multiplexing: there each channel is a connection of its own.
//!
//! The remote side: the command `sshd` hands to the user's shell is a POSIX `sh` script
//! ([`launch_command`]) that takes `PATH` from the user's login shell (where npm and
//! version managers put the engines), goes to the folder, exports only the variables the
//! profile sends and `exec`s the engine, so the engine is the channel's process: when the
//! channel closes (the app stopped it, the connection dropped) its stdin ends and it exits
//! (both engines end on EOF).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use agentdesk_protocol::remote::SshLocation;
use tokio::io::AsyncWriteExt;

use crate::error::EngineError;
use crate::process::{BaseEnv, ChildProcess, ProcessSpec, StopConfig};

/// Exit code of the launch script when the folder is missing on the host.
pub const EXIT_NO_FOLDER: i32 = 97;
/// Exit code of the launch script when the program is not on the login shell's `PATH`.
pub const EXIT_NO_PROGRAM: i32 = 127;
/// `ssh`'s own exit code for its errors (connection, authentication, host key).
pub const EXIT_SSH: i32 = 255;
/// How long a connection may take before it is reported unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Keepalives: a link that does not answer `ALIVE_COUNT` probes `ALIVE_INTERVAL` apart is
/// dropped (a run on it fails within 30 s of the network going away: 15–20 s).
const ALIVE_INTERVAL: u32 = 5;
const ALIVE_COUNT: u32 = 3;

/// A host and how to reach it: the system `ssh`, the user's config (or the one named by
/// `AGENTDESK_SSH_CONFIG`), and this app's control socket for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteHost {
    pub location: SshLocation,
    /// The master's socket (`None`: no multiplexing, Windows).
    pub control_path: Option<PathBuf>,
    /// `ssh -F`: `AGENTDESK_SSH_CONFIG`, else the user's own.
    pub config_file: Option<PathBuf>,
    /// `AGENTDESK_SSH`, else `ssh` on `PATH`.
    pub ssh_program: PathBuf,
    /// `ssh -A` on the engines' channels: the profile's choice (`engineOptions.
    /// sshForwardAgent`), off by default; checks and the master never forward.
    pub forward_agent: bool,
}

impl RemoteHost {
    /// `sockets` is a private folder of this app's data directory: each running app has
    /// masters of its own (another app's master could end under it).
    pub fn new(location: &SshLocation, sockets: &Path) -> Self {
        let location = location.with_path("/");
        let control_path = cfg!(unix).then(|| sockets.join(short_hash(&location.url())));
        Self {
            location,
            control_path,
            config_file: std::env::var_os("AGENTDESK_SSH_CONFIG").map(PathBuf::from),
            ssh_program: std::env::var_os("AGENTDESK_SSH")
                .map_or_else(|| PathBuf::from("ssh"), PathBuf::from),
            forward_agent: false,
        }
    }

    /// The same host with agent forwarding on the engines' channels `on` or off.
    pub fn forwarding_agent(mut self, on: bool) -> Self {
        self.forward_agent = on;
        self
    }

    /// `[user@]host[:port]`, as messages name it.
    pub fn label(&self) -> String {
        self.location.host_label()
    }

    /// Options every connection and channel has: never a password prompt (nothing could
    /// answer it), a host key that is checked and never accepted silently, keepalives, no
    /// forwarding but what the profile asks for.
    fn common_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        if let Some(cfg) = &self.config_file {
            args.push("-F".into());
            args.push(cfg.into());
        }
        if let Some(port) = self.location.port {
            args.push("-p".into());
            args.push(port.to_string().into());
        }
        for opt in [
            "BatchMode=yes".to_owned(),
            "StrictHostKeyChecking=yes".to_owned(),
            format!("ConnectTimeout={}", CONNECT_TIMEOUT.as_secs()),
            format!("ServerAliveInterval={ALIVE_INTERVAL}"),
            format!("ServerAliveCountMax={ALIVE_COUNT}"),
            "ClearAllForwardings=yes".to_owned(),
            "RequestTTY=no".to_owned(),
            "LogLevel=ERROR".to_owned(),
        ] {
            args.push("-o".into());
            args.push(opt.into());
        }
        if let Some(path) = &self.control_path {
            args.push("-o".into());
            let mut opt = OsString::from("ControlPath=");
            opt.push(path);
            args.push(opt);
        }
        args
    }

    /// The master of this host's connection.
    fn master_spec(&self) -> ProcessSpec {
        let mut spec = ProcessSpec::new(&self.ssh_program).args(self.common_args());
        spec = spec.args([
            "-M",
            "-N",
            "-o",
            "ControlMaster=yes",
            "-o",
            "ControlPersist=no",
            "-o",
            "ForwardAgent=no",
        ]);
        spec.arg("--").arg(self.location.destination())
    }

    /// `ssh` arguments of one channel running `command` (a shell command line) on the host.
    pub fn channel_args(&self, forward_agent: bool, command: String) -> Vec<OsString> {
        let mut args = self.common_args();
        if self.control_path.is_some() {
            args.push("-o".into());
            args.push("ControlMaster=no".into());
        }
        args.push("-o".into());
        args.push(
            if forward_agent {
                "ForwardAgent=yes"
            } else {
                "ForwardAgent=no"
            }
            .into(),
        );
        args.push("--".into());
        args.push(self.location.destination().into());
        args.push(command.into());
        args
    }

    /// Run a short `sh` script on the host (a check, a listing, an upload) with `args` as
    /// `$1…` and the local file `stdin` streamed to it; its stdout on success. Errors say what went wrong in the
    /// user's terms (see [`reason`]); a script's own failure is its stderr.
    pub async fn run_script(
        &self,
        script: &str,
        args: &[&str],
        stdin: Option<&Path>,
        timeout: Duration,
    ) -> Result<String, EngineError> {
        let out = self.run_raw(script, args, stdin, timeout).await?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        Err(EngineError::Remote {
            host: self.label(),
            reason: reason(
                out.status.code(),
                &String::from_utf8_lossy(&out.stderr),
                &self.location,
            ),
        })
    }

    /// [`Self::run_script`]'s output whatever the exit code.
    async fn run_raw(
        &self,
        script: &str,
        args: &[&str],
        stdin: Option<&Path>,
        timeout: Duration,
    ) -> Result<std::process::Output, EngineError> {
        let command = sh_command(script, args);
        let mut cmd = tokio::process::Command::new(&self.ssh_program);
        cmd.args(self.channel_args(false, command))
            .env_clear()
            .envs(ssh_env())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|source| EngineError::Spawn {
            program: self.ssh_program.clone(),
            source,
        })?;
        if let (Some(file), Some(mut pipe)) = (stdin, child.stdin.take()) {
            let mut file = tokio::fs::File::open(file)
                .await
                .map_err(|e| EngineError::transport(format!("reading {}", file.display()), e))?;
            // Streamed (an attachment may be large); a failed write shows as the script's
            // failure or a short file the script checks.
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut file, &mut pipe).await;
                let _ = pipe.shutdown().await;
            });
        }
        let out = tokio::time::timeout(timeout, child.wait_with_output())
            .await
            .map_err(|_| EngineError::Remote {
                host: self.label(),
                reason: format!("did not answer within {} s", timeout.as_secs()),
            })?
            .map_err(|e| EngineError::transport(format!("talking to {}", self.label()), e))?;
        Ok(out)
    }

    /// Where the host's login shell finds `program`, and its `--version`.
    pub async fn probe_version(
        &self,
        program: &str,
    ) -> Result<(String, crate::discovery::EngineVersion), EngineError> {
        let raw = self
            .run_raw(VERSION_SCRIPT, &[program], None, CONNECT_TIMEOUT * 3)
            .await?;
        let stderr = String::from_utf8_lossy(&raw.stderr);
        match raw.status.code() {
            Some(0) => {}
            Some(EXIT_NO_PROGRAM) => {
                return Err(EngineError::NotFound {
                    program: format!("{program} on {}", self.label()),
                    hint: reason(Some(EXIT_NO_PROGRAM), &stderr, &self.location),
                    searched: Vec::new(),
                })
            }
            code => {
                return Err(EngineError::Remote {
                    host: self.label(),
                    reason: reason(code, &stderr, &self.location),
                })
            }
        }
        let out = String::from_utf8_lossy(&raw.stdout);
        let mut lines = out.lines();
        let path = lines.next().unwrap_or_default().trim().to_owned();
        let rest: String = lines.collect::<Vec<_>>().join("\n");
        let version = crate::discovery::EngineVersion::parse(&rest).ok_or_else(|| {
            EngineError::VersionProbe {
                program: PathBuf::from(&path),
                detail: format!(
                    "unexpected `--version` output on {}: {rest:?}",
                    self.label()
                ),
            }
        })?;
        Ok((path, version))
    }
}

/// What of this machine's environment an engine may inherit (its own variables, the
/// profile's key variable: see `child_env::engine_env`): all of it here, nothing for an
/// engine on a host, which gets the profile's variables only.
pub fn desktop_env(remote: Option<&RemoteHost>) -> Vec<(String, String)> {
    match remote {
        Some(_) => Vec::new(),
        None => crate::child_env::parent_env(),
    }
}

/// The environment of the local `ssh` processes: the allow-listed basics and the user's
/// agent (`SSH_AUTH_SOCK`: the keys it holds log in; engines here never get it).
pub fn ssh_env() -> Vec<(OsString, OsString)> {
    let mut env = crate::child_env::common_env(std::env::vars_os());
    if let Some(sock) = std::env::var_os("SSH_AUTH_SOCK") {
        env.push(("SSH_AUTH_SOCK".into(), sock));
    }
    env
}

/// The connection to one host: its master `ssh`, stopped (and the socket with it) when
/// this is dropped.
#[derive(Debug)]
pub struct SshLink {
    pub host: RemoteHost,
    master: Option<ChildProcess>,
}

impl SshLink {
    /// Connect (the master authenticates once); `Err` says why the host cannot be used.
    pub async fn open(host: RemoteHost) -> Result<Self, EngineError> {
        let Some(socket) = host.control_path.clone() else {
            // No multiplexing: check the host answers, every channel connects itself.
            host.run_script("true", &[], None, CONNECT_TIMEOUT * 2)
                .await?;
            return Ok(Self { host, master: None });
        };
        if let Some(dir) = socket.parent() {
            private_dir(dir).map_err(|e| {
                EngineError::transport(format!("making the folder {}", dir.display()), e)
            })?;
        }
        // A socket left by a master that died with a killed app would make ours refuse to
        // listen ("ControlSocket already exists"): nothing else uses this app's folder.
        let _ = std::fs::remove_file(&socket);
        let mut spec = host.master_spec().stop_config(StopConfig {
            stdin_grace: Duration::ZERO,
            ..StopConfig::default()
        });
        spec.base_env = BaseEnv::Empty;
        for (k, v) in ssh_env() {
            spec = spec.env(k, v);
        }
        spec.label = "ssh".to_owned();
        let mut master = ChildProcess::spawn(spec)?;
        let deadline = tokio::time::Instant::now() + CONNECT_TIMEOUT + Duration::from_secs(2);
        loop {
            if let Some(exit) = master.try_exit() {
                return Err(EngineError::Remote {
                    host: host.label(),
                    reason: reason(exit.status.code, &exit.stderr_tail, &host.location),
                });
            }
            if socket.exists() {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = master.stop().await;
                return Err(EngineError::Remote {
                    host: host.label(),
                    reason: format!(
                        "did not answer within {} s (is it up, and reachable from here?)",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        tracing::info!(host = %host.label(), "ssh connection up");
        Ok(Self {
            host,
            master: Some(master),
        })
    }

    /// Whether the connection is still there (a dropped one is opened again).
    pub fn is_up(&self) -> bool {
        match &self.master {
            Some(m) => m.try_exit().is_none(),
            None => true,
        }
    }

    /// Why the link went down, when it did.
    pub fn down_reason(&self) -> Option<String> {
        let exit = self.master.as_ref()?.try_exit()?;
        Some(reason(
            exit.status.code,
            &exit.stderr_tail,
            &self.host.location,
        ))
    }

    /// Stop the master (the stop ladder) and wait for it.
    pub async fn close(mut self) {
        if let Some(mut master) = self.master.take() {
            master.stop().await;
        }
    }
}

impl Drop for SshLink {
    fn drop(&mut self) {
        if let Some(path) = &self.host.control_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The shell command line (what `sshd` gives the user's shell) that starts `program` with
/// `args` in `cwd` on the host, with only `env` added to what `sshd` sets.
pub fn launch_command(
    cwd: &str,
    program: &str,
    args: &[OsString],
    env: &[(OsString, OsString)],
) -> String {
    let mut script = String::from(LAUNCH_SCRIPT);
    for (k, v) in env {
        let (Some(k), Some(v)) = (k.to_str(), v.to_str()) else {
            continue;
        };
        if !is_env_name(k) {
            continue;
        }
        script.push_str(&format!("export {k}={}\n", sh_quote(v)));
    }
    script.push_str("exec \"$@\"\n");
    let mut all = vec![cwd.to_owned(), program.to_owned()];
    all.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    sh_command(&script, &refs)
}

/// `PATH` as the user's login shell sets it (where npm and version managers put the
/// engines); a marker comes before it because a chatty `.profile` may print first.
macro_rules! login_path_script {
    () => {
        r#"p=$("${SHELL:-/bin/sh}" -lc 'printf "\n%s%s" __agentdesk_path__ "$PATH"' </dev/null 2>/dev/null)
p=${p##*__agentdesk_path__}
[ -n "$p" ] && PATH=$p && export PATH
"#
    };
}

/// Into the folder `$1`, or exit [`EXIT_NO_FOLDER`] saying it is not there.
macro_rules! in_folder_script {
    () => {
        r#"cd -- "$1" 2>/dev/null || { printf 'the folder %s does not exist on %s\n' "$1" "$(uname -n)" >&2; exit 97; }
"#
    };
}

/// The program `$1` is on `PATH`, or exit [`EXIT_NO_PROGRAM`] saying where it was looked for.
macro_rules! program_found_script {
    () => {
        r#"command -v -- "$1" >/dev/null 2>&1 || { printf '%s is not installed on %s (not on the login shell'"'"'s PATH: %s)\n' "$1" "$(uname -n)" "$PATH" >&2; exit 127; }
"#
    };
}

/// `$1` the folder, `$2…` the program and its arguments.
const LAUNCH_SCRIPT: &str = concat!(
    login_path_script!(),
    in_folder_script!(),
    "shift\n",
    program_found_script!()
);

/// `$1` a program: its path, then its `--version`, with `PATH` as the login shell sets it.
const VERSION_SCRIPT: &str = concat!(
    login_path_script!(),
    program_found_script!(),
    r#"p=$(command -v -- "$1")
printf '%s\n' "$p"
exec "$p" --version"#
);

/// `script` run in the folder `$1` (the host says when it is not there, exit
/// [`EXIT_NO_FOLDER`]); `$1` is still the folder.
pub fn in_folder(script: &str) -> String {
    format!("{}{script}", in_folder_script!())
}

/// `exec /bin/sh -c '<script>' agentdesk <args…>`: the script runs in `sh` whatever the
/// user's shell is (bash, zsh, dash; fish reads backslashes inside quotes differently, so
/// folders with backslashes need a POSIX login shell).
pub fn sh_command(script: &str, args: &[&str]) -> String {
    let mut cmd = format!("exec /bin/sh -c {} agentdesk", sh_quote(script));
    for a in args {
        cmd.push(' ');
        cmd.push_str(&sh_quote(a));
    }
    cmd
}

/// One `sh` word holding `s` exactly.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What went wrong with a channel that exited with `code`, in the user's terms, from
/// `ssh`'s (or the launch script's) stderr.
pub fn reason(code: Option<i32>, stderr: &str, host: &SshLocation) -> String {
    let name = &host.host;
    let dest = host.destination();
    let has = |s: &str| stderr.contains(s);
    let last_line = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned();
    if has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("Host key for") && has("has changed") {
        return format!(
            "the host key of {name} has changed, so the connection was refused: someone could be intercepting it. If the server was reinstalled and its new key is right, remove the old one with `ssh-keygen -R {name}` and connect once with `ssh {dest}` to check and accept the new one"
        );
    }
    if has("Host key verification failed") || has("No ") && has("host key is known") {
        return format!(
            "the host key of {name} is not known yet: connect once with `ssh {dest}` in a terminal to check and accept it (Agent Desk never accepts a host key by itself)"
        );
    }
    if has("Could not resolve hostname") || has("Name or service not known") {
        return format!(
            "cannot find the host {name} (name lookup failed): check the name, or the Host entry in ~/.ssh/config"
        );
    }
    if has("Connection refused") {
        return format!(
            "{name} refused the connection: is its SSH server running, on port {}?",
            host.port.unwrap_or(22)
        );
    }
    if has("Connection timed out") || has("Operation timed out") || has("timed out") {
        return format!(
            "{name} did not answer within {} s (is it up, and reachable from here?)",
            CONNECT_TIMEOUT.as_secs()
        );
    }
    if has("No route to host") || has("Network is unreachable") {
        return format!("{name} is unreachable from here ({last_line})");
    }
    if has("Permission denied") || has("Too many authentication failures") {
        return format!(
            "{name} refused the login ({last_line}): Agent Desk logs in with your SSH keys and agent only (it never asks for a password); check `ssh {dest}` works without a prompt in a terminal"
        );
    }
    match code {
        Some(EXIT_NO_FOLDER) | Some(EXIT_NO_PROGRAM) if !last_line.is_empty() => last_line,
        Some(EXIT_SSH) | None => {
            // An engine's channel mixes the engine's own stderr in: only ssh's words say why.
            let said_by_ssh = [
                "ssh:",
                "client_loop",
                "mux_client",
                "Connection",
                "Timeout",
                "Shared connection",
                "Control socket",
                "Broken pipe",
            ]
            .iter()
            .any(|p| last_line.starts_with(p));
            if said_by_ssh {
                format!("the connection to {name} was lost ({last_line})")
            } else {
                format!("the connection to {name} was lost")
            }
        }
        _ if !last_line.is_empty() => last_line,
        Some(c) => format!("the command on {name} failed (exit code {c})"),
    }
}

/// A folder only this user can enter.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// 16 hex digits (FNV-1a): a socket name short enough for the 104-byte limit of a Unix
/// socket's path.
pub fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
#[path = "ssh_tests.rs"]
mod tests;
