// The profile editor's form state: a profile as the inputs hold it (strings, rows), and back
// to the `ProfileSpec` the core validates. No validation here: the core's field errors are
// shown next to the inputs (`fieldKey` says which input an error belongs to).
import type { AcpPreset } from "../../generated/AcpPreset";
import type { ApprovalKindName } from "../../generated/ApprovalKindName";
import type { Engine } from "../../generated/Engine";
import type { McpServer } from "../../generated/McpServer";
import type { PermissionMode } from "../../generated/PermissionMode";
import type { Profile } from "../../generated/Profile";
import type { ProfileFieldError } from "../../generated/ProfileFieldError";
import type { ProfileSpec } from "../../generated/ProfileSpec";
import type { RuleAction } from "../../generated/RuleAction";

/** What a secret value reads as wherever the core shows a profile (`SECRET_MASK`). */
export const SECRET_MASK = "••••";

export interface EnvRow {
  /** Stable React key (rows are renamed in place). */
  key: number;
  name: string;
  value: string;
  secret: boolean;
  /** A secret the core holds: `value` is the mask until the user types a new one. */
  stored: boolean;
}

export interface PairRow {
  key: number;
  name: string;
  value: string;
}

export interface RuleRow {
  key: number;
  kind: ApprovalKindName | "";
  tool: string;
  commandPrefix: string;
  action: RuleAction;
}

export type McpTransport = "stdio" | "http";

/**
 * An MCP server as its row holds it. Both transports' inputs are kept, so switching back and
 * forth loses nothing typed; only the chosen one's are sent.
 */
export interface McpRow {
  key: number;
  name: string;
  enabled: boolean;
  transport: McpTransport;
  command: string;
  /** One per line. */
  args: string;
  /** Variable names, separated by commas or spaces. */
  envVars: string;
  url: string;
  bearerTokenEnv: string;
}

export type SettingSource = "user" | "project" | "local";
export const SETTING_SOURCES: SettingSource[] = ["user", "project", "local"];

export interface ProfileForm {
  name: string;
  engine: Engine;
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  permissionMode: PermissionMode;
  /** One per line. */
  allowedTools: string;
  deniedTools: string;
  systemPrompt: string;
  extraDirs: string;
  env: EnvRow[];
  rules: RuleRow[];
  approvalTimeoutSecs: string;
  mcpServers: McpRow[];
  // engineOptions the adapters read (both engines).
  inactivityTimeoutSecs: string;
  /** `""`: the model's default. */
  reasoningEffort: string;
  // Codex.
  codexHome: string;
  planMode: boolean;
  trustProjectConfig: boolean;
  requestMaxRetries: string;
  streamMaxRetries: string;
  configOverrides: PairRow[];
  // Claude Code.
  maxTurns: string;
  /** `null`: not set (the user's own settings only). */
  settingSources: SettingSource[] | null;
  // ACP agents.
  /** `""`: a custom agent (its command below). */
  acpPreset: AcpPreset | "";
  acpCommand: string;
  /** One per line. */
  acpArgs: string;
  /** engineOptions keys the form has no input for, sent back unchanged. */
  otherOptions: Record<string, unknown>;
}

/** The engineOptions keys the form edits; every other key goes to `otherOptions`. */
const FORM_OPTIONS = new Set([
  "inactivityTimeoutSecs",
  "reasoningEffort",
  "codexHome",
  "planMode",
  "trustProjectConfig",
  "requestMaxRetries",
  "streamMaxRetries",
  "configOverrides",
  "maxTurns",
  "settingSources",
  "preset",
  "command",
  "args",
]);

let nextKey = 1;
export const newKey = () => nextKey++;

const str = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));
const num = (v: unknown) => (typeof v === "number" ? String(v) : v === undefined || v === null ? "" : str(v));
const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");

