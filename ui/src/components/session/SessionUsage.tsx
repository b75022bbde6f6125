// The session header's total: tokens and cost over every run of the session (each run's own
// are on its run line), read again when a run ends.
import { useEffect, useState } from "react";
import type { Usage } from "../../generated/Usage";
import { useIpc } from "../../ipc/context";
import { formatCost, formatTokens } from "../../util/format";

export function SessionUsage({ sessionId, activeRuns }: { sessionId: string; activeRuns: number }) {
  const ipc = useIpc();
  const [usage, setUsage] = useState<Usage | null>(null);
  useEffect(() => {
    let live = true;
    ipc
      .sessionUsage(sessionId)
      .then((u) => live && setUsage(u))
      .catch(() => live && setUsage(null));
    return () => {
      live = false;
    };
  }, [ipc, sessionId, activeRuns]);
  if (!usage || usage.runs === 0) return null;
  const t = usage;
  const runs = `${usage.runs} run${usage.runs === 1 ? "" : "s"}`;
  return (
    <p className="session-usage" title={`This session so far: ${runs}${t.cached > 0 ? `, ${formatTokens(t.cached)} input tokens cached` : ""}`}>
      <span className="visually-hidden">Session total: </span>
      {formatTokens(t.input)} in · {formatTokens(t.output)} out{t.costUsd !== null ? ` · ${formatCost(t.costUsd)}` : ""}
    </p>
  );
}
