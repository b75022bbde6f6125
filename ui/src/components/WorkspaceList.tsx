import type { Engine, IpcError, Session, Workspace } from "../ipc";
import type { NewWorktree } from "../ipc/worktrees";
import type { ActivityStore } from "../state/activity";
import { useEngines } from "../state/engines";
import { SessionList } from "./sidebar/SessionList";
import { WorktreeChoice } from "./worktree/WorktreeChoice";

interface Props {
  items: Workspace[];
  loading: boolean;
  /** The store could not be opened: there is no list to show. */
  unavailable: boolean;
  selectedId: string | null;
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
  sessions: Record<string, Session[] | undefined>;
  activity: ActivityStore;
  selectedSessionId: string | null;
  onOpenSession: (s: Session) => void;
  onNewSession: (workspaceId: string) => void;
  /** The workspace (without profiles) whose new session waits for an engine. */
  choosingEngineFor: string | null;
  onPickEngine: (workspaceId: string, engine: Engine | null) => void;
  /** Open the workspace's profiles editor. */
  onOpenProfiles?: (workspaceId: string) => void;
  /** The workspace whose "New session in a worktree" choice is open. */
  choosingWorktreeFor?: string | null;
  onChooseWorktree?: (workspaceId: string | null) => void;
  onNewWorktreeSession?: (workspaceId: string, worktree: NewWorktree) => void;
  onError?: (e: IpcError) => void;
}

export function WorkspaceList(p: Props) {
  const { items, loading, unavailable, selectedId } = p;
  // Without a profile a session runs the engine's own defaults: an engine that runs the
  // profile's command (an ACP agent) needs a profile to know which agent.
  const startable = useEngines().filter((e) => !e.commandFromProfile);
  if (unavailable) return <p className="muted">Unavailable — see the message on the right.</p>;
  if (loading) return <p className="muted">Loading…</p>;
  if (items.length === 0) return <p className="muted" data-testid="no-workspaces">No workspaces yet.</p>;
  return (
    <ul className="workspace-list" data-testid="workspace-list">
      {items.map((w) => (
        <li key={w.id} className={w.id === selectedId ? "workspace selected" : "workspace"} data-testid="workspace-item">
          <div className="workspace-row">
            <button
              type="button"
              className="workspace-select"
              title={w.host ? `${w.host}:${w.path} (over SSH)` : w.path}
              aria-current={w.id === selectedId && !p.selectedSessionId ? "true" : undefined}
              onClick={() => p.onSelect(w.id)}
            >
              <span className="workspace-name">
                {w.name}
                {w.host && (
                  <span className="host-tag" title={`The agents run on ${w.host} over SSH`}>
                    <span className="visually-hidden"> on </span>
                    {w.host}
                  </span>
                )}
              </span>
              <span className="workspace-path" data-testid="workspace-path">
                {w.host ? `${w.host}:${w.path}` : w.path}
              </span>
            </button>
            <button
              type="button"
              className="icon-button"
              aria-label={`Remove workspace ${w.name}`}
              data-testid="remove-workspace"
              onClick={() => p.onRemove(w.id)}
            >
              ×
            </button>
          </div>
          <button
            type="button"
            className="new-session"
            title={`New session in ${w.name}`}
            data-testid="new-session"
            onClick={() => p.onNewSession(w.id)}
          >
            <span aria-hidden="true">+ </span>New session
          </button>
          {p.onChooseWorktree && !w.host && (
            <button
              type="button"
              className="new-session new-worktree-session"
              title={`New session in its own git worktree of ${w.name}`}
              aria-expanded={p.choosingWorktreeFor === w.id}
              onClick={() => p.onChooseWorktree?.(p.choosingWorktreeFor === w.id ? null : w.id)}
            >
              <span aria-hidden="true">+ </span>New session in a worktree
            </button>
          )}
          {p.choosingWorktreeFor === w.id && p.onNewWorktreeSession && (
            <WorktreeChoice
              workspaceId={w.id}
              workspaceName={w.name}
              onStart={(wt) => p.onNewWorktreeSession?.(w.id, wt)}
              onCancel={() => p.onChooseWorktree?.(null)}
              onError={(e) => p.onError?.(e)}
            />
          )}
          {p.onOpenProfiles && (
            <button
              type="button"
              className="workspace-profiles"
              aria-label={`Profiles for ${w.name}`}
              title={`Profiles for ${w.name}`}
              onClick={() => p.onOpenProfiles?.(w.id)}
            >
              Profiles
            </button>
          )}
          {p.choosingEngineFor === w.id && (
            <div className="engine-choice" role="group" aria-label="Engine for the new session">
              <span className="muted small">No profile yet — start with:</span>
              {startable.map((e) => (
                <button key={e.engine} type="button" onClick={() => p.onPickEngine(w.id, e.engine)}>
                  {e.displayName}
                </button>
              ))}
              <button type="button" className="icon-button" aria-label="Cancel" onClick={() => p.onPickEngine(w.id, null)}>
                ×
              </button>
            </div>
          )}
          <SessionList sessions={p.sessions[w.id]} activity={p.activity} selectedSessionId={p.selectedSessionId} onOpen={p.onOpenSession} />
        </li>
      ))}
    </ul>
  );
}