export function emptyForm(engine: Engine = "codex"): ProfileForm {
  return formFromProfile({
    name: "",
    engine,
    model: null,
    baseUrl: null,
    apiKeyEnv: null,
    permissionMode: "ask",
    allowedTools: [],
    deniedTools: [],
    systemPrompt: null,
    extraDirs: [],
    env: {},
    secretEnv: [],
    approvalRules: [],
    approvalTimeoutSecs: null,
    engineOptions: {},
    mcpServers: [],
  });
}

export function mcpRowFromServer(m: McpServer): McpRow {
  return {
    key: newKey(),
    name: m.name,
    enabled: m.enabled,
    // A URL without a program is an HTTP server; anything else (even nothing yet) a program.
    transport: m.url !== null && m.command === null ? "http" : "stdio",
    command: m.command ?? "",
    args: m.args.join("\n"),
    envVars: m.envVars.join(", "),
    url: m.url ?? "",
    bearerTokenEnv: m.bearerTokenEnv ?? "",
  };
}

/**
 * Every row is sent, even an empty one: the core's errors name servers by their index
 * (`mcpServers.1.url`), which must stay the row's.
 */
export function mcpServersFromRows(rows: McpRow[]): McpServer[] {
  return rows.map((r) => {
    const stdio = r.transport === "stdio";
    return {
      name: r.name.trim(),
      enabled: r.enabled,
      command: stdio ? r.command.trim() || null : null,
      args: stdio ? lines(r.args) : [],
      envVars: stdio ? r.envVars.split(/[\s,]+/).filter((v) => v !== "") : [],
      url: stdio ? null : r.url.trim() || null,
      bearerTokenEnv: stdio ? null : r.bearerTokenEnv.trim() || null,
    };
  });
}

/** The rows say the same as `stored` (what the saved profile's servers are). */
export function sameMcpServers(stored: McpServer[], rows: McpRow[]): boolean {
  // Both sides through the same conversion, so a stored list the form writes differently
  // (another separator between variables) is not a change.
  const norm = (list: McpServer[]) => JSON.stringify(list);
  return norm(mcpServersFromRows(stored.map(mcpRowFromServer))) === norm(mcpServersFromRows(rows));
}

export function formFromProfile(p: ProfileSpec | Profile): ProfileForm {
  const o = (p.engineOptions ?? {}) as Record<string, unknown>;
  const otherOptions: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!FORM_OPTIONS.has(k)) otherOptions[k] = v;
  const overrides = o.configOverrides && typeof o.configOverrides === "object" ? (o.configOverrides as Record<string, unknown>) : {};
  const sources = Array.isArray(o.settingSources)
    ? (o.settingSources.filter((s) => typeof s === "string") as SettingSource[])
    : null;
  const secrets = new Set(p.secretEnv ?? []);
  return {
    name: p.name,
    engine: p.engine,
    model: p.model ?? "",
    baseUrl: p.baseUrl ?? "",
    apiKeyEnv: p.apiKeyEnv ?? "",
    permissionMode: p.permissionMode,
    allowedTools: p.allowedTools.join("\n"),
    deniedTools: p.deniedTools.join("\n"),
    systemPrompt: p.systemPrompt ?? "",
    extraDirs: p.extraDirs.join("\n"),
    env: Object.entries(p.env).map(([name, value]) => ({
      key: newKey(),
      name,
      value,
      secret: secrets.has(name),
      stored: secrets.has(name),
    })),
    rules: p.approvalRules.map((r) => ({
      key: newKey(),
      kind: r.kind ?? "",
      tool: r.tool ?? "",
      commandPrefix: r.commandPrefix ?? "",
      action: r.action,
    })),
    approvalTimeoutSecs: p.approvalTimeoutSecs === null ? "" : String(p.approvalTimeoutSecs),
    // Profiles stored before MCP servers existed may come without the list.
    mcpServers: (p.mcpServers ?? []).map(mcpRowFromServer),
    inactivityTimeoutSecs: num(o.inactivityTimeoutSecs),
    reasoningEffort: str(o.reasoningEffort),
    codexHome: str(o.codexHome),
    planMode: o.planMode === true,
    trustProjectConfig: o.trustProjectConfig === true,
    requestMaxRetries: num(o.requestMaxRetries),
    streamMaxRetries: num(o.streamMaxRetries),
    configOverrides: Object.entries(overrides).map(([name, value]) => ({ key: newKey(), name, value: str(value) })),
    maxTurns: num(o.maxTurns),
    settingSources: sources,
    acpPreset: o.preset === "opencode" || o.preset === "gemini" ? o.preset : "",
    acpCommand: str(o.command),
    acpArgs: Array.isArray(o.args) ? o.args.map(str).join("\n") : "",
    otherOptions,
  };
}

