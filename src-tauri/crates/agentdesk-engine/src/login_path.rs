//! The user's login-shell `PATH`, for engines started by an app the desktop launched.
//!
//! An app started from Finder/Dock gets launchd's `PATH=/usr/bin:/bin:/usr/sbin:/sbin`; one
//! started from a Linux desktop launcher gets the session's, which lacks what `~/.bashrc` or
//! `~/.zshrc` add (nvm, Homebrew on Linux, `~/.cargo/bin`). Discovery still finds an npm
//! engine in the usual install dirs, but it is a `#!/usr/bin/env node` script: without `node`
//! on the child's `PATH` it exits 127, and the agent's own tools (Homebrew `git`, `rg`,
//! `python`) are missing too. So, as fix-path-env does, the login shell is asked once per
//! process (`$SHELL -i -l -c`, stdin null, a new session so it cannot take the terminal, killed
//! after [`PROBE_TIMEOUT`]) and its `PATH` is merged into what engine children and discovery
//! use ([`effective_path`]). Never on Windows (no login shell; GUI apps get the user's `PATH`).
//!
//! # When the merge changes anything
//! Always probed (a launcher cannot be told apart reliably: `SHLVL` and `TERM` leak from
//! session scripts, `open -a` from a terminal gets launchd's environment), but merged only
//! when the current `PATH` lacks some login entry ([`merge`]): a process started from a shell
//! already has them, and then its own order (an activated venv, a `PATH=… agentdesk-cli`)
//! wins unchanged. Otherwise the login entries come first (Homebrew's `git` before
//! `/usr/bin/git`, as in the user's terminal), then the current ones they lack. The process
//! environment itself is never modified (`set_var` races other threads' `getenv`): the
//! merged value is applied where children are built (`process.rs`) and searched
//! (`discovery.rs`). A failed or slow probe is logged and leaves `PATH` as it was.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The most the login shell may take (rc files that hang, a prompt waiting for input).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The login `PATH`, probed once per process (`None`: no login shell, failure, Windows).
static LOGIN_PATH: OnceLock<Option<OsString>> = OnceLock::new();

/// The login shell's `PATH`, probing it on first use (blocks at most [`PROBE_TIMEOUT`]).
pub fn login_path() -> Option<&'static OsStr> {
    LOGIN_PATH.get_or_init(probe_once).as_deref()
}

