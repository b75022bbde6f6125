// What the window knows of the desk: the app's info, the workspaces (and their errors), the
// sessions cache, the pending approvals and the activity badges; loaded at start and kept
// current by the activity feed.
import { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import { errorOf, type AppInfo, type Approval, type IpcError, type Ipc } from "../ipc";
import { ActivityStore } from "../state/activity";
import { HistoryStore } from "../state/histories";
import { initialState, reducer } from "../state/workspaces";
import type { Navigator } from "./route";
import { useSessions } from "./sessions";

export function useDesk(ipc: Ipc, nav: Navigator) {
  const [state, dispatch] = useReducer(reducer, initialState);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [pending, setPending] = useState<Approval[]>([]);
  const activity = useMemo(() => new ActivityStore(), []);
  const histories = useMemo(() => new HistoryStore(), []);
  const fail = useCallback((e: unknown) => dispatch({ type: "failed", error: errorOf(e) }), []);
  const report = useCallback((e: IpcError) => dispatch({ type: "failed", error: e }), []);
  const sessions = useSessions(ipc, fail);
  const { load: loadSessions, reloadAll } = sessions;

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
  const ready = Boolean(info && !info.startupError);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    ipc
      .watchActivity((snapshot) => {
        if (!live) return;
        activity.set(snapshot);
        void refreshPending();
        reloadAll();
      })
      .catch(fail);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, ipc, activity]);

  // The engines' own histories, imported and watched in the background: the status (progress,
  // what each source found) for the sidebar and Settings; a new generation means sessions
  // were added or changed, so the lists are read again (an open session's view re-reads
  // itself).
  useEffect(() => {
    if (!ready) return;
    let live = true;
    let generation = 0;
    ipc
      .watchHistories((status) => {
        if (!live) return;
        histories.set(status);
        if (status.generation !== generation) {
          generation = status.generation;
          reloadAll();
        }
      })
      .catch(fail);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, ipc, histories]);
  const rescanHistories = useCallback(() => {
    ipc.rescanHistories().catch(fail);
  }, [ipc, fail]);

  /** Adds the workspace; a refusal is thrown to the caller (the remote dialog shows it). */
  const addOrThrow = useCallback(
    async (path: string) => {
      const item = await ipc.addWorkspace(path);
      dispatch({ type: "added", item });
      nav.go({ kind: "home" });
      void loadSessions(item.id);
      // Sessions a terminal ran in that folder come in now.
      if (ready) rescanHistories();
    },
    [ipc, nav, loadSessions, ready, rescanHistories],
  );
  const add = useCallback(
    async (path: string) => {
      try {
        await addOrThrow(path);
        return true;
      } catch (e) {
        fail(e);
        return false;
      }
    },
    [addOrThrow, fail],
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
        nav.go({ kind: "home" });
      } catch (e) {
        fail(e);
      }
    },
    [ipc, nav, fail],
  );

  return {
    state,
    dispatch,
    info,
    ready,
    pending,
    refreshPending,
    activity,
    histories,
    rescanHistories,
    fail,
    report,
    sessions,
    add,
    addOrThrow,
    pick,
    remove,
  };
}

export type Desk = ReturnType<typeof useDesk>;
