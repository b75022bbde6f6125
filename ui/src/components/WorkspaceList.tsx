import type { Workspace } from "../ipc";

interface Props {
  items: Workspace[];
  loading: boolean;
  /** The store could not be opened: there is no list to show. */
  unavailable: boolean;
  selectedId: string | null;
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
}

export function WorkspaceList({ items, loading, unavailable, selectedId, onSelect, onRemove }: Props) {
  if (unavailable) return <p className="muted">Unavailable — see the message on the right.</p>;
  if (loading) return <p className="muted">Loading…</p>;
  if (items.length === 0) return <p className="muted" data-testid="no-workspaces">No workspaces yet.</p>;
  return (
    <ul className="workspace-list" data-testid="workspace-list">
      {items.map((w) => (
        <li key={w.id} className={w.id === selectedId ? "workspace selected" : "workspace"} data-testid="workspace-item">
          <button
            type="button"
            className="workspace-select"
            title={w.path}
            aria-current={w.id === selectedId ? "true" : undefined}
            onClick={() => onSelect(w.id)}
          >
            <span className="workspace-name">{w.name}</span>
            <span className="workspace-path" data-testid="workspace-path">
              {w.path}
            </span>
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`Remove workspace ${w.name}`}
            data-testid="remove-workspace"
            onClick={() => onRemove(w.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
