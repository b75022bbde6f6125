import type { Plan } from "../../../generated/Plan";
import type { PlanEntry } from "../../../generated/PlanEntry";

const MARK = { completed: "✓", in_progress: "◐", pending: "○" } as const;
const STATE = { completed: "done", in_progress: "in progress", pending: "to do" } as const;

/** "2 of 5 done". */
export function planProgress(plan: Plan): { done: number; all: number } {
  return { done: plan.entries.filter((e) => e.status === "completed").length, all: plan.entries.length };
}

/** The step being worked on: the first in progress, else the first still to do. */
export function currentStep(plan: Plan): { entry: PlanEntry; index: number } | null {
  let index = plan.entries.findIndex((e) => e.status === "in_progress");
  if (index < 0) index = plan.entries.findIndex((e) => e.status === "pending");
  return index < 0 ? null : { entry: plan.entries[index]!, index };
}

/** The agent's plan in the timeline: a checklist that follows its updates in place. */
export function PlanCard({ plan }: { plan: Plan }) {
  const { done, all } = planProgress(plan);
  return (
    <section className="plan-card" aria-label={`Plan, ${done} of ${all} done`}>
      <div className="plan-head">
        <span className="plan-title">Plan</span>
        <span className="muted small">
          {done} of {all} done
        </span>
      </div>
      {plan.explanation && <p className="plan-explanation muted small">{plan.explanation}</p>}
      <ol className="plan-steps">
        {plan.entries.map((e, i) => (
          <li key={e.id ?? i} className={`plan-step plan-${e.status}`}>
            <span className="plan-mark" aria-hidden="true">
              {MARK[e.status]}
            </span>
            <span className="plan-text">{e.step}</span>
            <span className="visually-hidden">, {STATE[e.status]}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The session header's line: what the agent is on now, or that its plan is done. */
export function PlanNow({ plan }: { plan: Plan | null }) {
  if (!plan || plan.entries.length === 0) return null;
  const { done, all } = planProgress(plan);
  const now = currentStep(plan);
  return (
    <p className="plan-now" title={now ? now.entry.step : undefined}>
      {now ? (
        <>
          <span className="visually-hidden">Current step: </span>
          <span className="plan-now-text">
            {now.entry.status === "in_progress" && now.entry.activeForm ? now.entry.activeForm : now.entry.step}
          </span>
          <span className="plan-now-count">
            {" "}
            · step {now.index + 1} of {all}
          </span>
        </>
      ) : (
        <span className="plan-now-text">
          Plan done ({done} of {all})
        </span>
      )}
    </p>
  );
}
