//! Where a path really points, for "inside the workspace" checks (the ACP agents' `fs/*`
//! requests here, the core's approval rules): a lexical check is fooled by symlinks
//! (`work/link/authorized_keys` with `link` pointing outside) and by `..` after one, so the
//! path is walked component by component, every existing prefix canonicalised (symlinks
//! followed) and the part that does not exist yet appended as written. `None` when it cannot
//! be told: `~`, `..` above the root, a dangling symlink (writing through it would create its
//! target, wherever that is), a loop, a non-directory in the middle, a relative base, or a
//! `..` whose meaning depends on who resolves it (the kernel follows a symlink before `..`, a
//! program that normalises the text first does not).

use std::path::{Component, Path, PathBuf};

/// How an existing path is canonicalised.
pub type Canonicalize<'a> = dyn Fn(&Path) -> std::io::Result<PathBuf> + 'a;

/// The real location of `path` (relative paths from `base`), or `None` when it cannot be
/// told (see the module docs).
pub fn resolve(path: &Path, base: &Path) -> Option<PathBuf> {
    resolve_with(path, base, &|p| std::fs::canonicalize(p))
}

/// [`resolve`] with the canonicalisation given (the core's keeps Windows paths in their plain
/// form, `agentdesk_store::canonical::canonicalize`).
pub fn resolve_with(path: &Path, base: &Path, canonicalize: &Canonicalize<'_>) -> Option<PathBuf> {
    // `~` is expanded by some tools and not by others: never guess.
    if path.to_str().is_some_and(|p| p.starts_with('~')) {
        return None;
    }
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    if !joined.is_absolute() {
        return None;
    }
    let real = walk(&lexical(&joined)?, canonicalize)?;
    if joined.components().any(|c| c == Component::ParentDir)
        && walk(&joined, canonicalize)? != real
    {
        return None;
    }
    Some(real)
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
fn walk(abs: &Path, canonicalize: &Canonicalize<'_>) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut exists = true;
    for c in abs.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !exists || out.parent().is_none() || !out.pop() {
                    return None;
                }
            }
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    match canonicalize(&out) {
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
