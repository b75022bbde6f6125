// Settings → Terminal sessions: which engines' own histories are imported and shown, the
// folders they are read from (as the engines resolve them), what the last scan of each found
// (with what it could not read), and "Re-scan".
import { useState } from "react";
import { errorOf, type HistoryStatus, type IpcError, type SourceReport } from "../../ipc";
import type { SessionOrigin } from "../../generated/SessionOrigin";
import type { SettingsApi } from "../../ipc/settings";
import { useHistoryStatus, type HistoryStore } from "../../state/histories";
import { foldersWithoutWorkspace } from "../sidebar/TerminalSessions";
import { ORIGIN_NAMES } from "../sidebar/SessionList";

type Api = Pick<SettingsApi, "setHistorySettings" | "rescanHistories">;

/** Where each engine's folder comes from, for the hint under it. */
const FOLDER_HINT: Partial<Record<SessionOrigin, string>> = {
  "claude-code": "CLAUDE_CONFIG_DIR, else ~/.claude",
  "codex-cli": "CODEX_HOME, else ~/.codex",
};

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the last scan of a source found, in a line. */
export function sourceLine(r: SourceReport): string {
  const parts = [
    plural(r.files, "session found", "sessions found"),
    `${r.sessionsAdded} new`,
    `${r.sessionsUpdated} updated`,
  ];
  if (r.skipped > 0) parts.push(plural(r.skipped, "damaged line skipped", "damaged lines skipped"));
  if (r.unreadable > 0) parts.push(plural(r.unreadable, "file could not be read", "files could not be read"));
  return parts.join(" · ");
}

export function TerminalSessionsSection({
  status,
  api,
  onError,
}: {
  status: HistoryStatus | null;
  api: Api;
  onError: (e: IpcError) => void;
}) {
  const [saving, setSaving] = useState(false);
  if (!status) return null;
  const hidden = status.sources.filter((s) => !s.enabled).map((s) => s.origin);
  const toggle = (origin: SessionOrigin, on: boolean) => {
    const next = on ? hidden.filter((o) => o !== origin) : [...hidden, origin];
    setSaving(true);
    api
      .setHistorySettings({ hidden: next })
      .catch((e) => onError(errorOf(e)))
      .finally(() => setSaving(false));
  };
  const folders = foldersWithoutWorkspace(status.last);
  return (
    <section className="settings-section" aria-labelledby="settings-histories">
      <h2 id="settings-histories">Terminal sessions</h2>
      <p className="muted small">
        Sessions you ran in a terminal are imported into the workspace whose folder they ran in, kept current while Agent
        Desk runs, and can be continued here. Nothing is written to the engines' folders.
      </p>
      {status.sources.map((s) => {
        const name = s.origin === "app" ? "Agent Desk" : ORIGIN_NAMES[s.origin];
        const report = status.last?.sources.find((r) => r.origin === s.origin);
        return (
          <div key={s.origin} className="settings-history-source" data-testid={`history-source-${s.origin}`}>
            <label className="settings-check">
              <input
                type="checkbox"
                checked={s.enabled}
                disabled={saving}
                onChange={(e) => toggle(s.origin, e.target.checked)}
              />
              <span>Show sessions from {name}</span>
            </label>
            <dl className="settings-facts">
              <dt>Folder</dt>
              <dd>
                <code>{s.folder}</code> <span className="muted small">({FOLDER_HINT[s.origin] ?? "as the engine sets it"})</span>
              </dd>
              {s.enabled && (
                <>
                  <dt>Updates</dt>
                  <dd>{s.watching ? "Watched for changes" : "Checked every 30 seconds (the folder cannot be watched yet)"}</dd>
                  {report && (
                    <>
                      <dt>Last scan</dt>
                      <dd data-testid={`history-report-${s.origin}`}>{sourceLine(report)}</dd>
                    </>
                  )}
                </>
              )}
            </dl>
          </div>
        );
      })}
      {folders.length > 0 && (
        <p className="muted small" data-testid="history-other-folders">
          Not imported (not workspaces):{" "}
          {folders.map((f) => `${f.folder} (${plural(f.sessions, "session", "sessions")})`).join(", ")}. Add a folder as a
          workspace to import its sessions.
        </p>
      )}
      {status.error && (
        <p className="settings-error" role="alert">
          The last scan failed: {status.error}
        </p>
      )}
      <div className="settings-actions">
        <button type="button" disabled={status.importing !== null} onClick={() => api.rescanHistories().catch((e) => onError(errorOf(e)))}>
          Re-scan
        </button>
        {status.importing ? (
          <progress aria-label="Import progress" max={Math.max(status.importing.total, 1)} value={status.importing.done} />
        ) : (
          status.lastAt !== null && <span className="muted small">Last scanned {new Date(status.lastAt).toLocaleTimeString()}</span>
        )}
      </div>
    </section>
  );
}

/** [`TerminalSessionsSection`] following the background import. */
export function LiveTerminalSessionsSection({ store, api, onError }: { store: HistoryStore; api: Api; onError: (e: IpcError) => void }) {
  return <TerminalSessionsSection status={useHistoryStatus(store)} api={api} onError={onError} />;
}
