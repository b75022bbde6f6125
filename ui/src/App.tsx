import { lazy, Suspense, useCallback, useEffect, useMemo, useReducer, useRef, useState, useSyncExternalStore } from "react";
import { ErrorBanner } from "./components/ErrorBanner";
import { FirstRun } from "./components/firstrun/FirstRun";
import { needsSetup, useEngineHealth } from "./components/firstrun/health";
import { OPEN_SETTINGS_EVENT } from "./components/firstrun/SettingsLink";
import { settingsApi } from "./components/settings/api";
import { setUiSettingsLocal } from "./components/settings/prefs";
import { focusComposer, step, useShortcuts } from "./components/shortcuts/shortcuts";
import { AddWorkspace } from "./components/AddWorkspace";
import { WorkspaceList } from "./components/WorkspaceList";
import { libraryApi, type SearchHit } from "./components/search/api";
import { SearchBox } from "./components/search/SearchBox";
import { SessionActionsContext, type SessionActionsCtx } from "./components/sidebar/SessionActions";
import { SearchController } from "./state/search";
import { KeepInTrayDialog } from "./components/tray/KeepInTrayDialog";
import { errorOf, type Approval, type AppInfo, type Engine, type IpcError, type Ipc, type Session } from "./ipc";
import { IpcContext } from "./ipc/context";
import { preloadable } from "./preload";
import { firstPaint } from "./startup";
import { ActivityStore } from "./state/activity";
import { initialState, reducer } from "./state/workspaces";

// The chat (markdown, highlighting, diffs, the virtual list) is its own chunk: the window paints
// the sidebar without it, and it is fetched right after, before anyone opens a session.
// WebKit (the Linux and macOS webview) can resolve a dynamic import of a module that is
// already being imported before that module has finished evaluating: the view then rendered
// with its classes and constants still uninitialised ("Cannot access uninitialized
// variable"). So each chunk is imported exactly once, through one memoised promise, and the
// approvals view (which shares the cards' chunk) only after the session view.
let sessionViewModule: ReturnType<typeof importSessionView> | undefined;
let approvalsViewModule: ReturnType<typeof importApprovalsView> | undefined;
function importSessionView() {
  return import("./components/session/SessionView");
}
function importApprovalsView() {
  return import("./components/approvals/ApprovalsView");
}
const loadSessionView = () => (sessionViewModule ??= importSessionView());
const loadApprovalsView = () => (approvalsViewModule ??= loadSessionView().then(importApprovalsView));
// Fetched after the first paint; once there they render without suspending (see `preloadable`).
const sessionView = preloadable(() => loadSessionView().then((m) => m.SessionView));
const approvalsView = preloadable(() => loadApprovalsView().then((m) => m.ApprovalsView));
const SessionView = sessionView.Component;
const ApprovalsView = approvalsView.Component;
// Screens the first one never shows are their own chunks too, fetched when first opened: the
// window's first script is then React, the sidebar and the workspace view (issue 12).
const once = <T,>(load: () => Promise<T>) => {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
};
// Settings shares a chunk (util/format) with the session view: imported after it, for the
// WebKit reason above (the session view is fetched right after start anyway).
const SettingsView = lazy(once(() => loadSessionView().then(() => import("./components/settings/SettingsView")).then((m) => ({ default: m.SettingsView }))));
const ProfilesView = lazy(once(() => import("./components/profiles/ProfilesView").then((m) => ({ default: m.ProfilesView }))));
const SearchResults = lazy(once(() => import("./components/search/SearchResults").then((m) => ({ default: m.SearchResults }))));
const ShortcutsSheet = lazy(once(() => import("./components/shortcuts/ShortcutsSheet").then((m) => ({ default: m.ShortcutsSheet }))));

type Route =
  | { kind: "home" }
  | { kind: "approvals" }
  | { kind: "profiles"; workspaceId: string }
  | { kind: "settings" }
  | { kind: "session"; id: string; focus: { approvalId: string; itemId: string | null } | null };

