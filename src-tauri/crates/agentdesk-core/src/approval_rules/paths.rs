//! Where a path really points, for "inside the workspace" checks.
//!
//! A lexical check is fooled by symlinks (`work/link/authorized_keys` with `link` pointing
//! outside) and by `..` after one; so the path is walked component by component, each
//! existing prefix canonicalised (symlinks followed), and the part that does not exist yet
//! appended as written. Anything that cannot be resolved counts as outside.

use std::path::{Component, Path, PathBuf};

use agentdesk_engine::real_path;

/// The real location of `path` (relative paths are taken from `base`), or `None` when it
/// cannot be told (see `agentdesk_engine::real_path`). Windows paths stay in their plain form.
pub fn resolve(path: &str, base: &Path) -> Option<PathBuf> {
    real_path::resolve_with(Path::new(path), base, &|p| {
        agentdesk_store::canonical::canonicalize(p)
    })
}

/// The user's home folder, resolved.
pub fn home_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    let home = home.to_str()?;
    if home.is_empty() {
        return None;
    }
    resolve(home, Path::new("/"))
}

/// A folder too wide to stand for "the project": the file-system root or the home folder.
/// Nothing is auto-approved by path under such a root.
pub fn too_wide(resolved: &Path) -> bool {
    resolved.parent().is_none() || home_dir().is_some_and(|h| h == resolved)
}

/// A usable root for path checks: resolved, and not too wide.
pub fn root(dir: &Path) -> Option<PathBuf> {
    let r = resolve(dir.to_str()?, Path::new("/"))?;
    (!too_wide(&r)).then_some(r)
}

/// Whether every path, resolved from `base`, lies under one of `roots` (already resolved).
pub fn all_under(paths: &[String], base: &Path, roots: &[PathBuf]) -> bool {
    !paths.is_empty()
        && !roots.is_empty()
        && paths
            .iter()
            .all(|p| resolve(p, base).is_some_and(|real| roots.iter().any(|r| real.starts_with(r))))
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
