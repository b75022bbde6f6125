// The profile's MCP servers: a program over stdio or an HTTP server each, with variables by
// name only (values live in the profile's environment, where secrets are masked). A saved
// profile's servers can be checked: the core starts the engine and asks it.
import { Fragment, useEffect, useRef, useState } from "react";
import type { McpReport } from "../../generated/McpReport";
import type { McpState } from "../../generated/McpState";
import { errorProps, FieldError } from "./fields";
import type { McpRow, McpTransport } from "./form";
import type { Props } from "./ProfileEditor";

/** What the editor needs to check a saved profile's servers. */
export interface McpCheck {
  /** The profile is stored (a new one has nothing the engine could be asked about). */
  saved: boolean;
  /**
   * The stored profile whose servers the form shows as stored: `null` for a new profile and
   * while the servers or the engine have unsaved changes (the report would be of others).
   */
  profileId: string | null;
  status: (profileId: string) => Promise<McpReport>;
}

const STATES: Record<McpState, string> = {
  connected: "connected",
  failed: "failed",
  needs_auth: "needs login",
  pending: "starting",
  disabled: "disabled",
};

const join = (...errors: (string | undefined)[]) => [...new Set(errors.filter((e) => e))].join("; ") || undefined;

export function McpServersEditor({ form, dispatch, errors, check }: Props & { check?: McpCheck }) {
  const general = errors["mcpServers"];
  return (
    <fieldset className="mcp-servers">
      <legend>MCP servers</legend>
      <p className="field-hint">
        Tool servers the engine connects to for this profile&apos;s runs. A program gets the environment variables named here (their values come from
        the profile&apos;s environment above, or the app&apos;s own); an HTTP server gets a bearer token from the variable named. Names only, never
        values.
      </p>
      <FieldError field="mcpServers" error={general} />
      {form.mcpServers.map((r, i) => (
        <McpServerRow key={r.key} row={r} index={i} errors={errors} dispatch={dispatch} />
      ))}
      <div className="mcp-actions">
        <button type="button" onClick={() => dispatch({ type: "mcpAdd" })}>
          Add MCP server
        </button>
      </div>
      {check && form.mcpServers.length > 0 && <McpStatus check={check} />}
    </fieldset>
  );
}

function McpServerRow({ row: r, index: i, errors, dispatch }: { row: McpRow; index: number } & Pick<Props, "errors" | "dispatch">) {
  const set = (patch: Partial<Omit<McpRow, "key">>) => dispatch({ type: "mcpSet", key: r.key, patch });
  const at = (f: string) => `mcpServers.${i}.${f}`;
  const e = (f: string) => errors[at(f)];
  const name = r.name.trim();
  const who = name ? ` ${name}` : "";
  const stdio = r.transport === "stdio";
  // The core names an error by the field it checked; one the row has no input for (the
  // other transport's, a server's whole entry, an endpoint change not confirmed: keyed by
  // its name) goes with the input that says what the server is.
  const elsewhere = stdio ? [e("url"), e("bearerTokenEnv")] : [e("command"), e("envVars"), e("args")];
  const whole = join(errors[`mcpServers.${i}`], name ? errors[`mcpServers.${name}`] : undefined, e("enabled"), ...elsewhere);
  const main = stdio ? at("command") : at("url");
  const mainError = join(stdio ? e("command") : e("url"), whole);
  return (
    <div className={`mcp-server${r.enabled ? "" : " off"}`}>
      <div className="profile-row mcp-head">
        <input
          aria-label="MCP server name"
          {...errorProps(at("name"), e("name"))}
          className="mono"
          placeholder="name (e.g. notes)"
          spellCheck={false}
          value={r.name}
          onChange={(ev) => set({ name: ev.target.value })}
        />
        <select aria-label="MCP server transport" value={r.transport} onChange={(ev) => set({ transport: ev.target.value as McpTransport })}>
          <option value="stdio">Program (stdio)</option>
          <option value="http">HTTP</option>
        </select>
        <label className="secret-toggle">
          <input type="checkbox" aria-label={`Enable MCP server${who}`} checked={r.enabled} onChange={(ev) => set({ enabled: ev.target.checked })} />
          <span aria-hidden="true">Enabled</span>
        </label>
        <button type="button" className="icon-button" aria-label={`Remove MCP server${who}`} onClick={() => dispatch({ type: "mcpRemove", key: r.key })}>
          ×
        </button>
        <FieldError field={at("name")} error={e("name")} />
      </div>
      {stdio ? (
        <div className="mcp-body">
          <Part caption="Command" label="MCP server command" field={main} error={mainError} wide
            placeholder="a program on PATH or its absolute path (e.g. npx)" value={r.command} onChange={(v) => set({ command: v })} />
          <Part caption="Arguments, one per line" label="MCP server arguments" field={at("args")} error={e("args")} lines={2}
            value={r.args} onChange={(v) => set({ args: v })} />
          <Part caption="Environment variables (names)" label="MCP server environment variables" field={at("envVars")} error={e("envVars")}
            placeholder="e.g. NOTES_TOKEN, HOME" value={r.envVars} onChange={(v) => set({ envVars: v })} />
        </div>
      ) : (
        <div className="mcp-body">
          <Part caption="URL" label="MCP server URL" field={main} error={mainError} placeholder="https://…" value={r.url} onChange={(v) => set({ url: v })} />
          <Part caption="Token variable" label="MCP server token variable" field={at("bearerTokenEnv")} error={e("bearerTokenEnv")}
            placeholder="no token (or e.g. NOTES_TOKEN)" value={r.bearerTokenEnv} onChange={(v) => set({ bearerTokenEnv: v })} />
        </div>
      )}
    </div>
  );
}

