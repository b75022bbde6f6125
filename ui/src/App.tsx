import { useCallback, useEffect, useReducer, useState } from "react";
import { ErrorBanner } from "./components/ErrorBanner";
import { AddWorkspace } from "./components/AddWorkspace";
import { WorkspaceList } from "./components/WorkspaceList";
import { IpcFailure, toIpcError, type AppInfo, type Ipc } from "./ipc";
import { initialState, reducer } from "./state/workspaces";

export function App({ ipc }: { ipc: Ipc }) {
  const [state, dispatch] = useReducer(reducer, initialState);
  const [info, setInfo] = useState<AppInfo | null>(null);

  const fail = useCallback((e: unknown) => {
    dispatch({ type: "failed", error: e instanceof IpcFailure ? e.error : toIpcError(e) });
  }, []);

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
        if (!cancelled) dispatch({ type: "loaded", items });
      } catch (e) {
        if (!cancelled) fail(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [ipc, fail]);

  const add = useCallback(
    async (path: string) => {
      try {
        const item = await ipc.addWorkspace(path);
        dispatch({ type: "added", item });
        return true;
      } catch (e) {
        fail(e);
        return false;
      }
    },
    [ipc, fail],
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
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail],
  );

  const selected = state.items.find((w) => w.id === state.selectedId) ?? null;
  const storeBroken = Boolean(info?.startupError);

  return (
    <div className="app">
      <aside className="sidebar" aria-label="Workspaces">
        <header className="sidebar-header">
          <span className="brand">Agent Desk</span>
        </header>
        <h2 className="section-title">Workspaces</h2>
        <WorkspaceList
          items={state.items}
          loading={state.loading}
          unavailable={storeBroken}
          selectedId={state.selectedId}
          onSelect={(id) => dispatch({ type: "selected", id })}
          onRemove={remove}
        />
        <AddWorkspace disabled={storeBroken} onAdd={add} onPick={pick} />
      </aside>
      <main className="main">
        <ErrorBanner errors={state.errors} onDismiss={(index) => dispatch({ type: "dismissError", index })} />
        {selected ? (
          <section className="workspace-view" aria-labelledby="workspace-title">
            <h1 id="workspace-title">{selected.name}</h1>
            <p className="path" data-testid="selected-workspace-path">
              {selected.path}
            </p>
            <p className="hint">Sessions for this workspace will appear here.</p>
          </section>
        ) : (
          <section className="empty" data-testid="empty-state">
            <h1>Welcome to Agent Desk</h1>
            <p>Add a workspace folder to start working with Claude Code or Codex in it.</p>
          </section>
        )}
        {info && (
          <footer className="status-bar" data-testid="status-bar">
            v{info.version} · data: {info.dataDir}
          </footer>
        )}
      </main>
    </div>
  );
}
