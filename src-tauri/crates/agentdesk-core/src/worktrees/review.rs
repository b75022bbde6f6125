//! Reviewing a session's worktree: its changes against the base (uncommitted and committed
//! apart), a file's diff, committing and discarding.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::{ChangedFile, FileDiff, WorktreeStatus};

use super::{parse, Tree};
use crate::{CoreError, Desk, Result};

/// Commits listed in a status (the count of the rest is still right in `behind`).
const MAX_COMMITS: &str = "500";

/// A diff longer than this is cut (the file is named, the rest is in git).
const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;

/// New files are counted for their lines up to this size; bigger ones show no count.
const MAX_COUNTED_BYTES: u64 = 16 * 1024 * 1024;

/// Git's own test for binary content: a NUL in the first 8,000 bytes.
const BINARY_PROBE: usize = 8000;

impl Desk {
    /// What the session's worktree changed against its base: uncommitted (against its HEAD)
    /// and committed (since the branch left the base), its commits, how far the base moved.
    pub async fn worktree_status(&self, session_id: &SessionId) -> Result<WorktreeStatus> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        status_of(session_id, &tree).await
    }

    /// One file's diff: uncommitted (against the worktree's HEAD) or committed (against
    /// where the branch left the base). `old_path`: a renamed file's former name.
    pub async fn worktree_diff(
        &self,
        session_id: &SessionId,
        path: &str,
        old_path: Option<&str>,
        committed: bool,
    ) -> Result<FileDiff> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        let mut paths = vec!["--".to_owned(), path.to_owned()];
        paths.extend(old_path.map(str::to_owned));
        let out = if committed {
            let fork = fork_point(&tree).await?;
            let mut args = vec!["diff".to_owned(), "-M".into(), fork, tree.branch.clone()];
            args.extend(paths);
            tree.git.run(&tree.top, &args).await?
        } else {
            let mut args = vec!["diff".to_owned(), "-M".into(), "HEAD".into()];
            args.extend(paths);
            let tracked = tree.git.run(&tree.root, &args).await?;
            if tracked.is_empty() && tree.root.join(path).is_file() {
                // A new file git does not track yet: against nothing.
                let null = if cfg!(windows) { "nul" } else { "/dev/null" };
                let out = tree
                    .git
                    .output(&tree.root, &["diff", "--no-index", "--", null, path])
                    .await?;
                // `--no-index` exits 1 when the files differ, which they do.
                if out.code == Some(0) || out.code == Some(1) {
                    out.stdout
                } else {
                    return Err(super::git::failure(
                        &tree.root,
                        &["diff", "--no-index"],
                        &out.stderr,
                    ));
                }
            } else {
                tracked
            }
        };
        let mut diff = String::from_utf8_lossy(&out).into_owned();
        let binary = diff.lines().any(|l| l.starts_with("Binary files ")) && !diff.contains("\n@@");
        if binary {
            diff.clear();
        } else if diff.len() > MAX_DIFF_BYTES {
            let mut cut = MAX_DIFF_BYTES;
            while !diff.is_char_boundary(cut) {
                cut -= 1;
            }
            diff.truncate(cut);
            diff.push_str("\n… (diff cut at 2 MiB; see the rest with git in the worktree)\n");
        }
        Ok(FileDiff {
            path: path.to_owned(),
            committed,
            binary,
            diff,
        })
    }

    /// Commit the worktree's uncommitted changes — all, or only `files` (their paths as
    /// the status lists them; a renamed file's old path is taken with it). `message` is
    /// the commit message (the window pre-fills it with the session's title).
    pub async fn worktree_commit(
        &self,
        session_id: &SessionId,
        message: &str,
        files: &[String],
    ) -> Result<WorktreeStatus> {
        let message = message.trim();
        if message.is_empty() {
            return Err(CoreError::InvalidInput("write a commit message".into()));
        }
        let tree = self.present_tree(session_id).await?;
        let changed = uncommitted_files(&tree).await?;
        if changed.is_empty() {
            return Err(CoreError::InvalidInput("there is nothing to commit".into()));
        }
        let mut paths = Vec::new();
        for f in files {
            let Some(found) = changed.iter().find(|c| &c.path == f) else {
                return Err(CoreError::InvalidInput(format!(
                    "{f} has no uncommitted change"
                )));
            };
            paths.push(found.path.clone());
            paths.extend(found.old_path.clone());
        }
        if paths.is_empty() {
            tree.git.run(&tree.root, &["add", "-A"]).await?;
            tree.git
                .run(&tree.root, &["commit", "-q", "-m", message])
                .await?;
        } else {
            // `update-index --add --remove`, not `add -A`: a path already staged as deleted
            // or renamed away (`git mv`, `git rm`) is no pathspec error here.
            let mut add = vec![
                "update-index".to_owned(),
                "--add".into(),
                "--remove".into(),
                "--".into(),
            ];
            add.extend(paths.iter().cloned());
            tree.git.run(&tree.root, &add).await?;
            let mut commit = vec![
                "commit".to_owned(),
                "-q".into(),
                "-m".into(),
                message.into(),
            ];
            commit.extend(["--only".to_owned(), "--".into()]);
            commit.extend(paths);
            tree.git.run(&tree.root, &commit).await?;
        }
        tracing::info!(%session_id, branch = %tree.branch, "worktree changes committed");
        status_of(session_id, &tree).await
    }

    /// Throw away one file's uncommitted changes: back to the worktree's HEAD (a new file
    /// is deleted; a renamed one comes back under its old name).
    pub async fn worktree_discard(
        &self,
        session_id: &SessionId,
        path: &str,
    ) -> Result<WorktreeStatus> {
        let tree = self.present_tree(session_id).await?;
        let changed = uncommitted_files(&tree).await?;
        let Some(file) = changed.into_iter().find(|c| c.path == path) else {
            return Err(CoreError::InvalidInput(format!(
                "{path} has no uncommitted change"
            )));
        };
        for p in std::iter::once(&file.path).chain(file.old_path.iter()) {
            let in_head = tree
                .git
                .output(&tree.root, &["cat-file", "-e", &format!("HEAD:{p}")])
                .await?
                .ok();
            if in_head {
                tree.git
                    .run(
                        &tree.root,
                        &[
                            "restore",
                            "--source=HEAD",
                            "--staged",
                            "--worktree",
                            "--",
                            p,
                        ],
                    )
                    .await?;
            } else {
                tree.git
                    .run(
                        &tree.root,
                        &["rm", "--cached", "-q", "-r", "--ignore-unmatch", "--", p],
                    )
                    .await?;
                remove_new(&tree.root, p).await?;
            }
        }
        tracing::info!(%session_id, file = %path, "worktree change discarded");
        status_of(session_id, &tree).await
    }
}

