//! Where a path really points, for "inside the workspace" checks.
//!
//! A lexical check is fooled by symlinks (`work/link/authorized_keys` with `link` pointing
//! outside) and by `..` after one; so the path is walked component by component, each
//! existing prefix canonicalised (symlinks followed), and the part that does not exist yet
//! appended as written. Anything that cannot be resolved counts as outside.

use std::path::{Component, Path, PathBuf};

/// The real location of `path` (relative paths are taken from `base`), or `None` when it
/// cannot be told: `..` above the root, a dangling symlink (writing through it would create
/// its target, wherever that is), a loop, a non-directory in the middle, a relative base, or
/// a `..` whose meaning depends on who resolves it (the kernel follows a symlink before
/// `..`, a program that normalises the text first does not).
pub fn resolve(path: &str, base: &Path) -> Option<PathBuf> {
    // `~` is expanded by some tools and not by others: never guess.
    if path.starts_with('~') {
        return None;
    }
    let p = Path::new(path);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    if !joined.is_absolute() {
        return None;
    }
    let lexical = walk(&lexical(&joined)?)?;
    if joined.components().any(|c| c == Component::ParentDir) && walk(&joined)? != lexical {
        return None;
    }
    Some(lexical)
}

/// `..` and `.` removed from the text; `None` when `..` climbs above the root.
fn lexical(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if out.parent().is_none() || !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// The kernel's reading: every existing prefix canonicalised, the rest appended.
fn walk(abs: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    // While true, `out` exists and is canonical (so `..` pops to its real parent).
    let mut exists = true;
    for c in abs.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            // Above the root, or through a folder that does not exist (the kernel refuses;
            // a program that creates folders first would not).
            Component::ParentDir => {
                if !exists || out.parent().is_none() || !out.pop() {
                    return None;
                }
            }
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    match agentdesk_store::canonical::canonicalize(&out) {
                        Ok(real) => out = real,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            let is_link = std::fs::symlink_metadata(&out)
                                .is_ok_and(|m| m.file_type().is_symlink());
                            if is_link {
                                return None;
                            }
                            exists = false;
                        }
                        Err(_) => return None,
                    }
                }
            }
        }
    }
    Some(out)
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
