import { memo } from "react";
import { useItem } from "../../state/hooks";
import { isRunKey, runIdOf, splitChunkKey, type RowKey, type SessionStore } from "../../state/sessionStore";
import { useApproval } from "../../state/hooks";
import { ApprovalCard } from "../approvals/ApprovalCard";
import { fromItem } from "../approvals/decision";
import { QuestionCard } from "../approvals/QuestionCard";
import { DiffView } from "./DiffView";
import { AgentMessage, Notice, Reasoning, UserMessage } from "./items/Messages";
import { ToolCard } from "./items/ToolCard";
import { RunLine } from "./RunLine";

interface Props {
  store: SessionStore;
  rowKey: RowKey;
  focused: boolean;
}

/** How many times item rows rendered, for tests. */
export const rowStats = { renders: 0 };

/** One timeline row; it re-renders only when its own item (or run) changes. */
export const Row = memo(function Row({ store, rowKey, focused }: Props) {
  return (
    <div className={`row${focused ? " row-focused" : ""}`}>
      {isRunKey(rowKey) ? <RunLine store={store} runId={runIdOf(rowKey)} /> : <ItemRow store={store} rowKey={rowKey} focused={focused} />}
    </div>
  );
});

function ItemRow({ store, rowKey, focused }: { store: SessionStore; rowKey: RowKey; focused: boolean }) {
  const { itemId, chunk } = splitChunkKey(rowKey);
  const item = useItem(store, itemId);
  rowStats.renders++;
  const approvalId =
    item?.body.kind === "approval" ? item.body.approval.approvalId : item?.body.kind === "question" ? item.body.approvalId : null;
  const durable = useApproval(store, approvalId);
  if (!item) return <div className="row-missing" />;
  const body = item.body;
  switch (body.kind) {
    case "user_message":
      return <UserMessage body={body} />;
    case "agent_message":
      return <AgentMessage store={store} item={item} chunk={chunk} />;
    case "reasoning":
      return <Reasoning item={item} body={body} />;
    case "tool":
      return <ToolCard store={store} item={item} body={body} focused={focused} />;
    case "file_change":
      return <DiffView path={body.path} kind={body.changeKind} diff={body.diff} />;
    case "approval":
      return <ApprovalCard data={fromItem(body.approval, durable)} focused={focused} onDecided={(a) => store.applyApproval(a)} />;
    case "question": {
      const decided = durable && durable.state !== "pending" ? durable : null;
      return (
        <QuestionCard
          approvalId={body.approvalId}
          questions={body.questions}
          answers={body.answers ?? decided?.decision?.answers ?? null}
          state={decided?.state ?? body.state}
          decidedBy={decided?.decidedBy ?? null}
          decidedAt={decided?.decidedAt ?? null}
          focused={focused}
          onAnswered={(a) => store.applyApproval(a)}
        />
      );
    }
    case "notice":
      return <Notice body={body} />;
    default:
      return <div className="row-missing" />;
  }
}