/** A number input's text as JSON: empty is "not set"; anything else goes to the core as typed. */
function numberOrText(s: string): number | string | undefined {
  const t = s.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/**
 * A u32 on the Rust side, where anything else would fail to deserialise with no field named:
 * what does not fit goes as 0, which the core rejects with its own message next to the field.
 */
function asU32(v: number | string): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : 0;
}

export function specFromForm(f: ProfileForm): ProfileSpec {
  const opts: Record<string, unknown> = { ...f.otherOptions };
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== "" && v !== false) opts[k] = v;
  };
  set("inactivityTimeoutSecs", numberOrText(f.inactivityTimeoutSecs));
  set("reasoningEffort", f.reasoningEffort.trim());
  set("codexHome", f.codexHome.trim());
  set("planMode", f.planMode);
  set("trustProjectConfig", f.trustProjectConfig);
  set("requestMaxRetries", numberOrText(f.requestMaxRetries));
  set("streamMaxRetries", numberOrText(f.streamMaxRetries));
  const overrides = f.configOverrides.filter((r) => r.name.trim() !== "" || r.value.trim() !== "");
  if (overrides.length) opts.configOverrides = Object.fromEntries(overrides.map((r) => [r.name.trim(), r.value.trim()]));
  set("maxTurns", numberOrText(f.maxTurns));
  if (f.settingSources) opts.settingSources = f.settingSources;
  set("preset", f.acpPreset);
  set("command", f.acpCommand.trim());
  const args = lines(f.acpArgs);
  if (args.length) opts.args = args;

  const envRows = f.env.filter((r) => r.name.trim() !== "" || r.value !== "");
  const timeout = numberOrText(f.approvalTimeoutSecs);
  return {
    name: f.name,
    engine: f.engine,
    model: f.model.trim() || null,
    baseUrl: f.baseUrl.trim() || null,
    apiKeyEnv: f.apiKeyEnv.trim() || null,
    permissionMode: f.permissionMode,
    allowedTools: lines(f.allowedTools),
    deniedTools: lines(f.deniedTools),
    systemPrompt: f.systemPrompt.trim() ? f.systemPrompt : null,
    extraDirs: lines(f.extraDirs),
    env: Object.fromEntries(envRows.map((r) => [r.name.trim(), r.value])),
    secretEnv: envRows.filter((r) => r.secret).map((r) => r.name.trim()),
    approvalRules: f.rules.map((r) => ({
      kind: r.kind === "" ? null : r.kind,
      tool: r.tool.trim() || null,
      commandPrefix: r.commandPrefix.trim() || null,
      action: r.action,
    })),
    approvalTimeoutSecs: timeout === undefined ? null : asU32(timeout),
    engineOptions: opts,
    mcpServers: mcpServersFromRows(f.mcpServers),
  };
}

export type FormAction =
  | { type: "reset"; form: ProfileForm }
  | { type: "set"; patch: Partial<ProfileForm> }
  | { type: "envAdd" }
  | { type: "envSet"; key: number; patch: Partial<Omit<EnvRow, "key" | "stored">> }
  | { type: "envRemove"; key: number }
  | { type: "ruleAdd" }
  | { type: "ruleSet"; key: number; patch: Partial<Omit<RuleRow, "key">> }
  | { type: "ruleRemove"; key: number }
  | { type: "overrideAdd" }
  | { type: "overrideSet"; key: number; patch: Partial<Omit<PairRow, "key">> }
  | { type: "overrideRemove"; key: number }
  | { type: "toggleSource"; source: SettingSource }
  | { type: "mcpAdd" }
  | { type: "mcpSet"; key: number; patch: Partial<Omit<McpRow, "key">> }
  | { type: "mcpRemove"; key: number };

