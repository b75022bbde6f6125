// The sidebar's sessions, per workspace: loaded when the workspace is, reloaded on every
// activity snapshot (a session is named after its first message) and when "Show archived"
// changes, and patched in place when a session is created, renamed, archived or deleted.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Ipc, Session, Workspace } from "../ipc";

export type SessionsByWorkspace = Record<string, Session[] | undefined>;

export function useSessions(ipc: Ipc, fail: (e: unknown) => void) {
  const [sessions, setSessions] = useState<SessionsByWorkspace>({});
  // The workspaces whose sessions are loaded, read by callbacks that outlive a render.
  const loaded = useRef(sessions);
  loaded.current = sessions;
  // "Show archived": archived sessions are listed too (marked), else hidden.
  const [showArchived, setShowArchived] = useState(false);
  const archivedShown = useRef(showArchived);
  archivedShown.current = showArchived;

  const load = useCallback(
    async (workspaceId: string) => {
      try {
        const list = await ipc.listSessions(workspaceId, archivedShown.current);
        setSessions((s) => ({ ...s, [workspaceId]: list }));
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail],
  );
  const reloadAll = useCallback(() => {
    for (const id of Object.keys(loaded.current)) void load(id);
  }, [load]);
  useEffect(() => reloadAll(), [showArchived, reloadAll]);

  const patch = useCallback((workspaceId: string, f: (list: Session[]) => Session[]) => {
    setSessions((all) => ({ ...all, [workspaceId]: f(all[workspaceId] ?? []) }));
  }, []);
  const edits = useMemo(
    () => ({
      /** A new session, first in its workspace. */
      created: (s: Session) => patch(s.workspaceId, (list) => [s, ...list.filter((x) => x.id !== s.id)]),
      /** A session's new state from its view (title, profile). */
      changed: (s: Session) => patch(s.workspaceId, (list) => list.map((x) => (x.id === s.id ? s : x))),
      /** Renamed, archived or unarchived from the sidebar: archived ones leave unless shown. */
      edited: (s: Session) =>
        patch(s.workspaceId, (list) => list.flatMap((x) => (x.id !== s.id ? [x] : s.archivedAt !== null && !archivedShown.current ? [] : [s]))),
      deleted: (s: Session) => patch(s.workspaceId, (list) => list.filter((x) => x.id !== s.id)),
    }),
    [patch],
  );

  /** Make sure a session is listed, so it can open (an archived one is not unless shown). */
  const ensureListed = useCallback(
    async (workspaceId: string, sessionId: string) => {
      if (loaded.current[workspaceId]?.some((s) => s.id === sessionId)) return;
      try {
        const s = (await ipc.listSessions(workspaceId, true)).find((x) => x.id === sessionId);
        if (s) patch(workspaceId, (list) => [...list, s]);
      } catch (e) {
        fail(e);
      }
    },
    [ipc, fail, patch],
  );

  return { sessions, load, reloadAll, edits, ensureListed, showArchived, setShowArchived };
}

export type Sessions = ReturnType<typeof useSessions>;

/** The listed session with this id, and its workspace. */
export function findSession(sessions: SessionsByWorkspace, workspaces: Workspace[], id: string) {
  for (const [wid, list] of Object.entries(sessions)) {
    const session = list?.find((s) => s.id === id);
    if (session) return { session, workspace: workspaces.find((w) => w.id === wid) };
  }
  return undefined;
}
