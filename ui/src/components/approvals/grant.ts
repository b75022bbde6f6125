import type { AcpToolCallDetail } from "../../generated/AcpToolCallDetail";
import type { ClaudeToolDetail } from "../../generated/ClaudeToolDetail";
import type { CodexCommandDetail } from "../../generated/CodexCommandDetail";
import type { CodexElicitationDetail } from "../../generated/CodexElicitationDetail";
import type { CodexFileChangeDetail } from "../../generated/CodexFileChangeDetail";
import type { CodexPermissionsDetail } from "../../generated/CodexPermissionsDetail";

/**
 * An approval's engine detail, checked field by field. The generated `ApprovalDetail` is
 * `unknown` at heart (a newer build's detail is kept whole), so nothing is trusted: a detail
 * whose source is unknown, or whose fields have the wrong types, is `raw` (shown as JSON).
 */
export type Detail =
  | ({ source: "claudeTool" } & ClaudeToolDetail)
  | ({ source: "codexCommand" } & CodexCommandDetail)
  | ({ source: "codexFileChange" } & CodexFileChangeDetail)
  | ({ source: "codexPermissions" } & CodexPermissionsDetail)
  | ({ source: "codexElicitation" } & CodexElicitationDetail)
  | ({ source: "acpToolCall" } & AcpToolCallDetail)
  | { source: "raw"; value: unknown };

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const optStr = (v: unknown): v is string | null | undefined => v === undefined || v === null || typeof v === "string";
const optStrArray = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.every((x) => typeof x === "string"));
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The detail as one of the known kinds, `raw` when it is not, `null` when there is none. */
export function readDetail(detail: unknown): Detail | null {
  if (detail === null || detail === undefined) return null;
  const raw: Detail = { source: "raw", value: detail };
  if (!isObj(detail)) return raw;
  const d = detail;
  switch (d.source) {
    case "claudeTool":
      if (typeof d.toolName !== "string" || !optStr(d.displayName) || !optStr(d.blockedPath) || !optStr(d.decisionReasonType)) return raw;
      return {
        source: "claudeTool",
        toolName: d.toolName,
        displayName: str(d.displayName),
        input: d.input ?? null,
        permissionSuggestions: d.permissionSuggestions ?? null,
        blockedPath: str(d.blockedPath),
        decisionReasonType: str(d.decisionReasonType),
      };
    case "codexCommand":
      if (!optStrArray(d.proposedExecpolicyAmendment)) return raw;
      if (!(d.commandActions === undefined || d.commandActions === null || Array.isArray(d.commandActions))) return raw;
      return {
        source: "codexCommand",
        proposedExecpolicyAmendment: (d.proposedExecpolicyAmendment as string[] | null | undefined) ?? null,
        commandActions: (d.commandActions as unknown[] | null | undefined) ?? null,
      };
    case "codexFileChange":
      if (!optStr(d.grantRoot)) return raw;
      return { source: "codexFileChange", grantRoot: str(d.grantRoot) };
    case "codexPermissions":
      return { source: "codexPermissions", permissions: d.permissions ?? null };
    case "codexElicitation":
      if (typeof d.serverName !== "string" || !optStr(d.mode) || !optStr(d.url)) return raw;
      return {
        source: "codexElicitation",
        serverName: d.serverName,
        mode: str(d.mode),
        url: str(d.url),
        requestedSchema: d.requestedSchema ?? null,
      };
    case "acpToolCall":
      if (typeof d.toolCallId !== "string" || !optStr(d.title) || !optStr(d.toolKind) || !optStrArray(d.offered)) return raw;
      return {
        source: "acpToolCall",
        toolCallId: d.toolCallId,
        title: str(d.title),
        toolKind: str(d.toolKind),
        rawInput: d.rawInput ?? null,
        offered: (d.offered as string[] | null | undefined) ?? [],
      };
    default:
      return raw;
  }
}

/** One field a JSON schema (an MCP elicitation's `requestedSchema`) asks for. */
export interface SchemaField {
  name: string;
  required: boolean;
  /** The field's own schema (type, title, description, enum...), whole. */
  schema: unknown;
}

/**
 * The fields of an object schema, in order, with whatever else the schema says (besides
 * `type: "object"`, `properties` and `required`) in `rest`; `null` when it is not one.
 */
export function schemaFields(schema: unknown): { fields: SchemaField[]; rest: Record<string, unknown> } | null {
  if (!isObj(schema) || !isObj(schema.properties)) return null;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const fields = Object.entries(schema.properties).map(([name, s]) => ({ name, required: required.includes(name), schema: s }));
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" || (k === "type" && v === "object")) continue;
    if (k === "required" && Array.isArray(v) && v.every((r) => typeof r === "string" && fields.some((f) => f.name === r))) continue;
    rest[k] = v;
  }
  return { fields, rest };
}
