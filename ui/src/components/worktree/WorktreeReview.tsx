// A session's worktree under review: its branch against the base, the uncommitted changes
// (commit all or some, discard one), what the branch's commits changed, and Merge / Delete /
// Open folder. Re-read when a run of the session ends and after every action.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorOf, type IpcError, type Session } from "../../ipc";
import { worktreeApi, worktreeStatusSeen, type ChangedFile, type WorktreeApi, type WorktreeStatus } from "../../ipc/worktrees";
import { VisibleText } from "../approvals/VisibleText";
import { ConfirmDialog } from "../ConfirmDialog";
import { FileList } from "./files";
import "./worktree.css";

interface Props {
  session: Session;
  /** A run of the session is going on: its end refreshes the review. */
  running: boolean;
  api?: WorktreeApi;
  onSessionChanged: (s: Session) => void;
  onError: (e: IpcError) => void;
}

type Confirm = { kind: "discard"; file: ChangedFile } | { kind: "delete" } | null;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function WorktreeReview({ session, running, api = worktreeApi, onSessionChanged, onError }: Props) {
  const [status, setShown] = useState<WorktreeStatus | null>(null);
  // Every status read here also reaches the sidebar's count.
  const setStatus = useCallback((s: WorktreeStatus) => {
    setShown(s);
    worktreeStatusSeen(s);
  }, []);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [message, setMessage] = useState(session.title);
  // A review opened before the first message: the title it gets becomes the message, unless
  // one was typed meanwhile.
  const shownTitle = useRef(session.title);
  useEffect(() => {
    const before = shownTitle.current;
    shownTitle.current = session.title;
    setMessage((m) => (m === before ? session.title : m));
  }, [session.title]);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Confirm>(null);

  // Read through a ref: a parent's new callback is no reason to read the worktree again.
  const reportRef = useRef(onError);
  reportRef.current = onError;
  const refresh = useCallback(async () => {
    setLoading(true);
    try {
      const s = await api.status(session.id);
      setStatus(s);
      setSelected((old) => new Set([...old].filter((p) => s.uncommitted.some((f) => f.path === p))));
    } catch (e) {
      reportRef.current(errorOf(e));
    } finally {
      setLoading(false);
    }
  }, [api, session.id, setStatus]);

  useEffect(() => void refresh(), [refresh]);
  // A run that just ended changed files: read them again.
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) void refresh();
    wasRunning.current = running;
  }, [running, refresh]);

  const act = async (what: () => Promise<string | null>) => {
    setProblem(null);
    setNotice(null);
    try {
      setNotice(await what());
    } catch (e) {
      const err = errorOf(e);
      if (err.code === "merge_conflict" || err.code === "git_failed" || err.code === "invalid_input" || err.code === "busy") setProblem(err.message);
      else onError(err);
    }
  };

  if (!status) return <section className="worktree-review" aria-label="Review changes" aria-busy="true"><p className="muted">Reading the worktree…</p></section>;
  const { uncommitted, committed, commits } = status;
  const toggle = (path: string) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  const commit = () =>
    act(async () => {
      const files = [...selected];
      const next = await api.commit(session.id, message, files);
      setStatus(next);
      setSelected(new Set());
      return `Committed ${files.length ? plural(files.length, "file") : "every change"} to ${next.branch}.`;
    });
  const merge = () =>
    act(async () => {
      const out = await api.merge(session.id);
      await refresh();
      if (out.commits === 0) return `${out.base} already has every commit of this branch.`;
      return `Merged ${plural(out.commits, "commit")} into ${out.base} (${out.fastForward ? "fast-forward" : "merge commit"}).`;
    });
  const mergeBlocked = running ? "A run is going on" : uncommitted.length ? "Commit or discard the uncommitted changes first" : commits.length === 0 ? `${status.base} has every commit already` : null;

  return (
    <section className="worktree-review" aria-label="Review changes" aria-busy={loading}>
      <div className="review-bar">
        <p className="review-branch">
          Branch <code>{status.branch}</code> from <code>{status.base}</code> · {plural(commits.length, "commit")} ahead · {status.behind} behind
        </p>
        <div className="review-actions">
          <button type="button" onClick={() => void refresh()} disabled={loading}>
            Refresh
          </button>
          <button type="button" onClick={() => void act(async () => (await api.openFolder(session.id), null))} disabled={status.missing}>
            Open folder
          </button>
          <button type="button" onClick={() => void merge()} disabled={mergeBlocked !== null || status.missing} title={mergeBlocked ?? undefined}>
            Merge into {status.base}
          </button>
          <button type="button" className="danger-outline" onClick={() => setConfirm({ kind: "delete" })} disabled={running} title={running ? "A run is going on" : undefined}>
            Delete worktree
          </button>
        </div>
      </div>
      {status.missing && (
        <div className="review-missing" role="alert">
          <p>
            This session’s worktree folder <code>{status.path}</code> was deleted outside Agent Desk. Its branch <code>{status.branch}</code> still has what was committed.
          </p>
          <button type="button" onClick={() => void act(async () => (setStatus(await api.recreate(session.id)), "The worktree is back."))}>
            Recreate worktree
          </button>
          <button type="button" onClick={() => void act(async () => (onSessionChanged(await api.forget(session.id)), null))}>
            Forget worktree
          </button>
        </div>
      )}
      {status.unreadySubmodules.length > 0 && (
        <p className="review-note" data-testid="unready-submodules">
          Submodules not checked out in this worktree: {status.unreadySubmodules.join(", ")}. Their clone failed when the worktree was made; run <code>git submodule update --init</code> in its folder.
        </p>
      )}
      {problem && (
        <p className="review-problem" role="alert">
          <VisibleText text={problem} />
        </p>
      )}
      {notice && (
        <p className="review-notice" role="status">
          {notice}
        </p>
      )}
      <h2 className="review-heading">Uncommitted changes ({uncommitted.length})</h2>
      {uncommitted.length === 0 ? (
        <p className="muted small">Nothing uncommitted.</p>
      ) : (
        <>
          <FileList sessionId={session.id} files={uncommitted} committed={false} api={api} selected={selected} onToggle={toggle} onDiscard={(file) => setConfirm({ kind: "discard", file })} onError={onError} />
          <form
            className="review-commit"
            onSubmit={(e) => {
              e.preventDefault();
              void commit();
            }}
          >
            <label htmlFor="commit-message">Commit message</label>
            <textarea id="commit-message" rows={2} value={message} onChange={(e) => setMessage(e.target.value)} />
            <button type="submit" disabled={!message.trim() || status.missing} aria-describedby="commit-scope">
              Commit
            </button>
            <span id="commit-scope" className="muted small">
              {selected.size ? `${plural(selected.size, "selected file")}` : `all ${plural(uncommitted.length, "file")}`}
            </span>
          </form>
        </>
      )}
      <h2 className="review-heading">Committed changes ({committed.length})</h2>
      {committed.length === 0 ? (
        <p className="muted small">No commits that {status.base} does not have.</p>
      ) : (
        <FileList sessionId={session.id} files={committed} committed api={api} onError={onError} />
      )}
      {commits.length > 0 && (
        <ul className="review-commits" aria-label="Commits">
          {commits.map((c) => (
            <li key={c.sha}>
              <code>{c.sha.slice(0, 8)}</code> <VisibleText text={c.summary} />
            </li>
          ))}
        </ul>
      )}
      {confirm?.kind === "discard" && (
        <ConfirmDialog
          id="discard-file"
          title={`Discard the changes to ${confirm.file.path}?`}
          confirm="Discard changes"
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            setConfirm(null);
            await act(async () => (setStatus(await api.discard(session.id, confirm.file.path)), `Discarded the changes to ${confirm.file.path}.`));
          }}
        >
          <p>{confirm.file.state === "added" ? "The new file is deleted." : "It goes back to its last committed content."} This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {confirm?.kind === "delete" && (
        <ConfirmDialog
          id="delete-worktree"
          title={`Delete the worktree of ${status.branch}?`}
          confirm="Delete worktree"
          onCancel={() => setConfirm(null)}
          onConfirm={async () => {
            setConfirm(null);
            await act(async () => {
              const removed = await api.remove(session.id, true);
              onSessionChanged(removed.session);
              return removed.keptBranch ? `Worktree deleted; the branch ${removed.keptBranch} is kept with its commits.` : "Worktree and branch deleted.";
            });
          }}
        >
          <DeleteConsequence status={status} />
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What deleting the worktree loses, named: its uncommitted files and unmerged commits. */
function DeleteConsequence({ status }: { status: WorktreeStatus }) {
  const { uncommitted, commits, base } = status;
  if (!uncommitted.length && !commits.length) return <p>Its folder and branch are removed. The conversation stays.</p>;
  return (
    <>
      {uncommitted.length > 0 && (
        <>
          <p>Uncommitted changes to these files are lost:</p>
          <ul className="dialog-list">
            {uncommitted.slice(0, 10).map((f) => (
              <li key={f.path}>
                <VisibleText text={f.path} />
              </li>
            ))}
            {uncommitted.length > 10 && <li>and {uncommitted.length - 10} more</li>}
          </ul>
        </>
      )}
      {commits.length > 0 && (
        <p>
          {plural(commits.length, "commit")} not in {base} stay on the branch <code>{status.branch}</code>.
        </p>
      )}
      <p>The conversation stays.</p>
    </>
  );
}
