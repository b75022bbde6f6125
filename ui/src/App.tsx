// The window: the sidebar and the main view, wired to the desk's state (`app/desk`), the
// router (`app/route`) and the keyboard. What each part does lives in `app/`.
import { Suspense, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { ErrorBanner } from "./components/ErrorBanner";
import { needsSetup, useEngineHealth } from "./components/firstrun/health";
import { setUiSettingsLocal } from "./components/settings/prefs";
import { focusComposer, step, useShortcuts } from "./components/shortcuts/shortcuts";
import { SessionActionsContext, type SessionActionsCtx } from "./components/sidebar/SessionActions";
import { KeepInTrayDialog } from "./components/tray/KeepInTrayDialog";
import { type Ipc } from "./ipc";
import { IpcContext } from "./ipc/context";
import { libraryApi, type LibraryApi } from "./ipc/library";
import { settingsApi } from "./ipc/settings";
import { firstPaint } from "./startup";
import { SearchController } from "./state/search";
import { useDesk } from "./app/desk";
import { MainView } from "./app/MainView";
import { NavigationContext } from "./app/navigation";
import { useOpeners } from "./app/open";
import { Navigator, routedSessionId, useRoute } from "./app/route";
import { Sidebar } from "./app/Sidebar";
import { preloadViews, ShortcutsSheet } from "./app/views";
import { RateLimitsBar } from "./components/RateLimitsBar";

export function App({ ipc, library = libraryApi }: { ipc: Ipc; library?: LibraryApi }) {
  const nav = useMemo(() => new Navigator(), []);
  const route = useRoute(nav);
  const desk = useDesk(ipc, nav);
  const { state, dispatch, info, sessions } = desk;

  // The first screen is painted before anything it does not need is fetched or started: the
  // session view's chunk (parsing it took the CPU the first paint needed) and the engine probe.
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let live = true;
    void firstPaint().then(() => {
      if (!live) return;
      setPainted(true);
      preloadViews();
    });
    return () => {
      live = false;
    };
  }, []);

  // Search (sidebar box, Ctrl/Cmd+K): results replace the main view while there is a query.
  const search = useMemo(() => new SearchController((q) => library.searchMessages(q, null, 50)), [library]);
  useEffect(() => () => search.dispose(), [search]);
  const searching = useSyncExternalStore(search.subscribe, search.get).query.trim() !== "";
  const open = useOpeners(ipc, nav, desk, search);

  const [exported, setExported] = useState<string | null>(null);
  const { edits } = sessions;
  const sessionActions = useMemo<SessionActionsCtx>(
    () => ({
      api: library,
      onChanged: edits.edited,
      onDeleted: (s) => {
        edits.deleted(s);
        nav.go((r) => (r.kind === "session" && r.id === s.id ? { kind: "home" } : r));
      },
      onError: desk.report,
      onExported: setExported,
    }),
    [library, edits, nav, desk.report],
  );

  // Settings, the first-run screen and the keyboard (issue 13). Engines are checked at start
  // (a login probe only on a true first run: it starts each engine), again from Settings.
  const storeBroken = Boolean(info?.startupError);
  const ready = desk.ready && !state.loading;
  const engines = useEngineHealth(settingsApi, ready && painted, state.items.length === 0);
  const [setupDismissed, setSetupDismissed] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  useEffect(() => {
    if (!ready) return;
    // Without stored preferences (or in a test without the shell) the defaults apply.
    settingsApi.getUiSettings().then(setUiSettingsLocal, (e) => console.warn("settings", e));
  }, [ready]);
  const moveSession = (by: 1 | -1) => {
    const ordered = state.items.flatMap((w) => sessions.sessions[w.id] ?? []);
    const next = step(ordered.map((s) => s.id), routedSessionId(route), by);
    const s = ordered.find((x) => x.id === next);
    if (s) open.openSession(s);
  };
  useShortcuts({
    newSession: () => {
      const current = route.kind === "session" ? open.find(route.id)?.session : undefined;
      const wid = current?.workspaceId ?? state.items.find((w) => w.id === state.selectedId)?.id;
      if (wid && !storeBroken) void open.newSession(wid);
    },
    nextSession: () => moveSession(1),
    previousSession: () => moveSession(-1),
    focusComposer: () => void focusComposer(),
    openApprovals: open.openApprovals,
    settings: nav.openSettings,
    shortcuts: () => setShortcutsOpen((o) => !o),
  });

  return (
    <NavigationContext.Provider value={nav}>
      <IpcContext.Provider value={ipc}>
        <SessionActionsContext.Provider value={sessionActions}>
          <div className="app">
            <Sidebar desk={desk} open={open} nav={nav} route={route} search={search} exported={exported} onShortcuts={() => setShortcutsOpen(true)} />
            <main className="main">
              <ErrorBanner errors={state.errors} onDismiss={(index) => dispatch({ type: "dismissError", index })} />
              <Suspense fallback={<div className="timeline-loading muted">Loading…</div>}>
                <MainView
                  desk={desk}
                  open={open}
                  nav={nav}
                  route={route}
                  search={search}
                  searching={searching}
                  engines={engines}
                  firstRun={needsSetup(engines.health) && !setupDismissed}
                  onSetupDismissed={() => setSetupDismissed(true)}
                />
              </Suspense>
              {info && (
                <footer className="status-bar" data-testid="status-bar">
                  <span className="status-info">
                    v{info.version} · data: {info.dataDir}
                  </span>
                  <RateLimitsBar />
                </footer>
              )}
            </main>
          </div>
          {shortcutsOpen && (
            <Suspense fallback={null}>
              <ShortcutsSheet onClose={() => setShortcutsOpen(false)} />
            </Suspense>
          )}
          <KeepInTrayDialog ipc={ipc} enabled={desk.ready} />
        </SessionActionsContext.Provider>
      </IpcContext.Provider>
    </NavigationContext.Provider>
  );
}
