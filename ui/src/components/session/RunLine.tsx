import { useEffect, useState } from "react";
import { SettingsLink } from "../firstrun/SettingsLink";
import { errorOf, type Run } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { useRun } from "../../state/hooks";
import type { SessionStore, UsageBody } from "../../state/sessionStore";
import { formatCost, formatDuration, formatTokens } from "../../util/format";

export const STATUS_TEXT: Record<Run["status"], string> = {
  queued: "Queued",
  running: "Running",
  completed: "Completed",
  failed: "Failed",
  interrupted: "Interrupted",
};

/** The stop reason of an imported turn its history has not finished (the core's `UNFINISHED`). */
export const UNFINISHED = "unfinished";
const UNFINISHED_HINT =
  "The terminal had not finished this turn when it was read: it may be answering it now (this view follows), or it was stopped there.";

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** A run stopped before the model answered reports all zeros: that is no usage to show. */
function hasUsage(u: UsageBody): boolean {
  return u.input > 0 || u.output > 0 || u.cached > 0 || u.reasoning > 0 || (u.costUsd ?? 0) > 0;
}

/** A run's status line: Queued (cancellable) / Running (elapsed) / Completed / Failed (why) / Interrupted, with usage. */
export function RunLine({ store, runId }: { store: SessionStore; runId: string }) {
  const ipc = useIpc();
  const { run, usage } = useRun(store, runId);
  const running = run?.status === "running";
  const now = useNow(running);
  const [error, setError] = useState<string | null>(null);
  if (!run) return <div className="run-line empty" />;

  // An imported turn its history has not finished: a terminal may be answering it now (the
  // view re-reads as the history grows), or it was left so.
  const unfinished = run.status === "interrupted" && run.stopReason === UNFINISHED;
  const start = run.startedAt ?? run.createdAt;
  const elapsed = running ? now - start : run.endedAt ? run.endedAt - start : null;
  const cancel = async () => {
    setError(null);
    try {
      await ipc.interruptRun(run.id);
    } catch (e) {
      setError(errorOf(e).message);
    }
  };

  return (
    <div className={`run-line run-${run.status}`} data-testid="run-status">
      <span className="run-dot" aria-hidden="true" />
      <span className="run-status-text" title={unfinished ? UNFINISHED_HINT : undefined}>
        {unfinished ? "Unfinished in the terminal" : STATUS_TEXT[run.status]}
      </span>
      {elapsed !== null && run.status !== "queued" && <span className="run-elapsed">{formatDuration(elapsed)}</span>}
      {run.status === "failed" && (run.error || run.stopReason) && (
        <span className="run-error">
          {run.error ?? ""}
          {run.stopReason && run.error ? ` (${run.stopReason})` : (run.stopReason ?? "")}
          <SettingsLink code={run.stopReason} />
        </span>
      )}
      {run.model && <span className="run-model">{run.model}</span>}
      {usage && hasUsage(usage) && (
        <span className="run-usage" title={`input ${usage.input}, cached ${usage.cached}, output ${usage.output}, reasoning ${usage.reasoning}`}>
          {formatTokens(usage.input)} in
          {usage.cached > 0 && ` (${formatTokens(usage.cached)} cached)`} · {formatTokens(usage.output)} out
          {usage.reasoning > 0 && ` · ${formatTokens(usage.reasoning)} reasoning`}
          {usage.costUsd !== null && ` · ${formatCost(usage.costUsd)}`}
        </span>
      )}
      {run.status === "queued" && (
        <button type="button" className="link-button" onClick={cancel} aria-label="Cancel queued message">
          Cancel
        </button>
      )}
      {error && (
        <span className="card-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
