import { describe, expect, it } from "vitest";
import { initialState, reducer, type WorkspacesState } from "./workspaces";
import type { Workspace } from "../ipc";

const ws = (id: string, name: string, createdAt = 1): Workspace => ({ id, name, path: `/p/${id}`, createdAt });

describe("workspaces reducer", () => {
  it("sorts by name and selects the first on load", () => {
    const s = reducer(initialState, { type: "loaded", items: [ws("b", "beta"), ws("a", "Alpha")] });
    expect(s.items.map((w) => w.id)).toEqual(["a", "b"]);
    expect(s.selectedId).toBe("a");
    expect(s.loading).toBe(false);
  });

  it("selects what was added and keeps the list sorted without duplicates", () => {
    let s = reducer(initialState, { type: "loaded", items: [ws("b", "beta")] });
    s = reducer(s, { type: "added", item: ws("a", "alpha") });
    s = reducer(s, { type: "added", item: ws("a", "alpha") });
    expect(s.items.map((w) => w.id)).toEqual(["a", "b"]);
    expect(s.selectedId).toBe("a");
  });

  it("moves the selection when the selected workspace is removed", () => {
    let s: WorkspacesState = reducer(initialState, { type: "loaded", items: [ws("a", "a"), ws("b", "b")] });
    s = reducer(s, { type: "removed", id: "a" });
    expect(s.selectedId).toBe("b");
    s = reducer(s, { type: "removed", id: "b" });
    expect(s.selectedId).toBeNull();
    expect(s.items).toEqual([]);
  });

  it("collects distinct errors and dismisses them by index", () => {
    let s = reducer(initialState, { type: "failed", error: { code: "invalid_input", message: "x does not exist" } });
    s = reducer(s, { type: "failed", error: { code: "invalid_input", message: "x does not exist" } });
    s = reducer(s, { type: "failed", error: { code: "conflict", message: "already added" } });
    expect(s.errors).toHaveLength(2);
    s = reducer(s, { type: "dismissError", index: 0 });
    expect(s.errors).toEqual([{ code: "conflict", message: "already added" }]);
  });
});
