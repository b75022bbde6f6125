//! Finding an engine executable and probing its version.
//!
//! Order: explicit override (from settings) → `PATH` → the usual install dirs. A GUI app on
//! macOS/Linux often starts with a minimal `PATH` (no shell profile ran), which is why `PATH`
//! here is merged with the login shell's ([`crate::login_path`]) and the install dirs of npm,
//! Homebrew, nvm/volta/mise/asdf and the native installers are searched too. All inputs are injectable for tests ([`Discovery::path_var`], [`Discovery::search_dirs`]).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::error::EngineError;
use crate::process::{ChildProcess, ProcessSpec};

/// The most of `--version`'s output read.
const PROBE_MAX_OUTPUT: u64 = 64 * 1024;

/// An engine CLI we know how to find and how to tell the user to install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineProgram {
    /// Executable name without extension.
    pub name: &'static str,
    pub display_name: &'static str,
    /// Shown when it cannot be found.
    pub install_hint: &'static str,
    /// The versions the adapter speaks to. Outside it, runs are refused before they start
    /// (an old codex has no `app-server`; a new major may change the wire).
    pub supported: VersionRange,
    /// Shown with an unsupported version: how to install the version the tests pin.
    pub install_supported: &'static str,
    /// How to install it, as a terminal command (`doctor`, Settings, first run).
    pub install_command: &'static str,
    /// How to install the version the adapter was verified with, as a terminal command.
    pub install_supported_command: &'static str,
}

impl EngineProgram {
    /// Codex: the app-server protocol this adapter speaks was verified on 0.169.0 (the pinned
    /// test binary); older releases lack parts of it (0.1.x has no `app-server` at all). It is
    /// still marked experimental, so 1.0 is treated as a possible break.
    pub const CODEX: Self = Self {
        name: "codex",
        display_name: "Codex",
        install_hint: "install with `npm install -g @openai/codex`, or set its path in Settings",
        supported: VersionRange {
            min: (0, 169, 0),
            below: (1, 0, 0),
        },
        install_supported: "install a supported one with `npm install -g @openai/codex@0.169.0`, or set the path of one in Settings",
        install_command: "npm install -g @openai/codex",
        install_supported_command: "npm install -g @openai/codex@0.169.0",
    };
    /// Claude Code: stream-json with the control protocol as verified on 2.1.328 and 2.1.332;
    /// any 2.1.x speaks it, a new major may not.
    pub const CLAUDE: Self = Self {
        name: "claude",
        display_name: "Claude Code",
        install_hint: "install with `npm install -g @anthropic-ai/claude-code` (or `curl -fsSL https://claude.ai/install.sh | bash`), or set its path in Settings",
        supported: VersionRange {
            min: (2, 1, 0),
            below: (3, 0, 0),
        },
        install_supported: "install a supported one with `npm install -g @anthropic-ai/claude-code@2.1.328`, or set the path of one in Settings",
        install_command: "npm install -g @anthropic-ai/claude-code",
        install_supported_command: "npm install -g @anthropic-ai/claude-code@2.1.328",
    };

    /// `Ok` when `version` is in [`Self::supported`]; otherwise the error that names the
    /// executable, the version found, the range and what to install.
    pub fn check_version(&self, exe: &Path, version: &EngineVersion) -> Result<(), EngineError> {
        if self.supported.contains(version) {
            return Ok(());
        }
        Err(EngineError::UnsupportedVersion {
            engine: self.display_name,
            program: exe.to_path_buf(),
            found: version.to_string(),
            supported: self.supported.to_string(),
            install: self.install_supported,
        })
    }
}

/// Versions `min <= v < below` (major, minor, patch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionRange {
    pub min: (u64, u64, u64),
    pub below: (u64, u64, u64),
}

impl VersionRange {
    pub fn contains(&self, v: &EngineVersion) -> bool {
        let v = (v.major, v.minor, v.patch);
        self.min <= v && v < self.below
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b, c) = self.min;
        let (x, y, z) = self.below;
        write!(f, ">= {a}.{b}.{c} and < {x}.{y}.{z}")
    }
}

/// How the executable was found (shown in Settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundVia {
    Override,
    Path,
    InstallDir,
}

