import { useState } from "react";
import { errorOf, type ImportProgress, type ImportReport, type Ipc, type IpcError } from "../../ipc";

interface Props {
  ipc: Pick<Ipc, "importHistories">;
  disabled: boolean;
  /** After an import that added or updated sessions: reload the lists. */
  onImported: () => void;
  onError: (e: IpcError) => void;
}

/** What an import did, in a sentence. */
export function summary(r: ImportReport): string {
  let added = 0;
  let updated = 0;
  let elsewhere = 0;
  for (const s of r.sources) {
    added += s.sessionsAdded;
    updated += s.sessionsUpdated;
    for (const f of s.withoutWorkspace) elsewhere += f.sessions;
  }
  const parts = [`${added} new, ${updated} updated`];
  if (elsewhere > 0) parts.push(`${elsewhere} in folders that are not workspaces (add them to import those)`);
  return `Imported: ${parts.join("; ")}.`;
}

/** "Import terminal sessions": the engines' own histories (the sessions run in a terminal)
 * into their workspaces, with a progress bar while it runs and what it did after. */
export function ImportHistories({ ipc, disabled, onImported, onError }: Props) {
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const running = progress !== null;
  const start = async () => {
    setDone(null);
    setProgress({ done: 0, total: 0 });
    try {
      const report = await ipc.importHistories(setProgress);
      setDone(summary(report));
      if (report.sources.some((s) => s.sessionsAdded + s.sessionsUpdated > 0)) onImported();
    } catch (e) {
      onError(errorOf(e));
    } finally {
      setProgress(null);
    }
  };
  return (
    <div className="import-histories">
      <button type="button" className="link-button" disabled={disabled || running} onClick={() => void start()}>
        Import terminal sessions
      </button>
      {running && (
        <progress aria-label="Import progress" max={Math.max(progress.total, 1)} value={progress.done} />
      )}
      {done && (
        <p className="muted small" role="status">
          {done}
        </p>
      )}
    </div>
  );
}
