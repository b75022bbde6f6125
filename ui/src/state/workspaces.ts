// Workspace list state: a pure reducer, so the UI logic is testable without Tauri.
import type { IpcError, Workspace } from "../ipc";

export interface WorkspacesState {
  items: Workspace[];
  selectedId: string | null;
  loading: boolean;
  errors: IpcError[];
}

export const initialState: WorkspacesState = { items: [], selectedId: null, loading: true, errors: [] };

export type Action =
  | { type: "loaded"; items: Workspace[] }
  | { type: "added"; item: Workspace }
  | { type: "removed"; id: string }
  | { type: "selected"; id: string | null }
  | { type: "failed"; error: IpcError }
  | { type: "dismissError"; index: number };

const byName = (a: Workspace, b: Workspace) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: "base" }) || a.createdAt - b.createdAt;

export function reducer(state: WorkspacesState, action: Action): WorkspacesState {
  switch (action.type) {
    case "loaded": {
      const items = [...action.items].sort(byName);
      const selectedId = items.some((w) => w.id === state.selectedId) ? state.selectedId : (items[0]?.id ?? null);
      return { ...state, items, selectedId, loading: false };
    }
    case "added":
      return {
        ...state,
        items: [...state.items.filter((w) => w.id !== action.item.id), action.item].sort(byName),
        selectedId: action.item.id,
      };
    case "removed": {
      const items = state.items.filter((w) => w.id !== action.id);
      const selectedId = state.selectedId === action.id ? (items[0]?.id ?? null) : state.selectedId;
      return { ...state, items, selectedId };
    }
    case "selected":
      return { ...state, selectedId: action.id };
    case "failed":
      // The same message twice in a row is shown once.
      if (state.errors.some((e) => e.code === action.error.code && e.message === action.error.message)) {
        return { ...state, loading: false };
      }
      return { ...state, loading: false, errors: [...state.errors, action.error] };
    case "dismissError":
      return { ...state, errors: state.errors.filter((_, i) => i !== action.index) };
  }
}
