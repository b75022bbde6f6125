import { describe, expect, it, vi } from "vitest";
import { agent, approval, item, reset, run, tool, user } from "../test/items";
import type { TimelineItem, TimelinePage } from "../ipc";
import { ANY, BULK_CHARS, BULK_FLUSH_MS, BUSY_FACTOR, isRunKey, MIN_FLUSH_MS, pacedFlush, runIdOf, runKey, SessionStore, WINDOW_ITEMS } from "./sessionStore";

const batch = (seq: number, ops: Parameters<SessionStore["applyOp"]>[0][]) => ({ sessionId: "s1", seq, ops });

describe("SessionStore", () => {
  it("starts from a reset: rows are the items with each run's status line after them", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "hi"), agent("r1", "m", "hello"), user("r2", "more")], [run({ id: "r1" }), run({ id: "r2", seq: 2, status: "running" })], [], 42)]));
    const rows = s.rows();
    expect(rows.loaded).toBe(true);
    expect(rows.before).toBe(42);
    expect(rows.keys).toEqual(["r1:user", "r1:m", runKey("r1"), "r2:user", runKey("r2")]);
    expect(s.active().map((r) => r.id)).toEqual(["r2"]);
  });

  it("keeps diagnostics and usage out of the rows", () => {
    const s = new SessionStore("s1");
    const diag = item("r1", "diag:1", { kind: "diagnostic", source: "stderr", message: "warn", raw: null });
    const usage = item("r1", "usage", { kind: "usage", input: 10, cached: 0, output: 5, reasoning: 0, costUsd: 0.01 });
    const end = item("r1", "end", { kind: "notice", level: "error", text: "boom" });
    s.applyBatch(batch(1, [reset([user("r1", "hi"), diag, usage, end], [run()])]));
    expect(s.rows().keys).toEqual(["r1:user", runKey("r1")]);
    expect(s.diagnosticItems()).toHaveLength(1);
    expect(s.runUsage("r1")?.output).toBe(5);
  });

  it("upserts: a new item goes before its run's line, a known one is replaced in place", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "hi")], [run({ status: "running" })])]));
    const rowsListener = vi.fn();
    s.subscribe("rows", rowsListener);
    s.applyBatch(batch(2, [{ op: "upsert", item: agent("r1", "m", "a", "running") }]));
    expect(s.rows().keys).toEqual(["r1:user", "r1:m", runKey("r1")]);
    expect(rowsListener).toHaveBeenCalledTimes(1);
    const keysBefore = s.rows().keys;
    s.applyBatch(batch(3, [{ op: "upsert", item: agent("r1", "m", "all of it", "completed") }]));
    expect(s.rows().keys).toBe(keysBefore); // no structural change
    expect(s.item("r1:m")?.body).toMatchObject({ text: "all of it" });
    expect(rowsListener).toHaveBeenCalledTimes(1);
  });

  it("appends to the item's text without touching the row list, waking only that item", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "hi"), agent("r1", "m", "Hel", "running"), tool("r1", "t", { output: "line1\n" })], [run({ status: "running" })])]));
    const rows = s.rows();
    const onItem = vi.fn();
    const onOther = vi.fn();
    const onRows = vi.fn();
    s.subscribe("r1:m", onItem);
    s.subscribe("r1:user", onOther);
    s.subscribe("rows", onRows);
    s.applyBatch(batch(2, [
      { op: "append", itemId: "r1:m", text: "lo" },
      { op: "append", itemId: "r1:m", text: ", world" },
      { op: "append", itemId: "r1:t", text: "line2\n" },
    ]));
    expect(s.item("r1:m")?.body).toMatchObject({ text: "Hello, world" });
    expect(s.item("r1:t")?.body).toMatchObject({ output: "line1\nline2\n" });
    expect(onItem).toHaveBeenCalledTimes(1); // once per batch, not per op
    expect(onOther).not.toHaveBeenCalled();
    expect(onRows).not.toHaveBeenCalled();
    expect(s.rows()).toBe(rows);
  });

  it("in the window, listeners hear once per frame however many batches arrived", () => {
    const frames: (() => void)[] = [];
    const s = new SessionStore("s1", (flush) => frames.push(flush));
    s.applyBatch(batch(1, [reset([user("r1", "hi"), agent("r1", "m", "", "running")], [run({ status: "running" })])]));
    frames.shift()!();
    const onItem = vi.fn();
    s.subscribe("r1:m", onItem);
    for (let i = 0; i < 10; i++) s.applyBatch(batch(2 + i, [{ op: "append", itemId: "r1:m", text: "x" }]));
    expect(onItem).not.toHaveBeenCalled();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(onItem).toHaveBeenCalledTimes(1);
    expect(s.item("r1:m")?.body).toMatchObject({ text: "xxxxxxxxxx" });
  });

  it("says a batch was shown only after the flush that drew it, even a batch that changed nothing", () => {
    const frames: (() => void)[] = [];
    const s = new SessionStore("s1", (flush) => frames.push(flush));
    const onItem = vi.fn();
    s.subscribe("r1:m", onItem);
    const shown: number[] = [];
    s.applyBatch(batch(1, [reset([agent("r1", "m", "", "running")], [run({ status: "running" })])]), () => shown.push(1));
    s.applyBatch(batch(2, [{ op: "append", itemId: "r1:m", text: "x" }]), () => {
      // The item's listeners have heard of it by then.
      expect(onItem).toHaveBeenCalled();
      shown.push(2);
    });
    expect(shown).toEqual([]);
    frames.shift()!();
    expect(shown).toEqual([1, 2]);
    // Nothing visible changes (an append to an item not loaded): still acked, on the next flush.
    s.applyBatch(batch(3, [{ op: "append", itemId: "nope", text: "x" }]), () => shown.push(3));
    expect(shown).toEqual([1, 2]);
    frames.shift()!();
    expect(shown).toEqual([1, 2, 3]);
    expect(frames).toHaveLength(0);
  });

  it("paces streamed text but asks for the next frame when a run or an item ends", () => {
    const calls: { flush: () => void; urgent: boolean }[] = [];
    const s = new SessionStore("s1", (flush, urgent) => calls.push({ flush, urgent }));
    const onAny = vi.fn();
    s.subscribe(ANY, onAny);
    const shown: number[] = [];
    s.applyBatch(batch(1, [reset([agent("r1", "m", "", "running")], [run({ status: "running" })])]));
    expect(calls.map((c) => c.urgent)).toEqual([true]);
    calls.shift()!.flush();
    s.applyBatch(batch(2, [{ op: "append", itemId: "r1:m", text: "a" }]), () => shown.push(2));
    s.applyBatch(batch(3, [{ op: "append", itemId: "r1:m", text: "b" }]), () => shown.push(3));
    expect(calls.map((c) => c.urgent)).toEqual([false]);
    // The item finishes while the paced flush waits: asked again, for the next frame.
    s.applyBatch(batch(4, [{ op: "upsert", item: agent("r1", "m", "ab", "completed") }]), () => shown.push(4));
    s.applyBatch(batch(5, [{ op: "run", run: run({ status: "completed" }) }]), () => shown.push(5));
    expect(calls.map((c) => c.urgent)).toEqual([false, true]);
    onAny.mockClear();
    calls.pop()!.flush();
    expect(shown).toEqual([2, 3, 4, 5]);
    expect(onAny).toHaveBeenCalledTimes(1);
    expect(s.item("r1:m")?.body).toMatchObject({ text: "ab" });
    // The paced call of the same round comes later and finds nothing left to do.
    calls.pop()!.flush();
    expect(onAny).toHaveBeenCalledTimes(1);
  });

  it("flushes at most once per MIN_FLUSH_MS while streaming, urgent ones on the next frame", () => {
    vi.useFakeTimers();
    try {
      const scheduler = pacedFlush(MIN_FLUSH_MS);
      const at: number[] = [];
      const t0 = performance.now();
      scheduler(() => at.push(performance.now() - t0), false);
      vi.advanceTimersByTime(20);
      expect(at).toHaveLength(1); // the first one: a frame away
      scheduler(() => at.push(performance.now() - t0), false);
      vi.advanceTimersByTime(MIN_FLUSH_MS / 2);
      expect(at).toHaveLength(1);
      vi.advanceTimersByTime(MIN_FLUSH_MS);
      expect(at).toHaveLength(2);
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(MIN_FLUSH_MS - 8);
      const asked = performance.now() - t0;
      scheduler(() => at.push(performance.now() - t0), true);
      vi.advanceTimersByTime(20);
      expect(at).toHaveLength(3);
      expect(at[2]! - asked).toBeLessThan(20);
    } finally {
      vi.useRealTimers();
    }
  });

  it("after a costly redraw waits three times its cost, so a stream takes at most ~1/4 of the page's time", () => {
    vi.useFakeTimers();
    try {
      let clock = 0;
      const advance = (ms: number) => {
        for (let i = 0; i < ms; i++) {
          clock += 1;
          vi.advanceTimersByTime(1);
        }
      };
      const scheduler = pacedFlush(MIN_FLUSH_MS, BUSY_FACTOR, () => clock);
      const at: number[] = [];
      // Each redraw costs 300 ms: the clock moves on while it (and the frame after it) runs.
      const slow = () => {
        at.push(clock);
        clock += 300;
      };
      scheduler(slow, false);
      advance(20);
      expect(at).toEqual([expect.any(Number)]);
      scheduler(slow, false);
      advance(MIN_FLUSH_MS + 20);
      expect(at).toHaveLength(1); // not at the MIN_FLUSH_MS pace
      advance(4 * 300);
      expect(at).toHaveLength(2);
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual((1 + BUSY_FACTOR) * 300 - 8);
      // An urgent redraw (a run ended) does not wait for it.
      const asked = clock;
      const quick = () => at.push(clock);
      scheduler(quick, true);
      advance(20);
      expect(at).toHaveLength(3);
      expect(at[2]! - asked).toBeLessThan(20);
      // After a cheap redraw, the MIN_FLUSH_MS pace again.
      scheduler(quick, false);
      advance(MIN_FLUSH_MS + 20);
      expect(at).toHaveLength(4);
      expect(at[3]! - at[2]!).toBeLessThan(MIN_FLUSH_MS + 20);
    } finally {
      vi.useRealTimers();
    }
  });

  it("draws a stream faster than anyone reads twice a second, an ordinary one five times", () => {
    vi.useFakeTimers();
    try {
      const s = new SessionStore("s1", pacedFlush(MIN_FLUSH_MS));
      const drawn: number[] = [];
      s.subscribe(ANY, () => drawn.push(performance.now()));
      s.applyBatch(batch(1, [reset([agent("r1", "m", "", "running")], [run({ status: "running" })])]));
      vi.advanceTimersByTime(20);
      let seq = 1;
      const append = (chars: number) => s.applyBatch(batch(++seq, [{ op: "append", itemId: "r1:m", text: "x".repeat(chars) }]));
      // Gaps between redraws, each batch asked for right after the redraw before it.
      const gaps = (chars: number[]) =>
        chars.map((n) => {
          const before = drawn.length;
          const from = drawn[drawn.length - 1]!;
          append(n);
          while (drawn.length === before) vi.advanceTimersByTime(1);
          return drawn[drawn.length - 1]! - from;
        });
      // A few hundred characters a redraw: the MIN_FLUSH_MS pace.
      const ordinary = gaps([300, 300, 300]);
      for (const gap of ordinary.slice(1)) expect(gap).toBeLessThan(MIN_FLUSH_MS + 20);
      // A redraw that brought BULK_CHARS: the next one waits BULK_FLUSH_MS.
      const [, afterBulk, afterBulkAgain, afterSmall] = gaps([BULK_CHARS, BULK_CHARS, 300, 300]);
      expect(afterBulk).toBeGreaterThanOrEqual(BULK_FLUSH_MS - 8);
      expect(afterBulkAgain).toBeGreaterThanOrEqual(BULK_FLUSH_MS - 8);
      // The stream slowed down: back to the ordinary pace.
      expect(afterSmall).toBeLessThan(MIN_FLUSH_MS + 20);
      // The end of the run never waits, even after a bulk redraw.
      append(BULK_CHARS);
      vi.advanceTimersByTime(BULK_FLUSH_MS + 20);
      const asked = performance.now();
      s.applyBatch(batch(++seq, [{ op: "run", run: run({ status: "completed" }) }]));
      vi.advanceTimersByTime(20);
      expect(drawn[drawn.length - 1]! - asked).toBeLessThan(20);
    } finally {
      vi.useRealTimers();
    }
  });

  it("ignores appends to unknown items safely", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "hi")], [run()])]));
    expect(() => s.applyBatch(batch(2, [{ op: "append", itemId: "nope", text: "x" }]))).not.toThrow();
    expect(s.item("nope")).toBeUndefined();
    expect(s.rows().keys).toEqual(["r1:user", runKey("r1")]);
    // Before any reset, too.
    expect(() => new SessionStore("s2").applyOp({ op: "append", itemId: "x", text: "y" })).not.toThrow();
  });

  it("run ops update the status line and the active runs; a queued run gets its line", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "hi")], [run({ status: "running" })])]));
    const onRun = vi.fn();
    s.subscribe(runKey("r1"), onRun);
    s.applyBatch(batch(2, [{ op: "run", run: run({ id: "r2", seq: 2, status: "queued" }) }]));
    expect(s.rows().keys).toEqual(["r1:user", runKey("r1"), runKey("r2")]);
    expect(s.active().map((r) => r.status)).toEqual(["running", "queued"]);
    s.applyBatch(batch(3, [{ op: "upsert", item: user("r2", "next") }]));
    expect(s.rows().keys).toEqual(["r1:user", runKey("r1"), "r2:user", runKey("r2")]);
    s.applyBatch(batch(4, [{ op: "run", run: run({ status: "completed" }) }, { op: "run", run: run({ id: "r2", seq: 2, status: "running" }) }]));
    expect(onRun).toHaveBeenCalledTimes(1);
    expect(s.run("r1")?.status).toBe("completed");
    expect(s.active().map((r) => r.id)).toEqual(["r2"]);
  });

  it("approval ops update the record and wake its card", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([tool("r1", "tool1")], [run()], [approval()])]));
    expect(s.approval("a1")?.state).toBe("pending");
    const onCard = vi.fn();
    s.subscribe("approval:a1", onCard);
    s.applyBatch(batch(2, [{ op: "approval", approval: approval({ state: "denied", decidedBy: "notification" }) }]));
    expect(s.approval("a1")).toMatchObject({ state: "denied", decidedBy: "notification" });
    expect(onCard).toHaveBeenCalledTimes(1);
  });

  it("keeps one record per approval: a pending copy never undoes a decision", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([tool("r1", "tool1", { approvalId: "a1" })], [run()], [])]));
    // A command's answer can overtake the live ops about the same record.
    s.applyApproval(approval({ state: "approved_once", decidedBy: "user" }));
    s.applyBatch(batch(2, [{ op: "approval", approval: approval() }]));
    expect(s.approval("a1")?.state).toBe("approved_once");
    s.applyBatch(batch(3, [{ op: "approval", approval: approval({ state: "approved_once", decidedBy: "user", decidedAt: 5 }) }]));
    expect(s.approval("a1")?.decidedAt).toBe(5);
  });

  it("a later reset replaces the whole view", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "old"), agent("r1", "m", "x")], [run()], [approval()])]));
    const gen = s.rows().generation;
    const onItem = vi.fn();
    s.subscribe("r1:m", onItem);
    s.applyBatch(batch(2, [reset([user("r3", "new")], [run({ id: "r3", seq: 3 })], [])]));
    expect(s.rows().keys).toEqual(["r3:user", runKey("r3")]);
    expect(s.rows().generation).toBe(gen + 1);
    expect(s.item("r1:m")).toBeUndefined();
    expect(s.approval("a1")).toBeUndefined();
    expect(onItem).toHaveBeenCalled(); // subscribers re-read (and find nothing)
  });

  it("prepends older pages in front, continuing a run whose line is already shown", () => {
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([agent("r2", "b", "later")], [run({ id: "r1" }), run({ id: "r2", seq: 2 })], [], 7)]));
    expect(s.rows().keys).toEqual(["r2:b", runKey("r2")]);
    s.prepend({ items: [user("r1", "first"), agent("r1", "m", "answer"), user("r2", "second")], before: null });
    expect(s.rows().keys).toEqual(["r1:user", "r1:m", runKey("r1"), "r2:user", "r2:b", runKey("r2")]);
    expect(s.rows().prepended).toBe(4);
    expect(s.rows().before).toBeNull();
  });

  it("finds the row of an approval (tool card, approval item or question)", () => {
    const s = new SessionStore("s1");
    const q = item("r1", "q", { kind: "question", approvalId: "a9" });
    s.applyBatch(batch(1, [reset([tool("r1", "tool1", { approvalId: "a1" }), q], [run()])]));
    expect(s.rowOfApproval("a1", null)).toBe("r1:tool1");
    expect(s.rowOfApproval("a9", "missing")).toBe("r1:q");
    expect(s.rowOfApproval("zzz", null)).toBeUndefined();
  });
});

