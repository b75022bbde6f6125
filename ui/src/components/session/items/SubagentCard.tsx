import { useId, useState } from "react";
import type { TimelineItem } from "../../../ipc";
import { useApproval, useChildren, useItem } from "../../../state/hooks";
import type { SessionStore } from "../../../state/sessionStore";
import { ApprovalCard } from "../../approvals/ApprovalCard";
import { fromApproval } from "../../approvals/decision";
import { Markdown } from "../../markdown/Markdown";
import { field, StatusBadge, type ToolBody } from "./ToolCard";

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v : null);

/**
 * A subagent the agent started (Claude Code's `Agent` call): its type and task, the prompt it
 * was given, its own messages and tool calls nested inside (collapsible; open while it works),
 * and its result. A request of the subagent shows in its own tool call in the list, naming it.
 */
export function SubagentCard({
  store,
  item,
  body,
  focused,
  renderItem,
}: {
  store: SessionStore;
  item: TimelineItem;
  body: ToolBody;
  focused: boolean;
  /** How a nested item is drawn (the timeline's own item renderer). */
  renderItem: (id: string) => React.ReactNode;
}) {
  const children = useChildren(store, item.id);
  const approval = useApproval(store, body.approvalId);
  const type = text(field(body.input, "subagent_type", "agent_type"));
  const task = text(field(body.input, "description"));
  const prompt = text(field(body.input, "prompt"));
  const running = item.status === "running";
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? running;
  const listId = useId();
  const count = children.length;
  return (
    <div className={`tool-card tool-agent status-${item.status}`} role="group" aria-label={`Subagent: ${task ?? type ?? body.name}`}>
      <div className="tool-head">
        <span className="tool-icon" aria-hidden="true">
          ◇
        </span>
        <span className="tool-name">Subagent</span>
        {type && <span className="tag">{type}</span>}
        {task && (
          <span className="subagent-task" title={task}>
            {task}
          </span>
        )}
        <StatusBadge item={item} body={body} />
      </div>
      {prompt && (
        <details className="tool-input">
          <summary>Prompt</summary>
          <pre className="output">{prompt}</pre>
        </details>
      )}
      {count > 0 && (
        <div className="subagent-activity">
          <button type="button" className="disclosure" aria-expanded={expanded} aria-controls={listId} onClick={() => setOpen(!expanded)}>
            <span className="chevron" aria-hidden="true">
              {expanded ? "▾" : "▸"}
            </span>
            Subagent activity{" "}
            <span className="muted">
              ({count} {count === 1 ? "item" : "items"})
            </span>
          </button>
          {expanded && (
            <ol id={listId} className="subagent-items" aria-label="Subagent activity">
              {children.map((id) => (
                <li key={id}>{renderItem(id)}</li>
              ))}
            </ol>
          )}
        </div>
      )}
      {body.output && (
        <div className="subagent-result">
          <div className="subagent-result-label">Result</div>
          <Markdown text={body.output} streaming={false} />
        </div>
      )}
      {approval && <ApprovalCard data={fromApproval(approval)} focused={focused} onDecided={(a) => store.applyApproval(a)} />}
    </div>
  );
}

/** A subagent's message, whole (nested items are not split into rows). */
export function NestedMessage({ store, itemId }: { store: SessionStore; itemId: string }) {
  const item = useItem(store, itemId);
  if (!item || item.body.kind !== "agent_message") return null;
  return (
    <div className="msg agent-msg nested-msg">
      <Markdown text={item.body.text} streaming={item.status === "running"} />
    </div>
  );
}
