// Settings → Engines: per engine what `agentdesk-cli doctor` shows, and the override path.
// The path is only ever the file picked in the system's file picker, checked and stored by
// the shell: the window never names a path (issue 19 item 7), so nothing shown in it (agent
// output included) can point the app at another program. A refused file's message shows
// next to the button.
import { useEffect, useId, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import { engineStatus, type EngineHealthState } from "../firstrun/health";
import type { EngineHealth, EngineLimits, SettingsApi } from "../../ipc/settings";
import { EngineAccountArea } from "./EngineAccountArea";

const VIA: Record<string, string> = {
  settings: "the file chosen here",
  environment: "the AGENTDESK_*_BIN variable",
  path: "PATH",
  install_dir: "a usual install folder",
};

function EngineRow({ h, api, onChanged, account }: { h: EngineHealth; api: SettingsApi; onChanged: () => void; account: boolean }) {
  const name = h.displayName;
  const [error, setError] = useState<IpcError | null>(null);
  const [busy, setBusy] = useState(false);
  const errorId = useId();
  const hintId = useId();

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setBusy(false);
    }
  };

  // The shell opens the picker, checks the file and stores it; `null` is a cancel.
  const choose = () =>
    run(async () => {
      if ((await api.pickEngineBinary(h.program)) !== null) onChanged();
    });
  const clear = () =>
    run(async () => {
      await api.clearEnginePath(h.program);
      onChanged();
    });

  const ready = h.path !== null && h.problem === null && h.loggedIn !== false;
  return (
    <section className="settings-engine" aria-labelledby={`engine-${h.program}`} data-testid={`engine-${h.program}`}>
      <h3 id={`engine-${h.program}`}>
        {name} <span className={`badge ${ready ? "ok" : "bad"}`}>{engineStatus(h)}</span>
      </h3>
      <dl className="settings-facts">
        <dt>Executable</dt>
        <dd data-testid={`engine-${h.program}-path`}>
          {h.path ?? "not found"}
          {h.foundVia && <span className="muted small"> (from {VIA[h.foundVia] ?? h.foundVia})</span>}
        </dd>
        <dt>Version</dt>
        <dd data-testid={`engine-${h.program}-version`}>{h.version ?? "—"}</dd>
        <dt>Login</dt>
        <dd data-testid={`engine-${h.program}-login`}>
          {!h.loginCheckable
            ? "the agent's own (shown if a run fails)"
            : h.loggedIn === true
              ? "logged in"
              : h.loggedIn === false
                ? "not logged in"
                : "not checked"}
        </dd>
      </dl>
      {h.problem && <p className="settings-problem">{h.problem.message}</p>}
      {h.fixCommands.length > 0 && (
        <pre className="firstrun-commands" aria-label={`Commands for ${name}`}>
          <code>{h.fixCommands.join("\n")}</code>
        </pre>
      )}
      <div className="settings-path" role="group" aria-label={`${name} executable`}>
        <p className="muted small" id={hintId}>
          {h.overridePath ? "Chosen here." : "Found automatically (PATH and the usual install folders)."} Another executable
          can only be chosen with the system&apos;s file picker.
        </p>
        <div className="settings-path-row">
          <button
            type="button"
            onClick={() => void choose()}
            disabled={busy}
            aria-label={`Choose the ${name} executable`}
            aria-describedby={error ? `${hintId} ${errorId}` : hintId}
            aria-invalid={error ? true : undefined}
          >
            Choose…
          </button>
          {h.overridePath && (
            <button type="button" onClick={() => void clear()} disabled={busy} aria-label={`Clear the ${name} path`}>
              Clear
            </button>
          )}
        </div>
        {error && (
          <p className="field-error" id={errorId} role="alert" data-testid={`engine-${h.program}-path-error`}>
            {error.message}
          </p>
        )}
      </div>
      {account && <EngineAccountArea h={h} api={api} onChanged={onChanged} />}
    </section>
  );
}

/** The rows that show their engine's account: the first login-checkable row of each engine
 *  (an account is the engine's, not one of its programs'). */
function accountRows(health: EngineHealth[]): Set<string> {
  const seen = new Set<string>();
  const rows = new Set<string>();
  for (const h of health) {
    if (!h.loginCheckable || seen.has(h.engine)) continue;
    seen.add(h.engine);
    rows.add(h.program);
  }
  return rows;
}

/** The engines' memory limit: an engine process over it is stopped, its run fails with that
 *  reason, and the session can be continued. Empty: the default; 0: never. */
function MemoryLimit({ api }: { api: SettingsApi }) {
  const [limits, setLimits] = useState<EngineLimits | null>(null);
  const [value, setValue] = useState("");
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);
  useEffect(() => {
    api.engineLimits().then(
      (l) => {
        setLimits(l);
        setValue(l.memoryLimitMb === null ? "" : String(l.memoryLimitMb));
      },
      (e) => setError(errorOf(e)),
    );
  }, [api]);
  if (!limits) return error ? <p className="field-error" role="alert">{error.message}</p> : null;
  const save = async () => {
    setSaved(false);
    setError(null);
    const mb = value.trim() === "" ? null : Math.max(0, Math.floor(Number(value) || 0));
    try {
      const l = await api.setEngineMemoryLimit(mb);
      setLimits(l);
      setValue(l.memoryLimitMb === null ? "" : String(l.memoryLimitMb));
      setSaved(true);
    } catch (e) {
      setError(errorOf(e));
    }
  };
  return (
    <form
      className="settings-memory"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label className="settings-field">
        <span>Stop an engine using more memory than (MB)</span>
        <input
          type="number"
          min={0}
          value={value}
          placeholder={`${limits.defaultMemoryLimitMb} (0: never)`}
          onChange={(e) => {
            setValue(e.target.value);
            setSaved(false);
          }}
        />
      </label>
      <p className="muted small">
        Its run fails with that reason and the session can be continued. Applies from each engine&apos;s next start.
      </p>
      <div className="settings-actions">
        <button type="submit">Save memory limit</button>
        {saved && (
          <span className="muted small" role="status">
            Saved
          </span>
        )}
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
    </form>
  );
}

export function EngineSettings({ engines, api }: { engines: EngineHealthState; api: SettingsApi }) {
  const withAccount = accountRows(engines.health ?? []);
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
        <EngineRow key={h.program} h={h} api={api} onChanged={() => void engines.recheck(true)} account={withAccount.has(h.program)} />
      ))}
      <MemoryLimit api={api} />
    </section>
  );
}
