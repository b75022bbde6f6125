// The main area: search results while there is a query, else the routed view (profiles,
// settings, a session, the approvals), else the selected workspace, the first-run screen or
// the welcome.
import { FirstRun } from "../components/firstrun/FirstRun";
import type { EngineHealthState } from "../components/firstrun/health";
import type { SearchController } from "../state/search";
import type { Desk } from "./desk";
import type { Openers } from "./open";
import type { Navigator, Route } from "./route";
import { ApprovalsView, ProfilesView, SearchResults, SessionView, SettingsView } from "./views";

interface Props {
  desk: Desk;
  open: Openers;
  nav: Navigator;
  route: Route;
  search: SearchController;
  searching: boolean;
  engines: EngineHealthState;
  /** The first-run screen is shown (engines checked, none usable, not dismissed). */
  firstRun: boolean;
  onSetupDismissed: () => void;
}

export function MainView({ desk, open, nav, route, search, searching, engines, firstRun, onSetupDismissed }: Props) {
  const { state, sessions } = desk;
  const selected = state.items.find((w) => w.id === state.selectedId) ?? null;
  const current = route.kind === "session" ? open.find(route.id)?.session : undefined;
  const profilesOf = route.kind === "profiles" ? state.items.find((w) => w.id === route.workspaceId) : undefined;
  const firstRunScreen = firstRun && <FirstRun engines={engines} onOpenSettings={nav.openSettings} onContinue={onSetupDismissed} />;
  if (searching) return <SearchResults controller={search} workspaces={state.items} onOpen={(hit) => void open.openHit(hit)} />;
  if (profilesOf) return <ProfilesView key={profilesOf.id} workspace={profilesOf} />;
  if (route.kind === "settings") return <SettingsView engines={engines} histories={desk.histories} onError={desk.report} />;
  if (route.kind === "session" && current) {
    const host = state.items.find((w) => w.id === current.workspaceId)?.host ?? null;
    return <SessionView key={current.id} session={current} host={host} focusApproval={route.focus} onSessionChanged={sessions.edits.changed} onError={desk.report} />;
  }
  if (route.kind === "approvals") {
    return <ApprovalsView pending={desk.pending} sessionOf={open.find} onOpen={open.openApproval} onDecided={() => void desk.refreshPending()} />;
  }
  if (selected) {
    return (
      <>
        {firstRunScreen}
        <section className="workspace-view" aria-labelledby="workspace-title">
          <h1 id="workspace-title">{selected.name}</h1>
          <p className="path" data-testid="selected-workspace-path">
            {selected.host ? `${selected.host}:${selected.path}` : selected.path}
          </p>
          <p className="hint">
            {(sessions.sessions[selected.id]?.length ?? 0) > 0
              ? "Pick a session in the sidebar, or start a new one."
              : "Start a session with “New session” in the sidebar."}
          </p>
        </section>
      </>
    );
  }
  if (firstRun) return firstRunScreen;
  return (
    <section className="empty" data-testid="empty-state">
      <h1>Welcome to Agent Desk</h1>
      <p>Add a workspace folder to start working with Claude Code or Codex in it.</p>
    </section>
  );
}
