// Every field of a profile, grouped as a user thinks of them: the engine and model, the
// endpoint, permissions and rules, the prompt and folders, the environment, and what only
// one engine reads. Errors come from the core, keyed by field.
import type { Dispatch } from "react";
import type { ApprovalKindName } from "../../generated/ApprovalKindName";
import type { Engine } from "../../generated/Engine";
import type { EngineInfo } from "../../generated/EngineInfo";
import type { PermissionMode } from "../../generated/PermissionMode";
import type { RuleAction } from "../../generated/RuleAction";
import type { ModelCatalog } from "../../generated/ModelCatalog";
import { EngineOptions } from "./EngineOptions";
import { McpServersEditor, type McpCheck } from "./McpServers";
import { ModelField } from "./ModelField";
import { errorProps, Field, FieldError, TextField } from "./fields";
import { SECRET_MASK, type FormAction, type ProfileForm } from "./form";

const PERMISSION_MODES: { value: PermissionMode; label: string }[] = [
  { value: "ask", label: "Ask before every change and command" },
  { value: "auto_edit", label: "Edit files in the workspace, ask for commands" },
  { value: "full_auto", label: "Approve everything" },
  { value: "read_only", label: "Read only (deny changes and commands)" },
];

const RULE_KINDS: { value: ApprovalKindName | ""; label: string }[] = [
  { value: "", label: "Any kind" },
  { value: "command", label: "Command" },
  { value: "file_change", label: "File change" },
  { value: "permission", label: "Permission" },
  { value: "tool", label: "Tool" },
  { value: "question", label: "Question" },
];

export interface Props {
  form: ProfileForm;
  dispatch: Dispatch<FormAction>;
  errors: Record<string, string>;
}