/// Start the probe on a thread of its own, so it is done (or nearly) when the first engine is
/// located; callers of [`login_path`] meanwhile wait for that same probe.
pub fn warm_up() {
    if LOGIN_PATH.get().is_some() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("login-path".to_owned())
        .spawn(|| {
            login_path();
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the login PATH probe thread");
    }
}

/// The `PATH` children and discovery use: the process's own, merged with the login shell's.
pub fn effective_path() -> Option<OsString> {
    let current = std::env::var_os("PATH");
    match login_path() {
        Some(login) => Some(merge(login, current.as_deref())),
        None => current,
    }
}

fn probe_once() -> Option<OsString> {
    #[cfg(unix)]
    {
        let shell = unix::login_shell();
        let started = std::time::Instant::now();
        match unix::probe(&shell, PROBE_TIMEOUT) {
            Ok(path) => {
                tracing::debug!(shell = %shell.display(), elapsed = ?started.elapsed(), path = %path.to_string_lossy(), "login shell PATH");
                Some(path)
            }
            Err(e) => {
                tracing::warn!(shell = %shell.display(), error = %e, "could not read the login shell's PATH; engines get the app's");
                None
            }
        }
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn entries(path: Option<&OsStr>) -> Vec<PathBuf> {
    path.map(|p| {
        std::env::split_paths(p)
            .filter(|e| !e.as_os_str().is_empty())
            .collect()
    })
    .unwrap_or_default()
}

fn join(dirs: Vec<PathBuf>) -> OsString {
    let mut unique: Vec<PathBuf> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        if !unique.contains(&dir) {
            unique.push(dir);
        }
    }
    // Only fails on an entry holding the separator, which split_paths never yields; a
    // hand-made one is dropped rather than corrupting the whole value.
    std::env::join_paths(&unique).unwrap_or_else(|_| {
        let kept: Vec<&PathBuf> = unique
            .iter()
            .filter(|d| std::env::join_paths([d]).is_ok())
            .collect();
        std::env::join_paths(kept).unwrap_or_default()
    })
}

/// `current` unchanged when it already holds every `login` entry (started from a shell);
/// otherwise the login entries first, then the current ones they lack. Deduplicated; empty
/// entries (which mean the cwd) dropped.
pub fn merge(login: &OsStr, current: Option<&OsStr>) -> OsString {
    let login = entries(Some(login));
    let current_entries = entries(current);
    if login.iter().all(|d| current_entries.contains(d)) {
        if let Some(current) = current {
            return current.to_owned();
        }
    }
    join(login.into_iter().chain(current_entries).collect())
}

/// `first` before the entries of `path`, each once: the engine's own folder first, so a
/// `#!/usr/bin/env node` engine runs on the `node` installed next to it (nvm, Homebrew).
pub fn prepend(first: &[PathBuf], path: Option<&OsStr>) -> OsString {
    join(
        first
            .iter()
            .filter(|d| !d.as_os_str().is_empty())
            .cloned()
            .chain(entries(path))
            .collect(),
    )
}

/// The `PATH` between the first two lines that are exactly `marker` in a probe's output (rc
/// files print what they like before and after). `None` when missing or empty.
pub fn parse_probe_output(output: &[u8], marker: &str) -> Option<OsString> {
    let text = String::from_utf8_lossy(output);
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    lines.by_ref().find(|l| l.trim() == marker)?;
    let mut inside = Vec::new();
    for line in lines {
        if line.trim() == marker {
            let path = inside.into_iter().find(|l: &&str| !l.trim().is_empty())?;
            return Some(OsString::from(path.trim()));
        }
        inside.push(line);
    }
    None
}

/// The command a shell runs to print its `PATH` between markers: `echo` and an external
/// `printenv` read the same in sh, bash, zsh, fish, nushell and csh (fish would print its
/// `$PATH` list space-separated).
pub fn probe_command(marker: &str) -> String {
    format!("echo {marker}; printenv PATH; echo {marker}")
}

/// The shell's arguments: interactive login (`-i -l -c`) where rc files set `PATH`; csh and
/// tcsh take `-l` only alone and read `.cshrc` for `-c` anyway.
pub fn shell_args(shell: &std::path::Path, command: &str) -> Vec<OsString> {
    let name = shell
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let flags: &[&str] = if matches!(name.as_str(), "csh" | "tcsh") {
        &["-c"]
    } else {
        &["-i", "-l", "-c"]
    };
    flags
        .iter()
        .map(OsString::from)
        .chain([OsString::from(command)])
        .collect()
}

#[cfg(unix)]
pub(crate) mod unix {
    use std::ffi::{CStr, OsString};
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    use crate::error::EngineError;

    /// The most of the shell's output kept (rc files may print a lot).
    const MAX_OUTPUT: usize = 1024 * 1024;

    /// `$SHELL` when it is an absolute path, else the account's shell, else `/bin/sh`.
    pub fn login_shell() -> PathBuf {
        if let Some(shell) = std::env::var_os("SHELL").map(PathBuf::from) {
            if shell.is_absolute() {
                return shell;
            }
        }
        account_shell().unwrap_or_else(|| PathBuf::from("/bin/sh"))
    }

    fn account_shell() -> Option<PathBuf> {
        // SAFETY: getpwuid returns a pointer into static storage (or null) that stays valid
        // until the next getpw* call; the shell string is copied out at once. A concurrent
        // getpw* call on another thread could overwrite it, which at worst yields another
        // valid C string from the same storage (no other code here calls getpw*).
        unsafe {
            let pw = libc::getpwuid(libc::getuid());
            if pw.is_null() || (*pw).pw_shell.is_null() {
                return None;
            }
            let shell = CStr::from_ptr((*pw).pw_shell).to_bytes();
            if shell.is_empty() {
                return None;
            }
            Some(PathBuf::from(std::ffi::OsStr::from_bytes(shell)))
        }
    }

    /// Run `shell` as an interactive login shell printing its `PATH`; killed (with whatever it
    /// started in its session) after `timeout` or once the `PATH` is read.
    pub fn probe(shell: &Path, timeout: Duration) -> Result<OsString, EngineError> {
        let nonce = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let marker = format!("_AGENTDESK_PATH_{}_{nonce}_", std::process::id());
        let (mut child, rx) = spawn_in_own_session(shell, &marker)?;
        let pid = child.id();
        let result = read_path(&rx, &marker, shell, timeout);
        // The shell is not reaped yet, so its pid (= its group's id) cannot have been reused.
        if let Ok(pgid) = i32::try_from(pid) {
            // SAFETY: kill(2) on the process group this function created with setsid; no
            // memory involved; ESRCH (already gone) is fine.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        result
    }

    /// `shell` started in a session of its own, and what it prints, read by a thread.
    fn spawn_in_own_session(
        shell: &Path,
        marker: &str,
    ) -> Result<(Child, mpsc::Receiver<Vec<u8>>), EngineError> {
        let mut cmd = Command::new(shell);
        cmd.args(super::shell_args(shell, &super::probe_command(marker)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // oh-my-zsh would otherwise ask whether to update (and wait for an answer).
            .env("DISABLE_AUTO_UPDATE", "true");
        // SAFETY: runs in the forked child before exec; setsid(2) is async-signal-safe and
        // nothing else is touched. A new session has no controlling terminal, so an
        // interactive shell cannot take the terminal's foreground from the CLI that runs it
        // (which would stop that CLI with SIGTTIN/SIGTTOU), and its process group (its pid)
        // holds everything its rc files start, for the kill in `probe`.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|source| EngineError::Spawn {
            program: shell.to_path_buf(),
            source,
        })?;
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        if let Some(mut stdout) = child.stdout.take() {
            // A thread of its own: a daemon started by an rc file may hold the pipe open
            // after the shell exits; the thread then ends when that daemon is killed or
            // closes it, and nobody waits for it.
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = stdout.read(&mut buf) {
                    if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            });
        }
        Ok((child, rx))
    }

    /// The `PATH` between the markers in what the shell prints, read until it is there, the
    /// output ends, or `timeout` passes.
    fn read_path(
        rx: &mpsc::Receiver<Vec<u8>>,
        marker: &str,
        shell: &Path,
        timeout: Duration,
    ) -> Result<OsString, EngineError> {
        let deadline = Instant::now() + timeout;
        let mut output = Vec::new();
        loop {
            if let Some(path) = super::parse_probe_output(&output, marker) {
                break Ok(path);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break Err(EngineError::Timeout {
                    what: format!("the login shell {} to print its PATH", shell.display()),
                    after: timeout,
                });
            }
            match rx.recv_timeout(left) {
                Ok(chunk) => {
                    if output.len() < MAX_OUTPUT {
                        output.extend_from_slice(&chunk);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break super::parse_probe_output(&output, marker).ok_or_else(|| {
                        EngineError::Preflight(format!(
                            "the login shell {} printed no PATH ({})",
                            shell.display(),
                            crate::diagnostic::excerpt(&output)
                        ))
                    });
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "login_path_tests.rs"]
mod tests;