/// A found executable and how to launch it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    /// The file that was found.
    pub path: PathBuf,
    pub via: FoundVia,
    /// What to spawn: `path` itself, or (Windows) what its `.cmd` shim would have run: `node`
    /// or the package's native executable (see [`crate::shim`]). Never `cmd.exe`.
    pub launch_program: PathBuf,
    /// Arguments before the engine's own (the script, for `node`).
    pub launch_prefix_args: Vec<OsString>,
    /// Variables the skipped shim would have set (`NODE_PATH`, codex's `CODEX_MANAGED_*`).
    pub launch_env: Vec<(OsString, OsString)>,
    /// Folders put first on the child's `PATH`: the engine's own (an nvm `claude` runs on
    /// the `node` beside it), then the interpreter's.
    pub path_first: Vec<PathBuf>,
}

impl Executable {
    /// Wrap a path. On Windows a batch shim (what npm installs) is read and what it runs is
    /// spawned instead ([`Self::resolve_shim`]); `cmd /C` is never used.
    pub fn new(path: PathBuf, via: FoundVia) -> Self {
        if cfg!(windows) && is_batch(&path) {
            let path_var = crate::login_path::effective_path();
            return Self::resolve_shim(path, via, path_var.as_deref());
        }
        Self::direct(path, via)
    }

    /// Spawned as it is.
    fn direct(path: PathBuf, via: FoundVia) -> Self {
        let path_first = path.parent().map(Path::to_path_buf).into_iter().collect();
        Self {
            launch_program: path.clone(),
            launch_prefix_args: Vec::new(),
            launch_env: Vec::new(),
            path_first,
            path,
            via,
        }
    }

    /// For a `.cmd`/`.bat` shim: what it would run, with `node` searched in the shim's folder,
    /// then `path_var`. A shim that cannot be read (unknown format, target or `node`
    /// missing) is spawned itself: Rust quotes a batch file's arguments for `cmd.exe` (and
    /// refuses those it cannot quote safely), which is still better than `cmd /C`.
    /// Platform-neutral so it is tested everywhere; only Windows calls it.
    pub fn resolve_shim(path: PathBuf, via: FoundVia, path_var: Option<&OsStr>) -> Self {
        let launch = path.parent().and_then(|dir| {
            let text = std::fs::read_to_string(&path).ok()?;
            let target = crate::shim::parse_cmd_shim(&text, dir)?;
            crate::shim::launch_for(&path, &target, path_var)
        });
        match launch {
            Some(launch) => {
                tracing::debug!(shim = %path.display(), program = %launch.program.display(), "engine shim resolved");
                Self {
                    launch_program: launch.program,
                    launch_prefix_args: launch.prefix_args,
                    launch_env: launch.env,
                    path_first: launch.path_first,
                    path,
                    via,
                }
            }
            None => {
                tracing::warn!(shim = %path.display(), "engine shim not understood; running it through its own batch file");
                Self::direct(path, via)
            }
        }
    }
}

fn is_batch(path: &Path) -> bool {
    crate::shim::has_ext(path, &["cmd", "bat"])
}

/// Searches for one engine. Defaults come from the real environment.
#[derive(Debug, Clone)]
pub struct Discovery {
    program: EngineProgram,
    override_path: Option<PathBuf>,
    /// `None`: the process's `PATH` merged with the login shell's, read by [`Self::find`]
    /// (so a `Discovery` that gets its own never waits for the login shell).
    path_var: Option<Option<OsString>>,
    search_dirs: Vec<PathBuf>,
}

impl Discovery {
    pub fn new(program: EngineProgram) -> Self {
        Self {
            program,
            override_path: None,
            path_var: None,
            search_dirs: default_install_dirs(&HostDirs::from_env()),
        }
    }

    /// A user-configured path; when set, it is the only candidate (a wrong override is an
    /// error to fix, not something to silently work around).
    pub fn override_path(mut self, path: Option<PathBuf>) -> Self {
        self.override_path = path.filter(|p| !p.as_os_str().is_empty());
        self
    }

    /// Replace the `PATH` value searched.
    pub fn path_var(mut self, path: Option<OsString>) -> Self {
        self.path_var = Some(path);
        self
    }

    /// Replace the install dirs searched after `PATH`.
    pub fn search_dirs(mut self, dirs: Vec<PathBuf>) -> Self {
        self.search_dirs = dirs;
        self
    }

