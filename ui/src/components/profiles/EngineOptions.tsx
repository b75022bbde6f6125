// What only one engine reads, one editor per engine: the table is keyed by every `Engine`, so
// an engine added to the registry without its options editor does not type-check.
import type { ReactElement } from "react";
import type { Engine } from "../../generated/Engine";
import type { EngineInfo } from "../../generated/EngineInfo";
import { CheckField, errorProps, FieldError, inputId, TextField } from "./fields";
import { SETTING_SOURCES, type ProfileForm } from "./form";
import type { Props } from "./ProfileEditor";

const EDITORS: Record<Engine, (p: Props) => ReactElement> = {
  codex: CodexOptions,
  claude: ClaudeOptions,
  acp: AcpOptions,
};

export function EngineOptions(p: Props & { engines: EngineInfo[] }) {
  const { form, dispatch, errors, engines } = p;
  const set = (patch: Partial<ProfileForm>) => dispatch({ type: "set", patch });
  const e = (k: string) => errors[`engineOptions.${k}`];
  const name = engines.find((i) => i.engine === form.engine)?.displayName ?? form.engine;
  const Editor = EDITORS[form.engine];
  return (
    <fieldset>
      <legend>{name} options</legend>
      <TextField
        field="engineOptions.inactivityTimeoutSecs"
        label="Stop a silent run after (seconds)"
        type="number"
        value={form.inactivityTimeoutSecs}
        error={e("inactivityTimeoutSecs")}
        placeholder="600 (0: never)"
        onChange={(inactivityTimeoutSecs) => set({ inactivityTimeoutSecs })}
      />
      <Editor form={form} dispatch={dispatch} errors={errors} />
    </fieldset>
  );
}

function CodexOptions({ form, dispatch, errors }: Props) {
  const set = (patch: Partial<ProfileForm>) => dispatch({ type: "set", patch });
  const e = (k: string) => errors[`engineOptions.${k}`];
  return (
    <>
      <TextField
        field="engineOptions.codexHome"
        label="Codex home"
        value={form.codexHome}
        error={e("codexHome")}
        placeholder="the settings' or $CODEX_HOME"
        onChange={(codexHome) => set({ codexHome })}
      />
      <CheckField
        field="engineOptions.planMode"
        label="Plan mode (plan and ask questions instead of acting)"
        checked={form.planMode}
        error={e("planMode")}
        onChange={(planMode) => set({ planMode })}
      />
      <CheckField
        field="engineOptions.trustProjectConfig"
        label="Load the workspace's .codex/config.toml"
        checked={form.trustProjectConfig}
        error={e("trustProjectConfig")}
        hint="It can start programs (MCP servers) and instruct the agent: only for repositories you trust."
        onChange={(trustProjectConfig) => set({ trustProjectConfig })}
      />
      <div className="two-columns">
        <TextField
          field="engineOptions.requestMaxRetries"
          label="Request retries"
          type="number"
          value={form.requestMaxRetries}
          error={e("requestMaxRetries")}
          placeholder="codex's default"
          onChange={(requestMaxRetries) => set({ requestMaxRetries })}
        />
        <TextField
          field="engineOptions.streamMaxRetries"
          label="Stream retries"
          type="number"
          value={form.streamMaxRetries}
          error={e("streamMaxRetries")}
          placeholder="codex's default"
          onChange={(streamMaxRetries) => set({ streamMaxRetries })}
        />
      </div>
      <OverridesEditor form={form} dispatch={dispatch} errors={errors} />
    </>
  );
}

function ClaudeOptions({ form, dispatch, errors }: Props) {
  const e = (k: string) => errors[`engineOptions.${k}`];
  const set = (patch: Partial<ProfileForm>) => dispatch({ type: "set", patch });
  const sources = form.settingSources ?? ["user"];
  return (
    <>
      <TextField
        field="engineOptions.maxTurns"
        label="Maximum turns"
        type="number"
        value={form.maxTurns}
        error={e("maxTurns")}
        placeholder="no limit"
        onChange={(maxTurns) => set({ maxTurns })}
      />
      <div className={`profile-field${e("settingSources") ? " invalid" : ""}`} role="group" aria-label="Setting sources">
        <span className="group-label">Settings Claude Code loads</span>
        <div className="checks" id={inputId("engineOptions.settingSources")}>
          {SETTING_SOURCES.map((s) => (
            <label key={s}>
              <input type="checkbox" checked={sources.includes(s)} onChange={() => dispatch({ type: "toggleSource", source: s })} /> {s}
            </label>
          ))}
        </div>
        <p className="field-hint">project and local are the workspace's own .claude settings: only for repositories you trust.</p>
        <FieldError field="engineOptions.settingSources" error={e("settingSources")} />
      </div>
    </>
  );
}

