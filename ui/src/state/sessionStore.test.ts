import { describe, expect, it, vi } from "vitest";
import { agent, approval, item, reset, run, tool, user } from "../test/items";
import { ANY, BUSY_FACTOR, MIN_FLUSH_MS, pacedFlush, runKey, SessionStore } from "./sessionStore";

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
