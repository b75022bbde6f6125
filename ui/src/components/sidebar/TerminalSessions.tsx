import type { FolderCount, HistoryStatus, ImportReport } from "../../ipc";
import { useHistoryStatus, type HistoryStore } from "../../state/histories";

interface Props {
  /** The background import's status (`null` until the first word). */
  status: HistoryStatus | null;
  disabled: boolean;
  onRescan: () => void;
  /** Make a folder with terminal sessions a workspace (its sessions then come in). */
  onAddWorkspace: (folder: string) => void;
}

/** How many folder suggestions the sidebar shows (Settings lists them all). */
const SHOWN_FOLDERS = 3;

/** Folders with terminal sessions that are not workspaces, over every source, most first. */
export function foldersWithoutWorkspace(r: ImportReport | null | undefined): FolderCount[] {
  const byFolder = new Map<string, number>();
  for (const s of r?.sources ?? []) {
    for (const f of s.withoutWorkspace) byFolder.set(f.folder, (byFolder.get(f.folder) ?? 0) + f.sessions);
  }
  return [...byFolder.entries()]
    .map(([folder, sessions]) => ({ folder, sessions }))
    .sort((a, b) => b.sessions - a.sessions || a.folder.localeCompare(b.folder));
}

function lastPart(folder: string): string {
  const parts = folder.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? folder;
}

/** The sessions the engines ran in a terminal: imported in the background (a progress bar
 * while a scan runs), "Re-scan", and the folders with such sessions that are not workspaces
 * yet, each with "Add workspace". */
export function TerminalSessions({ status, disabled, onRescan, onAddWorkspace }: Props) {
  const importing = status?.importing ?? null;
  const folders = foldersWithoutWorkspace(status?.last);
  return (
    <div className="import-histories" role="group" aria-label="Terminal sessions">
      {importing ? (
        <>
          <span className="muted small">Importing terminal sessions…</span>
          <progress aria-label="Import progress" max={Math.max(importing.total, 1)} value={importing.done} />
        </>
      ) : (
        <button type="button" className="link-button" disabled={disabled || !status} onClick={onRescan}>
          Re-scan terminal sessions
        </button>
      )}
      {status?.error && (
        <p className="muted small" role="alert">
          The last scan failed: {status.error}
        </p>
      )}
      {folders.length > 0 && (
        <ul className="history-folders" aria-label="Terminal sessions in other folders">
          {folders.slice(0, SHOWN_FOLDERS).map((f) => (
            <li key={f.folder}>
              <span className="history-folder" title={f.folder}>
                {lastPart(f.folder)} · {f.sessions} {f.sessions === 1 ? "session" : "sessions"}
              </span>
              <button
                type="button"
                className="link-button"
                aria-label={`Add workspace ${f.folder}`}
                disabled={disabled}
                onClick={() => onAddWorkspace(f.folder)}
              >
                Add workspace
              </button>
            </li>
          ))}
          {folders.length > SHOWN_FOLDERS && (
            <li className="muted small">and {folders.length - SHOWN_FOLDERS} more folders (Settings)</li>
          )}
        </ul>
      )}
    </div>
  );
}

/** [`TerminalSessions`] following the background import (only this re-renders as it goes). */
export function LiveTerminalSessions({ store, ...rest }: Omit<Props, "status"> & { store: HistoryStore }) {
  return <TerminalSessions status={useHistoryStatus(store)} {...rest} />;
}
