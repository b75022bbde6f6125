//! Git's machine-readable outputs (`-z`: NUL-terminated, paths verbatim) into changed files.
//! Pure functions: the tests feed them git's real bytes.

use std::collections::HashMap;

use agentdesk_protocol::ui::{ChangedFile, FileState};

/// A path as git prints it with `-z`: verbatim bytes; not UTF-8 shows lossily.
fn path(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn state_of(code: u8) -> Option<FileState> {
    Some(match code {
        b'A' => FileState::Added,
        b'M' => FileState::Modified,
        b'D' => FileState::Deleted,
        b'R' => FileState::Renamed,
        b'C' => FileState::Copied,
        b'T' => FileState::TypeChanged,
        b'U' => FileState::Conflicted,
        _ => return None,
    })
}

fn changed(path: String, old_path: Option<String>, state: FileState) -> ChangedFile {
    ChangedFile {
        path,
        old_path,
        state,
        binary: false,
        submodule: false,
        added: None,
        removed: None,
    }
}

/// `git status --porcelain=v2 -z --untracked-files=all`: the uncommitted changes against
/// HEAD, staged and not (an entry's index and worktree letters taken together).
pub fn status_v2(out: &[u8]) -> Vec<ChangedFile> {
    let mut files = Vec::new();
    let mut fields = out.split(|b| *b == 0).peekable();
    while let Some(entry) = fields.next() {
        match entry.first() {
            Some(b'1') => {
                // 1 XY sub mH mI mW hH hI path
                let parts: Vec<&[u8]> = entry.splitn(9, |b| *b == b' ').collect();
                if let (Some(xy), Some(sub), Some(p)) = (parts.get(1), parts.get(2), parts.get(8)) {
                    if let Some(mut f) = ordinary(xy, path(p), None) {
                        f.submodule = sub.first() == Some(&b'S');
                        files.push(f);
                    }
                }
            }
            Some(b'2') => {
                // 2 XY sub mH mI mW hH hI Xscore path, then the original path
                let parts: Vec<&[u8]> = entry.splitn(10, |b| *b == b' ').collect();
                let old = fields.next().map(path);
                if let (Some(xy), Some(sub), Some(p)) = (parts.get(1), parts.get(2), parts.get(9)) {
                    let state = if xy.contains(&b'C') {
                        FileState::Copied
                    } else {
                        FileState::Renamed
                    };
                    let mut f = changed(path(p), old, state);
                    f.submodule = sub.first() == Some(&b'S');
                    files.push(f);
                }
            }
            Some(b'u') => {
                // u XY sub m1 m2 m3 mW h1 h2 h3 path
                let parts: Vec<&[u8]> = entry.splitn(11, |b| *b == b' ').collect();
                if let Some(p) = parts.get(10) {
                    files.push(changed(path(p), None, FileState::Conflicted));
                }
            }
            Some(b'?') => {
                if let Some(p) = entry.get(2..) {
                    files.push(changed(path(p), None, FileState::Added));
                }
            }
            _ => {}
        }
    }
    files
}

/// An ordinary entry's two letters (index, worktree; `.` unchanged) as one change against
/// HEAD. Added then deleted again before a commit is no change at all.
fn ordinary(xy: &[u8], p: String, old: Option<String>) -> Option<ChangedFile> {
    let (x, y) = (*xy.first()?, *xy.get(1)?);
    let state = match (x, y) {
        (b'A', b'D') => return None,
        (b'A', _) => FileState::Added,
        (b'D', _) | (_, b'D') => FileState::Deleted,
        (b'T', _) | (_, b'T') => FileState::TypeChanged,
        _ => state_of(if x == b'.' { y } else { x }).unwrap_or(FileState::Modified),
    };
    Some(changed(p, old, state))
}

/// `git diff --raw --numstat -z -M …`: the raw entries (what changed, how), then the numstat
/// entries (lines added and removed) of the same files, in one pass of git. Walked as git
/// writes them, so a path that looks like an entry's start is still a path.
pub fn diff_with_counts(out: &[u8]) -> Vec<ChangedFile> {
    let mut files = Vec::new();
    let mut counts = LineCounts::new();
    let mut fields = out.split(|b| *b == 0).peekable();
    while let Some(field) = fields.next() {
        if let Some(meta) = field.strip_prefix(b":") {
            let parts: Vec<&[u8]> = meta.split(|b| *b == b' ').collect();
            let (Some(src), Some(dst), Some(status)) = (parts.first(), parts.get(1), parts.get(4))
            else {
                continue;
            };
            let Some(state) = status.first().copied().and_then(state_of) else {
                fields.next();
                continue;
            };
            let first = fields.next().map(path).unwrap_or_default();
            let (p, old) = if matches!(state, FileState::Renamed | FileState::Copied) {
                (fields.next().map(path).unwrap_or_default(), Some(first))
            } else {
                (first, None)
            };
            let mut f = changed(p, old, state);
            f.submodule = *src == b"160000" || *dst == b"160000";
            files.push(f);
        } else if !field.is_empty() {
            let mut parts = field.splitn(3, |b| *b == b'\t');
            let (Some(a), Some(r), Some(p)) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let p = if p.is_empty() {
                let _old = fields.next();
                fields.next().map(path).unwrap_or_default()
            } else {
                path(p)
            };
            let n = |b: &[u8]| std::str::from_utf8(b).ok()?.parse::<u32>().ok();
            counts.insert(p, n(a).zip(n(r)));
        }
    }
    apply_counts(&mut files, &counts);
    files
}

/// `git ls-files --others --exclude-standard -z`: new files git does not track yet.
pub fn untracked(out: &[u8]) -> Vec<ChangedFile> {
    out.split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| changed(path(p), None, FileState::Added))
        .collect()
}

