import { useId, type ReactNode } from "react";
import type { CardData } from "./decision";
import { readDetail, schemaFields, type Detail } from "./grant";
import { JsonView } from "./JsonView";
import { VisibleText } from "./VisibleText";

/** Claude's file-writing tools: "for the session" covers their files (as the core grants). */
const WRITE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

const KIND_LABEL = { add: "added", delete: "deleted", update: "modified", move: "moved" } as const;

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grant-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A value shown as code: exact, wrapping, marks for hidden characters. */
function Code({ text }: { text: string }) {
  return (
    <code className="grant-value">
      <VisibleText text={text} />
    </code>
  );
}

const hasContent = (v: unknown) =>
  v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0) && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);

/** What each button grants, in words: what the engine is told and what Agent Desk remembers. */
export function scopeOf(data: Pick<CardData, "kind" | "tool" | "command" | "grantFiles">, detail: Detail | null): { once: string; session: string } {
  if (detail?.source === "codexPermissions") {
    return { once: "these permissions for the rest of this turn only", session: "these permissions for the whole session (every later turn too)" };
  }
  if (detail?.source === "codexElicitation") {
    return {
      once: "accept this request once (no values are filled in)",
      session: "accept this exact request from this server again in this session without asking",
    };
  }
  if (data.command !== null && data.command.trim() !== "") {
    return { once: "run this command this time only", session: "run this exact command line again in this session without asking" };
  }
  const writes = data.kind === "file_change" || (data.tool !== null && WRITE_TOOLS.includes(data.tool));
  if (writes) {
    const files =
      data.grantFiles.length === 0
        ? "no file was named, so Agent Desk remembers nothing and asks again"
        : `changes to ${data.grantFiles.length === 1 ? "this file" : `these ${data.grantFiles.length} files`} again in this session without asking`;
    // Codex is told "for the session": it may take that as the grant root it asked for.
    const root = detail?.source === "codexFileChange" && detail.grantRoot !== null;
    return { once: "this change only", session: root ? `${files}; Codex may also take it as leave to write anywhere under the folder above` : files };
  }
  if (detail?.source === "claudeTool" || detail?.source === "acpToolCall") {
    return { once: "this call only", session: "this tool with exactly this input again in this session without asking" };
  }
  return { once: "this request only", session: "this exact request again in this session without asking" };
}