export function App({ ipc, library = libraryApi }: { ipc: Ipc; library?: typeof libraryApi }) {
  const [state, dispatch] = useReducer(reducer, initialState);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [sessions, setSessions] = useState<Record<string, Session[] | undefined>>({});
  const [route, setRoute] = useState<Route>({ kind: "home" });
  const [pending, setPending] = useState<Approval[]>([]);
  const activity = useMemo(() => new ActivityStore(), []);
  // The workspaces whose sessions are loaded, read by the activity callback.
  const sessionsRef = useRef(sessions);
  sessionsRef.current = sessions;

  // The first screen is painted before anything it does not need is fetched or started: the
  // session view's chunk (parsing it took the CPU the first paint needed) and the engine probe.
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let live = true;
    void firstPaint().then(() => {
      if (!live) return;
      setPainted(true);
      void sessionView.preload();
      void approvalsView.preload();
    });
    return () => {
      live = false;
    };
  }, []);

  const fail = useCallback((e: unknown) => dispatch({ type: "failed", error: errorOf(e) }), []);
  const report = useCallback((e: IpcError) => dispatch({ type: "failed", error: e }), []);

  // "Show archived": archived sessions are listed too (marked), else hidden.
  const [showArchived, setShowArchived] = useState(false);
  const showArchivedRef = useRef(showArchived);
  showArchivedRef.current = showArchived;

  const loadSessions = useCallback(
    async (workspaceId: string) => {
      try {
        const list = await ipc.listSessions(workspaceId, showArchivedRef.current);
        setSessions((s) => ({ ...s, [workspaceId]: list }));
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail],
  );

  const refreshPending = useCallback(async () => {
    try {
      setPending(await ipc.listPendingApprovals());
    } catch (e) {
      fail(e);
    }
  }, [ipc, fail]);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const appInfo = await ipc.appInfo();
        if (cancelled) return;
        setInfo(appInfo);
        if (appInfo.startupError) {
          dispatch({ type: "failed", error: appInfo.startupError });
          return;
        }
        const items = await ipc.listWorkspaces();
        if (cancelled) return;
        dispatch({ type: "loaded", items });
        await Promise.all(items.map((w) => loadSessions(w.id)));
        void refreshPending();
      } catch (e) {
        if (!cancelled) fail(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [ipc, fail, loadSessions, refreshPending]);

  // Activity snapshots (runs starting / ending, requests asked / decided): badges, the
  // approvals count, and session titles (a session is named after its first message).
  useEffect(() => {
    if (!info || info.startupError) return;
    let live = true;
    ipc
      .watchActivity((snapshot) => {
        if (!live) return;
        activity.set(snapshot);
        void refreshPending();
        for (const id of Object.keys(sessionsRef.current)) void loadSessions(id);
      })
      .catch(fail);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [info, ipc, activity]);

  const add = useCallback(
    async (path: string) => {
      try {
        const item = await ipc.addWorkspace(path);
        dispatch({ type: "added", item });
        setRoute({ kind: "home" });
        void loadSessions(item.id);
        return true;
      } catch (e) {
        fail(e);
        return false;
      }
    },
    [ipc, fail, loadSessions],
  );

  const pick = useCallback(async () => {
    try {
      const path = await ipc.pickFolder();
      if (path) await add(path);
    } catch (e) {
      fail(e);
    }
  }, [ipc, add, fail]);

  const remove = useCallback(
    async (id: string) => {
      try {
        await ipc.removeWorkspace(id);
        dispatch({ type: "removed", id });
        setRoute({ kind: "home" });
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail],
  );

  // A workspace without profiles asks which engine first.
  const [choosingEngine, setChoosingEngine] = useState<string | null>(null);
  const newSession = useCallback(
    async (workspaceId: string, engine: Engine | null = null) => {
      try {
        if (!engine && (await ipc.listProfiles(workspaceId)).length === 0) {
          setChoosingEngine(workspaceId);
          return;
        }
        setChoosingEngine(null);
        const s = await ipc.createSession(workspaceId, null, engine);
        setSessions((all) => ({ ...all, [workspaceId]: [s, ...(all[workspaceId] ?? []).filter((x) => x.id !== s.id)] }));
        dispatch({ type: "selected", id: workspaceId });
        setRoute({ kind: "session", id: s.id, focus: null });
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail],
  );

  const openSession = useCallback((s: Session) => {
    dispatch({ type: "selected", id: s.workspaceId });
    setRoute({ kind: "session", id: s.id, focus: null });
  }, []);

  const sessionChanged = useCallback((s: Session) => {
    setSessions((all) => ({ ...all, [s.workspaceId]: (all[s.workspaceId] ?? []).map((x) => (x.id === s.id ? s : x)) }));
  }, []);

  const findSession = useCallback(
    (id: string) => {
      for (const [wid, list] of Object.entries(sessions)) {
        const session = list?.find((s) => s.id === id);
        if (session) return { session, workspace: state.items.find((w) => w.id === wid) };
      }
      return undefined;
    },
    [sessions, state.items],
  );

  const openApproval = useCallback(
    (a: Approval) => {
      const where = findSession(a.sessionId);
      if (where) dispatch({ type: "selected", id: where.session.workspaceId });
      setRoute({ kind: "session", id: a.sessionId, focus: { approvalId: a.id, itemId: a.itemId } });
    },
    [findSession],
  );

  // A notification's body was clicked: the window is brought up on that request's card
  // (a summary's click: the Approvals view).
  const openApprovalRef = useRef(openApproval);
  openApprovalRef.current = openApproval;
  useEffect(() => {
    if (!info || info.startupError) return;
    let live = true;
    ipc
      .watchNotificationClicks((a) => {
        if (!live) return;
        if (a) openApprovalRef.current(a);
        else setRoute({ kind: "approvals" });
        void refreshPending();
      })
      .catch(fail);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [info, ipc]);

  // Search (sidebar box, Ctrl/Cmd+K): results replace the main view while there is a query.
  const search = useMemo(() => new SearchController((q) => library.searchMessages(q, null, 50)), [library]);
  useEffect(() => () => search.dispose(), [search]);
  const searching = useSyncExternalStore(search.subscribe, search.get).query.trim() !== "";
  const openHit = useCallback(
    async (hit: SearchHit) => {
      search.clear();
      dispatch({ type: "selected", id: hit.workspaceId });
      // An archived session is not in the list unless shown: load it so it can open.
      if (!sessionsRef.current[hit.workspaceId]?.some((s) => s.id === hit.sessionId)) {
        try {
          const all = await ipc.listSessions(hit.workspaceId, true);
          const s = all.find((x) => x.id === hit.sessionId);
          if (s) setSessions((m) => ({ ...m, [hit.workspaceId]: [...(m[hit.workspaceId] ?? []), s] }));
        } catch (e) {
          fail(e);
        }
      }
      // The timeline scrolls to the item and marks it (the same path as an approval's card).
      setRoute({ kind: "session", id: hit.sessionId, focus: { approvalId: "", itemId: hit.itemId } });
    },
    [search, ipc, fail],
  );
  useEffect(() => {
    for (const id of Object.keys(sessionsRef.current)) void loadSessions(id);
  }, [showArchived, loadSessions]);
  const [exported, setExported] = useState<string | null>(null);
  const sessionActions = useMemo<SessionActionsCtx>(
    () => ({
      api: library,
      onChanged: (s) =>
        setSessions((all) => ({
          ...all,
          [s.workspaceId]: (all[s.workspaceId] ?? []).flatMap((x) => (x.id !== s.id ? [x] : s.archivedAt !== null && !showArchivedRef.current ? [] : [s])),
        })),
      onDeleted: (s) => {
        setSessions((all) => ({ ...all, [s.workspaceId]: (all[s.workspaceId] ?? []).filter((x) => x.id !== s.id) }));
        setRoute((r) => (r.kind === "session" && r.id === s.id ? { kind: "home" } : r));
      },
      onError: report,
      onExported: setExported,
    }),
    [library, report],
  );

  const selected = state.items.find((w) => w.id === state.selectedId) ?? null;
  const storeBroken = Boolean(info?.startupError);
  const current = route.kind === "session" ? findSession(route.id)?.session : undefined;
  const profilesOf = route.kind === "profiles" ? state.items.find((w) => w.id === route.workspaceId) : undefined;

  // Settings, the first-run screen and the keyboard (issue 13). Engines are checked at start
  // (a login probe only on a true first run: it starts each engine), again from Settings.
  const ready = Boolean(info && !info.startupError) && !state.loading;
  const engines = useEngineHealth(settingsApi, ready && painted, state.items.length === 0);
  const [setupDismissed, setSetupDismissed] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const showFirstRun = needsSetup(engines.health) && !setupDismissed;
  useEffect(() => {
    if (!ready) return;
    // Without stored preferences (or in a test without the shell) the defaults apply.
    settingsApi.getUiSettings().then(setUiSettingsLocal, (e) => console.warn("settings", e));
  }, [ready]);
  useEffect(() => {
    const open = () => setRoute({ kind: "settings" });
    window.addEventListener(OPEN_SETTINGS_EVENT, open);
    return () => window.removeEventListener(OPEN_SETTINGS_EVENT, open);
  }, []);
  const moveSession = (by: 1 | -1) => {
    const ordered = state.items.flatMap((w) => sessions[w.id] ?? []);
    const next = step(ordered.map((s) => s.id), route.kind === "session" ? route.id : null, by);
    const s = ordered.find((x) => x.id === next);
    if (s) openSession(s);
  };
  useShortcuts({
    newSession: () => {
      const wid = current?.workspaceId ?? selected?.id;
      if (wid && !storeBroken) void newSession(wid);
    },
    nextSession: () => moveSession(1),
    previousSession: () => moveSession(-1),
    focusComposer: () => void focusComposer(),
    openApprovals: () => {
      setRoute({ kind: "approvals" });
      void refreshPending();
    },
    settings: () => setRoute({ kind: "settings" }),
    shortcuts: () => setShortcutsOpen((o) => !o),
  });

  return (
    <IpcContext.Provider value={ipc}>
      <SessionActionsContext.Provider value={sessionActions}>
      <div className="app">
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
            onClick={() => {
              setRoute({ kind: "approvals" });
              void refreshPending();
            }}
            data-testid="approvals-entry"
          >
            <span>Approvals</span>
            <span className={`count${pending.length ? " waiting" : ""}`} data-testid="approvals-count">
              {pending.length}
            </span>
          </button>
          <h2 className="section-title">Workspaces</h2>
          <label className="sidebar-archived-toggle">
            <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
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
              setRoute({ kind: "home" });
            }}
            onRemove={remove}
            sessions={sessions}
            activity={activity}
            selectedSessionId={route.kind === "session" ? route.id : null}
            onOpenSession={openSession}
            onNewSession={(id) => void newSession(id)}
            choosingEngineFor={choosingEngine}
            onPickEngine={(id, engine) => (engine ? void newSession(id, engine) : setChoosingEngine(null))}
            onOpenProfiles={(id) => {
              dispatch({ type: "selected", id });
              setRoute({ kind: "profiles", workspaceId: id });
            }}
          />
          <AddWorkspace disabled={storeBroken} onAdd={add} onPick={pick} />
          <div className="sidebar-footer">
            <button
              type="button"
              className={`settings-entry${route.kind === "settings" ? " selected" : ""}`}
              aria-current={route.kind === "settings" ? "page" : undefined}
              disabled={storeBroken}
              onClick={() => setRoute({ kind: "settings" })}
            >
              Settings
            </button>
            <button type="button" className="shortcuts-entry" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={() => setShortcutsOpen(true)}>
              ?
            </button>
          </div>
        </aside>
        <main className="main">
          <ErrorBanner errors={state.errors} onDismiss={(index) => dispatch({ type: "dismissError", index })} />
          <Suspense fallback={<div className="timeline-loading muted">Loading…</div>}>
            {searching ? (
              <SearchResults controller={search} workspaces={state.items} onOpen={(hit) => void openHit(hit)} />
            ) : profilesOf ? (
              <ProfilesView key={profilesOf.id} workspace={profilesOf} />
            ) : route.kind === "settings" ? (
              <SettingsView engines={engines} onError={report} />
            ) : route.kind === "session" && current ? (
              <SessionView key={current.id} session={current} focusApproval={route.focus} onSessionChanged={sessionChanged} onError={report} />
            ) : route.kind === "approvals" ? (
              <ApprovalsView pending={pending} sessionOf={findSession} onOpen={openApproval} onDecided={() => void refreshPending()} />
            ) : selected ? (
              <>
                {showFirstRun && (
                  <FirstRun engines={engines} onOpenSettings={() => setRoute({ kind: "settings" })} onContinue={() => setSetupDismissed(true)} />
                )}
                <section className="workspace-view" aria-labelledby="workspace-title">
                <h1 id="workspace-title">{selected.name}</h1>
                <p className="path" data-testid="selected-workspace-path">
                  {selected.path}
                </p>
                <p className="hint">
                  {(sessions[selected.id]?.length ?? 0) > 0
                    ? "Pick a session in the sidebar, or start a new one."
                    : "Start a session with “New session” in the sidebar."}
                </p>
              </section>
              </>
            ) : showFirstRun ? (
              <FirstRun engines={engines} onOpenSettings={() => setRoute({ kind: "settings" })} onContinue={() => setSetupDismissed(true)} />
            ) : (
              <section className="empty" data-testid="empty-state">
                <h1>Welcome to Agent Desk</h1>
                <p>Add a workspace folder to start working with Claude Code or Codex in it.</p>
              </section>
            )}
          </Suspense>
          {info && (
            <footer className="status-bar" data-testid="status-bar">
              v{info.version} · data: {info.dataDir}
            </footer>
          )}
        </main>
      </div>
      {shortcutsOpen && (
        <Suspense fallback={null}>
          <ShortcutsSheet onClose={() => setShortcutsOpen(false)} />
        </Suspense>
      )}
      <KeepInTrayDialog ipc={ipc} enabled={Boolean(info && !info.startupError)} />
      </SessionActionsContext.Provider>
    </IpcContext.Provider>
  );
}