/** A stored session of `runs` runs of three items each, read the way the store's queries do
 *  (`pk` = position + 1; a page's `before` is its first item's pk, `after` the next one's). */
function storedSession(runs: number) {
  const items: TimelineItem[] = [];
  for (let r = 0; r < runs; r++) items.push(user(`r${r}`, `q${r}`), agent(`r${r}`, "m", `a${r}`), agent(`r${r}`, "n", `b${r}`));
  const at = new Map(items.map((item, i) => [item.id, i]));
  return {
    items,
    runs: Array.from({ length: runs }, (_, r) => run({ id: `r${r}`, seq: r })),
    older(before: number | null, limit: number): TimelinePage {
      const end = before === null ? items.length : before - 1;
      const start = Math.max(0, end - limit);
      return { items: items.slice(start, end), before: start > 0 ? start + 1 : null };
    },
    newer(after: number, limit: number): TimelinePage {
      const start = after - 1;
      const end = Math.min(items.length, start + limit);
      return { items: items.slice(start, end), before: start + 1, ...(end < items.length ? { after: end + 1 } : {}) };
    },
    /** The rows are a contiguous stretch of the session, each key once, a run's line right
     *  after its last item shown and between any two runs. */
    check(s: SessionStore) {
      const keys = s.rows().keys;
      expect(new Set(keys).size).toBe(keys.length);
      const ids = keys.filter((k) => !isRunKey(k));
      const first = at.get(ids[0]!)!;
      expect(ids).toEqual(items.slice(first, first + ids.length).map((i) => i.id));
      keys.forEach((key, i) => {
        const prev = keys[i - 1];
        if (isRunKey(key)) expect(prev && s.item(prev)?.runId).toBe(runIdOf(key));
        else if (prev && !isRunKey(prev)) expect(s.item(prev)?.runId).toBe(s.item(key)?.runId);
      });
      return ids;
    },
  };
}

