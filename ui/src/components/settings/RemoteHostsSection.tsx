// Settings → Remote hosts: for each host a remote workspace is on, what `agentdesk-cli
// doctor --workspace ssh://…` says there — Codex and Claude Code found on the host's login
// PATH, their versions, whether they are logged in — and what to run on the host when not.
// Checked on request: each check connects and starts the engines once there.
import { useEffect, useState } from "react";
import { errorOf, type IpcError } from "../../ipc";
import type { EngineHealth, SettingsApi } from "../../ipc/settings";
import { engineStatus } from "../firstrun/health";

function HostEngines({ host, api }: { host: string; api: SettingsApi }) {
  const [health, setHealth] = useState<EngineHealth[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | null>(null);
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      setHealth(await api.remoteEnginesHealth(host, true));
    } catch (e) {
      setError(errorOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="settings-engine" aria-label={`Engines on ${host}`}>
      <h3>
        {host}{" "}
        <button type="button" disabled={busy} onClick={() => void check()}>
          {busy ? "Checking…" : health ? "Check again" : "Check engines"}
        </button>
      </h3>
      {error && (
        <p className="settings-problem" role="alert">
          {error.message}
        </p>
      )}
      {health?.map((h) => {
        const ready = h.path !== null && h.problem === null && h.loggedIn !== false;
        return (
          <div key={h.program} className="remote-engine" aria-label={`${h.displayName} on ${host}`} role="group">
            <h4>
              {h.displayName} <span className={`badge ${ready ? "ok" : "bad"}`}>{engineStatus(h)}</span>
            </h4>
            <dl className="settings-facts">
              <dt>Executable</dt>
              <dd>{h.path ?? "not found on the login shell's PATH"}</dd>
              <dt>Version</dt>
              <dd>{h.version ?? "—"}</dd>
              <dt>Login</dt>
              <dd>{h.loggedIn === true ? "logged in" : h.loggedIn === false ? "not logged in" : "not checked"}</dd>
            </dl>
            {h.problem && h.path !== null && <p className="settings-problem">{h.problem.message}</p>}
            {h.fixCommands.length > 0 && (
              <pre className="firstrun-commands" aria-label={`Commands for ${h.displayName} on ${host}`}>
                <code>{h.fixCommands.join("\n")}</code>
              </pre>
            )}
          </div>
        );
      })}
    </section>
  );
}

export function RemoteHostsSection({ api }: { api: SettingsApi }) {
  const [hosts, setHosts] = useState<string[]>([]);
  useEffect(() => {
    let open = true;
    api
      .listWorkspaces()
      .then((ws) => open && setHosts([...new Set(ws.flatMap((w) => (w.host ? [w.host] : [])))].sort()))
      .catch(() => {});
    return () => {
      open = false;
    };
  }, [api]);
  if (hosts.length === 0) return null;
  return (
    <section className="settings-section" aria-labelledby="settings-remote-hosts">
      <h2 id="settings-remote-hosts">Remote hosts</h2>
      <p className="muted small">The engines of remote workspaces run on these hosts, found on your login shell's PATH there.</p>
      {hosts.map((h) => (
        <HostEngines key={h} host={h} api={api} />
      ))}
    </section>
  );
}
