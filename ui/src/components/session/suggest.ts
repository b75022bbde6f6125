// The keys of the composer's suggestion lists (`@` files, `/` and `$` commands): arrows move,
// Enter or Tab picks, Escape closes. One place, so both lists behave alike.
import type { KeyboardEvent } from "react";

export interface ListKeys {
  count: number;
  move: (step: 1 | -1) => void;
  pick: () => void;
  dismiss: () => void;
}

/** Handles a key for an open list; `true` when the list used it (and the event is done). */
export function onListKey(e: KeyboardEvent<HTMLTextAreaElement>, list: ListKeys): boolean {
  if (list.count === 0 || e.nativeEvent.isComposing) return false;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") list.move(e.key === "ArrowDown" ? 1 : -1);
  else if (e.key === "Enter" || e.key === "Tab") list.pick();
  else if (e.key === "Escape") list.dismiss();
  else return false;
  e.preventDefault();
  return true;
}
