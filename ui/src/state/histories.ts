// The background import of the engines' own histories, from `watch_histories`: kept out of
// React state so its progress (several times a second during a first import) re-renders only
// what shows it, not the whole window.
import { useSyncExternalStore } from "react";
import type { HistoryStatus } from "../ipc";

export class HistoryStore {
  private status: HistoryStatus | null = null;
  private listeners = new Set<() => void>();

  set(status: HistoryStatus): void {
    this.status = status;
    for (const l of [...this.listeners]) l();
  }

  get = (): HistoryStatus | null => this.status;

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
}

export function useHistoryStatus(store: HistoryStore): HistoryStatus | null {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