function editEnv(row: EnvRow, patch: Partial<Omit<EnvRow, "key" | "stored">>): EnvRow {
  const next = { ...row, ...patch };
  // A stored secret's value is the mask: un-marking it must not turn the mask into a plain
  // value, and a typed value replaces the stored one.
  if (row.stored && patch.secret === false) return { ...next, value: "", stored: false };
  if (row.stored && patch.value !== undefined) return { ...next, stored: false };
  return next;
}

export function formReducer(f: ProfileForm, a: FormAction): ProfileForm {
  switch (a.type) {
    case "reset":
      return a.form;
    case "set":
      return { ...f, ...a.patch };
    case "envAdd":
      return { ...f, env: [...f.env, { key: newKey(), name: "", value: "", secret: false, stored: false }] };
    case "envSet":
      return { ...f, env: f.env.map((r) => (r.key === a.key ? editEnv(r, a.patch) : r)) };
    case "envRemove":
      return { ...f, env: f.env.filter((r) => r.key !== a.key) };
    case "ruleAdd":
      // A new rule is about shell commands: a command prefix means nothing to another kind,
      // and a rule of any kind would also decide tools and file changes.
      return { ...f, rules: [...f.rules, { key: newKey(), kind: "command", tool: "", commandPrefix: "", action: "allow" }] };
    case "ruleSet":
      return { ...f, rules: f.rules.map((r) => (r.key === a.key ? { ...r, ...a.patch } : r)) };
    case "ruleRemove":
      return { ...f, rules: f.rules.filter((r) => r.key !== a.key) };
    case "overrideAdd":
      return { ...f, configOverrides: [...f.configOverrides, { key: newKey(), name: "", value: "" }] };
    case "overrideSet":
      return { ...f, configOverrides: f.configOverrides.map((r) => (r.key === a.key ? { ...r, ...a.patch } : r)) };
    case "overrideRemove":
      return { ...f, configOverrides: f.configOverrides.filter((r) => r.key !== a.key) };
    case "toggleSource": {
      const current = f.settingSources ?? ["user"];
      const next = current.includes(a.source) ? current.filter((s) => s !== a.source) : [...current, a.source];
      return { ...f, settingSources: SETTING_SOURCES.filter((s) => next.includes(s)) };
    }
    case "mcpAdd":
      return {
        ...f,
        mcpServers: [
          ...f.mcpServers,
          { key: newKey(), name: "", enabled: true, transport: "stdio", command: "", args: "", envVars: "", url: "", bearerTokenEnv: "" },
        ],
      };
    case "mcpSet":
      return { ...f, mcpServers: f.mcpServers.map((r) => (r.key === a.key ? { ...r, ...a.patch } : r)) };
    case "mcpRemove":
      return { ...f, mcpServers: f.mcpServers.filter((r) => r.key !== a.key) };
  }
}

/**
 * The input a core field error belongs to: list fields edited as one text box take their
 * entries' errors (`extraDirs.1` → `extraDirs`), rows keep theirs (`env.TOKEN`,
 * `approvalRules.0`, `engineOptions.configOverrides.KEY`, `mcpServers.0.url`). An MCP
 * server's index may also come bracketed (`mcpServers[0].url`): filed the same way.
 */
export function fieldKey(field: string): string {
  if (field.startsWith("mcpServers[")) field = field.replace(/\[(\d+)\]/, ".$1");
  const [head, second] = field.split(".");
  if (head === "extraDirs" || head === "allowedTools" || head === "deniedTools") return head;
  if (head === "engineOptions" && second && second !== "configOverrides") return `engineOptions.${second}`;
  return field;
}

/** Field errors by input (several mistakes of one input are joined). */
export function errorsByField(fields: ProfileFieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fields) {
    const k = fieldKey(e.field);
    out[k] = out[k] ? `${out[k]}; ${e.message}` : e.message;
  }
  return out;
}
