import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SearchHit } from "../generated/SearchHit";
import { SearchController } from "./search";

function hit(itemId: string): SearchHit {
  return {
    itemId,
    sessionId: "s1",
    sessionTitle: "t",
    workspaceId: "w1",
    runId: "r1",
    kind: "agent_message",
    snippet: [{ text: itemId, highlight: true }],
    rank: -1,
    createdAt: 1,
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("SearchController", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("searches once typing pauses, with the last query only", async () => {
    const search = vi.fn(async (q: string) => [hit(q)]);
    const c = new SearchController(search, 150);
    for (const q of ["k", "ke", "ket", "kettle"]) {
      c.setQuery(q);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(search).not.toHaveBeenCalled();
    expect(c.get().loading).toBe(true);
    await vi.advanceTimersByTimeAsync(150);
    expect(search).toHaveBeenCalledTimes(1);
    expect(search).toHaveBeenCalledWith("kettle");
    expect(c.get()).toMatchObject({ query: "kettle", answered: "kettle", loading: false, hits: [hit("kettle")] });
  });

  it("drops a stale answer that arrives after a newer one", async () => {
    const calls: { q: string; d: ReturnType<typeof deferred<SearchHit[]>> }[] = [];
    const c = new SearchController((q) => {
      const d = deferred<SearchHit[]>();
      calls.push({ q, d });
      return d.promise;
    }, 10);
    c.setQuery("old");
    await vi.advanceTimersByTimeAsync(10);
    c.setQuery("new");
    await vi.advanceTimersByTimeAsync(10);
    expect(calls.map((x) => x.q)).toEqual(["old", "new"]);
    calls[1]!.d.resolve([hit("new")]);
    await vi.advanceTimersByTimeAsync(0);
    calls[0]!.d.resolve([hit("old")]);
    await vi.advanceTimersByTimeAsync(0);
    expect(c.get().hits).toEqual([hit("new")]);
    expect(c.get().answered).toBe("new");
    // A late failure of the stale query does not show either.
    c.setQuery("newer");
    await vi.advanceTimersByTimeAsync(10);
    calls[2]!.d.reject({ code: "internal", message: "boom" });
    await vi.advanceTimersByTimeAsync(0);
    expect(c.get().error).toBe("boom");
  });

  it("clearing cancels a pending search and an answer on its way", async () => {
    const d = deferred<SearchHit[]>();
    const search = vi.fn(() => d.promise);
    const c = new SearchController(search, 10);
    c.setQuery("kettle");
    await vi.advanceTimersByTimeAsync(10);
    c.clear();
    d.resolve([hit("kettle")]);
    await vi.advanceTimersByTimeAsync(0);
    expect(c.get()).toMatchObject({ query: "", hits: [], loading: false, answered: null });
    c.setQuery("teapot");
    c.setQuery("   ");
    await vi.advanceTimersByTimeAsync(50);
    expect(search).toHaveBeenCalledTimes(1);
  });

  it("notifies subscribers on every change", () => {
    const c = new SearchController(async () => [], 10);
    const l = vi.fn();
    const off = c.subscribe(l);
    c.setQuery("a");
    off();
    c.setQuery("ab");
    expect(l).toHaveBeenCalledTimes(1);
  });
});