interface PartProps {
  /** Shown above the input; hidden from assistive technology, which reads `label`. */
  caption: string;
  label: string;
  field: string;
  error: string | undefined;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** A textarea of this many rows instead of an input. */
  lines?: number;
  wide?: boolean;
}

/** One input of a server row, with its caption and the core's error for it. */
function Part({ caption, label, field, error, value, onChange, placeholder, lines, wide = false }: PartProps) {
  const common = { "aria-label": label, ...errorProps(field, error), className: "mono", spellCheck: false, placeholder, value };
  return (
    <div className={wide ? "mcp-part wide" : "mcp-part"}>
      <span className="mcp-caption" aria-hidden="true">
        {caption}
      </span>
      {lines ? (
        <textarea {...common} rows={lines} onChange={(ev) => onChange(ev.target.value)} />
      ) : (
        <input {...common} onChange={(ev) => onChange(ev.target.value)} />
      )}
      <FieldError field={field} error={error} />
    </div>
  );
}

type Checked = { report: McpReport } | { failed: string } | null;

function McpStatus({ check }: { check: McpCheck }) {
  const { profileId, saved, status } = check;
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<Checked>(null);
  // Bumped when the servers the form shows change, so an answer about the old ones (a check
  // can take a minute) is dropped.
  const asked = useRef(0);
  useEffect(() => {
    asked.current++;
    setChecking(false);
    setResult(null);
  }, [profileId]);

  const run = async (id: string) => {
    const mine = ++asked.current;
    setChecking(true);
    setResult(null);
    try {
      const report = await status(id);
      if (mine === asked.current) setResult({ report });
    } catch (err: unknown) {
      const message = typeof err === "object" && err && "message" in err ? String((err as { message: unknown }).message) : String(err);
      if (mine === asked.current) setResult({ failed: message });
    } finally {
      if (mine === asked.current) setChecking(false);
    }
  };

  return (
    <div className="mcp-check">
      {saved && (
        <button type="button" disabled={profileId === null || checking} onClick={() => profileId && void run(profileId)}>
          Check MCP servers
        </button>
      )}
      {profileId === null && <p className="field-hint">Save the profile to check its servers.</p>}
      <div className="mcp-check-result" aria-live="polite">
        {checking && <p className="muted">Starting the engine to ask…</p>}
        {result && "failed" in result && (
          <p className="field-error" role="alert">
            The MCP servers could not be checked: {result.failed}
          </p>
        )}
        {result && "report" in result && <McpReportView report={result.report} />}
      </div>
    </div>
  );
}

function McpReportView({ report }: { report: McpReport }) {
  return (
    <>
      {report.unavailable && <p className="mcp-unavailable">{report.unavailable}</p>}
      {/* An unavailable report still lists the servers it knows without the engine (the disabled ones). */}
      {(report.servers.length > 0 || !report.unavailable) && (
        <ul className="mcp-status" aria-label="MCP server status">
          {report.servers.length === 0 && <li className="muted">The engine reports no servers.</li>}
          {report.servers.map((s) => (
            <li key={s.name} className={`mcp-state-${s.state}`}>
              <span className="mcp-status-name mono">{s.name}</span>
              {": "}
              <span className="mcp-state">{STATES[s.state] ?? s.state}</span>
              {s.error && (
                <>
                  {" — "}
                  <span className="mcp-status-error">{s.error}</span>
                </>
              )}
              {" · "}
              <span className="mcp-tools">
                {s.tools.length === 0 ? "no tools" : "tools: "}
                {s.tools.map((t, n) => (
                  <Fragment key={t.name}>
                    {n > 0 && ", "}
                    <span title={t.description || undefined}>{t.name}</span>
                  </Fragment>
                ))}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
