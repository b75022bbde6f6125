// The window's keyboard shortcuts: one table for the `?` sheet and the key handler, so the
// sheet never lists a key that does nothing.
import { useEffect, useRef } from "react";

export type ShortcutAction =
  | "newSession"
  | "nextSession"
  | "previousSession"
  | "focusComposer"
  | "openApprovals"
  | "search"
  | "settings"
  | "shortcuts";

export interface Shortcut {
  action: ShortcutAction;
  keys: string;
  label: string;
  /** Matches the event (`mod` is Ctrl, or Cmd on macOS). */
  matches: (e: KeyboardEvent, mod: boolean) => boolean;
  /** Handled elsewhere (search belongs to the search box); listed only. */
  listedOnly?: boolean;
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? "Cmd" : "Ctrl";

export const SHORTCUTS: Shortcut[] = [
  { action: "newSession", keys: `${MOD}+Shift+N`, label: "New session in the current workspace", matches: (e, m) => m && e.shiftKey && e.key.toLowerCase() === "n" },
  { action: "nextSession", keys: "Alt+↓", label: "Next session", matches: (e) => e.altKey && !e.ctrlKey && !e.metaKey && e.key === "ArrowDown" },
  { action: "previousSession", keys: "Alt+↑", label: "Previous session", matches: (e) => e.altKey && !e.ctrlKey && !e.metaKey && e.key === "ArrowUp" },
  { action: "focusComposer", keys: `${MOD}+L`, label: "Focus the message box", matches: (e, m) => m && !e.shiftKey && e.key.toLowerCase() === "l" },
  { action: "openApprovals", keys: `${MOD}+Shift+A`, label: "Open Approvals", matches: (e, m) => m && e.shiftKey && e.key.toLowerCase() === "a" },
  { action: "search", keys: `${MOD}+K`, label: "Search all sessions", matches: () => false, listedOnly: true },
  { action: "settings", keys: `${MOD}+,`, label: "Settings", matches: (e, m) => m && e.key === "," },
  { action: "shortcuts", keys: "?", label: "This list of shortcuts", matches: (e) => e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey },
];

/** Typing in a field: `?` is a character there, not a command. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
  return false;
}

/** The shortcut an event triggers, if any. */
export function shortcutFor(e: KeyboardEvent): ShortcutAction | null {
  const mod = isMac ? e.metaKey : e.ctrlKey;
  for (const s of SHORTCUTS) {
    if (s.listedOnly || !s.matches(e, mod)) continue;
    // Plain keys (`?`) only outside text fields; chords work everywhere.
    if (s.action === "shortcuts" && isTyping(e.target)) return null;
    return s.action;
  }
  return null;
}

/** Listen on the window; `handlers` may change every render. */
export function useShortcuts(handlers: Partial<Record<ShortcutAction, () => void>>) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing) return;
      const action = shortcutFor(e);
      const run = action ? ref.current[action] : undefined;
      if (!run) return;
      e.preventDefault();
      run();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** The next (+1) or previous (-1) id in `ids` after `current`, wrapping; `null` when empty. */
export function step(ids: string[], current: string | null, by: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const i = current === null ? -1 : ids.indexOf(current);
  if (i === -1) return (by === 1 ? ids[0] : ids[ids.length - 1]) ?? null;
  return ids[(i + by + ids.length) % ids.length] ?? null;
}

/** Put the cursor in the open session's message box. */
export function focusComposer(): boolean {
  const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
  box?.focus();
  return box !== null;
}
