// Which view the main area shows, in a small store of its own: the sidebar, the keyboard,
// notification clicks and links deep in a view ("Open Settings") all change it by calling
// `go`, never through DOM events.
import { useSyncExternalStore } from "react";

/** A card or a search hit to scroll to and mark in a session's timeline. */
export type SessionFocus = { approvalId: string; itemId: string | null };

export type Route =
  | { kind: "home" }
  | { kind: "approvals" }
  | { kind: "profiles"; workspaceId: string }
  | { kind: "settings" }
  | { kind: "session"; id: string; focus: SessionFocus | null };

export class Navigator {
  private route: Route = { kind: "home" };
  private readonly listeners = new Set<() => void>();

  get = (): Route => this.route;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Show `next` (or what `next` makes of the current route). */
  go = (next: Route | ((current: Route) => Route)) => {
    const route = typeof next === "function" ? next(this.route) : next;
    if (route === this.route) return;
    this.route = route;
    for (const l of [...this.listeners]) l();
  };

  openSettings = () => this.go({ kind: "settings" });
}

/** The current route, re-rendering on every change. */
export function useRoute(nav: Navigator): Route {
  return useSyncExternalStore(nav.subscribe, nav.get);
}

/** The session the route shows, if any. */
export function routedSessionId(route: Route): string | null {
  return route.kind === "session" ? route.id : null;
}
