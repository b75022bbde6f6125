import { useState } from "react";
import type { Session } from "../../ipc";
import type { SessionOrigin } from "../../generated/SessionOrigin";
import { useSessionActivity, type ActivityStore } from "../../state/activity";
import { RenameField, SessionMenu, useSessionActions } from "./SessionActions";
import { BranchLine } from "../worktree/BranchLine";

/** Where an imported session began, as the sidebar names it ("from Claude Code"). */
export const ORIGIN_NAMES: Record<Exclude<SessionOrigin, "app">, string> = {
  "codex-cli": "the Codex CLI",
  "claude-code": "Claude Code",
};

function SessionEntry({ session, activity, selected, onOpen }: { session: Session; activity: ActivityStore; selected: boolean; onOpen: () => void }) {
  const a = useSessionActivity(activity, session.id);
  const actions = useSessionActions();
  const [renaming, setRenaming] = useState(false);
  return (
    <li className={selected ? "session-entry selected" : "session-entry"}>
      {renaming && actions ? (
        <RenameField session={session} ctx={actions} onDone={() => setRenaming(false)} />
      ) : (
        <button type="button" className="session-select" aria-current={selected ? "page" : undefined} onClick={onOpen} data-testid="session-item">
          {session.origin === "app" && session.branch ? (
            <span className="session-text">
              <span className="session-title">{session.title || "Untitled session"}</span>
              <BranchLine session={session} running={Boolean(a?.running)} />
            </span>
          ) : session.origin === "app" ? (
            <span className="session-title">{session.title || "Untitled session"}</span>
          ) : (
            <span className="session-text">
              <span className="session-title">{session.title || "Untitled session"}</span>
              <span className="session-origin-tag" title={`Started in ${ORIGIN_NAMES[session.origin]}; continued here`}>
                {" "}from {ORIGIN_NAMES[session.origin]}
              </span>
            </span>
          )}
          {session.archivedAt !== null && <span className="session-archived-tag">archived</span>}
          {a?.running && (
            <span className="activity-dot" title={a.queued ? `Running, ${a.queued} queued` : "Running"}>
              <span className="visually-hidden">running</span>
            </span>
          )}
          {a && a.waiting > 0 && (
            <span className="badge waiting" title={`${a.waiting} waiting for you`}>
              {a.waiting}
              <span className="visually-hidden"> waiting for you</span>
            </span>
          )}
        </button>
      )}
      {actions && !renaming && <SessionMenu session={session} ctx={actions} onRename={() => setRenaming(true)} />}
    </li>
  );
}

interface Props {
  sessions: Session[] | undefined;
  activity: ActivityStore;
  selectedSessionId: string | null;
  onOpen: (s: Session) => void;
}

/** Sessions a workspace lists at first, and how many more each "Show more" adds: a workspace
 * with years of imported terminal sessions stays a short list (and a cheap one to draw). */
export const SHOWN_SESSIONS = 40;

/** A workspace's sessions, newest first (the first [`SHOWN_SESSIONS`], then more on ask; the
 * open one always), with running / waiting-for-you badges and, when the app provides them,
 * each session's actions (rename, archive, export, delete). */
export function SessionList({ sessions, activity, selectedSessionId, onOpen }: Props) {
  const [limit, setLimit] = useState(SHOWN_SESSIONS);
  if (!sessions) return null;
  if (sessions.length === 0) return <p className="muted small no-sessions">No sessions yet.</p>;
  const shown = sessions.slice(0, limit);
  const selected = sessions.findIndex((s) => s.id === selectedSessionId);
  if (selected >= limit) shown.push(sessions[selected]!);
  const more = sessions.length - limit;
  return (
    <ul className="session-list">
      {shown.map((s) => (
        <SessionEntry key={s.id} session={s} activity={activity} selected={s.id === selectedSessionId} onOpen={() => onOpen(s)} />
      ))}
      {more > 0 && (
        <li className="session-more">
          <button type="button" className="link-button" onClick={() => setLimit(limit + SHOWN_SESSIONS)}>
            Show {Math.min(more, SHOWN_SESSIONS)} more of {more} older
          </button>
        </li>
      )}
    </ul>
  );
}
