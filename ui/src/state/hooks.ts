import { useCallback, useSyncExternalStore } from "react";
import type { SessionStore } from "./sessionStore";

/** Subscribes to one key of a session store and reads it with `read`. */
function useKey<T>(store: SessionStore, key: string, read: () => T): T {
  const subscribe = useCallback((l: () => void) => store.subscribe(key, l), [store, key]);
  return useSyncExternalStore(subscribe, read, read);
}

export const useRows = (store: SessionStore) => useKey(store, "rows", store.rows);
export const useActiveRuns = (store: SessionStore) => useKey(store, "active", store.active);
export const useDiagnostics = (store: SessionStore) => useKey(store, "diagnostics", store.diagnosticItems);
export const usePlan = (store: SessionStore) => useKey(store, "plan", store.currentPlan);

export function useItem(store: SessionStore, id: string) {
  return useKey(store, id, useCallback(() => store.item(id), [store, id]));
}

/** The items nested under the tool call `parentId` (a subagent's work). */
export function useChildren(store: SessionStore, parentId: string) {
  return useKey(store, `children:${parentId}`, useCallback(() => store.childrenOf(parentId), [store, parentId]));
}

export function useRun(store: SessionStore, runId: string) {
  const key = `run:${runId}`;
  const run = useKey(store, key, useCallback(() => store.run(runId), [store, runId]));
  const usage = useKey(store, key, useCallback(() => store.runUsage(runId), [store, runId]));
  return { run, usage };
}

export function useApproval(store: SessionStore | null, approvalId: string | null) {
  const subscribe = useCallback(
    (l: () => void) => (store && approvalId ? store.subscribe(`approval:${approvalId}`, l) : () => {}),
    [store, approvalId],
  );
  const read = useCallback(() => (store && approvalId ? store.approval(approvalId) : undefined), [store, approvalId]);
  return useSyncExternalStore(subscribe, read, read);
}
