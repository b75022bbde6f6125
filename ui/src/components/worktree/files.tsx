// A worktree's changed files: state, path, line counts; a file's diff on demand (git's own,
// drawn by the timeline's diff view); for uncommitted ones a checkbox (commit only these)
// and Discard.
import { useState } from "react";
import type { ChangedFile, FileDiff, FileState, WorktreeApi } from "../../ipc/worktrees";
import { errorOf, type IpcError } from "../../ipc";
import { VisibleText } from "../approvals/VisibleText";
import { DiffView } from "../session/DiffView";

const STATE_NAMES: Record<FileState, string> = {
  added: "added",
  modified: "modified",
  deleted: "deleted",
  renamed: "renamed",
  copied: "copied",
  "type-changed": "type changed",
  conflicted: "conflicted",
};

const DIFF_KIND: Record<FileState, "add" | "delete" | "update" | "move"> = {
  added: "add",
  deleted: "delete",
  modified: "update",
  "type-changed": "update",
  conflicted: "update",
  renamed: "move",
  copied: "move",
};

function counts(f: ChangedFile): string {
  if (f.submodule) return "submodule";
  if (f.binary) return "binary";
  if (f.added === null) return "";
  return `+${f.added} −${f.removed ?? 0}`;
}

interface RowProps {
  sessionId: string;
  file: ChangedFile;
  committed: boolean;
  api: WorktreeApi;
  selected?: boolean;
  onToggle?: () => void;
  onDiscard?: () => void;
  onError: (e: IpcError) => void;
}

function FileRow({ sessionId, file, committed, api, selected, onToggle, onDiscard, onError }: RowProps) {
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [open, setOpen] = useState(false);
  const toggle = async () => {
    if (open) return setOpen(false);
    setOpen(true);
    try {
      setDiff(await api.diff(sessionId, file, committed));
    } catch (e) {
      setOpen(false);
      onError(errorOf(e));
    }
  };
  return (
    <li className="review-file">
      <div className="review-file-row">
        {onToggle && <input type="checkbox" checked={selected ?? false} onChange={onToggle} aria-label={`Include ${file.path} in the commit`} />}
        <span className={`change-kind change-${DIFF_KIND[file.state]}`}>{STATE_NAMES[file.state]}</span>
        <button type="button" className="link-button review-file-name" aria-expanded={open} onClick={() => void toggle()}>
          {file.oldPath !== null && (
            <>
              <VisibleText text={file.oldPath} /> →{" "}
            </>
          )}
          <VisibleText text={file.path} />
        </button>
        <span className="review-counts muted">{counts(file)}</span>
        {onDiscard && (
          <button type="button" className="link-button review-discard" aria-label={`Discard changes to ${file.path}`} onClick={onDiscard}>
            Discard
          </button>
        )}
      </div>
      {open &&
        (diff === null ? (
          <p className="muted small review-diff-loading">Loading the diff…</p>
        ) : diff.binary ? (
          <p className="muted small">Binary file — not shown.</p>
        ) : (
          <DiffView path={file.path} kind={DIFF_KIND[file.state]} diff={diff.diff} />
        ))}
    </li>
  );
}

interface ListProps {
  sessionId: string;
  files: ChangedFile[];
  committed: boolean;
  api: WorktreeApi;
  selected?: Set<string>;
  onToggle?: (path: string) => void;
  onDiscard?: (file: ChangedFile) => void;
  onError: (e: IpcError) => void;
}

export function FileList({ sessionId, files, committed, api, selected, onToggle, onDiscard, onError }: ListProps) {
  return (
    <ul className="review-files">
      {files.map((f) => (
        <FileRow
          key={`${f.oldPath ?? ""}>${f.path}`}
          sessionId={sessionId}
          file={f}
          committed={committed}
          api={api}
          selected={selected?.has(f.path)}
          onToggle={onToggle && (() => onToggle(f.path))}
          onDiscard={onDiscard && (() => onDiscard(f))}
          onError={onError}
        />
      ))}
    </ul>
  );
}
