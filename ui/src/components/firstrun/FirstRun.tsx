// Shown instead of an empty window when no engine can run: for each engine, what is wrong
// and the exact commands that fix it, with Re-check. It appears on its own, so it does not
// take the keyboard focus.
import type { EngineHealth } from "../../ipc/settings";
import { engineStatus, type EngineHealthState } from "./health";
import "./firstrun.css";

/** What each program is, for someone who has none yet (by program name). */
const WHAT: Record<string, string> = {
  codex: "OpenAI's Codex CLI",
  claude: "Anthropic's Claude Code CLI",
  opencode: "an open-source agent (ACP)",
  gemini: "Google's Gemini CLI (ACP)",
};

function EngineSetup({ h }: { h: EngineHealth }) {
  const name = h.displayName;
  return (
    <section className="firstrun-engine" aria-labelledby={`firstrun-${h.program}`} data-testid={`firstrun-${h.program}`}>
      <h2 id={`firstrun-${h.program}`}>
        {name} <span className="muted small">{WHAT[h.program] ?? ""}</span>
      </h2>
      <p className="firstrun-status">{engineStatus(h)}</p>
      {h.problem && h.path !== null && <p className="firstrun-problem">{h.problem.message}</p>}
      {h.fixCommands.length > 0 && (
        <>
          <p>Run in a terminal:</p>
          <pre className="firstrun-commands" aria-label={`Commands for ${name}`}>
            <code>{h.fixCommands.join("\n")}</code>
          </pre>
        </>
      )}
      {h.path === null && <p className="muted small">Installed somewhere else? Set its path in Settings.</p>}
    </section>
  );
}

export function FirstRun({
  engines,
  onOpenSettings,
  onContinue,
}: {
  engines: EngineHealthState;
  onOpenSettings: () => void;
  onContinue: () => void;
}) {
  const anyFound = engines.health?.some((h) => h.path !== null) ?? false;
  return (
    <section className="firstrun" aria-labelledby="firstrun-title" data-testid="first-run">
      <h1 id="firstrun-title">Set up a coding agent</h1>
      <p>
        Agent Desk works with the <code>codex</code> and <code>claude</code> command-line tools installed on this computer, with your
        own logins. {anyFound ? "None of them can run yet:" : "Neither was found:"}
      </p>
      {(engines.health ?? []).map((h) => (
        <EngineSetup key={h.program} h={h} />
      ))}
      {engines.error && (
        <p className="field-error" role="alert">
          {engines.error.message}
        </p>
      )}
      <div className="firstrun-actions">
        <button type="button" className="primary" onClick={() => void engines.recheck(true)} disabled={engines.checking}>
          {engines.checking ? "Checking…" : "Re-check"}
        </button>
        <button type="button" onClick={onOpenSettings}>
          Open Settings
        </button>
        {anyFound && (
          <button type="button" onClick={onContinue} title="Profiles with their own endpoint and key variable need no login">
            Continue anyway
          </button>
        )}
      </div>
    </section>
  );
}
