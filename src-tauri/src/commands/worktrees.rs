//! Sessions in git worktrees: whether a workspace can have them, review, commit, discard,
//! merge, remove, and opening the worktree's folder.

use agentdesk_protocol::ipc::{
    ForgetWorktreeArgs, OpenWorktreeFolderArgs, RecreateWorktreeArgs, RemoveWorktreeArgs,
    SetIsolateSessionsArgs, WorkspaceGitArgs, WorktreeCommitArgs, WorktreeDiffArgs,
    WorktreeDiscardArgs, WorktreeMergeArgs, WorktreeStatusArgs,
};

use super::{internal, invalid};

desk_commands! {
    fn workspace_git(desk, args: WorkspaceGitArgs) {
        desk.workspace_git(&args.workspace_id).await?
    }

    fn set_isolate_sessions(desk, args: SetIsolateSessionsArgs) {
        desk.set_isolate_sessions(&args.workspace_id, args.on).await?
    }

    fn worktree_status(desk, args: WorktreeStatusArgs) {
        desk.worktree_status(&args.session_id).await?
    }

    fn worktree_diff(desk, args: WorktreeDiffArgs) {
        let WorktreeDiffArgs { session_id, path, old_path, committed } = args;
        desk.worktree_diff(&session_id, &path, old_path.as_deref(), committed).await?
    }

    fn worktree_commit(desk, args: WorktreeCommitArgs) {
        desk.worktree_commit(&args.session_id, &args.message, &args.files).await?
    }

    fn worktree_discard(desk, args: WorktreeDiscardArgs) {
        desk.worktree_discard(&args.session_id, &args.path).await?
    }

    fn worktree_merge(desk, args: WorktreeMergeArgs) {
        desk.worktree_merge(&args.session_id).await?
    }

    fn remove_worktree(desk, args: RemoveWorktreeArgs) {
        desk.remove_worktree(&args.session_id, args.force).await?
    }

    fn recreate_worktree(desk, args: RecreateWorktreeArgs) {
        desk.recreate_worktree(&args.session_id).await?
    }

    fn forget_worktree(desk, args: ForgetWorktreeArgs) {
        desk.forget_worktree(&args.session_id).await?
    }

    /// The folder is the session's own, read from the store.
    fn open_worktree_folder(desk, args: OpenWorktreeFolderArgs) {
        let session = desk.get_session(&args.session_id).await?;
        let Some(folder) = session.worktree else {
            return Err(invalid("this session does not run in a worktree"));
        };
        let folder = std::path::PathBuf::from(folder);
        if !folder.is_dir() {
            return Err(invalid(format!("{} is gone", folder.display())));
        }
        super::settings::folder_opener(&folder)
            .spawn()
            .map(drop)
            .map_err(|e| internal(format!("cannot open the file manager: {e}")))?
    }
}
