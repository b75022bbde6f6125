// Settings: engines, notifications, appearance, composer, terminal sessions, data.
import { useEffect, useRef, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import type { EngineHealthState } from "../firstrun/health";
import { formatBytes } from "../../util/format";
import {
  settingsApi,
  type CompactReport,
  type DataInfo,
  type NotificationPrefs,
  type SettingsApi,
  type UiSettings,
} from "../../ipc/settings";
import { EngineSettings } from "./EngineSettings";
import { RemoteHostsSection } from "./RemoteHostsSection";
import { LiveTerminalSessionsSection } from "./TerminalSessionsSection";
import type { HistoryStore } from "../../state/histories";
import { setUiSettingsLocal, useUiSettings } from "./prefs";
import "./settings.css";

const WHEN: { value: NotificationPrefs["approvals"]; label: string }[] = [
  { value: "always", label: "Always" },
  { value: "when_unfocused", label: "When the window is not focused" },
  { value: "never", label: "Never" },
];

function Notifications({ api, onError }: { api: SettingsApi; onError: (e: IpcError) => void }) {
  const [prefs, setPrefs] = useState<NotificationPrefs | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api.getNotificationPrefs().then(setPrefs, (e) => onError(errorOf(e)));
  }, [api, onError]);
  if (!prefs) return null;
  const edit = (p: Partial<NotificationPrefs>) => {
    setPrefs({ ...prefs, ...p });
    setSaved(false);
  };
  const when = (key: "approvals" | "questions" | "runs", label: string) => (
    <label className="settings-field">
      <span>{label}</span>
      <select value={prefs[key]} onChange={(e) => edit({ [key]: e.target.value as NotificationPrefs["approvals"] })}>
        {WHEN.map((w) => (
          <option key={w.value} value={w.value}>
            {w.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      className="settings-section"
      aria-labelledby="settings-notifications"
      onSubmit={(e) => {
        e.preventDefault();
        api.setNotificationPrefs(prefs).then(() => setSaved(true), (err) => onError(errorOf(err)));
      }}
    >
      <h2 id="settings-notifications">Notifications</h2>
      {when("approvals", "Approval requests")}
      {when("questions", "Questions")}
      {when("runs", "Finished runs")}
      <label className="settings-field">
        <span>Only runs longer than (seconds)</span>
        <input
          type="number"
          min={0}
          value={prefs.runMinSecs}
          onChange={(e) => edit({ runMinSecs: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
        />
      </label>
      <label className="settings-check">
        <input type="checkbox" checked={prefs.sound} onChange={(e) => edit({ sound: e.target.checked })} />
        <span>Play a sound</span>
      </label>
      <div className="settings-actions">
        <button type="submit">Save notifications</button>
        {saved && (
          <span className="muted small" role="status">
            Saved
          </span>
        )}
      </div>
    </form>
  );
}

function Choice<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: string;
  name: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <fieldset className="settings-choice">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value} className="settings-check">
          <input type="radio" name={name} value={o.value} checked={value === o.value} onChange={() => onChange(o.value)} />
          <span>{o.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

function DataFolders({ api, onError }: { api: SettingsApi; onError: (e: IpcError) => void }) {
  const [data, setData] = useState<DataInfo | null>(null);
  const [compacting, setCompacting] = useState(false);
  const [compacted, setCompacted] = useState<CompactReport | null>(null);
  useEffect(() => {
    api.dataInfo().then(setData, (e) => onError(errorOf(e)));
  }, [api, onError]);
  if (!data) return null;
  const open = (which: "data" | "logs") => api.openDataFolder(which).catch((e) => onError(errorOf(e)));
  const compact = async () => {
    setCompacting(true);
    setCompacted(null);
    try {
      const report = await api.compactDatabase();
      setCompacted(report);
      setData({ ...data, databaseBytes: report.afterBytes });
    } catch (e) {
      onError(errorOf(e));
    } finally {
      setCompacting(false);
    }
  };
  return (
    <section className="settings-section" aria-labelledby="settings-data">
      <h2 id="settings-data">Data</h2>
      <dl className="settings-facts">
        <dt>Data folder</dt>
        <dd>
          <code>{data.dataDir}</code> <button type="button" onClick={() => void open("data")}>Open data folder</button>
        </dd>
        <dt>Log folder</dt>
        <dd>
          <code>{data.logDir}</code> <button type="button" onClick={() => void open("logs")}>Open log folder</button>
        </dd>
        <dt>Database</dt>
        <dd data-testid="database-size">
          <code>{data.databasePath}</code> · {formatBytes(data.databaseBytes)}
        </dd>
      </dl>
      <p className="muted small">
        Deleting sessions frees space inside the database file; compacting gives it back to the disk and removes attached
        files no message uses. Runs must be finished first.
      </p>
      <div className="settings-actions">
        <button type="button" onClick={() => void compact()} disabled={compacting}>
          {compacting ? "Compacting…" : "Compact database"}
        </button>
        <span className="muted small" role="status">
          {compacted && compactedText(compacted)}
        </span>
      </div>
    </section>
  );
}

/** What compacting did, in a sentence. */
export function compactedText(r: CompactReport): string {
  const files =
    r.attachmentsRemoved === 0
      ? ""
      : `; ${r.attachmentsRemoved} unused attached file${r.attachmentsRemoved === 1 ? "" : "s"} removed`;
  return `Compacted: ${formatBytes(r.beforeBytes)} → ${formatBytes(r.afterBytes)}${files}`;
}

export function SettingsView({
  engines,
  histories,
  onError,
  api = settingsApi,
}: {
  engines: EngineHealthState;
  /** The background import of the engines' own histories. */
  histories?: HistoryStore;
  onError: (e: IpcError) => void;
  api?: SettingsApi;
}) {
  const ui = useUiSettings();
  const heading = useRef<HTMLHeadingElement>(null);
  const { recheck } = engines;
  useEffect(() => {
    heading.current?.focus();
    // The screen that says whether an engine is logged in asks it (starts each one once).
    void recheck(true);
  }, [recheck]);
  const saveUi = (next: UiSettings) => {
    const before = ui;
    setUiSettingsLocal(next);
    api.setUiSettings(next).catch((e) => {
      setUiSettingsLocal(before);
      onError(errorOf(e));
    });
  };
  return (
    <section className="settings" aria-labelledby="settings-title" data-testid="settings">
      <h1 id="settings-title" tabIndex={-1} ref={heading}>
        Settings
      </h1>
      <EngineSettings engines={engines} api={api} />
      <RemoteHostsSection api={api} />
      <Notifications api={api} onError={onError} />
      <section className="settings-section" aria-labelledby="settings-appearance">
        <h2 id="settings-appearance">Appearance and keys</h2>
        <Choice
          legend="Theme"
          name="theme"
          value={ui.theme}
          options={[
            { value: "system", label: "System" },
            { value: "light", label: "Light" },
            { value: "dark", label: "Dark" },
          ]}
          onChange={(theme) => saveUi({ ...ui, theme })}
        />
        <Choice
          legend="Send a message with"
          name="send-key"
          value={ui.sendKey}
          options={[
            { value: "enter", label: "Enter (Shift+Enter for a new line)" },
            { value: "ctrl_enter", label: "Ctrl+Enter (Enter for a new line)" },
          ]}
          onChange={(sendKey) => saveUi({ ...ui, sendKey })}
        />
      </section>
      {histories && <LiveTerminalSessionsSection store={histories} api={api} onError={onError} />}
      <DataFolders api={api} onError={onError} />
    </section>
  );
}
