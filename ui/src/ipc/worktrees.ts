// Sessions in git worktrees (the sidebar's "New session in a worktree", the session's
// "Review changes"), injectable for their tests; errors come back as `IpcFailure`.
import type { ChangedFile } from "../generated/ChangedFile";
import type { FileDiff } from "../generated/FileDiff";
import type { FileState } from "../generated/FileState";
import type { MergeOutcome } from "../generated/MergeOutcome";
import type { NewWorktree } from "../generated/NewWorktree";
import type { WorkspaceGit } from "../generated/WorkspaceGit";
import type { WorktreeCommit } from "../generated/WorktreeCommit";
import type { WorktreeRemoved } from "../generated/WorktreeRemoved";
import type { WorktreeStatus } from "../generated/WorktreeStatus";
import * as commands from "./commands.generated";

export type { ChangedFile, FileDiff, FileState, MergeOutcome, NewWorktree, WorkspaceGit, WorktreeCommit, WorktreeRemoved, WorktreeStatus };

export const worktreeApi = {
  workspaceGit: commands.workspaceGit,
  setIsolateSessions: commands.setIsolateSessions,
  status: commands.worktreeStatus,
  diff: (sessionId: string, file: ChangedFile, committed: boolean) => commands.worktreeDiff(sessionId, file.path, file.oldPath, committed),
  /** All uncommitted changes (`files` empty) or only those. */
  commit: (sessionId: string, message: string, files: string[]) => commands.worktreeCommit(sessionId, message, files),
  discard: commands.worktreeDiscard,
  merge: commands.worktreeMerge,
  remove: (sessionId: string, force: boolean) => commands.removeWorktree(sessionId, force),
  recreate: commands.recreateWorktree,
  forget: commands.forgetWorktree,
  openFolder: commands.openWorktreeFolder,
};

export type WorktreeApi = typeof worktreeApi;

// A worktree's status as the review last read it, for the sidebar's count of changed files
// (which otherwise re-reads only when a run ends): a commit, discard or merge shows there too.
const statusListeners = new Set<(s: WorktreeStatus) => void>();

export function worktreeStatusSeen(status: WorktreeStatus) {
  for (const l of [...statusListeners]) l(status);
}

export function onWorktreeStatus(listener: (s: WorktreeStatus) => void): () => void {
  statusListeners.add(listener);
  return () => {
    statusListeners.delete(listener);
  };
}

/** Files the worktree changed against its base, each once (uncommitted and committed). */
export function changedCount(s: WorktreeStatus): number {
  return new Set([...s.uncommitted, ...s.committed].map((f) => f.path)).size;
}
