import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { engineName, useEngines } from "../../state/engines";
import { errorOf, type IpcError, type OfferedFile, type Session } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { useActiveRuns, usePlan } from "../../state/hooks";
import { SessionStore } from "../../state/sessionStore";
import { EngineCapabilitiesContext, useEngineCapabilities } from "../approvals/capabilities";
import { Composer } from "./Composer";
import { DiagnosticsPanel } from "./Diagnostics";
import { PlanNow } from "./items/PlanCard";
import { SessionUsage } from "./SessionUsage";
import { ProfileSwitcher } from "./ProfileSwitcher";
import { ModelPicker } from "./ModelPicker";

// Announced to screen readers; worded apart from the status words so text lookups stay unique.
const ANNOUNCE = { queued: "", running: "Run started", completed: "Run finished", failed: "Run ended with an error", interrupted: "Run stopped" } as const;
import { Timeline } from "./Timeline";
import { WorktreeReview } from "../worktree/WorktreeReview";

interface Props {
  session: Session;
  /** The SSH host of the session's workspace (`null`: this machine). */
  host?: string | null;
  focusApproval: { approvalId: string; itemId: string | null } | null;
  onSessionChanged: (s: Session) => void;
  onError: (e: IpcError) => void;
}

/** One open session: its live store (fed by the session's channel), timeline and composer. */
export function SessionView({ session, host = null, focusApproval, onSessionChanged, onError }: Props) {
  const ipc = useIpc();
  const caps = useEngineCapabilities(session.engine);
  const engines = useEngines();
  const store = useMemo(() => new SessionStore(session.id), [session.id]);
  const [diagOpen, setDiagOpen] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [dropped, setDropped] = useState<{ files: OfferedFile[]; at: number } | null>(null);
  // A session in a worktree has two tabs: the conversation and the review of its changes.
  const [reviewing, setReviewing] = useState(false);
  const inWorktree = session.worktree !== null;
  const showReview = inWorktree && reviewing;
  const active = useActiveRuns(store);
  const running = active.find((r) => r.status === "running") ?? null;
  const plan = usePlan(store);

  // The header's current step, also when the plan's item is older than the loaded page.
  useEffect(() => {
    let open = true;
    ipc
      .sessionPlan(session.id)
      .then((p) => open && store.seedPlan(p))
      .catch(() => {}); // the timeline's own plan items still show it
    return () => {
      open = false;
    };
  }, [ipc, store, session.id]);

  // Screen readers hear when a run starts and how it ended (the log itself stays quiet).
  const [announcement, setAnnouncement] = useState("");
  const wasActive = useRef<Map<string, string>>(new Map());
  useEffect(() => {
    const now = new Map(active.map((r) => [r.id, r.status]));
    for (const [id, status] of now) {
      if (status === "running" && wasActive.current.get(id) !== "running") setAnnouncement(ANNOUNCE.running);
    }
    for (const id of wasActive.current.keys()) {
      const run = now.has(id) ? undefined : store.run(id);
      if (run) setAnnouncement(`${ANNOUNCE[run.status]}${run.error ? `: ${run.error}` : ""}`);
    }
    wasActive.current = now;
  }, [active, store]);

  // The session's live stream: a reset first, then what changes. `attempt` bumps on Retry.
  const [openError, setOpenError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let open = true;
    setOpenError(null);
    ipc
      .openSession(session.id, (batch, shown) => open && store.applyBatch(batch, shown))
      .catch((e) => {
        if (!open) return;
        setOpenError(errorOf(e).message);
        onError(errorOf(e));
      });
    return () => {
      open = false;
      ipc.closeSession(session.id).catch(() => {});
    };
  }, [ipc, store, session.id, onError, attempt]);

  // The timeline's window of pages left the live end and the user goes back: a fresh reset.
  const reopen = useCallback(() => setAttempt((a) => a + 1), []);

  // Files dragged from the OS onto the window.
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    ipc
      .onFileDrop((e) => {
        if (e.type === "enter" || e.type === "over") setDragging(true);
        else setDragging(false);
        if (e.type === "drop" && e.files.length) setDropped({ files: e.files, at: Date.now() });
      })
      .then((u) => {
        if (live) unlisten = u;
        else u();
      })
      .catch(() => {}); // not in the Tauri window (tests, plain browser)
    return () => {
      live = false;
      try {
        unlisten?.();
      } catch {
        // the window is going away anyway
      }
    };
  }, [ipc]);

  const interrupt = useCallback(() => {
    if (running) ipc.interruptRun(running.id).catch((e) => onError(errorOf(e)));
  }, [ipc, running, onError]);

  // Esc interrupts from anywhere in the window (unless something else used it).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || e.isComposing || !running) return;
      const t = e.target;
      if (t instanceof Element && t.closest("input, select, [role=dialog]")) return;
      e.preventDefault();
      interrupt();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [running, interrupt]);

  return (
    <section className="session-view" aria-labelledby="session-title">
      <header className="session-header">
        <div className="session-heading">
          <h1 id="session-title">{session.title || "Untitled session"}</h1>
          <span className={`engine-tag engine-${session.engine}`}>{engineName(engines, session.engine)}</span>
          {host && (
            <span className="host-tag" title={`The agent runs on ${host} over SSH`}>
              <span className="visually-hidden">on host </span>
              {host}
            </span>
          )}
          {session.branch && (
            <span className="branch-tag" title={`Runs in its own worktree: ${session.worktree}`}>
              <span className="visually-hidden">branch </span>
              {session.branch}
            </span>
          )}
        </div>
        <PlanNow plan={plan} />
        <SessionUsage sessionId={session.id} activeRuns={active.length} />
        <ProfileSwitcher session={session} onChanged={onSessionChanged} onError={onError} />
      </header>
      <DiagnosticsPanel store={store} open={diagOpen} onToggle={() => setDiagOpen((o) => !o)} />
      {inWorktree && (
        <div className="session-tabs" role="tablist" aria-label="Session views">
          <button type="button" role="tab" aria-selected={!showReview} onClick={() => setReviewing(false)}>
            Conversation
          </button>
          <button type="button" role="tab" aria-selected={showReview} onClick={() => setReviewing(true)}>
            Review changes
          </button>
        </div>
      )}
      {showReview ? (
        <WorktreeReview session={session} running={active.length > 0} onSessionChanged={onSessionChanged} onError={onError} />
      ) : openError ? (
        <div className="timeline-empty" role="log" aria-label="Timeline">
          <p>
            This session could not be opened: {openError}{" "}
            <button type="button" onClick={() => setAttempt((n) => n + 1)}>
              Retry
            </button>
          </p>
        </div>
      ) : (
        <EngineCapabilitiesContext.Provider value={caps}>
          <Timeline store={store} focusApproval={focusApproval} onError={onError} onLatest={reopen} />
        </EngineCapabilitiesContext.Provider>
      )}
      {!showReview && (
        <Composer
          sessionId={session.id}
          running={running}
          dropped={dropped}
          autoFocus={!focusApproval}
          tools={<ModelPicker session={session} onChanged={onSessionChanged} onError={onError} />}
        />
      )}
      <div className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </div>
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-box">Drop files to attach them</div>
        </div>
      )}
    </section>
  );
}