function EngineRows({ detail, data }: { detail: Detail; data: CardData }) {
  switch (detail.source) {
    case "codexCommand":
      return (
        <>
          {detail.proposedExecpolicyAmendment && detail.proposedExecpolicyAmendment.length > 0 && (
            <Row label="Proposed rule">
              <p className="grant-note">
                Codex proposes a lasting exec-policy rule allowing every command that starts with these words. Agent Desk does
                not send it: neither button adds this rule.
              </p>
              <ol className="argv" aria-label="Command prefix">
                {detail.proposedExecpolicyAmendment.map((w, i) => (
                  <li key={i}>
                    <Code text={w} />
                  </li>
                ))}
              </ol>
            </Row>
          )}
          {detail.commandActions && detail.commandActions.length > 0 && (
            <Row label="Codex reads it as">
              <JsonView value={detail.commandActions} />
            </Row>
          )}
        </>
      );
    case "codexFileChange":
      return detail.grantRoot !== null ? (
        <Row label="Also allows writes under">
          <Code text={detail.grantRoot} />
          <p className="grant-note">Codex asks to write anywhere under this folder for the rest of the session, not only the files listed.</p>
        </Row>
      ) : null;
    case "codexPermissions":
      return (
        <Row label="Permissions">
          {hasContent(detail.permissions) ? <JsonView value={detail.permissions} /> : <span className="jv-empty">(none named)</span>}
        </Row>
      );
    case "codexElicitation": {
      const schema = schemaFields(detail.requestedSchema);
      return (
        <>
          <Row label="MCP server">
            <Code text={detail.serverName} />
          </Row>
          {data.reason !== null && (
            <Row label="Message">
              <span className="grant-text">
                <VisibleText text={data.reason} />
              </span>
            </Row>
          )}
          {detail.mode !== null && (
            <Row label="Mode">
              <Code text={detail.mode} />
            </Row>
          )}
          {detail.url !== null && (
            <Row label="URL">
              <Code text={detail.url} />
              <p className="grant-note">Shown as text; Agent Desk does not open it.</p>
            </Row>
          )}
          {hasContent(detail.requestedSchema) && (
            <Row label="Asks for">
              {schema ? (
                <>
                  {schema.fields.length === 0 && <span className="jv-empty">(no fields)</span>}
                  <ul className="schema-fields">
                    {schema.fields.map((f) => (
                      <li key={f.name}>
                        <code className="grant-value">
                          <VisibleText text={f.name} />
                        </code>
                        {f.required && <span className="tag">required</span>}
                        <JsonView value={f.schema} />
                      </li>
                    ))}
                  </ul>
                  {hasContent(schema.rest) && <JsonView value={schema.rest} />}
                </>
              ) : (
                <JsonView value={detail.requestedSchema} />
              )}
            </Row>
          )}
        </>
      );
    }
    case "claudeTool":
      return (
        <>
          <Row label="Tool">
            <Code text={detail.toolName} />
            {detail.displayName !== null && detail.displayName !== detail.toolName && (
              <>
                {" "}
                <span className="grant-text">
                  (<VisibleText text={detail.displayName} />)
                </span>
              </>
            )}
          </Row>
          <Row label="Input">
            <JsonView value={detail.input} />
          </Row>
          {detail.blockedPath !== null && (
            <Row label="Blocked path">
              <Code text={detail.blockedPath} />
            </Row>
          )}
          {detail.decisionReasonType !== null && (
            <Row label="Why Claude asks">
              <Code text={detail.decisionReasonType} />
            </Row>
          )}
          {hasContent(detail.permissionSuggestions) && (
            <Row label="Claude suggests">
              <p className="grant-note">Rules Claude would add. Agent Desk does not add them.</p>
              <JsonView value={detail.permissionSuggestions} />
            </Row>
          )}
        </>
      );
    case "acpToolCall":
      return (
        <>
          <Row label="Tool">
            <Code text={detail.title ?? detail.toolCallId} />
            {detail.toolKind !== null && (
              <>
                {" "}
                <span className="grant-text">
                  (<VisibleText text={detail.toolKind} />)
                </span>
              </>
            )}
          </Row>
          {hasContent(detail.rawInput) && (
            <Row label="Input">
              <JsonView value={detail.rawInput} />
            </Row>
          )}
          <Row label="The agent offers">
            <p className="grant-note">
              Approve once is answered with the agent&apos;s “once”; Agent Desk keeps “for the session” itself and never answers “always”, which
              the agent may apply more widely.
            </p>
            <Code text={detail.offered.join(", ")} />
          </Row>
        </>
      );
    case "raw":
      return (
        <Row label="Engine detail">
          <p className="grant-note">Not understood by this version of Agent Desk; shown as the engine sent it.</p>
          <JsonView value={detail.value} />
        </Row>
      );
  }
}

/**
 * Everything approving this request allows, exactly and whole: the command and where it
 * runs, the files, and every engine detail (grant root, permissions and their scope, an MCP
 * elicitation's server, URL and fields, a Claude tool's input). Agent text is plain text.
 */
export function GrantDetail({ data }: { data: CardData }) {
  const titleId = useId();
  const detail = readDetail(data.detail);
  const scope = scopeOf(data, detail);
  return (
    <div className="approval-grant" role="group" aria-labelledby={titleId}>
      <div className="grant-title" id={titleId}>
        What approving allows
      </div>
      {data.command !== null && (
        <div className="approval-command">
          <pre className="command-line">
            <span className="prompt-sign" aria-hidden="true">$ </span>
            <VisibleText text={data.command} />
          </pre>
          {data.cwd && (
            <div className="cwd">
              in <VisibleText text={data.cwd} />
            </div>
          )}
        </div>
      )}
      {data.command === null && data.cwd && (
        <div className="cwd">
          in <VisibleText text={data.cwd} />
        </div>
      )}
      <dl className="grant-list">
        {data.grantFiles.length > 0 && (
          <Row label={data.grantFiles.length === 1 ? "File" : "Files"}>
            <ul className="grant-files">
              {data.grantFiles.map((f, i) => (
                <li key={i}>
                  <span className={`change-kind change-${f.kind}`}>{KIND_LABEL[f.kind] ?? f.kind}</span> <Code text={f.path} />
                </li>
              ))}
            </ul>
          </Row>
        )}
        {data.grantFiles.length === 0 && data.kind === "file_change" && (
          <Row label="Files">
            <span className="jv-empty">(none named: the engine sent no paths)</span>
          </Row>
        )}
        {detail && <EngineRows detail={detail} data={data} />}
        {data.state === "pending" && (
          <>
            <Row label="Once">{scope.once}</Row>
            <Row label="For the session">{scope.session}</Row>
          </>
        )}
      </dl>
    </div>
  );
}
