import { useEffect, useRef, useState, type FormEvent } from "react";
import { errorOf, type Approval, type ApprovalState, type DecidedBy, type Question } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { outcomeText } from "./decision";

/** A question allows several answers when its header, text or options say so. */
export function isMultiSelect(q: Question): boolean {
  const text = [q.header ?? "", q.question, ...q.options.map((o) => o.description ?? "")].join(" ");
  return /multi[- ]?select|select (all|any|one or more)|choose (all|any|one or more)|all that apply/i.test(text);
}

interface Props {
  approvalId: string;
  questions: Question[];
  answers: Record<string, string[]> | null;
  state: ApprovalState;
  decidedBy: DecidedBy | null;
  decidedAt: number | null;
  focused?: boolean;
  onAnswered?: (approval: Approval) => void;
}

type Picks = Record<string, string[]>;

/** The agent's questions as a form: options (radio, or checkboxes when multi-select), free text. */
export function QuestionCard({ approvalId, questions, answers, state, decidedBy, decidedAt, focused = false, onAnswered }: Props) {
  const ipc = useIpc();
  const [picks, setPicks] = useState<Picks>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLFormElement>(null);
  const pending = state === "pending";

  useEffect(() => {
    if (focused) ref.current?.querySelector<HTMLElement>("input")?.focus();
  }, [focused]);

  const answerOf = (q: Question): string[] => {
    const chosen = picks[q.id] ?? [];
    const free = (other[q.id] ?? "").trim();
    return free ? [...chosen, free] : chosen;
  };
  const complete = questions.every((q) => answerOf(q).length > 0);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!complete || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result: Record<string, string[]> = {};
      for (const q of questions) result[q.id] = answerOf(q);
      const approval = await ipc.answerQuestion(approvalId, result);
      onAnswered?.(approval);
    } catch (err) {
      setError(errorOf(err).message);
    } finally {
      setBusy(false);
    }
  };

  const toggle = (q: Question, label: string, multi: boolean, on: boolean) =>
    setPicks((p) => {
      const cur = p[q.id] ?? [];
      const next = multi ? (on ? [...cur, label] : cur.filter((l) => l !== label)) : [label];
      return { ...p, [q.id]: next };
    });

  if (!pending) {
    return (
      <div role="group" aria-label="Question" className={`question-card state-${state}`} data-testid="question-card">
        <div className="approval-head">
          <span className="approval-title">
            {outcomeText({ state, decidedBy, decidedAt })}
          </span>
        </div>
        {questions.map((q) => (
          <div key={q.id} className="question-answered">
            <div className="question-text">{q.question}</div>
            <div className="answer">{q.secret ? "••••••" : (answers?.[q.id] ?? []).join(", ") || "—"}</div>
          </div>
        ))}
      </div>
    );
  }

  return (
    <form ref={ref} role="group" aria-label="Question" className="question-card state-pending" onSubmit={submit} data-testid="question-card">
      <div className="approval-head">
        <span className="approval-title">{questions.length > 1 ? "The agent asks you" : "The agent asks"}</span>
      </div>
      {questions.map((q) => {
        const multi = isMultiSelect(q);
        return (
          <fieldset key={q.id} className="question" disabled={busy}>
            <legend>
              {q.header && <span className="tag">{q.header}</span>} {q.question}
            </legend>
            {q.options.map((o) => (
              <label key={o.label} className="option">
                <input
                  type={multi ? "checkbox" : "radio"}
                  name={`q-${approvalId}-${q.id}`}
                  value={o.label}
                  checked={(picks[q.id] ?? []).includes(o.label)}
                  onChange={(e) => toggle(q, o.label, multi, e.target.checked)}
                />
                <span className="option-label">{o.label}</span>
                {o.description && <span className="option-desc">{o.description}</span>}
              </label>
            ))}
            {(q.allowOther || q.options.length === 0) && (
              <input
                type={q.secret ? "password" : "text"}
                className="other"
                aria-label={q.options.length ? `Other answer: ${q.question}` : `Answer: ${q.question}`}
                placeholder={q.options.length ? "Other…" : "Your answer"}
                value={other[q.id] ?? ""}
                onChange={(e) => setOther((o) => ({ ...o, [q.id]: e.target.value }))}
              />
            )}
          </fieldset>
        );
      })}
      <div className="approval-actions">
        <button type="submit" className="approve" disabled={!complete || busy}>
          Submit answer
        </button>
      </div>
      {error && (
        <p className="card-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