describe("SessionStore window of pages", () => {
  it("scrolled to the start of a long session and down again, it keeps a bounded window", () => {
    const stored = storedSession(3_000); // 9,000 items
    const s = new SessionStore("s1");
    const last = stored.older(null, 60);
    s.applyBatch(batch(1, [reset(last.items, stored.runs, [], last.before)]));
    expect(s.detached()).toBe(false);
    let most = 0;
    let pages = 0;
    while (s.rows().before !== null) {
      s.prepend(stored.older(s.rows().before, 200));
      pages++;
      const ids = stored.check(s);
      most = Math.max(most, ids.length);
      expect(ids.length).toBeLessThanOrEqual(WINDOW_ITEMS + 200);
    }
    expect(pages).toBe(45);
    expect(most).toBeGreaterThan(WINDOW_ITEMS - 200);
    expect(s.rows().keys[0]).toBe("r0:user");
    expect(s.detached()).toBe(true);
    expect(s.item(stored.items[stored.items.length - 1]!.id)).toBeUndefined(); // the newest pages went

    // Live ops for what is not loaded are left to the pages (or the reopened stream) to bring.
    const rows = s.rows().keys;
    s.applyBatch(batch(2, [
      { op: "upsert", item: user("r9999", "new") },
      { op: "run", run: run({ id: "r9999", seq: 9_999, status: "running" }) },
      { op: "append", itemId: "r2999:n", text: "more" },
      { op: "upsert", item: { ...stored.items[1]!, body: { kind: "agent_message", text: "edited" } } },
    ]));
    expect(s.rows().keys).toBe(rows);
    expect(s.item("r9999:user")).toBeUndefined();
    expect(s.chunkText("r0:m", 0)).toBe("edited"); // a loaded item still changes
    expect(s.active().map((r) => r.id)).toEqual(["r9999"]);

    // Down again: the oldest pages go; the page reaching the newest item is left to the stream.
    const prepended = s.rows().prepended;
    let downs = 0;
    for (;;) {
      const page = stored.newer(s.rows().after!, 200);
      if (page.after === undefined) break;
      s.appendNewer(page);
      downs++;
      expect(stored.check(s).length).toBeLessThanOrEqual(WINDOW_ITEMS + 200);
    }
    expect(downs).toBeGreaterThan(30);
    expect(s.rows().prepended).toBeLessThan(prepended);
    expect(s.rows().keys[0]).not.toBe("r0:user");
    expect(s.rows().before).not.toBeNull();
    expect(s.detached()).toBe(true);

    // The reopened stream's reset is the live end again.
    s.applyBatch(batch(3, [reset(last.items, stored.runs, [], last.before)]));
    expect(s.detached()).toBe(false);
    expect(s.rows().prepended).toBe(0);
    s.applyBatch(batch(4, [{ op: "upsert", item: user("r3000", "new") }]));
    expect(s.rows().keys.slice(-2)).toEqual(["r3000:user", runKey("r3000")]);
  });

  it("a window moved back and forth keeps Virtuoso's index of the rows it shows, or starts a new list where the user is", () => {
    const stored = storedSession(1_500);
    const s = new SessionStore("s1");
    const last = stored.older(null, 60);
    s.applyBatch(batch(1, [reset(last.items, stored.runs, [], last.before)]));
    for (let i = 0; i < 20; i++) s.prepend(stored.older(s.rows().before, 200));
    expect(s.detached()).toBe(true);
    // Going up, rows leave the end in place: the list goes on (no new generation).
    let generation = s.rows().generation;
    const top = s.rows().keys[0]!;
    const indexOfTop = s.rows().keys.indexOf(top) - s.rows().prepended;
    s.prepend(stored.older(s.rows().before, 200));
    expect(s.rows().generation).toBe(generation);
    expect(s.rows().keys.indexOf(top) - s.rows().prepended).toBe(indexOfTop);
    // Past the limit going down: the oldest go, a new list starts with the bottom row at the bottom.
    let bottom = s.rows().keys.at(-1)!;
    for (let i = 0; i < 20 && s.rows().generation === generation; i++) {
      bottom = s.rows().keys.at(-1)!;
      s.appendNewer(stored.newer(s.rows().after!, 200));
    }
    expect(s.rows().generation).toBe(generation + 1);
    expect(s.rows().anchor).toEqual({ key: bottom, align: "end" });
    expect(s.rows().prepended).toBe(0);
    expect(stored.check(s).length).toBeLessThanOrEqual(WINDOW_ITEMS / 2 + 200);
    // Within it: rows only come at the end, and every shown row keeps its index in Virtuoso
    // (firstItemIndex + position = START - prepended + position).
    const indexOf = (key: string) => s.rows().keys.indexOf(key) - s.rows().prepended;
    const probe = s.rows().keys[s.rows().keys.length - 5]!;
    const was = indexOf(probe);
    s.appendNewer(stored.newer(s.rows().after!, 200));
    expect(s.rows().generation).toBe(generation + 1);
    expect(indexOf(probe)).toBe(was);
    s.applyBatch(batch(2, [reset(last.items, stored.runs, [], last.before)]));
    expect(s.rows().anchor).toBeNull();
  });

  it("drops a nested item's place in its parent's card with the page that held it", () => {
    const s = new SessionStore("s1");
    const child = item("r1", "sub", { kind: "agent_message", text: "inside" }, { parentId: "r1:call" });
    s.applyBatch(batch(1, [reset([child, user("r2", "next")], [run(), run({ id: "r2", seq: 2 })], [], 5_000)]));
    const filler = Array.from({ length: WINDOW_ITEMS }, (_, i) => agent("r1", `f${i}`, "x"));
    s.prepend({ items: [tool("r1", "call"), ...filler], before: 10 });
    expect(s.item("r1:sub")).toBeUndefined();
    expect(s.childrenOf("r1:call")).toEqual([]);
    expect(s.rows().keys.slice(-2)).toEqual([`r1:f${WINDOW_ITEMS - 1}`, runKey("r1")]);
    expect(s.rows().after).toBe(5_000);
  });
});

describe("SessionStore chunks of long messages", () => {
  it("a long streaming answer becomes several rows, added as it grows", async () => {
    const { CHUNK } = await import("./chunker");
    const s = new SessionStore("s1");
    s.applyBatch(batch(1, [reset([user("r1", "q"), agent("r1", "m", "", "running")], [run({ status: "running" })])]));
    expect(s.rows().keys).toEqual(["r1:user", "r1:m", runKey("r1")]);
    const para = `${"word ".repeat(60)}\n\n`;
    let text = "";
    while (text.length < CHUNK * 3.5) {
      s.applyBatch(batch(2, [{ op: "append", itemId: "r1:m", text: para }]));
      text += para;
    }
    s.applyBatch(batch(3, [{ op: "append", itemId: "r1:m", text: "tail" }]));
    text += "tail";
    const n = s.chunkCount("r1:m");
    expect(n).toBeGreaterThanOrEqual(3);
    expect(s.rows().keys).toEqual(["r1:user", "r1:m", ...Array.from({ length: n - 1 }, (_, k) => `r1:m#chunk${k + 1}`), runKey("r1")]);
    expect(Array.from({ length: n }, (_, k) => s.chunkText("r1:m", k)).join("")).toBe(text);
  });
});
