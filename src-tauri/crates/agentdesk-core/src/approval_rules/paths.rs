//! Where a path really points, for "inside the workspace" checks.
//!
//! A lexical check is fooled by symlinks (`work/link/authorized_keys` with `link` pointing
//! outside) and by `..` after one; so the path is walked component by component, each
//! existing prefix canonicalised (symlinks followed), and the part that does not exist yet
//! appended as written. Anything that cannot be resolved counts as outside.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use agentdesk_engine::real_path;

/// Where a run's paths are resolved: this machine's file system, or what a remote
/// workspace's host said about them (the workspace boundary is the path as the host
/// resolves it: a link there may lead out of the folder).
#[derive(Debug, Clone, Default)]
pub enum PathSpace {
    #[default]
    Local,
    Host(Arc<HostPaths>),
}

/// What the host said about a path (`realpath` there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPath {
    /// It exists; where it really is.
    Real(PathBuf),
    /// Nothing there (and no dangling link): the rest of the path is taken as written.
    Missing,
    /// It cannot be told (a dangling link, a file in the middle, no answer): never inside.
    Unknown,
}

/// A host's answers for one request, and the questions asked that it has not answered yet:
/// the rules run, the paths they needed are asked of the host in one round trip, and they
/// run again until nothing new is needed (a link's target is only known after the link is).
#[derive(Debug, Default)]
pub struct HostPaths {
    /// The host's home folder, resolved there ("too wide" to stand for a project).
    pub home: Option<PathBuf>,
    pub answers: HashMap<PathBuf, HostPath>,
    /// Finding what to ask: an unanswered path is taken as it is written, so the walk goes
    /// on to the next one (the decision made so is thrown away). Deciding: it is unknown.
    probing: bool,
    unanswered: Mutex<BTreeSet<PathBuf>>,
}

impl HostPaths {
    /// For deciding: what is not answered cannot be told.
    pub fn new(home: Option<PathBuf>, answers: HashMap<PathBuf, HostPath>) -> Self {
        HostPaths {
            home,
            answers,
            probing: false,
            unanswered: Mutex::default(),
        }
    }

    /// For finding what to ask (see [`HostPaths::unanswered`]); never for deciding.
    pub fn probe(home: Option<PathBuf>, answers: HashMap<PathBuf, HostPath>) -> Self {
        HostPaths {
            probing: true,
            ..Self::new(home, answers)
        }
    }

    /// The paths the rules needed that had no answer, in order.
    pub fn unanswered(&self) -> Vec<PathBuf> {
        self.unanswered
            .lock()
            .map(|u| u.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn canonicalize(&self, p: &Path) -> std::io::Result<PathBuf> {
        use std::io::{Error, ErrorKind};
        match self.answers.get(p) {
            Some(HostPath::Real(real)) => Ok(real.clone()),
            Some(HostPath::Missing) => Err(ErrorKind::NotFound.into()),
            Some(HostPath::Unknown) => Err(Error::other("unknown on the host")),
            None => {
                if let Ok(mut u) = self.unanswered.lock() {
                    u.insert(p.to_path_buf());
                }
                if self.probing {
                    Ok(p.to_path_buf())
                } else {
                    Err(Error::other("not asked of the host yet"))
                }
            }
        }
    }
}

impl PathSpace {
    /// The real location of `path` (relative paths are taken from `base`), or `None` when it
    /// cannot be told (see `agentdesk_engine::real_path`). Windows paths stay in their plain
    /// form.
    pub fn resolve(&self, path: &str, base: &Path) -> Option<PathBuf> {
        match self {
            PathSpace::Local => real_path::resolve_with(Path::new(path), base, &|p| {
                agentdesk_store::canonical::canonicalize(p)
            }),
            PathSpace::Host(host) => {
                real_path::resolve_with(Path::new(path), base, &|p| host.canonicalize(p))
            }
        }
    }

    /// The user's home folder (on the host for a remote workspace), resolved.
    fn home(&self) -> Option<PathBuf> {
        match self {
            PathSpace::Local => home_dir(),
            PathSpace::Host(host) => host.home.clone(),
        }
    }

    /// A folder too wide to stand for "the project": the file-system root or the home
    /// folder. Nothing is auto-approved by path under such a root.
    pub fn too_wide(&self, resolved: &Path) -> bool {
        resolved.parent().is_none() || self.home().is_some_and(|h| h == resolved)
    }

    /// A usable root for path checks: resolved, and not too wide.
    pub fn root(&self, dir: &Path) -> Option<PathBuf> {
        let r = self.resolve(dir.to_str()?, Path::new("/"))?;
        (!self.too_wide(&r)).then_some(r)
    }

    /// Whether every path, resolved from `base`, lies under one of `roots` (already
    /// resolved).
    pub fn all_under(&self, paths: &[String], base: &Path, roots: &[PathBuf]) -> bool {
        !paths.is_empty()
            && !roots.is_empty()
            && paths.iter().all(|p| {
                self.resolve(p, base)
                    .is_some_and(|real| roots.iter().any(|r| real.starts_with(r)))
            })
    }
}

/// This machine's user's home folder, resolved.
pub fn home_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    let home = home.to_str()?;
    if home.is_empty() {
        return None;
    }
    PathSpace::Local.resolve(home, Path::new("/"))
}

/// Characters that make a path component a glob pattern.
fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// The folder a glob pattern can reach: its literal leading components. `None` when a `..`
/// follows a wildcard (it could climb anywhere).
pub fn glob_base(pattern: &str) -> Option<String> {
    let mut literal = PathBuf::new();
    let mut in_glob = false;
    for c in Path::new(pattern).components() {
        let text = c.as_os_str().to_string_lossy();
        if in_glob || is_glob(&text) {
            in_glob = true;
            if c == Component::ParentDir {
                return None;
            }
            continue;
        }
        literal.push(c.as_os_str());
    }
    Some(literal.to_string_lossy().into_owned())
}