/// The status of a worktree already resolved (an operation that has its [`Tree`] reads it
/// once).
pub(super) async fn status_of(session_id: &SessionId, tree: &Tree) -> Result<WorktreeStatus> {
    let missing = !tree.root.is_dir();
    let fork = fork_point(tree).await?;
    let range = format!("{}..{}", tree.base, tree.branch);
    let back = format!("{}..{}", tree.branch, tree.base);
    let git = &tree.git;
    let diff_args = [
        "diff",
        "--raw",
        "--numstat",
        "-z",
        "-M",
        &fork,
        &tree.branch,
    ];
    let log_args = [
        "log",
        "-z",
        "--format=%H%x1f%s",
        "--max-count",
        MAX_COMMITS,
        &range,
    ];
    let back_args = ["rev-list", "--count", &back];
    let (committed, log, behind, uncommitted) = tokio::join!(
        git.run(&tree.top, &diff_args),
        git.run(&tree.top, &log_args),
        git.text(&tree.top, &back_args),
        async {
            if missing {
                Ok(Vec::new())
            } else {
                uncommitted_files(tree).await
            }
        }
    );
    let unready_submodules = if !missing && tree.root.join(".gitmodules").is_file() {
        let out = git.output(&tree.root, &["submodule", "status"]).await?;
        parse::unready_submodules(&out.stdout)
    } else {
        Vec::new()
    };
    let committed = parse::diff_with_counts(&committed?);
    Ok(WorktreeStatus {
        session_id: session_id.clone(),
        path: tree.root.display().to_string(),
        branch: tree.branch.clone(),
        base: tree.base.clone(),
        missing,
        uncommitted: uncommitted?,
        committed,
        commits: parse::commits(&log?),
        behind: behind?.parse().unwrap_or(0),
        unready_submodules,
    })
}

