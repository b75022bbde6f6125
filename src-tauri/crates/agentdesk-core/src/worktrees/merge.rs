//! Merging a session's branch into its base.
//!
//! The merge is computed first with `git merge-tree --write-tree`, which touches no working
//! tree and no ref: a conflict is reported (with its files) before anything changes, so the
//! base, its working tree, the worktree and the branch all stay as they were. Then:
//! - the base is checked out somewhere (usually the workspace folder): `git merge` runs
//!   there, so that working tree follows (fast-forward when possible, as the user's
//!   `merge.ff` says); git itself refuses, changing nothing, when uncommitted changes there
//!   would be overwritten;
//! - it is not: the ref moves (fast-forward), or a merge commit of the computed tree is
//!   made, with `update-ref`'s check that the base did not move meanwhile.

use std::path::PathBuf;

use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::MergeOutcome;

use super::{parse, Tree};
use crate::{CoreError, Desk, Result};

impl Desk {
    /// Merge the session's branch into its base. Refused while the worktree has
    /// uncommitted changes (commit or discard them first: a merge takes commits).
    pub async fn worktree_merge(&self, session_id: &SessionId) -> Result<MergeOutcome> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        let status = super::review::status_of(session_id, &tree).await?;
        if !status.uncommitted.is_empty() {
            return Err(CoreError::InvalidInput(format!(
                "commit or discard the worktree's uncommitted changes first ({})",
                super::file_names(&status.uncommitted)
            )));
        }
        let before = rev(&tree, &tree.base).await?;
        let head = rev(&tree, &tree.branch).await?;
        if status.commits.is_empty() {
            return Ok(MergeOutcome {
                base: tree.base.clone(),
                fast_forward: false,
                commit: before,
                commits: 0,
            });
        }
        let merged = tree
            .git
            .output(
                &tree.top,
                &[
                    "merge-tree",
                    "--write-tree",
                    "--name-only",
                    "-z",
                    "--no-messages",
                    &tree.base,
                    &tree.branch,
                ],
            )
            .await?;
        let (tree_id, conflicts) = parse::merge_tree(&merged.stdout);
        match merged.code {
            Some(0) => {}
            Some(1) => {
                return Err(CoreError::MergeConflict {
                    branch: tree.branch.clone(),
                    base: tree.base.clone(),
                    files: conflicts,
                })
            }
            _ => {
                return Err(super::git::failure(
                    &tree.top,
                    &["merge-tree"],
                    &merged.stderr,
                ))
            }
        }
        let commit = match checked_out_at(&tree).await? {
            Some(dir) => merge_there(&tree, &dir).await?,
            None => move_ref(&tree, &before, &head, &tree_id).await?,
        };
        tracing::info!(%session_id, branch = %tree.branch, base = %tree.base, "merged");
        Ok(MergeOutcome {
            base: tree.base.clone(),
            fast_forward: commit == head,
            commit,
            commits: u32::try_from(status.commits.len()).unwrap_or(u32::MAX),
        })
    }
}

async fn rev(tree: &Tree, name: &str) -> Result<String> {
    tree.git
        .text(
            &tree.top,
            &[
                "rev-parse",
                "--verify",
                &format!("refs/heads/{name}^{{commit}}"),
            ],
        )
        .await
}

/// The working tree where the base branch is checked out, if any.
async fn checked_out_at(tree: &Tree) -> Result<Option<PathBuf>> {
    let list = tree
        .git
        .run(&tree.top, &["worktree", "list", "--porcelain", "-z"])
        .await?;
    Ok(parse::worktree_list(&list)
        .into_iter()
        .find(|(_, b)| b.as_deref() == Some(tree.base.as_str()))
        .map(|(p, _)| PathBuf::from(p)))
}

/// `git merge` in the working tree that has the base: its files follow. A merge git stops
/// half way (it should not: the computed merge was clean) is aborted, so nothing is left
/// mid-merge.
async fn merge_there(tree: &Tree, dir: &std::path::Path) -> Result<String> {
    let message = format!("Merge branch '{}' into {}", tree.branch, tree.base);
    let out = tree
        .git
        .output(dir, &["merge", "--no-edit", "-m", &message, &tree.branch])
        .await?;
    if !out.ok() {
        let in_merge = tree
            .git
            .output(dir, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])
            .await?
            .ok();
        if in_merge {
            let _ = tree.git.output(dir, &["merge", "--abort"]).await;
        }
        return Err(super::git::failure(dir, &["merge"], &out.stderr));
    }
    rev(tree, &tree.base).await
}

/// The base is checked out nowhere: move its ref (fast-forward) or commit the computed
/// merge, refusing if the base moved since it was read.
async fn move_ref(tree: &Tree, before: &str, head: &str, tree_id: &str) -> Result<String> {
    let fast_forward = tree
        .git
        .output(&tree.top, &["merge-base", "--is-ancestor", before, head])
        .await?
        .ok();
    let target = if fast_forward {
        head.to_owned()
    } else {
        let message = format!("Merge branch '{}' into {}", tree.branch, tree.base);
        tree.git
            .text(
                &tree.top,
                &[
                    "commit-tree",
                    tree_id,
                    "-p",
                    before,
                    "-p",
                    head,
                    "-m",
                    &message,
                ],
            )
            .await?
    };
    let reference = format!("refs/heads/{}", tree.base);
    tree.git
        .run(
            &tree.top,
            &[
                "update-ref",
                "-m",
                &format!("merge {}", tree.branch),
                &reference,
                &target,
                before,
            ],
        )
        .await?;
    Ok(target)
}
