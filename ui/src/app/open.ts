// Opening things: a session, a new session (a workspace without profiles asks which engine
// first), an approval's card (from the Approvals view or a notification's click), a search hit.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Approval, Engine, Ipc, Session } from "../ipc";
import type { SearchHit } from "../ipc/library";
import type { SearchController } from "../state/search";
import type { Desk } from "./desk";
import type { Navigator } from "./route";
import { findSession } from "./sessions";

export function useOpeners(ipc: Ipc, nav: Navigator, desk: Desk, search: SearchController) {
  const { dispatch, fail, sessions, state, refreshPending, ready } = desk;
  const find = useCallback((id: string) => findSession(sessions.sessions, state.items, id), [sessions.sessions, state.items]);

  const openSession = useCallback(
    (s: Session) => {
      dispatch({ type: "selected", id: s.workspaceId });
      nav.go({ kind: "session", id: s.id, focus: null });
    },
    [dispatch, nav],
  );

  // A workspace without profiles asks which engine first.
  const [choosingEngine, setChoosingEngine] = useState<string | null>(null);
  const { created } = sessions.edits;
  const newSession = useCallback(
    async (workspaceId: string, engine: Engine | null = null) => {
      try {
        if (!engine && (await ipc.listProfiles(workspaceId)).length === 0) {
          setChoosingEngine(workspaceId);
          return;
        }
        setChoosingEngine(null);
        const s = await ipc.createSession(workspaceId, null, engine);
        created(s);
        dispatch({ type: "selected", id: workspaceId });
        nav.go({ kind: "session", id: s.id, focus: null });
      } catch (e) {
        fail(e);
      }
    },
    [ipc, nav, dispatch, fail, created],
  );

  const openApproval = useCallback(
    (a: Approval) => {
      const where = find(a.sessionId);
      if (where) dispatch({ type: "selected", id: where.session.workspaceId });
      nav.go({ kind: "session", id: a.sessionId, focus: { approvalId: a.id, itemId: a.itemId } });
    },
    [find, dispatch, nav],
  );

  // A notification's body was clicked: the window is brought up on that request's card
  // (a summary's click: the Approvals view).
  const openApprovalRef = useRef(openApproval);
  openApprovalRef.current = openApproval;
  useEffect(() => {
    if (!ready) return;
    let live = true;
    ipc
      .watchNotificationClicks((a) => {
        if (!live) return;
        if (a) openApprovalRef.current(a);
        else nav.go({ kind: "approvals" });
        void refreshPending();
      })
      .catch(fail);
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, ipc]);

  const { ensureListed } = sessions;
  const openHit = useCallback(
    async (hit: SearchHit) => {
      search.clear();
      dispatch({ type: "selected", id: hit.workspaceId });
      await ensureListed(hit.workspaceId, hit.sessionId);
      // The timeline scrolls to the item and marks it (the same path as an approval's card).
      nav.go({ kind: "session", id: hit.sessionId, focus: { approvalId: "", itemId: hit.itemId } });
    },
    [search, dispatch, ensureListed, nav],
  );

  const openApprovals = useCallback(() => {
    nav.go({ kind: "approvals" });
    void refreshPending();
  }, [nav, refreshPending]);

  return { find, openSession, newSession, choosingEngine, setChoosingEngine, openApproval, openHit, openApprovals };
}

export type Openers = ReturnType<typeof useOpeners>;
