// The views that are not the first screen, each its own chunk.
//
// The chat (markdown, highlighting, diffs, the virtual list) is its own chunk: the window paints
// the sidebar without it, and it is fetched right after, before anyone opens a session.
// WebKit (the Linux and macOS webview) can resolve a dynamic import of a module that is
// already being imported before that module has finished evaluating: the view then rendered
// with its classes and constants still uninitialised ("Cannot access uninitialized
// variable"). So each chunk is imported exactly once, through one memoised promise, and the
// approvals view (which shares the cards' chunk) only after the session view.
import { lazy } from "react";
import { preloadable } from "../preload";

let sessionViewModule: ReturnType<typeof importSessionView> | undefined;
let approvalsViewModule: ReturnType<typeof importApprovalsView> | undefined;
function importSessionView() {
  return import("../components/session/SessionView");
}
function importApprovalsView() {
  return import("../components/approvals/ApprovalsView");
}
const loadSessionView = () => (sessionViewModule ??= importSessionView());
const loadApprovalsView = () => (approvalsViewModule ??= loadSessionView().then(importApprovalsView));
// Fetched after the first paint; once there they render without suspending (see `preloadable`).
const sessionView = preloadable(() => loadSessionView().then((m) => m.SessionView));
const approvalsView = preloadable(() => loadApprovalsView().then((m) => m.ApprovalsView));
export const SessionView = sessionView.Component;
export const ApprovalsView = approvalsView.Component;

/** Fetch the session and approvals views (after the first paint). */
export function preloadViews() {
  void sessionView.preload();
  void approvalsView.preload();
}

// Screens the first one never shows are their own chunks too, fetched when first opened: the
// window's first script is then React, the sidebar and the workspace view (issue 12).
const once = <T>(load: () => Promise<T>) => {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
};
// Settings shares a chunk (util/format) with the session view: imported after it, for the
// WebKit reason above (the session view is fetched right after start anyway).
export const SettingsView = lazy(once(() => loadSessionView().then(() => import("../components/settings/SettingsView")).then((m) => ({ default: m.SettingsView }))));
export const ProfilesView = lazy(once(() => import("../components/profiles/ProfilesView").then((m) => ({ default: m.ProfilesView }))));
export const SearchResults = lazy(once(() => import("../components/search/SearchResults").then((m) => ({ default: m.SearchResults }))));
export const ShortcutsSheet = lazy(once(() => import("../components/shortcuts/ShortcutsSheet").then((m) => ({ default: m.ShortcutsSheet }))));
