import type { Approval, ApprovalFile, ApprovalState, DecidedBy } from "../../ipc";
import { formatTime } from "../../util/format";

/** Everything an approval card shows: the queue's record of the approval, the only state an
 *  approval has (a timeline item only names it by id; the session store keeps the records). */
export interface CardData {
  approvalId: string;
  kind: Approval["kind"];
  tool: string | null;
  command: string | null;
  cwd: string | null;
  /** The diffs still to show on the card (a tool card above may already show some). */
  files: ApprovalFile[];
  /** Every file the request is about, listed in "What approving allows" (never trimmed). */
  grantFiles: Pick<ApprovalFile, "path" | "kind">[];
  reason: string | null;
  /** The subagent that asks (`general-purpose: Count files`), when not the run's own agent. */
  subagent: string | null;
  /** The engine's detail (`ApprovalRequest.detail`): what else approving grants. */
  detail: unknown;
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
    subagent: a.request.subagent ?? null,
    detail: a.request.detail ?? null,
    state: a.state,
    decidedBy: a.decidedBy,
    decidedAt: a.decidedAt,
    message: a.decision?.message ?? null,
    rule: a.decision?.rule ?? null,
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
