import type { Approval, Session, Workspace } from "../../ipc";
import { formatTime } from "../../util/format";
import { ApprovalCard } from "./ApprovalCard";
import { fromApproval } from "./decision";
import { QuestionCard } from "./QuestionCard";

interface Props {
  pending: Approval[];
  sessionOf: (id: string) => { session: Session; workspace: Workspace | undefined } | undefined;
  onOpen: (a: Approval) => void;
  onDecided: () => void;
}

/** Every request waiting for the user, across sessions, oldest first; each opens in place. */
export function ApprovalsView({ pending, sessionOf, onOpen, onDecided }: Props) {
  const list = [...pending].sort((a, b) => a.createdAt - b.createdAt);
  return (
    <section className="approvals-view" aria-labelledby="approvals-title">
      <header className="session-header">
        <h1 id="approvals-title">Approvals</h1>
        <span className="muted">{list.length === 0 ? "Nothing is waiting for you." : `${list.length} waiting`}</span>
      </header>
      <ul className="approval-queue">
        {list.map((a) => {
          const where = sessionOf(a.sessionId);
          return (
            <li key={a.id} className="queue-entry">
              <div className="queue-meta">
                <span className="queue-session">{where?.session.title || "Untitled session"}</span>
                {where?.workspace && <span className="muted">{where.workspace.name}</span>}
                <span className="muted">{formatTime(a.createdAt)}</span>
                <button type="button" className="link-button" onClick={() => onOpen(a)}>
                  Open in session
                </button>
              </div>
              {a.kind === "question" ? (
                <QuestionCard
                  approvalId={a.id}
                  questions={a.request.questions}
                  answers={null}
                  state={a.state}
                  decidedBy={a.decidedBy}
                  decidedAt={a.decidedAt}
                  onAnswered={onDecided}
                />
              ) : (
                <ApprovalCard data={fromApproval(a)} onDecided={onDecided} />
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
