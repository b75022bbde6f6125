// App-wide activity (running / queued / waiting per session), from `watch_activity`.
// Each message is a full snapshot: sessions absent from it are idle.
import { useCallback, useSyncExternalStore } from "react";
import type { SessionActivity } from "../ipc";

export class ActivityStore {
  private bySession = new Map<string, SessionActivity>();
  private waitingTotal = 0;
  private listeners = new Set<() => void>();

  set(snapshot: SessionActivity[]): void {
    const next = new Map<string, SessionActivity>();
    for (const a of snapshot) {
      const old = this.bySession.get(a.sessionId);
      // Keep the old object when nothing changed, so unchanged rows do not re-render.
      const same = old && old.running === a.running && old.queued === a.queued && old.waiting === a.waiting;
      next.set(a.sessionId, same ? old : a);
    }
    this.bySession = next;
    this.waitingTotal = snapshot.reduce((n, a) => n + a.waiting, 0);
    for (const l of [...this.listeners]) l();
  }

  get = (sessionId: string): SessionActivity | undefined => this.bySession.get(sessionId);
  waiting = (): number => this.waitingTotal;

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
}

export function useSessionActivity(store: ActivityStore, sessionId: string): SessionActivity | undefined {
  const read = useCallback(() => store.get(sessionId), [store, sessionId]);
  return useSyncExternalStore(store.subscribe, read, read);
}

export function useWaitingTotal(store: ActivityStore): number {
  return useSyncExternalStore(store.subscribe, store.waiting, store.waiting);
}
