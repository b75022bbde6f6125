//! The user's `git`, run as a child per command.
//!
//! Why the `git` program rather than a library: worktrees, merges and commits must behave
//! exactly as the user's own `git` does in that repository — their config (`user.name`,
//! `merge.ff`, signing), hooks, LFS and other filters, credential helpers, sparse checkouts.
//! libgit2 (git2) implements none of the hooks or filters and only part of the config; gix
//! has no merge and no `worktree add` yet. Every command used here has a stable
//! machine-readable form (`status --porcelain=v2 -z`, `diff --raw -z`, `--numstat -z`,
//! `merge-tree --write-tree -z`), so nothing depends on messages meant for people except the
//! few errors told apart below (with `LC_ALL=C`, so in English).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use tokio::process::Command;

use crate::{CoreError, Result};

/// `merge-tree --write-tree` (a merge computed without touching any working tree, so a
/// conflict is found before anything changes) came with git 2.38.
pub const MIN_VERSION: (u32, u32) = (2, 38);

/// Variables that would point git at another repository, index or object store than the
/// folder it is run in: a hostile or stale environment must not redirect the app's commands.
const REDIRECTING_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
];

/// What a git command printed and how it ended.
#[derive(Debug)]
pub(crate) struct GitOutput {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl GitOutput {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_owned()
    }
}

/// The git program found and of a supported version.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    program: PathBuf,
}

/// A git found and checked once per process (a failed check is tried again next time: the
/// user may install git meanwhile).
static CHECKED: OnceLock<PathBuf> = OnceLock::new();

impl Git {
    /// The user's git (`AGENTDESK_GIT`, else `git` on the login shell's `PATH`), refused
    /// with what to do when it is missing or older than [`MIN_VERSION`].
    pub async fn checked() -> Result<Git> {
        if let Some(program) = CHECKED.get() {
            return Ok(Git {
                program: program.clone(),
            });
        }
        let program = find_program()?;
        let git = Git { program };
        let out = git.output(Path::new("."), &["--version"]).await?;
        let found = parse_version(&out.text());
        match found {
            Some(v) if (v.0, v.1) >= MIN_VERSION => {
                let _ = CHECKED.set(git.program.clone());
                Ok(git)
            }
            _ => Err(CoreError::InvalidInput(format!(
                "git {} at {} is too old for worktrees: Agent Desk needs git {}.{} or newer",
                found.map_or_else(|| out.text(), |v| format!("{}.{}.{}", v.0, v.1, v.2)),
                git.program.display(),
                MIN_VERSION.0,
                MIN_VERSION.1
            ))),
        }
    }

