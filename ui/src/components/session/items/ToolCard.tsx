import { useEffect, useRef, useState } from "react";
import { errorOf, type Approval, type TimelineItem } from "../../../ipc";
import { useIpc } from "../../../ipc/context";
import { formatBytes } from "../../../util/format";
import { ApprovalCard } from "../../approvals/ApprovalCard";
import { fromApproval, type CardData } from "../../approvals/decision";
import { useApproval } from "../../../state/hooks";
import type { SessionStore } from "../../../state/sessionStore";
import { DiffView } from "../DiffView";

export type ToolBody = Extract<TimelineItem["body"], { kind: "tool" }>;

const KIND_ICON: Record<ToolBody["toolKind"], string> = { command: "$", file_change: "±", mcp: "⚙", web: "⌕", agent: "◇", other: "•" };
const COLLAPSE_OVER_LINES = 14;

export function field(input: unknown, ...names: string[]): unknown {
  if (!input || typeof input !== "object") return undefined;
  for (const n of names) {
    const v = (input as Record<string, unknown>)[n];
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/** The command line and cwd of a tool call, whatever shape the engine gave its input (else
 *  as its approval asked it). */
export function commandOf(body: ToolBody, approval?: Approval): { command: string | null; cwd: string | null } {
  const raw = field(body.input, "command", "cmd");
  const asked = approval?.request;
  const command = Array.isArray(raw) ? raw.map(String).join(" ") : typeof raw === "string" ? raw : asked?.command ?? null;
  const cwd = field(body.input, "cwd", "workdir", "working_directory");
  return { command, cwd: typeof cwd === "string" ? cwd : asked?.cwd ?? null };
}

function lineCount(text: string): number {
  let n = text ? 1 : 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < text.length - 1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function StatusBadge({ item, body }: { item: TimelineItem; body: ToolBody }) {
  if (item.status === "running") return <span className="badge running">running</span>;
  if (body.exitCode !== null) {
    return <span className={`badge ${body.exitCode === 0 ? "ok" : "bad"}`}>exit {body.exitCode}</span>;
  }
  if (item.status === "completed") return <span className="badge ok">done</span>;
  // The approval card beside it says "Denied by you": one wording for one decision.
  return <span className="badge bad">{item.status === "declined" ? "denied" : item.status}</span>;
}

/** The card without the diffs the tool card above it already shows (each file's diff once). */
function withoutShown(data: CardData, shown: ToolBody["files"]): CardData {
  if (shown.length === 0) return data;
  const paths = new Set(shown.map((f) => f.path));
  return { ...data, files: data.files.filter((f) => !paths.has(f.path)) };
}

/** A tool call: the command with its cwd, exit code and output; changed files; its approval. */
export function ToolCard({ store, item, body, focused }: { store: SessionStore; item: TimelineItem; body: ToolBody; focused: boolean }) {
  // The item names its approval; the record (kept by the session store) is the approval.
  const approval = useApproval(store, body.approvalId);
  const { command, cwd } = body.toolKind === "command" ? commandOf(body, approval) : { command: null, cwd: null };
  const lines = lineCount(body.output);
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? (item.status === "running" || lines <= COLLAPSE_OVER_LINES);
  const input = body.toolKind !== "command" && body.input != null ? JSON.stringify(body.input, null, 2) : null;
  const trimmed = body.output.trimEnd();
  const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  // While a command runs, its output box follows the end (unless scrolled up in it).
  const outputRef = useRef<HTMLPreElement>(null);
  const followOutput = useRef(true);
  const running = item.status === "running";
  useEffect(() => {
    const el = outputRef.current;
    if (el && running && followOutput.current) el.scrollTop = el.scrollHeight;
  }, [body.output, running]);

  return (
    <div className={`tool-card tool-${body.toolKind} status-${item.status}`}>
      <div className="tool-head">
        <span className="tool-icon" aria-hidden="true">{KIND_ICON[body.toolKind]}</span>
        {command !== null ? (
          <code className="tool-command" title={command}>{command}</code>
        ) : (
          <span className="tool-name">{body.name}</span>
        )}
        <StatusBadge item={item} body={body} />
      </div>
      {cwd && <div className="cwd">in {cwd}</div>}
      {input && input !== "{}" && (
        <details className="tool-input">
          <summary>Input</summary>
          <pre className="output">{input}</pre>
        </details>
      )}
      {body.output && (
        <div className="tool-output">
          <button type="button" className="disclosure" aria-expanded={expanded} onClick={() => setOpen(!expanded)}>
            <span className="chevron" aria-hidden="true">{expanded ? "▾" : "▸"}</span>
            Output <span className="muted">({lines} {lines === 1 ? "line" : "lines"})</span>
            {!expanded && <span className="output-preview">{lastLine}</span>}
          </button>
          {body.outputBytes != null && <CutOutput sessionId={store.sessionId} itemId={item.id} total={body.outputBytes} />}
          {expanded && (
            <pre
              ref={outputRef}
              className="output"
              onScroll={(e) => {
                const el = e.currentTarget;
                followOutput.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
              }}
            >
              {body.output}
            </pre>
          )}
        </div>
      )}
      {body.files.map((f) => (
        <DiffView key={f.path} path={f.path} kind={f.kind} diff={f.diff} />
      ))}
      {approval && (
        <ApprovalCard data={withoutShown(fromApproval(approval), body.files)} focused={focused} onDecided={(a) => store.applyApproval(a)} />
      )}
    </div>
  );
}

/** The output shown is its head and tail: how much there is in all, and the whole of it in
 *  the system's app for text files. */
function CutOutput({ sessionId, itemId, total }: { sessionId: string; itemId: string; total: number }) {
  const ipc = useIpc();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="output-cut">
      <span className="muted small">Long output: its start and end are shown ({formatBytes(total)} in all).</span>{" "}
      <button
        type="button"
        onClick={() => {
          setError(null);
          ipc.openToolOutput(sessionId, itemId).catch((e) => setError(errorOf(e).message));
        }}
      >
        Open full output
      </button>
      {error && (
        <span className="field-error small" role="alert">
          {" "}
          {error}
        </span>
      )}
    </div>
  );
}