export function ProfileEditor({
  form,
  dispatch,
  errors,
  engines,
  models = null,
  listing = false,
  mcpCheck,
}: Props & { engines: EngineInfo[]; models?: ModelCatalog | null; listing?: boolean; mcpCheck?: McpCheck }) {
  const set = (patch: Partial<ProfileForm>) => dispatch({ type: "set", patch });
  const e = (k: string) => errors[k];
  return (
    <div className="profile-editor">
      <fieldset>
        <legend>Engine</legend>
        <TextField field="name" label="Name" value={form.name} error={e("name")} onChange={(name) => set({ name })} />
        <Field field="engine" label="Engine" error={e("engine")}>
          <select {...errorProps("engine", e("engine"))} value={form.engine} onChange={(ev) => set({ engine: ev.target.value as Engine })}>
            {engines.length === 0 && <option value={form.engine}>{form.engine}</option>}
            {engines.map((info) => (
              <option key={info.engine} value={info.engine}>
                {info.displayName}
              </option>
            ))}
          </select>
        </Field>
        <ModelField
          catalog={models}
          listing={listing}
          model={form.model}
          effort={form.reasoningEffort}
          modelError={e("model")}
          effortError={e("engineOptions.reasoningEffort")}
          customEndpoint={form.baseUrl.trim() !== ""}
          onModel={(model) => set({ model })}
          onEffort={(reasoningEffort) => set({ reasoningEffort })}
        />
        <TextField
          field="systemPrompt"
          label="System prompt"
          value={form.systemPrompt}
          error={e("systemPrompt")}
          multiline
          rows={4}
          hint="Added to the engine's own instructions."
          onChange={(systemPrompt) => set({ systemPrompt })}
        />
      </fieldset>

      <fieldset>
        <legend>Custom provider</legend>
        <TextField
          field="baseUrl"
          label="Base URL"
          value={form.baseUrl}
          error={e("baseUrl")}
          placeholder="https://… (empty: the engine's own provider)"
          onChange={(baseUrl) => set({ baseUrl })}
        />
        <TextField
          field="apiKeyEnv"
          label="API key variable"
          value={form.apiKeyEnv}
          error={e("apiKeyEnv")}
          placeholder="e.g. OPENROUTER_API_KEY"
          hint="The name of the environment variable holding the key, never the key itself."
          onChange={(apiKeyEnv) => set({ apiKeyEnv })}
        />
      </fieldset>

      <fieldset>
        <legend>Permissions</legend>
        <Field field="permissionMode" label="Permission mode" error={e("permissionMode")}>
          <select
            {...errorProps("permissionMode", e("permissionMode"))}
            value={form.permissionMode}
            onChange={(ev) => set({ permissionMode: ev.target.value as PermissionMode })}
          >
            {PERMISSION_MODES.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          field="approvalTimeoutSecs"
          label="Approval deadline (seconds)"
          type="number"
          value={form.approvalTimeoutSecs}
          error={e("approvalTimeoutSecs")}
          placeholder="no deadline"
          hint="A request left unanswered this long is denied."
          onChange={(approvalTimeoutSecs) => set({ approvalTimeoutSecs })}
        />
        <div className="two-columns">
          <TextField
            field="allowedTools"
            label="Allowed tools"
            multiline
            value={form.allowedTools}
            error={e("allowedTools")}
            hint="One per line."
            onChange={(allowedTools) => set({ allowedTools })}
          />
          <TextField
            field="deniedTools"
            label="Denied tools"
            multiline
            value={form.deniedTools}
            error={e("deniedTools")}
            hint="One per line."
            onChange={(deniedTools) => set({ deniedTools })}
          />
        </div>
        <RulesEditor form={form} dispatch={dispatch} errors={errors} />
      </fieldset>

      <fieldset>
        <legend>Folders and environment</legend>
        <TextField
          field="extraDirs"
          label="Extra directories"
          multiline
          value={form.extraDirs}
          error={e("extraDirs")}
          hint="Absolute paths the agent may also read, one per line."
          onChange={(extraDirs) => set({ extraDirs })}
        />
        <EnvEditor form={form} dispatch={dispatch} errors={errors} />
      </fieldset>

      <McpServersEditor form={form} dispatch={dispatch} errors={errors} check={mcpCheck} />

      <EngineOptions form={form} dispatch={dispatch} errors={errors} engines={engines} />
    </div>
  );
}

function RulesEditor({ form, dispatch, errors }: Props) {
  return (
    <div className="rows-editor" role="group" aria-label="Approval rules">
      <h3>Approval rules</h3>
      <p className="field-hint">
        Decide matching requests without asking. Every filled-in part must match, and a deny rule wins over an allow rule.
        A command prefix applies to shell commands only, never to another tool&apos;s input.
      </p>
      <p className="field-hint rules-not-sandbox" role="note">
        Rules are not a sandbox. A deny rule stops the commands it can read, however they are written (through env, sudo, xargs
        or a shell inside the line); a command whose program cannot be read (eval, $(…), a variable) is asked instead of
        approved. A program the agent runs can still start others that no rule sees: a script, a build tool, a copy under
        another name.
      </p>
      {form.rules.map((r, i) => {
        const field = `approvalRules.${i}`;
        const err = errors[field];
        const n = i + 1;
        return (
          <div key={r.key} className={`profile-row rule-row${err ? " invalid" : ""}`}>
            <select
              aria-label={`Rule ${n} action`}
              value={r.action}
              onChange={(ev) => dispatch({ type: "ruleSet", key: r.key, patch: { action: ev.target.value as RuleAction } })}
            >
              <option value="allow">Allow</option>
              <option value="deny">Deny</option>
            </select>
            <select
              aria-label={`Rule ${n} kind`}
              {...errorProps(field, err)}
              value={r.kind}
              onChange={(ev) => dispatch({ type: "ruleSet", key: r.key, patch: { kind: ev.target.value as ApprovalKindName | "" } })}
            >
              {RULE_KINDS.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </select>
            <input
              aria-label={`Rule ${n} tool`}
              placeholder="tool (e.g. Bash)"
              value={r.tool}
              onChange={(ev) => dispatch({ type: "ruleSet", key: r.key, patch: { tool: ev.target.value } })}
            />
            <input
              aria-label={`Rule ${n} command prefix`}
              className="mono"
              placeholder="command prefix (e.g. git status)"
              value={r.commandPrefix}
              onChange={(ev) => dispatch({ type: "ruleSet", key: r.key, patch: { commandPrefix: ev.target.value } })}
            />
            <button type="button" className="icon-button" aria-label={`Remove rule ${n}`} onClick={() => dispatch({ type: "ruleRemove", key: r.key })}>
              ×
            </button>
            <FieldError field={field} error={err} />
          </div>
        );
      })}
      <button type="button" onClick={() => dispatch({ type: "ruleAdd" })}>
        Add rule
      </button>
    </div>
  );
}

function EnvEditor({ form, dispatch, errors }: Props) {
  return (
    <div className="rows-editor" role="group" aria-label="Environment variables">
      <h3>Environment variables</h3>
      <p className="field-hint">Passed to the engine and the commands it runs. A secret is never shown again once saved.</p>
      {form.env.map((r, i) => {
        const field = `env.${r.name.trim()}`;
        const err = r.name.trim() ? errors[field] : undefined;
        const label = r.name.trim() || `variable ${i + 1}`;
        return (
          <div key={r.key} className={`profile-row env-row${err ? " invalid" : ""}`}>
            <input
              aria-label={`Name of ${label}`}
              {...errorProps(field, err)}
              className="mono"
              placeholder="NAME"
              value={r.name}
              onChange={(ev) => dispatch({ type: "envSet", key: r.key, patch: { name: ev.target.value } })}
            />
            <input
              aria-label={`Value of ${label}`}
              className="mono"
              type={r.secret ? "password" : "text"}
              autoComplete="off"
              placeholder={r.stored ? "" : "value"}
              title={r.stored ? `Saved secret (shown as ${SECRET_MASK}); type a new value to replace it` : undefined}
              value={r.value}
              onChange={(ev) => dispatch({ type: "envSet", key: r.key, patch: { value: ev.target.value } })}
            />
            <label className="secret-toggle">
              <input
                type="checkbox"
                aria-label={`${label} is a secret`}
                checked={r.secret}
                onChange={(ev) => dispatch({ type: "envSet", key: r.key, patch: { secret: ev.target.checked } })}
              />
              <span aria-hidden="true">Secret</span>
            </label>
            <button type="button" className="icon-button" aria-label={`Remove ${label}`} onClick={() => dispatch({ type: "envRemove", key: r.key })}>
              ×
            </button>
            <FieldError field={field} error={err} />
          </div>
        );
      })}
      <button type="button" onClick={() => dispatch({ type: "envAdd" })}>
        Add variable
      </button>
    </div>
  );
}
