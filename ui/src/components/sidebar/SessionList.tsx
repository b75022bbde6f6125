import type { Session } from "../../ipc";
import { useSessionActivity, type ActivityStore } from "../../state/activity";

function SessionEntry({ session, activity, selected, onOpen }: { session: Session; activity: ActivityStore; selected: boolean; onOpen: () => void }) {
  const a = useSessionActivity(activity, session.id);
  return (
    <li className={selected ? "session-entry selected" : "session-entry"}>
      <button type="button" className="session-select" aria-current={selected ? "page" : undefined} onClick={onOpen} data-testid="session-item">
        <span className="session-title">{session.title || "Untitled session"}</span>
        {a?.running && (
          <span className="badge running" title="A run is running">
            running
          </span>
        )}
        {a && a.queued > 0 && (
          <span className="badge queued" title="Messages queued">
            +{a.queued}
          </span>
        )}
        {a && a.waiting > 0 && (
          <span className="badge waiting" title="Waiting for you">
            {a.waiting} waiting
          </span>
        )}
      </button>
    </li>
  );
}

interface Props {
  sessions: Session[] | undefined;
  activity: ActivityStore;
  selectedSessionId: string | null;
  onOpen: (s: Session) => void;
}

/** A workspace's sessions, newest first, with running / waiting-for-you badges. */
export function SessionList({ sessions, activity, selectedSessionId, onOpen }: Props) {
  if (!sessions) return null;
  if (sessions.length === 0) return <p className="muted small no-sessions">No sessions yet.</p>;
  return (
    <ul className="session-list">
      {sessions.map((s) => (
        <SessionEntry key={s.id} session={s} activity={activity} selected={s.id === selectedSessionId} onOpen={() => onOpen(s)} />
      ))}
    </ul>
  );
}
