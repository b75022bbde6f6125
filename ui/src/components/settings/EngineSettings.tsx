// Settings → Engines: per engine what `agentdesk-cli doctor` shows, and the override path
// (typed, or chosen with the native picker). A path the core refuses shows its message
// next to the field.
import { useEffect, useId, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import { ENGINE_NAMES, engineStatus, type EngineHealthState } from "../firstrun/health";
import type { EngineHealth, SettingsApi } from "./api";

const VIA: Record<string, string> = {
  settings: "the path set here",
  environment: "the AGENTDESK_*_BIN variable",
  path: "PATH",
  install_dir: "a usual install folder",
};

function EngineRow({ h, api, onChanged }: { h: EngineHealth; api: SettingsApi; onChanged: () => void }) {
  const name = ENGINE_NAMES[h.engine];
  const [path, setPath] = useState(h.overridePath ?? "");
  const [error, setError] = useState<IpcError | null>(null);
  const [saving, setSaving] = useState(false);
  const fieldId = useId();
  const errorId = useId();
  useEffect(() => setPath(h.overridePath ?? ""), [h.overridePath]);

  const save = async (value: string | null) => {
    setSaving(true);
    setError(null);
    try {
      await api.setEnginePath(h.engine, value);
      if (value === null) setPath("");
      onChanged();
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setSaving(false);
    }
  };

  const choose = async () => {
    try {
      const picked = await api.pickEngineBinary(h.engine);
      if (picked) {
        setPath(picked);
        await save(picked);
      }
    } catch (e) {
      setError(errorOf(e));
    }
  };

  const ready = h.path !== null && h.problem === null && h.loggedIn !== false;
  return (
    <section className="settings-engine" aria-labelledby={`engine-${h.engine}`} data-testid={`engine-${h.engine}`}>
      <h3 id={`engine-${h.engine}`}>
        {name} <span className={`badge ${ready ? "ok" : "bad"}`}>{engineStatus(h)}</span>
      </h3>
      <dl className="settings-facts">
        <dt>Executable</dt>
        <dd data-testid={`engine-${h.engine}-path`}>
          {h.path ?? "not found"}
          {h.foundVia && <span className="muted small"> (from {VIA[h.foundVia] ?? h.foundVia})</span>}
        </dd>
        <dt>Version</dt>
        <dd data-testid={`engine-${h.engine}-version`}>{h.version ?? "—"}</dd>
        <dt>Login</dt>
        <dd data-testid={`engine-${h.engine}-login`}>
          {h.loggedIn === true ? "logged in" : h.loggedIn === false ? "not logged in" : "not checked"}
        </dd>
      </dl>
      {h.problem && <p className="settings-problem">{h.problem.message}</p>}
      {h.fixCommands.length > 0 && (
        <pre className="firstrun-commands" aria-label={`Commands for ${name}`}>
          <code>{h.fixCommands.join("\n")}</code>
        </pre>
      )}
      <form
        className="settings-path"
        onSubmit={(e) => {
          e.preventDefault();
          void save(path.trim() === "" ? null : path.trim());
        }}
      >
        <label htmlFor={fieldId}>{name} executable path</label>
        <div className="settings-path-row">
          <input
            id={fieldId}
            type="text"
            value={path}
            placeholder="Found automatically (PATH and the usual install folders)"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(e) => setPath(e.target.value)}
          />
          <button type="button" onClick={() => void choose()} aria-label={`Choose the ${name} executable`}>
            Choose…
          </button>
          <button type="submit" disabled={saving} aria-label={`Save the ${name} path`}>
            Save
          </button>
          {h.overridePath && (
            <button type="button" onClick={() => void save(null)} aria-label={`Clear the ${name} path`}>
              Clear
            </button>
          )}
        </div>
        {error && (
          <p className="field-error" id={errorId} role="alert" data-testid={`engine-${h.engine}-path-error`}>
            {error.message}
          </p>
        )}
      </form>
    </section>
  );
}

export function EngineSettings({ engines, api }: { engines: EngineHealthState; api: SettingsApi }) {
  return (
    <section className="settings-section" aria-labelledby="settings-engines">
      <div className="settings-section-head">
        <h2 id="settings-engines">Engines</h2>
        <button type="button" onClick={() => void engines.recheck(true)} disabled={engines.checking}>
          {engines.checking ? "Checking…" : "Re-check"}
        </button>
      </div>
      {engines.error && (
        <p className="field-error" role="alert">
          {engines.error.message}
        </p>
      )}
      {engines.health === null && !engines.error && <p className="muted">Checking the engines…</p>}
      {(engines.health ?? []).map((h) => (
        <EngineRow key={h.engine} h={h} api={api} onChanged={() => void engines.recheck(true)} />
      ))}
    </section>
  );
}
