import { useContext, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { errorOf, type Approval, type UserDecision } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { DiffView } from "../session/DiffView";
import { EngineCapabilitiesContext } from "./capabilities";
import { outcomeText, type CardData } from "./decision";
import { readDetail } from "./grant";
import { GrantDetail } from "./GrantDetail";
import { VisibleText } from "./VisibleText";

const KIND_TITLE: Record<CardData["kind"], string> = {
  command: "Run this command?",
  file_change: "Apply these changes?",
  permission: "Grant this permission?",
  tool: "Use this tool?",
  question: "Answer this question?",
};

/** What a card's button decides: the decision, and whether a deny also ends the run. */
interface Choice {
  decision: UserDecision;
  stop: boolean;
}

const APPROVE_ONCE: Choice = { decision: "approve_once", stop: false };
const APPROVE_SESSION: Choice = { decision: "approve_for_session", stop: false };
const DENY: Choice = { decision: "deny", stop: false };
const DENY_AND_STOP: Choice = { decision: "deny", stop: true };
const SHORTCUTS: Record<string, Choice> = { a: APPROVE_ONCE, s: APPROVE_SESSION, d: DENY };

interface Props {
  data: CardData;
  /** The card the user came to (from the Approvals view): focus it. */
  focused?: boolean;
  onDecided?: (approval: Approval) => void;
}

/** An approval request, inline where it happened: what exactly, where, why, and the decision. */
export function ApprovalCard({ data, focused = false, onDecided }: Props) {
  const ipc = useIpc();
  // The session's engine, when known (the cross-session Approvals view offers everything).
  const caps = useContext(EngineCapabilitiesContext);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  const pending = data.state === "pending";
  const ready = pending && !busy;
  const canApprove = ready;
  // An MCP elicitation's message is its reason: shown with the server, URL and fields.
  const reasonInGrant = readDetail(data.detail)?.source === "codexElicitation";

  useEffect(() => {
    if (focused) ref.current?.focus();
  }, [focused]);

  const decide = async ({ decision, stop }: Choice) => {
    if (!ready) return;
    if (decision !== "deny" && !canApprove) return;
    setBusy(true);
    setError(null);
    try {
      const deny = decision === "deny";
      const approval = await ipc.decideApproval(data.approvalId, decision, stop, deny && message.trim() ? message.trim() : null);
      onDecided?.(approval);
    } catch (e) {
      setError(errorOf(e).message);
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "TEXTAREA") return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const decision = SHORTCUTS[e.key.toLowerCase()];
    if (decision && ready) {
      e.preventDefault();
      void decide(decision);
    }
  };

  return (
    <div
      ref={ref}
      role="group"
      aria-label="Approval"
      tabIndex={0}
      className={`approval-card state-${data.state}${focused ? " focused" : ""}`}
      onKeyDown={onKeyDown}
      data-testid="approval-card"
    >
      <div className="approval-head">
        <span className="approval-title">{pending ? KIND_TITLE[data.kind] : outcomeText(data)}</span>
        {data.tool && (
          <span className="tag">
            <VisibleText text={data.tool} />
          </span>
        )}
      </div>
      {data.subagent && (
        <p className="approval-subagent">
          Asked by the subagent <VisibleText text={data.subagent} />
        </p>
      )}
      {data.reason && !reasonInGrant && (
        <p className="approval-reason">
          <VisibleText text={data.reason} />
        </p>
      )}
      <GrantDetail data={data} />
      {data.files.map((f) => (
        <DiffView key={f.path} path={f.path} kind={f.kind} diff={f.diff} />
      ))}
      {!pending && data.message && (
        <p className="approval-message">
          Message: <VisibleText text={data.message} />
        </p>
      )}
      {!pending && data.rule && (
        <p className="approval-message">
          Rule: <VisibleText text={data.rule} />
        </p>
      )}
      {pending && (
        <div className="approval-actions">
          <button type="button" className="approve" disabled={!canApprove} title="Approve once (A)" onClick={() => decide(APPROVE_ONCE)}>
            Approve once
          </button>
          <button type="button" disabled={!canApprove} title="Approve for session (S)" onClick={() => decide(APPROVE_SESSION)}>
            Approve for session
          </button>
          <span className="deny-group">
            <input
              type="text"
              className="deny-message"
              aria-label="Reason for denying (optional)"
              placeholder="Why not? (optional)"
              value={message}
              disabled={!ready}
              onChange={(e) => setMessage(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  void decide(DENY);
                }
              }}
            />
            <button type="button" className="deny" disabled={!ready} title="Deny (D)" onClick={() => decide(DENY)}>
              Deny
            </button>
            {caps?.denyAndStop !== false && (
              <button type="button" className="deny subtle" disabled={!ready} title="Deny and end the run" onClick={() => decide(DENY_AND_STOP)}>
                Stop the run
              </button>
            )}
          </span>
          {caps?.denyMessage === false && <span className="muted small">This engine is not told the reason; it is kept with the decision.</span>}
        </div>
      )}
      {error && (
        <p className="card-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
