// The window's first paint (issue 12): work the first screen does not need (fetching the
// session view's 490 KB chunk, probing the engines, which starts their processes) waits for
// it instead of competing with it for the CPU; and the shell is told when it happened, so
// every start logs its cold-start figures (process start → navigation → script → first paint).
import { windowPainted } from "./ipc/commands.generated";

const FCP = "first-contentful-paint";
/** A page that paints nothing contentful this long after its script goes on anyway. */
export const GIVE_UP_MS = 3_000;

function paintEntry(): number | null {
  const entry = performance.getEntriesByType?.("paint").find((e) => e.name === FCP);
  return entry ? performance.timeOrigin + entry.startTime : null;
}

/**
 * Resolves once the first contentful paint happened (or after `GIVE_UP_MS`). Outside the app
 * (tests, a plain browser) there is nothing to wait for.
 */
export function waitForFirstPaint(inApp = "__TAURI_INTERNALS__" in window): Promise<void> {
  if (!inApp || typeof PerformanceObserver === "undefined" || paintEntry() !== null) return Promise.resolve();
  return new Promise((resolve) => {
    let observer: PerformanceObserver | undefined;
    const done = () => {
      observer?.disconnect();
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, GIVE_UP_MS);
    try {
      observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((e) => e.name === FCP)) done();
      });
      observer.observe({ type: "paint", buffered: true });
    } catch {
      // No paint timing in this webview: the timer decides.
    }
  });
}

let painted: Promise<void> | undefined;
/** The window's first paint, waited for once. */
export const firstPaint = () => (painted ??= waitForFirstPaint());

/** Tell the shell when the window was painted (it logs the figures). */
export function reportFirstPaint(scriptStart: number) {
  if (!("__TAURI_INTERNALS__" in window)) return;
  void firstPaint().then(() =>
    windowPainted(performance.timeOrigin, scriptStart, paintEntry()).catch((e) => console.warn("window_painted", e)),
  );
}
