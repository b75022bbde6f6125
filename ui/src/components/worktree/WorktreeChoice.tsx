// "New session in a worktree": the base branch to start from (the workspace's current one
// first), what stays behind (uncommitted files), the workspace's "Isolate new sessions in
// worktrees" setting; disabled with the reason when the workspace cannot have worktrees.
import { useEffect, useRef, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import { worktreeApi, type NewWorktree, type WorkspaceGit, type WorktreeApi } from "../../ipc/worktrees";
import "./worktree.css";

interface Props {
  workspaceId: string;
  workspaceName: string;
  api?: WorktreeApi;
  onStart: (worktree: NewWorktree) => void;
  onCancel: () => void;
  onError: (e: IpcError) => void;
}

export function WorktreeChoice({ workspaceId, workspaceName, api = worktreeApi, onStart, onCancel, onError }: Props) {
  const [git, setGit] = useState<WorkspaceGit | null>(null);
  const [base, setBase] = useState("");
  // Through a ref: the sidebar's new callback on every render must not read git again.
  const reportRef = useRef(onError);
  reportRef.current = onError;
  useEffect(() => {
    let live = true;
    api
      .workspaceGit(workspaceId)
      .then((g) => {
        if (!live) return;
        setGit(g);
        setBase(g.currentBranch ?? g.branches[0] ?? "");
      })
      .catch((e) => reportRef.current(errorOf(e)));
    return () => {
      live = false;
    };
  }, [api, workspaceId]);
  const setIsolate = (on: boolean) => {
    if (!git) return;
    setGit({ ...git, isolateNewSessions: on });
    api.setIsolateSessions(workspaceId, on).catch((e) => onError(errorOf(e)));
  };
  const usable = git !== null && git.unavailable === null && base !== "";
  return (
    <div className="worktree-choice" role="group" aria-label={`Worktree for a new session in ${workspaceName}`}>
      {git === null ? (
        <span className="muted">Reading the repository…</span>
      ) : git.unavailable !== null ? (
        <span className="muted" data-testid="worktree-unavailable">
          Worktrees are not available: {git.unavailable}
        </span>
      ) : (
        <>
          <label>
            Start from{" "}
            <select value={base} onChange={(e) => setBase(e.target.value)} aria-label="Base branch">
              {git.branches.map((b) => (
                <option key={b} value={b}>
                  {b}
                  {b === git.currentBranch ? " (current)" : ""}
                </option>
              ))}
            </select>
          </label>
          {git.currentBranch === null && <span className="muted">The workspace is on a detached HEAD: pick the branch to start from.</span>}
          {git.uncommitted.length > 0 && (
            <span className="muted">
              {git.uncommitted.length === 1 ? "1 uncommitted file stays" : `${git.uncommitted.length} uncommitted files stay`} in the workspace folder: the worktree starts from the last commit.
            </span>
          )}
          <label>
            <input type="checkbox" checked={git.isolateNewSessions} onChange={(e) => setIsolate(e.target.checked)} /> Isolate new sessions in worktrees
          </label>
        </>
      )}
      <div className="choice-actions">
        <button type="button" disabled={!usable} onClick={() => onStart({ base, nameHint: null })}>
          Start session in a worktree
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