    /// Find the executable, or say what was searched and how to install it.
    pub fn find(&self) -> Result<Executable, EngineError> {
        if let Some(path) = &self.override_path {
            if is_executable(path) {
                return Ok(Executable::new(path.clone(), FoundVia::Override));
            }
            return Err(EngineError::NotFound {
                program: self.program.name.to_owned(),
                hint: format!(
                    "the configured path {} is not an executable file; fix or clear it in Settings",
                    path.display()
                ),
                searched: vec![path.clone()],
            });
        }
        let mut searched = Vec::new();
        let path_var = match &self.path_var {
            Some(given) => given.clone(),
            None => crate::login_path::effective_path(),
        };
        let path_dirs: Vec<PathBuf> = path_var
            .as_deref()
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        for (dirs, via) in [
            (&path_dirs, FoundVia::Path),
            (&self.search_dirs, FoundVia::InstallDir),
        ] {
            for dir in dirs.iter().filter(|d| !d.as_os_str().is_empty()) {
                for name in candidate_names(self.program.name) {
                    let candidate = dir.join(&name);
                    if is_executable(&candidate) {
                        return Ok(Executable::new(candidate, via));
                    }
                }
                searched.push(dir.clone());
            }
        }
        Err(EngineError::NotFound {
            program: self.program.name.to_owned(),
            hint: self.program.install_hint.to_owned(),
            searched,
        })
    }
}

fn candidate_names(name: &str) -> Vec<String> {
    if cfg!(windows) {
        // npm installs `codex.cmd` (and a `.ps1` we cannot run directly); native installers `.exe`.
        ["exe", "cmd", "bat"]
            .iter()
            .map(|ext| format!("{name}.{ext}"))
            .collect()
    } else {
        vec![name.to_owned()]
    }
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        // Windows runs a file by its extension: only what `PATHEXT` lists is a program
        // (a `.txt` picked in Settings would otherwise pass and fail at every run).
        runs_by_extension(path, std::env::var("PATHEXT").ok().as_deref())
    }
}

/// `PATHEXT`'s answer for `path`: its extension is one of the listed ones (compared without
/// case), or of Windows' default list when the variable is unset or empty.
#[cfg_attr(unix, allow(dead_code))]
pub(crate) fn runs_by_extension(path: &Path, pathext: Option<&str>) -> bool {
    const DEFAULT: &str = ".COM;.EXE;.BAT;.CMD";
    let list = pathext.filter(|v| !v.trim().is_empty()).unwrap_or(DEFAULT);
    let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    list.split(';')
        .map(|e| e.trim().trim_start_matches('.'))
        .any(|e| !e.is_empty() && e.eq_ignore_ascii_case(ext))
}

/// The environment the default install dirs are derived from (injectable for tests).
#[derive(Debug, Clone, Default)]
pub struct HostDirs {
    pub home: Option<PathBuf>,
    /// `NPM_CONFIG_PREFIX` / `prefix=` in `~/.npmrc`.
    pub npm_prefix: Option<PathBuf>,
    /// `NVM_BIN`, set when nvm is active in the launching shell.
    pub nvm_bin: Option<PathBuf>,
    /// Windows `%APPDATA%` / `%LOCALAPPDATA%`.
    pub appdata: Option<PathBuf>,
    pub local_appdata: Option<PathBuf>,
}

impl HostDirs {
    pub fn from_env() -> Self {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME").or_else(|| var("USERPROFILE"));
        let npm_prefix = var("NPM_CONFIG_PREFIX")
            .or_else(|| var("npm_config_prefix"))
            .or_else(|| home.as_deref().and_then(npmrc_prefix));
        Self {
            home,
            npm_prefix,
            nvm_bin: var("NVM_BIN"),
            appdata: var("APPDATA"),
            local_appdata: var("LOCALAPPDATA"),
        }
    }
}

fn npmrc_prefix(home: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(home.join(".npmrc")).ok()?;
    text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "prefix").then(|| expand_home(value.trim(), home))
    })
}

fn expand_home(value: &str, home: &Path) -> PathBuf {
    match value.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => PathBuf::from(value),
    }
}

/// The usual install locations, most specific first.
pub fn default_install_dirs(host: &HostDirs) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(prefix) = &host.npm_prefix {
        // npm puts global bins in PREFIX/bin on Unix and in PREFIX itself on Windows.
        dirs.push(if cfg!(windows) {
            prefix.clone()
        } else {
            prefix.join("bin")
        });
    }
    if let Some(nvm) = &host.nvm_bin {
        dirs.push(nvm.clone());
    }
    if cfg!(windows) {
        if let Some(appdata) = &host.appdata {
            dirs.push(appdata.join("npm"));
        }
        if let Some(local) = &host.local_appdata {
            dirs.push(local.join("Programs").join("claude"));
        }
        if let Some(home) = &host.home {
            dirs.push(home.join(".local").join("bin"));
        }
        return dirs;
    }
    if let Some(home) = &host.home {
        for rel in [
            ".local/bin",
            ".npm-global/bin",
            ".claude/local",
            ".volta/bin",
            ".bun/bin",
        ] {
            dirs.push(home.join(rel));
        }
        dirs.extend(nvm_version_bins(&home.join(".nvm/versions/node")));
        for rel in [".local/share/mise/shims", ".asdf/shims"] {
            dirs.push(home.join(rel));
        }
    }
    for dir in ["/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"] {
        dirs.push(PathBuf::from(dir));
    }
    dirs
}