/// Lines added and removed per path (`None`: binary).
pub type LineCounts = HashMap<String, Option<(u32, u32)>>;

/// Fill each file's counts; a file numstat calls binary is marked so.
pub fn apply_counts(files: &mut [ChangedFile], counts: &LineCounts) {
    for f in files.iter_mut() {
        match counts.get(&f.path) {
            Some(Some((a, r))) => {
                f.added = Some(*a);
                f.removed = Some(*r);
            }
            Some(None) => f.binary = !f.submodule,
            None => {}
        }
    }
}

/// `git log -z --format=%H%x1f%s`: `sha\x1fsummary` per commit.
pub fn commits(out: &[u8]) -> Vec<agentdesk_protocol::ui::WorktreeCommit> {
    out.split(|b| *b == 0)
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let text = text.trim_start_matches('\n');
            let (sha, summary) = text.split_once('\u{1f}')?;
            Some(agentdesk_protocol::ui::WorktreeCommit {
                sha: sha.to_owned(),
                summary: summary.to_owned(),
            })
        })
        .collect()
}

/// `git worktree list --porcelain -z`: each worktree's folder and the branch checked out
/// there (none when detached or bare).
pub fn worktree_list(out: &[u8]) -> Vec<(String, Option<String>)> {
    let mut list = Vec::new();
    let mut current: Option<(String, Option<String>)> = None;
    for field in out.split(|b| *b == 0) {
        let text = String::from_utf8_lossy(field);
        if let Some(p) = text.strip_prefix("worktree ") {
            list.extend(current.take());
            current = Some((p.to_owned(), None));
        } else if let Some(b) = text.strip_prefix("branch refs/heads/") {
            if let Some(c) = current.as_mut() {
                c.1 = Some(b.to_owned());
            }
        }
    }
    list.extend(current);
    list
}

/// `git merge-tree --write-tree --name-only -z --no-messages`: the tree, then on a conflict
/// the conflicted paths.
pub fn merge_tree(out: &[u8]) -> (String, Vec<String>) {
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty()).map(path);
    let tree = fields.next().unwrap_or_default();
    let mut files: Vec<String> = fields.collect();
    files.dedup();
    (tree, files)
}

/// `git submodule status`: a line starting with `-` is a submodule not checked out
/// (` -<sha> <path>`), its path the second field.
pub fn unready_submodules(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split(' ').nth(1).map(str::to_owned))
        .collect()
}
