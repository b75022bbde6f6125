// The sidebar's line under a session in a worktree: its branch and how many files it
// changed against the base (uncommitted and committed together), re-read when a run ends.
import { useEffect, useRef, useState } from "react";
import type { Session } from "../../ipc";
import { changedCount, onWorktreeStatus, worktreeApi, type WorktreeApi } from "../../ipc/worktrees";

export function BranchLine({ session, running, api = worktreeApi }: { session: Session; running: boolean; api?: WorktreeApi }) {
  const [changed, setChanged] = useState<number | null>(null);
  const [missing, setMissing] = useState(false);
  const wasRunning = useRef<boolean | null>(null);
  useEffect(() => {
    // On first show, and when a run ends (not on every activity change).
    if (wasRunning.current !== null && (running || !wasRunning.current)) {
      wasRunning.current = running;
      return;
    }
    wasRunning.current = running;
    let live = true;
    api
      .status(session.id)
      .then((s) => {
        if (!live) return;
        setChanged(changedCount(s));
        setMissing(s.missing);
      })
      .catch(() => live && setChanged(null));
    return () => {
      live = false;
    };
  }, [api, session.id, session.worktree, running]);
  // What the review reads (after a commit, a discard, a merge) shows here at once.
  useEffect(
    () =>
      onWorktreeStatus((s) => {
        if (s.sessionId !== session.id) return;
        setChanged(changedCount(s));
        setMissing(s.missing);
      }),
    [session.id],
  );
  if (!session.branch) return null;
  const count = missing ? "folder missing" : changed === null ? "" : changed === 1 ? "1 file changed" : `${changed} files changed`;
  return (
    <span className="session-branch" title={session.worktree ?? undefined} data-testid="session-branch">
      {count && `${count} · `}
      <span className="visually-hidden">branch </span>
      {session.branch}
    </span>
  );
}