const PRESETS: { value: ProfileForm["acpPreset"]; label: string }[] = [
  { value: "opencode", label: "opencode" },
  { value: "gemini", label: "Gemini CLI" },
  { value: "", label: "Another agent (its command)" },
];

/** Any Agent Client Protocol agent: a preset (found like the other engines, started so that it
 *  asks before acting) or a command of the user's. */
function AcpOptions({ form, dispatch, errors }: Props) {
  const set = (patch: Partial<ProfileForm>) => dispatch({ type: "set", patch });
  const e = (k: string) => errors[`engineOptions.${k}`];
  return (
    <>
      <div className={`profile-field${e("preset") ? " invalid" : ""}`}>
        <label htmlFor={inputId("engineOptions.preset")}>Agent</label>
        <select
          {...errorProps("engineOptions.preset", e("preset"))}
          value={form.acpPreset}
          onChange={(ev) => set({ acpPreset: ev.target.value as ProfileForm["acpPreset"] })}
        >
          {PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        <FieldError field="engineOptions.preset" error={e("preset")} />
      </div>
      <TextField
        field="engineOptions.command"
        label="Command"
        value={form.acpCommand}
        error={e("command")}
        placeholder={form.acpPreset ? "found on PATH" : "the agent's executable"}
        onChange={(acpCommand) => set({ acpCommand })}
      />
      <div className={`profile-field${e("args") ? " invalid" : ""}`}>
        <label htmlFor={inputId("engineOptions.args")}>Arguments (one per line)</label>
        <textarea
          {...errorProps("engineOptions.args", e("args"))}
          className="mono"
          rows={2}
          value={form.acpArgs}
          onChange={(ev) => set({ acpArgs: ev.target.value })}
        />
        <FieldError field="engineOptions.args" error={e("args")} />
      </div>
      {form.acpPreset === "" && (
        <p className="field-hint" role="note">
          Agent Desk cannot make another agent ask before acting: which of its edits and commands reach the approvals depends on the agent&apos;s own
          settings.
        </p>
      )}
    </>
  );
}

function OverridesEditor({ form, dispatch, errors }: Props) {
  const general = errors["engineOptions.configOverrides"];
  return (
    <div className="rows-editor" role="group" aria-label="Config overrides">
      <h3>Config overrides</h3>
      <p className="field-hint">Extra codex settings (-c key=value), the value in TOML.</p>
      {form.configOverrides.map((r, i) => {
        const field = `engineOptions.configOverrides.${r.name.trim()}`;
        const err = r.name.trim() ? errors[field] : undefined;
        const label = r.name.trim() || `override ${i + 1}`;
        return (
          <div key={r.key} className={`profile-row pair-row${err ? " invalid" : ""}`}>
            <input
              aria-label={`Key of ${label}`}
              {...errorProps(field, err)}
              className="mono"
              placeholder="model_reasoning_effort"
              value={r.name}
              onChange={(ev) => dispatch({ type: "overrideSet", key: r.key, patch: { name: ev.target.value } })}
            />
            <input
              aria-label={`Value of ${label}`}
              className="mono"
              placeholder={'"high"'}
              value={r.value}
              onChange={(ev) => dispatch({ type: "overrideSet", key: r.key, patch: { value: ev.target.value } })}
            />
            <button type="button" className="icon-button" aria-label={`Remove ${label}`} onClick={() => dispatch({ type: "overrideRemove", key: r.key })}>
              ×
            </button>
            <FieldError field={field} error={err} />
          </div>
        );
      })}
      <FieldError field="engineOptions.configOverrides" error={general} />
      <button type="button" onClick={() => dispatch({ type: "overrideAdd" })}>
        Add override
      </button>
    </div>
  );
}
