import type { Approval, ApprovalFile, ApprovalState, DecidedBy, ItemApproval } from "../../ipc";
import { formatTime } from "../../util/format";

/** Everything an approval card shows, from the item (where it happened) and the queue record. */
export interface CardData {
  approvalId: string | null;
  kind: ItemApproval["kind"];
  tool: string | null;
  command: string | null;
  cwd: string | null;
  /** The diffs still to show on the card (a tool card above may already show some). */
  files: ApprovalFile[];
  /** Every file the request is about, listed in "What approving allows" (never trimmed). */
  grantFiles: Pick<ApprovalFile, "path" | "kind">[];
  reason: string | null;
  /** The engine's detail (`ApprovalRequest.detail`): what else approving grants. */
  detail: unknown;
  /** Whether `detail` is the queue record's: a card drawn only from its timeline item has
   *  no detail yet, and cannot be approved until it has (it can be denied). */
  detailKnown: boolean;
  state: ApprovalState;
  decidedBy: DecidedBy | null;
  decidedAt: number | null;
  message: string | null;
  rule: string | null;
}

export function fromApproval(a: Approval): CardData {
  return {
    approvalId: a.id,
    kind: a.kind,
    tool: a.request.tool,
    command: a.request.command,
    cwd: a.request.cwd,
    files: a.request.files,
    grantFiles: a.request.files.map(({ path, kind }) => ({ path, kind })),
    reason: a.request.reason,
    detail: a.request.detail ?? null,
    detailKnown: true,
    state: a.state,
    decidedBy: a.decidedBy,
    decidedAt: a.decidedAt,
    message: a.decision?.message ?? null,
    rule: a.decision?.rule ?? null,
  };
}

/** The item's view of the approval, updated by the queue record when there is one. */
export function fromItem(item: ItemApproval, durable: Approval | undefined): CardData {
  const base: CardData = {
    approvalId: item.approvalId,
    kind: item.kind,
    tool: null,
    command: item.command,
    cwd: item.cwd,
    files: item.files,
    grantFiles: item.files.map(({ path, kind }) => ({ path, kind })),
    reason: item.reason,
    detail: null,
    detailKnown: false,
    state: item.state,
    decidedBy: item.decidedBy,
    decidedAt: null,
    message: null,
    rule: null,
  };
  if (!durable) return base;
  const d = fromApproval(durable);
  // Whichever says it is decided wins (the item may lag behind the queue, or the other way).
  const decided = d.state !== "pending" ? d : base;
  return {
    ...base,
    tool: d.tool,
    // The queue record is what a decision grants: its detail, and its files when it has any.
    grantFiles: d.grantFiles.length > 0 ? d.grantFiles : base.grantFiles,
    detail: d.detail,
    detailKnown: true,
    state: decided.state,
    decidedBy: decided.decidedBy ?? d.decidedBy,
    decidedAt: d.decidedAt,
    message: d.message,
    rule: d.rule,
  };
}

const BY: Record<DecidedBy, string> = {
  user: "by you",
  notification: "by you, from a notification",
  rule: "by a profile rule",
  deadline: "by the deadline",
};

/** "Approved once by you at 10:42:07", "Expired — the engine stopped waiting", ... */
export function outcomeText(d: Pick<CardData, "state" | "decidedBy" | "decidedAt">): string {
  const by = d.decidedBy ? ` ${BY[d.decidedBy]}` : "";
  const at = d.decidedAt ? ` at ${formatTime(d.decidedAt)}` : "";
  switch (d.state) {
    case "pending":
      return "Waiting for you";
    case "approved_once":
      return `Approved once${by}${at}`;
    case "approved_session":
      return `Approved for this session${by}${at}`;
    case "denied":
      return `Denied${by}${at}`;
    case "answered":
      return `Answered${by}${at}`;
    case "expired":
      return `Expired — the engine stopped waiting${at}`;
    case "cancelled":
      return `Cancelled — the run ended first${at}`;
    case "timed_out":
      return `Timed out — no answer in time, denied safely${at}`;
    default:
      return String(d.state);
  }
}