/// Where the branch left the base (their merge base): committed changes are against it, so
/// what the base gained meanwhile is not shown as the session's.
pub(super) async fn fork_point(tree: &Tree) -> Result<String> {
    let out = tree
        .git
        .output(&tree.top, &["merge-base", &tree.base, &tree.branch])
        .await?;
    if out.ok() {
        return Ok(out.text());
    }
    for name in [&tree.base, &tree.branch] {
        let exists = tree
            .git
            .output(
                &tree.top,
                &[
                    "show-ref",
                    "--verify",
                    "--quiet",
                    &format!("refs/heads/{name}"),
                ],
            )
            .await?
            .ok();
        if !exists {
            return Err(CoreError::InvalidInput(format!(
                "the branch {name} no longer exists in {}",
                tree.top.display()
            )));
        }
    }
    Err(super::git::failure(&tree.top, &["merge-base"], &out.stderr))
}

/// The worktree's uncommitted changes with their line counts (new files counted here: git
/// counts only what it tracks).
async fn uncommitted_files(tree: &Tree) -> Result<Vec<ChangedFile>> {
    let git = &tree.git;
    // Two passes over the tree rather than `status` and a `diff --numstat`, which would
    // each stat every tracked file (50,000 in the figures' repository).
    let tracked_args = ["diff", "--raw", "--numstat", "-z", "-M", "HEAD"];
    let new_args = ["ls-files", "--others", "--exclude-standard", "-z"];
    let (tracked, new) = tokio::join!(
        git.run(&tree.root, &tracked_args),
        git.run(&tree.root, &new_args),
    );
    let mut files = parse::diff_with_counts(&tracked?);
    let tracked_count = files.len();
    files.extend(parse::untracked(&new?));
    let new: Vec<(usize, PathBuf)> = files
        .iter()
        .enumerate()
        .skip(tracked_count)
        .map(|(i, f)| (i, tree.root.join(&f.path)))
        .collect();
    if !new.is_empty() {
        let counted = tokio::task::spawn_blocking(move || {
            new.into_iter()
                .map(|(i, p)| (i, count_lines(&p)))
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|e| CoreError::Internal(format!("counting new files stopped: {e}")))?;
        for (i, c) in counted {
            match c {
                Some(Some(n)) => files[i].added = Some(n),
                Some(None) => files[i].binary = true,
                None => {}
            }
        }
    }
    Ok(files)
}

/// A new file's lines: `Some(None)` when binary, `None` when unreadable or too big to count.
fn count_lines(path: &Path) -> Option<Option<u32>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_COUNTED_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return Some(None);
    }
    let mut lines = bytes.iter().filter(|b| **b == b'\n').count();
    if bytes.last().is_some_and(|b| *b != b'\n') {
        lines += 1;
    }
    Some(Some(u32::try_from(lines).unwrap_or(u32::MAX)))
}

/// Delete a file (or folder) git does not track, inside the worktree only.
async fn remove_new(root: &Path, rel: &str) -> Result<()> {
    let path = root.join(rel);
    if !path.starts_with(root) || rel.split(['/', '\\']).any(|c| c == "..") {
        return Err(CoreError::InvalidInput(format!(
            "{rel} is outside the worktree"
        )));
    }
    let meta = match tokio::fs::symlink_metadata(&path).await {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(CoreError::Io {
                what: format!("cannot read {}", path.display()),
                source: e,
            })
        }
    };
    let removed = if meta.is_dir() {
        tokio::fs::remove_dir_all(&path).await
    } else {
        tokio::fs::remove_file(&path).await
    };
    removed.map_err(|e| CoreError::Io {
        what: format!("cannot delete {}", path.display()),
        source: e,
    })
}
