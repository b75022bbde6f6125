// The sidebar: search, the Approvals entry, the workspaces and their sessions, Settings.
import { useState } from "react";
import { AddWorkspace } from "../components/AddWorkspace";
import { RemoteWorkspaceDialog } from "../components/RemoteWorkspaceDialog";
import { LiveTerminalSessions } from "../components/sidebar/TerminalSessions";
import { SearchBox } from "../components/search/SearchBox";
import { WorkspaceList } from "../components/WorkspaceList";
import type { SearchController } from "../state/search";
import type { Desk } from "./desk";
import type { Openers } from "./open";
import { routedSessionId, type Navigator, type Route } from "./route";

interface Props {
  desk: Desk;
  open: Openers;
  nav: Navigator;
  route: Route;
  search: SearchController;
  /** The path of the last export, for the status line. */
  exported: string | null;
  onShortcuts: () => void;
}

export function Sidebar({ desk, open, nav, route, search, exported, onShortcuts }: Props) {
  const { state, dispatch, sessions } = desk;
  const storeBroken = Boolean(desk.info?.startupError);
  const [addingRemote, setAddingRemote] = useState(false);
  return (
    <aside className="sidebar" aria-label="Workspaces">
      <header className="sidebar-header">
        <span className="brand">Agent Desk</span>
      </header>
      <SearchBox controller={search} disabled={storeBroken} />
      <button
        type="button"
        className={`approvals-entry${route.kind === "approvals" ? " selected" : ""}`}
        aria-current={route.kind === "approvals" ? "page" : undefined}
        disabled={storeBroken}
        onClick={open.openApprovals}
        data-testid="approvals-entry"
      >
        <span>Approvals</span>
        <span className={`count${desk.pending.length ? " waiting" : ""}`} data-testid="approvals-count">
          {desk.pending.length}
        </span>
      </button>
      <h2 className="section-title">Workspaces</h2>
      <label className="sidebar-archived-toggle">
        <input type="checkbox" checked={sessions.showArchived} onChange={(e) => sessions.setShowArchived(e.target.checked)} />
        Show archived
      </label>
      {exported && (
        <p className="export-notice" role="status">
          Exported to {exported}
        </p>
      )}
      <WorkspaceList
        items={state.items}
        loading={state.loading}
        unavailable={storeBroken}
        selectedId={state.selectedId}
        onSelect={(id) => {
          dispatch({ type: "selected", id });
          nav.go({ kind: "home" });
        }}
        onRemove={desk.remove}
        sessions={sessions.sessions}
        activity={desk.activity}
        selectedSessionId={routedSessionId(route)}
        onOpenSession={open.openSession}
        onNewSession={(id) => void open.newSession(id)}
        choosingEngineFor={open.choosingEngine}
        onPickEngine={(id, engine) => (engine ? void open.newSession(id, engine) : open.setChoosingEngine(null))}
        choosingWorktreeFor={open.choosingWorktree}
        onChooseWorktree={open.setChoosingWorktree}
        onNewWorktreeSession={(id, worktree) => void open.newSession(id, null, worktree)}
        onError={desk.report}
        onOpenProfiles={(id) => {
          dispatch({ type: "selected", id });
          nav.go({ kind: "profiles", workspaceId: id });
        }}
      />
      <AddWorkspace disabled={storeBroken} onAdd={desk.add} onPick={desk.pick} onAddRemote={() => setAddingRemote(true)} />
      {addingRemote && <RemoteWorkspaceDialog onAdd={desk.addOrThrow} onClose={() => setAddingRemote(false)} />}
      <LiveTerminalSessions
        store={desk.histories}
        disabled={storeBroken}
        onRescan={desk.rescanHistories}
        onAddWorkspace={(folder) => void desk.add(folder)}
      />
      <div className="sidebar-footer">
        <button
          type="button"
          className={`settings-entry${route.kind === "settings" ? " selected" : ""}`}
          aria-current={route.kind === "settings" ? "page" : undefined}
          disabled={storeBroken}
          onClick={nav.openSettings}
        >
          Settings
        </button>
        <button type="button" className="shortcuts-entry" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={onShortcuts}>
          ?
        </button>
      </div>
    </aside>
  );
}
