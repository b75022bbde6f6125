// Opening things: a session, a new session (a workspace without profiles asks which engine
// first), an approval's card (from the Approvals view or a notification's click), a search hit.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Approval, Engine, Ipc, Session } from "../ipc";
import { worktreeApi, type NewWorktree } from "../ipc/worktrees";
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

  // A workspace without profiles asks which engine first (a worktree asked for waits with it).
  const [choosingEngine, showEngineChoice] = useState<string | null>(null);
  const pendingWorktree = useRef<NewWorktree | null>(null);
  // Closing the choice (Cancel, or another new session) drops the worktree it waited with.
  const setChoosingEngine = useCallback((workspaceId: string | null) => {
    if (workspaceId === null) pendingWorktree.current = null;
    showEngineChoice(workspaceId);
  }, []);
  // "New session in a worktree" opens its choice (base branch, the workspace's setting).
  const [choosingWorktree, setChoosingWorktree] = useState<string | null>(null);
  const { created } = sessions.edits;
  const newSession = useCallback(
    async (workspaceId: string, engine: Engine | null = null, worktree?: NewWorktree) => {
      try {
        setChoosingWorktree(null);
        let inWorktree = worktree ?? (engine ? pendingWorktree.current : null);
        if (worktree === undefined && !engine) {
          // A plain "New session" follows the workspace's "Isolate new sessions in worktrees".
          const git = await worktreeApi.workspaceGit(workspaceId).catch(() => null);
          if (git?.isolateNewSessions) {
            if (git.unavailable !== null) throw { code: "invalid_input", message: `This workspace isolates new sessions in worktrees, but ${git.unavailable}` };
            inWorktree = { base: null, nameHint: null };
          }
        }
        if (!engine && (await ipc.listProfiles(workspaceId)).length === 0) {
          pendingWorktree.current = inWorktree;
          setChoosingEngine(workspaceId);
          return;
        }
        setChoosingEngine(null);
        pendingWorktree.current = null;
        const s = await ipc.createSession(workspaceId, null, engine, inWorktree);
        created(s);
        dispatch({ type: "selected", id: workspaceId });
        nav.go({ kind: "session", id: s.id, focus: null });
      } catch (e) {
        fail(e);
      }
    },
    [ipc, nav, dispatch, fail, created, setChoosingEngine],
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

  return { find, openSession, newSession, choosingEngine, setChoosingEngine, choosingWorktree, setChoosingWorktree, openApproval, openHit, openApprovals };
}

export type Openers = ReturnType<typeof useOpeners>;