/// `~/.nvm/versions/node/v*/bin`, newest version first.
fn nvm_version_bins(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut versions: Vec<(Vec<u64>, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let key = name
                .trim_start_matches('v')
                .split('.')
                .map(|p| p.parse().unwrap_or(0))
                .collect();
            (key, e.path().join("bin"))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    versions.into_iter().map(|(_, p)| p).collect()
}

/// A parsed `--version` output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineVersion {
    /// The whole first line, e.g. `codex-cli 0.169.0` or `2.1.328 (Claude Code)`.
    pub raw: String,
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl fmt::Display for EngineVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl EngineVersion {
    /// Find the first `X.Y.Z` token (optionally `v`-prefixed, with a `-pre` suffix ignored).
    pub fn parse(output: &str) -> Option<Self> {
        let line = output.lines().map(str::trim).find(|l| !l.is_empty())?;
        line.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '/')
            .find_map(|token| {
                let token = token.strip_prefix('v').unwrap_or(token);
                let core = token.split(['-', '+']).next()?;
                let mut parts = core.split('.');
                let major = parts.next()?.parse().ok()?;
                let minor = parts.next()?.parse().ok()?;
                let patch = parts.next()?.parse().ok()?;
                Some(Self {
                    raw: line.to_owned(),
                    major,
                    minor,
                    patch,
                })
            })
    }
}

/// Run `<exe> --version` with a timeout and parse the answer.
pub async fn probe_version(
    exe: &Executable,
    timeout: Duration,
) -> Result<EngineVersion, EngineError> {
    // Spawned like an engine (own process group, parent-death signal, the allow-listed
    // environment), so a hung probe is stopped whole and dies with the app.
    let spec = ProcessSpec::for_executable(exe).arg("--version");
    let mut child = match ChildProcess::spawn(spec) {
        Err(EngineError::NotFound { .. }) => {
            return Err(EngineError::NotFound {
                program: exe.path.display().to_string(),
                hint: "the executable disappeared; check the engine path in Settings".to_owned(),
                searched: vec![exe.path.clone()],
            })
        }
        Err(e) => return Err(e),
        Ok(child) => child,
    };
    let mut exit = child.exit_watch();
    let Some((stdin, stdout)) = child.take_stdio() else {
        return Err(EngineError::VersionProbe {
            program: exe.path.clone(),
            detail: "no stdout to read the version from".to_owned(),
        });
    };
    // EOF on stdin at once: a CLI that would read it does not wait.
    drop(stdin);
    let probe = async {
        let mut out = Vec::new();
        // A version line is short; the cap keeps a runaway program from filling memory.
        let read = stdout.take(PROBE_MAX_OUTPUT).read_to_end(&mut out).await;
        (read.map(|_| out), exit.wait().await)
    };
    let (stdout, status) = match tokio::time::timeout(timeout, probe).await {
        Err(_) => {
            child.stop().await;
            return Err(EngineError::Timeout {
                what: format!("`{} --version`", exe.path.display()),
                after: timeout,
            });
        }
        Ok((Err(e), _)) => {
            child.stop().await;
            return Err(EngineError::transport("reading `--version` output", e));
        }
        Ok((Ok(out), status)) => (out, status),
    };
    let (status, stderr) = match status {
        Some(exit) => (exit.status, exit.stderr_tail),
        None => {
            return Err(EngineError::VersionProbe {
                program: exe.path.clone(),
                detail: "`--version` ended without an exit status".to_owned(),
            })
        }
    };
    let stdout = String::from_utf8_lossy(&stdout);
    if !status.success() {
        return Err(EngineError::VersionProbe {
            program: exe.path.clone(),
            detail: format!(
                "`--version` failed ({}): {}",
                status,
                crate::diagnostic::excerpt(stderr.trim().as_bytes())
            ),
        });
    }
    EngineVersion::parse(&stdout).ok_or_else(|| EngineError::VersionProbe {
        program: exe.path.clone(),
        detail: format!(
            "no version number in {:?}",
            crate::diagnostic::excerpt(stdout.trim().as_bytes())
        ),
    })
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