    /// Run `git -C dir args…` and return how it ended; an error only when it cannot start.
    pub async fn output<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Result<GitOutput> {
        let mut cmd = Command::new(&self.program);
        cmd.arg("-C").arg(dir);
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for var in REDIRECTING_VARS {
            cmd.env_remove(var);
        }
        // Never wait on a prompt nobody sees (credentials, an editor), and read errors in
        // the one language they are matched in. Status refreshes must not take the index
        // lock an engine's own `git add` in the same worktree may need at that moment.
        cmd.env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_EDITOR", "true")
            .env("GIT_OPTIONAL_LOCKS", "0")
            // Paths are passed as they are named: a file called `*.rs` is that file.
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("LC_ALL", "C");
        if let Some(path) = agentdesk_engine::login_path::effective_path() {
            cmd.env("PATH", path);
        }
        #[cfg(windows)]
        {
            // CREATE_NO_WINDOW: no console flashes up for each git command.
            cmd.creation_flags(0x0800_0000);
        }
        let out = cmd.output().await.map_err(|e| CoreError::Io {
            what: format!("cannot run {}", self.program.display()),
            source: e,
        })?;
        Ok(GitOutput {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }

    /// Run a command that must succeed; its stdout.
    pub async fn run<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Result<Vec<u8>> {
        let out = self.output(dir, args).await?;
        if out.ok() {
            return Ok(out.stdout);
        }
        Err(failure(dir, args, &out.stderr))
    }

    /// [`Self::run`], its stdout as trimmed text.
    pub async fn text<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Result<String> {
        let out = self.run(dir, args).await?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }
}

/// A failed git command as the user can act on it: a lock another git holds, a full disk,
/// or git's own words.
pub(crate) fn failure<S: AsRef<OsStr>>(dir: &Path, args: &[S], stderr: &str) -> CoreError {
    let command = args
        .iter()
        .take(2)
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(lock) = locked_file(stderr) {
        return CoreError::Busy(format!(
            "git is busy in {}: another git process holds {lock}. Try again when it is done \
             (if no git is running, delete that file)",
            dir.display()
        ));
    }
    if stderr.contains("No space left on device") {
        return CoreError::Io {
            what: format!("git {command} in {}: {}", dir.display(), last_lines(stderr)),
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        };
    }
    CoreError::Git {
        command: format!("git {command}"),
        message: last_lines(stderr),
    }
}

/// `Unable to create '/repo/.git/index.lock': File exists.` → the lock's path.
fn locked_file(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains(".lock': File exists"))?;
    let start = line.find('\'')? + 1;
    let end = line[start..].find('\'')? + start;
    Some(line[start..end].to_owned())
}

/// Git's message without its hints, bounded (a hook may print a lot).
fn last_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("hint:") && !l.trim().is_empty())
        .collect();
    let from = lines.len().saturating_sub(12);
    let text = lines[from..].join("\n");
    if text.is_empty() {
        "git failed and said nothing".to_owned()
    } else {
        text
    }
}

/// `git version 2.39.3 (Apple Git-146)`, `git version 2.45.1.windows.1` → (2, 39, 3).
pub(crate) fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let rest = text.trim().strip_prefix("git version ")?;
    let mut parts = rest
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|p| p.parse::<u32>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

fn find_program() -> Result<PathBuf> {
    if let Some(given) = std::env::var_os("AGENTDESK_GIT").filter(|v| !v.is_empty()) {
        let given = PathBuf::from(given);
        if !given.is_file() {
            return Err(CoreError::InvalidInput(format!(
                "AGENTDESK_GIT is {}, which is not a file: point it at git or unset it",
                given.display()
            )));
        }
        return Ok(given);
    }
    let path: Option<OsString> = agentdesk_engine::login_path::effective_path();
    let names: &[&str] = if cfg!(windows) {
        &["git.exe", "git.cmd"]
    } else {
        &["git"]
    };
    for dir in path.iter().flat_map(std::env::split_paths) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(CoreError::InvalidInput(
        "git is not installed (or not on PATH): install git to run sessions in worktrees".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_of_every_platform_parse() {
        assert_eq!(parse_version("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(
            parse_version("git version 2.39.3 (Apple Git-146)"),
            Some((2, 39, 3))
        );
        assert_eq!(
            parse_version("git version 2.45.1.windows.1"),
            Some((2, 45, 1))
        );
        assert_eq!(parse_version("git version 3.0"), Some((3, 0, 0)));
        assert_eq!(parse_version("hub version 2.14"), None);
    }

    #[test]
    fn a_held_index_lock_says_which_file() {
        let err = failure(
            Path::new("/w"),
            &["commit", "-m"],
            "fatal: Unable to create '/r/.git/worktrees/x/index.lock': File exists.\n\nAnother git process seems to be running",
        );
        assert!(matches!(err, CoreError::Busy(_)), "{err:?}");
        assert!(err.to_string().contains("/r/.git/worktrees/x/index.lock"));
    }

    #[test]
    fn git_words_are_kept_without_hints() {
        let err = failure(
            Path::new("/w"),
            &["commit"],
            "hint: do this\nAuthor identity unknown\nfatal: unable to auto-detect email address",
        );
        let text = err.to_string();
        assert!(text.contains("Author identity unknown"), "{text}");
        assert!(!text.contains("hint:"), "{text}");
    }
}
