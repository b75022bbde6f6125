import { memo } from "react";
import { useItem } from "../../state/hooks";
import { isRunKey, runIdOf, splitChunkKey, type RowKey, type SessionStore } from "../../state/sessionStore";
import { useApproval } from "../../state/hooks";
import { ApprovalCard } from "../approvals/ApprovalCard";
import { fromApproval } from "../approvals/decision";
import { QuestionCard } from "../approvals/QuestionCard";
import { DiffView } from "./DiffView";
import { AgentMessage, Notice, Reasoning, UserMessage } from "./items/Messages";
import { PlanCard } from "./items/PlanCard";
import { NestedMessage, SubagentCard } from "./items/SubagentCard";
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
  // An approval or question row names the queue's record; the record is what it shows.
  const approvalId = item?.body.kind === "approval" || item?.body.kind === "question" ? item.body.approvalId : null;
  const approval = useApproval(store, approvalId);
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
      if (body.toolKind === "agent") {
        return <SubagentCard store={store} item={item} body={body} focused={focused} renderItem={(id) => <NestedItem store={store} itemId={id} />} />;
      }
      return <ToolCard store={store} item={item} body={body} focused={focused} />;
    case "file_change":
      return <DiffView path={body.path} kind={body.changeKind} diff={body.diff} />;
    case "approval":
      if (!approval) return <UnrecordedRequest recorded={body.approvalId !== null} />;
      return <ApprovalCard data={fromApproval(approval)} focused={focused} onDecided={(a) => store.applyApproval(a)} />;
    case "question":
      if (!approval) return <UnrecordedRequest recorded={body.approvalId !== null} />;
      return (
        <QuestionCard
          approvalId={approval.id}
          questions={approval.request.questions}
          answers={approval.decision?.answers ?? null}
          state={approval.state}
          decidedBy={approval.decidedBy}
          decidedAt={approval.decidedAt}
          focused={focused}
          onAnswered={(a) => store.applyApproval(a)}
        />
      );
    case "notice":
      return <Notice body={body} />;
    case "plan":
      return <PlanCard plan={body} />;
    default:
      return <div className="row-missing" />;
  }
}

/** An item nested in a subagent's card: as in the timeline, a message whole. */
function NestedItem({ store, itemId }: { store: SessionStore; itemId: string }) {
  const item = useItem(store, itemId);
  if (item?.body.kind === "agent_message") return <NestedMessage store={store} itemId={itemId} />;
  return <ItemRow store={store} rowKey={itemId} focused={false} />;
}

/** A request row whose record the view does not have: one the queue could not record (it
 *  was denied then), or one whose record is still on its way. */
function UnrecordedRequest({ recorded }: { recorded: boolean }) {
  return (
    <p className="muted small">{recorded ? "Registering the request…" : "A request Agent Desk could not record (denied)."}</p>
  );
}
