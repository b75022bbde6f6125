//! Sessions in their own git worktree: what the window and `agentdesk-cli worktree` show of
//! one (its changes against the base, its commits) and what acting on it did.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::SessionId;

/// Whether a workspace can hold sessions in worktrees, and from which branches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceGit {
    /// `None` when worktrees can be made; else why not ("not a git repository", "git is not
    /// installed", "git 2.30 is too old"), shown beside the disabled option.
    pub unavailable: Option<String>,
    /// The branch checked out in the workspace folder; `None` on a detached HEAD (a base
    /// must then be picked).
    pub current_branch: Option<String>,
    /// Local branches, the current one first.
    pub branches: Vec<String>,
    /// Files with uncommitted changes in the workspace folder: a new worktree starts from the
    /// last commit, without them.
    pub uncommitted: Vec<String>,
    /// New sessions of this workspace start in a worktree (the workspace setting).
    pub isolate_new_sessions: bool,
}

stored_enum! {
    case "kebab-case";
    /// How a file differs from the base.
    pub enum FileState {
        Added,
        Modified,
        Deleted,
        Renamed,
        Copied,
        /// A file became a symlink or the reverse.
        TypeChanged,
        /// Both sides changed it and git could not merge them (mid-merge only).
        Conflicted,
    }
}

/// One changed file of a worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    /// The path relative to the worktree's root, `/`-separated.
    pub path: String,
    /// Where a renamed or copied file came from.
    pub old_path: Option<String>,
    pub state: FileState,
    /// Binary content: named, never diffed.
    pub binary: bool,
    /// A submodule's commit moved (or it has changes inside).
    pub submodule: bool,
    /// Lines added and removed (none for a binary file).
    pub added: Option<u32>,
    pub removed: Option<u32>,
}

/// A commit of the session's branch that the base does not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeCommit {
    pub sha: String,
    pub summary: String,
}

/// A session's worktree: where it is, its branch, and what it changed against the base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeStatus {
    pub session_id: SessionId,
    pub path: String,
    pub branch: String,
    pub base: String,
    /// The folder is gone (deleted outside the app): recreate it from the branch, or forget it.
    pub missing: bool,
    /// Changes not committed yet (staged, unstaged and new files), against the branch's HEAD.
    pub uncommitted: Vec<ChangedFile>,
    /// What the branch's commits changed, against where it left the base.
    pub committed: Vec<ChangedFile>,
    /// The branch's commits the base does not have, newest first.
    pub commits: Vec<WorktreeCommit>,
    /// Commits the base gained since the branch left it.
    pub behind: u32,
    /// Submodules not checked out in the worktree (their clone failed when it was made:
    /// no network, a transport the user's git refuses); `git submodule update --init` there
    /// fixes it.
    pub unready_submodules: Vec<String>,
}

impl WorktreeStatus {
    /// Nothing would be lost by removing the worktree and its branch.
    pub fn is_clean(&self) -> bool {
        self.uncommitted.is_empty() && self.commits.is_empty()
    }
}

/// One file's diff, as the timeline's diff view draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    pub path: String,
    /// Uncommitted (against HEAD) or committed (against the base).
    pub committed: bool,
    pub binary: bool,
    /// Git's unified diff of the file (empty for a binary file).
    pub diff: String,
}

/// What a merge into the base did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MergeOutcome {
    pub base: String,
    /// The base moved to the branch's commit (no merge commit).
    pub fast_forward: bool,
    /// The base's commit after the merge.
    pub commit: String,
    /// Commits the merge brought into the base (0: it had them already).
    pub commits: u32,
}

/// A new session's worktree: from `base` (a local branch), or the branch checked out in the
/// workspace folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewWorktree {
    pub base: Option<String>,
    /// Names the branch when the session has no title yet (the first message).
    pub name_hint: Option<String>,
}

/// What removing a worktree did: the session (kept, without a worktree now), and the branch
/// when it was kept because the base does not have its commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRemoved {
    pub session: super::Session,
    pub kept_branch: Option<String>,
}
