// The account's rate limits in the status bar: each engine's windows as it last reported
// them (used %, when each resets), marked near the limit (80 %) and at it.
import { useEffect, useState } from "react";
import type { EngineRateLimits } from "../generated/EngineRateLimits";
import type { RateLimitWindow } from "../generated/RateLimitWindow";
import { useIpc } from "../ipc/context";
import { engineName, useEngines } from "../state/engines";

/** From this much use of a window on, it is shown as a warning. */
export const WARN_PERCENT = 80;

const clock = (ms: number) => {
  const at = new Date(ms);
  const sameDay = at.toDateString() === new Date().toDateString();
  return sameDay
    ? at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
    : at.toLocaleString(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" });
};

function windowText(w: RateLimitWindow): string {
  return `${w.name} ${Math.round(w.usedPercent)} %`;
}

function windowTitle(w: RateLimitWindow): string {
  return `${w.name} window: ${Math.round(w.usedPercent)} % used${w.resetsAt ? `, resets ${clock(w.resetsAt)}` : ""}`;
}

export function RateLimitsBar() {
  const ipc = useIpc();
  const engines = useEngines();
  const [limits, setLimits] = useState<EngineRateLimits[]>([]);
  useEffect(() => {
    let live = true;
    ipc
      .watchRateLimits((l) => live && setLimits(l))
      .catch(() => {}); // a window without the feed shows no limits
    return () => {
      live = false;
    };
  }, [ipc]);
  const shown = limits.filter((l) => l.limits.windows.length > 0 || l.limits.reached);
  if (shown.length === 0) return null;
  return (
    <ul className="rate-limits" aria-label="Rate limits">
      {shown.map((l) => {
        const fullest = Math.max(0, ...l.limits.windows.map((w) => w.usedPercent));
        const reached = l.limits.reached !== null || fullest >= 100;
        const warn = !reached && fullest >= WARN_PERCENT;
        const reset = l.limits.windows.find((w) => w.usedPercent === fullest)?.resetsAt;
        const name = engineName(engines, l.engine);
        return (
          <li key={l.engine} className={`rate-limit${reached ? " limit-reached" : warn ? " limit-warn" : ""}`} title={l.limits.windows.map(windowTitle).join("\n")}>
            {(reached || warn) && (
              <span className="limit-mark" aria-hidden="true">
                ⚠{" "}
              </span>
            )}
            {name}: {l.limits.windows.map(windowText).join(" · ")}
            {reached ? (
              <span>
                {" "}
                · limit reached{reset ? `, resets ${clock(reset)}` : ""}
              </span>
            ) : warn ? (
              <span className="visually-hidden"> (near the limit{reset ? `, resets ${clock(reset)}` : ""})</span>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
