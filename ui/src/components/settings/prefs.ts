// The window's preferences (theme, send key), loaded once and shared: the theme is a class
// on the root element (the CSP forbids inline styles), the composer reads the send key.
import { useSyncExternalStore } from "react";
import type { UiSettings } from "../../ipc/settings";
import "./theme.css";

let current: UiSettings = { theme: "system", sendKey: "enter" };
const listeners = new Set<() => void>();

export function uiSettings(): UiSettings {
  return current;
}

export function setUiSettingsLocal(next: UiSettings) {
  current = next;
  applyTheme(next.theme, document.documentElement);
  for (const l of listeners) l();
}

/** `theme-light` / `theme-dark` on the root force a look; neither follows the system. */
export function applyTheme(theme: UiSettings["theme"], root: HTMLElement) {
  root.classList.toggle("theme-light", theme === "light");
  root.classList.toggle("theme-dark", theme === "dark");
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useUiSettings(): UiSettings {
  return useSyncExternalStore(subscribe, uiSettings, uiSettings);
}

/** Whether a key press in the composer sends (the other combination inserts a new line). */
export function isSendKey(
  sendKey: UiSettings["sendKey"],
  e: { key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean },
): boolean {
  if (e.key !== "Enter" || e.shiftKey) return false;
  // Enter mode: Ctrl+Enter sends too (a habit from other apps must not insert a line).
  return sendKey === "ctrl_enter" ? e.ctrlKey || e.metaKey : true;
}
