// The live view of one open session, fed by its channel. Plain TypeScript with
// per-key subscriptions (used through useSyncExternalStore): an `append` touches one item
// and wakes only the row showing it; the row list changes only when rows come or go.
import type { Approval, LiveBatch, LiveOp, Run, TimelineItem, TimelinePage } from "../ipc";
import type { Plan } from "../generated/Plan";
import { Chunker } from "./chunker";

/** A row of the timeline: an item id, or `run:<id>` for a run's status line. */
export type RowKey = string;

export type UsageBody = Extract<TimelineItem["body"], { kind: "usage" }>;
export type PlanBody = Extract<TimelineItem["body"], { kind: "plan" }>;

export interface RowList {
  keys: readonly RowKey[];
  /** Bumps on every reset: the list is a new one (the view remounts). */
  generation: number;
  /** Rows put in front since the reset (Virtuoso's firstItemIndex moves down by this). */
  prepended: number;
  /** Cursor for older items; null at the start of the session. */
  before: number | null;
  /** Cursor for newer stored items than the loaded ones (`load_timeline_newer`); null while
   *  the window reaches the live end, where the session's stream keeps it current. */
  after: number | null;
  /** The first reset has arrived. */
  loaded: boolean;
  /** Where the list of a new generation starts: this row at the bottom of the view (the
   *  oldest pages went from under a user scrolling down); null: at the end. */
  anchor: { key: RowKey; align: "end" } | null;
}

const RUN_PREFIX = "run:";
export const runKey = (runId: string): RowKey => RUN_PREFIX + runId;
export const isRunKey = (key: RowKey) => key.startsWith(RUN_PREFIX);
export const runIdOf = (key: RowKey) => key.slice(RUN_PREFIX.length);

/** A long agent message takes several rows: its id (chunk 0), then `<id>#chunk<k>`. */
const CHUNK_SEP = "#chunk";
export const chunkKey = (itemId: string, k: number): RowKey => (k === 0 ? itemId : `${itemId}${CHUNK_SEP}${k}`);
export function splitChunkKey(key: RowKey): { itemId: string; chunk: number } {
  const at = key.lastIndexOf(CHUNK_SEP);
  if (at < 0) return { itemId: key, chunk: 0 };
  const k = Number(key.slice(at + CHUNK_SEP.length));
  return Number.isInteger(k) && k > 0 ? { itemId: key.slice(0, at), chunk: k } : { itemId: key, chunk: 0 };
}

/** Items that are not rows of the chat: diagnostics go to their panel, usage to the run line,
 *  a subagent's items into the card of the call that started it. */
function isRow(item: TimelineItem): boolean {
  if (item.parentId) return false;
  const kind = item.body.kind;
  if (kind === "diagnostic" || kind === "usage") return false;
  // The run's end notice repeats what the run status line says (failed + reason, interrupted).
  if (kind === "notice" && item.id.endsWith(":end")) return false;
  return true;
}

type Listener = () => void;

/**
 * Items a store keeps at most (give or take a page): scrolling back through a long session
 * drops its newest pages, scrolling down again its oldest, so memory stays bounded however
 * far the user goes (a 200,000-item session held every page it had loaded: BENCHMARKS.md).
 */
export const WINDOW_ITEMS = 2_000;

/** Items loaded together: from the stored cursor `from` (null: the session's start) on. */
interface Segment {
  from: number | null;
  ids: string[];
}

/** Ops drawn on the next frame instead of at the streaming pace: all but streamed text. */
function isUrgent(op: LiveOp): boolean {
  if (op.op === "append") return false;
  if (op.op === "upsert") return op.item.status !== "running";
  return true;
}

const NO_CHILDREN: readonly string[] = [];

/** The key woken after every flush that changed anything (the timeline follows growth with it). */
export const ANY = "*";

/**
 * When listeners hear about applied batches. In the window: on an animation frame, at most
 * ~5 times a second while text streams, so a frame that took long renders once for every
 * batch that arrived meanwhile (the work stays bounded and the view never falls behind).
 * An `urgent` batch (a run or approval changed, an item finished) is drawn on the next frame:
 * the end of a run shows at once. Tests use `flushNow`. `flush` returns how many characters of
 * streamed text it drew (see `BULK_CHARS`).
 */
export type Scheduler = (flush: () => number | void, urgent: boolean) => void;
/**
 * Each redraw of streamed text costs the web process ~20-50 ms (script, layout, a software
 * repaint of the followed viewport, the shell's blit): at 10 a second that was most of the
 * paced stream's CPU (BENCHMARKS.md, issue 12). 5 a second still reads as a flowing stream.
 */
export const MIN_FLUSH_MS = 200;

/**
 * A redraw of streamed text may cost far more than that when a lot arrived at once: a
 * 20,000-delta answer brings ~36 KB a redraw, new rows to parse, lay out and paint, and the
 * web process's CPU then competes with the engine writing the answer on a small machine.
 * So the gap after a redraw is also at least this many times what the redraw cost (as far as
 * the page can time it, see `pacedFlush`), and a fast stream's batches merge into fewer,
 * larger ones (the shell sends streamed text only after the page drew the last batch).
 * Urgent redraws (a run ended, an approval) never wait. A guard for slow machines: on the
 * bench machine the timed cost stays under the pace and this changed no figure.
 */
export const BUSY_FACTOR = 3;

/**
 * A redraw that brought more streamed text than this (two screens of it, give or take) drew
 * a stream faster than anyone reads: all but its last screen scrolled past unseen. The next
 * redraw of such a stream waits `BULK_FLUSH_MS`, so the page draws it twice a second instead
 * of five times, and every redraw saved is one whose rows would have been parsed, laid out and
 * painted only to scroll away (the 20,000-delta answer: ~0.1 CPU-s of the web process,
 * BENCHMARKS.md). A model's ordinary stream (a few hundred characters a second) never gets
 * near it and keeps the `MIN_FLUSH_MS` pace.
 */
export const BULK_CHARS = 6_000;
export const BULK_FLUSH_MS = 500;

/**
 * A scheduler that flushes on a frame at most once per `minMs` (`BULK_FLUSH_MS` after a flush
 * that drew `BULK_CHARS` or more of streamed text), and no sooner than `busyFactor` times the cost
 * of the previous flush after it ended (urgent flushes: next frame).
 * A flush's cost runs from its start to the first task after it: React's render (a microtask)
 * and the style and layout of the frame. WebKit's non-composited paint may come after that
 * task, so the cost is a lower bound.
 */
export function pacedFlush(minMs: number, busyFactor = BUSY_FACTOR, now: () => number = () => performance.now()): Scheduler {
  let lastFlushAt = -Infinity;
  let lastCost = 0;
  let lastBulk = false;
  const frame = (cb: () => void) => (typeof requestAnimationFrame === "function" ? requestAnimationFrame(cb) : setTimeout(cb, 16));
  return (flush, urgent) => {
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      const start = now();
      lastFlushAt = start;
      lastBulk = (flush() ?? 0) >= BULK_CHARS;
      setTimeout(() => {
        if (lastFlushAt === start) lastCost = now() - start;
      }, 0);
    };
    const gap = Math.max(lastBulk ? BULK_FLUSH_MS : minMs, lastCost * (1 + busyFactor));
    const wait = urgent ? 0 : lastFlushAt + gap - now();
    if (wait > 8) setTimeout(() => frame(run), wait - 8);
    else frame(run);
  };
}
export const flushOnFrame: Scheduler = pacedFlush(MIN_FLUSH_MS);
export const flushNow: Scheduler = (flush) => flush();
export const storeOptions: { scheduler: Scheduler } = { scheduler: flushOnFrame };

export class SessionStore {
  readonly sessionId: string;
  private items = new Map<string, TimelineItem>();
  private runs = new Map<string, Run>();
  private approvals = new Map<string, Approval>();
  private usage = new Map<string, UsageBody>();
  private latestPlan: TimelineItem | null = null;
  private storedPlan: Plan | null = null;
  private diagnostics: TimelineItem[] = [];
  private chunkers = new Map<string, Chunker>();
  /** A tool call's nested items (a subagent's work), in run order. */
  private children = new Map<string, readonly string[]>();
  private list: RowList = { keys: [], generation: 0, prepended: 0, before: null, after: null, loaded: false, anchor: null };
  /** The loaded items by the page they came in, oldest first (the last one grows live). */
  private segments: Segment[] = [];
  private activeRuns: Run[] = [];
  private listeners = new Map<string, Set<Listener>>();
  private dirty = new Set<string>();
  private lastSeq = 0;
  private scheduled = false;
  /** The scheduled flush was asked for as urgent (the next frame). */
  private urgent = false;
  /** Acks of the batches applied since the last scheduled flush. */
  private shown: (() => void)[] = [];
  /** Characters of streamed text applied since the last scheduled flush. */
  private streamed = 0;
  private readonly scheduler: Scheduler;

  constructor(sessionId: string, scheduler: Scheduler = storeOptions.scheduler) {
    this.sessionId = sessionId;
    this.scheduler = scheduler;
  }

  // ---- reading ----
  rows = (): RowList => this.list;
  item = (id: string): TimelineItem | undefined => this.items.get(id);
  run = (id: string): Run | undefined => this.runs.get(id);
  approval = (id: string): Approval | undefined => this.approvals.get(id);
  runUsage = (runId: string): UsageBody | undefined => this.usage.get(runId);
  /** The plan the agent last reported: the newest plan item loaded, else the stored one
   *  (`seedPlan`) when that item is older than the loaded page. */
  currentPlan = (): Plan | null => this.latestPlan?.body.kind === "plan" ? this.latestPlan.body : this.storedPlan;
  diagnosticItems = (): readonly TimelineItem[] => this.diagnostics;
  /** How many rows an agent message takes, and the text of one of them. */
  chunkCount = (itemId: string): number => this.chunkers.get(itemId)?.count() ?? 1;
  chunkText(itemId: string, k: number): string {
    const chunker = this.chunkers.get(itemId);
    if (chunker) return chunker.slice(k);
    const body = this.items.get(itemId)?.body;
    return body && "text" in body ? body.text : "";
  }

  /** The items nested under a tool call (a new array only when that list changes). */
  childrenOf = (parentId: string): readonly string[] => this.children.get(parentId) ?? NO_CHILDREN;

  /** Runs queued or running, oldest first (a new array only when that set changes). */
  active = (): readonly Run[] => this.activeRuns;

  /** The row showing an approval (its tool card, approval item or question), if loaded: for
   *  a subagent's request, the row of the call its work is nested in. */
  rowOfApproval(approvalId: string, itemId: string | null): RowKey | undefined {
    const rowOf = (id: string): RowKey | undefined => {
      let item = this.items.get(id);
      for (let depth = 0; item?.parentId && depth < 32; depth++) item = this.items.get(item.parentId);
      return item && this.list.keys.includes(item.id) ? item.id : undefined;
    };
    const direct = itemId && this.items.has(itemId) ? rowOf(itemId) : undefined;
    if (direct) return direct;
    for (const item of this.items.values()) {
      const body = item.body;
      if ((body.kind === "tool" || body.kind === "approval" || body.kind === "question") && body.approvalId === approvalId) {
        const row = rowOf(item.id);
        if (row) return row;
      }
    }
    return undefined;
  }

  // ---- subscribing: "rows", "active", "diagnostics", "plan", an item id, "run:<id>", "approval:<id>", "children:<id>",
  // or ANY (after every flush that changed something) ----
  subscribe(key: string, listener: Listener): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  // ---- writing ----
  /**
   * Applies a batch; its listeners hear of it on the scheduler's next flush, and `shown` is
   * called right after that flush (the shell waits for it before sending the next batch).
   */
  applyBatch(batch: LiveBatch, shown?: () => void): void {
    if (this.lastSeq && batch.seq !== this.lastSeq + 1 && batch.ops[0]?.op !== "reset") {
      console.warn(`session ${this.sessionId}: live batch ${batch.seq} after ${this.lastSeq}`);
    }
    this.lastSeq = batch.seq;
    for (const op of batch.ops) this.applyOp(op);
    if (shown) this.shown.push(shown);
    const urgent = batch.ops.some(isUrgent);
    // A paced flush already waiting is asked again as urgent: whichever comes first flushes.
    if (this.scheduled && (this.urgent || !urgent)) return;
    this.scheduled = true;
    this.urgent = urgent;
    this.scheduler(() => {
      if (!this.scheduled) return; // an earlier call of the same round flushed already
      this.scheduled = false;
      this.urgent = false;
      const drawn = this.streamed;
      this.streamed = 0;
      this.flush();
      // Even a batch that changed nothing on screen is acked, or the stream would stop.
      const acks = this.shown;
      this.shown = [];
      for (const ack of acks) ack();
      return drawn;
    }, urgent);
  }

  /** Applies one op; listeners are woken by `flush` (once per batch). */
  applyOp(op: LiveOp): void {
    switch (op.op) {
      case "reset":
        return this.reset(op.items, op.before, op.runs, op.approvals);
      case "upsert":
        return this.upsert(op.item);
      case "append":
        return this.append(op.itemId, op.text);
      case "run":
        return this.setRun(op.run);
      case "approval":
        return this.setApproval(op.approval);
    }
  }

  /** The session's last plan as stored (`session_plan`), shown until a loaded item has one. */
  seedPlan(plan: Plan | null): void {
    this.storedPlan = plan;
    this.dirty.add("plan");
    this.flush();
  }

  /** The window of pages has left the live end: live items newer than it are not kept. */
  detached = (): boolean => this.list.after !== null;

  /**
   * Older items from `load_timeline`, put in front; past `WINDOW_ITEMS` the newest pages go
   * (in place: react-virtuoso takes rows away at the end. Restarting the list every few pages
   * instead, as going down does, was tried: the 200,000-item scroll took 291 s instead of
   * 213 s and held the same memory).
   */
  prepend(page: TimelinePage): void {
    const firstRun = this.list.keys.length ? this.runOfKey(this.list.keys[0]!) : undefined;
    const fresh = this.take(page, page.before, "front");
    // The run of the page's last items may go on in the rows already shown: its status line is there.
    const keys = this.rowKeys(fresh.filter(isRow), firstRun);
    this.list = {
      ...this.list,
      keys: keys.length ? [...keys, ...this.list.keys] : this.list.keys,
      prepended: this.list.prepended + keys.length,
      before: page.before,
    };
    this.dirty.add("rows");
    while (this.segments.length > 1 && this.windowSize() > WINDOW_ITEMS) this.dropNewest();
    this.flush();
  }

  /**
   * Newer items from `load_timeline_newer` (the window scrolled down after it left the live
   * end), put at the end. Past `WINDOW_ITEMS` the oldest pages go, down to half of it: the
   * list is a new generation then, anchored at the row that was at the bottom (the view
   * cannot take rows away in front of the user in place either: react-virtuoso's
   * `firstItemIndex` only moves for rows put in front), once every few pages, not on each.
   * The page that reaches the newest stored item is not put here: the view opens the live
   * stream again instead (its reset holds what was streamed meanwhile), so nothing between
   * the two is missed.
   */
  appendNewer(page: TimelinePage): void {
    if (!this.detached() || page.after == null) return;
    const fresh = this.take(page, page.before ?? this.list.after, "end");
    const rows = fresh.filter(isRow);
    let keys = [...this.list.keys];
    // The last run's line closed the window; its run goes on in this page.
    const last = keys[keys.length - 1];
    if (last && isRunKey(last) && rows[0] && runIdOf(last) === rows[0].runId) keys.pop();
    const bottom = keys[keys.length - 1] ?? null;
    keys = [...keys, ...this.rowKeys(rows, undefined)];
    this.list = { ...this.list, keys, after: page.after };
    this.dirty.add("rows");
    if (this.windowSize() > WINDOW_ITEMS) {
      while (this.segments.length > 1 && this.windowSize() > WINDOW_ITEMS / 2) this.dropOldest();
      this.restart(bottom);
    }
    this.flush();
  }

  /** A page's items not loaded yet, remembered as one more segment of the window. */
  private take(page: TimelinePage, from: number | null, at: "front" | "end"): TimelineItem[] {
    const fresh = page.items.filter((i) => !this.items.has(i.id));
    for (const item of fresh) this.remember(item);
    const segment = { from, ids: fresh.map((i) => i.id) };
    if (at === "front") this.segments.unshift(segment);
    else this.segments.push(segment);
    if (fresh.some((i) => i.body.kind === "diagnostic")) this.dirty.add("diagnostics");
    return fresh;
  }

  /** The rows as a new list (the view remounts) with `key` at the bottom of the view. */
  private restart(key: RowKey | null): void {
    const anchor = key && this.list.keys.includes(key) ? { key, align: "end" as const } : null;
    this.list = { ...this.list, generation: this.list.generation + 1, prepended: 0, anchor };
  }

  private windowSize(): number {
    let n = 0;
    for (const segment of this.segments) n += segment.ids.length;
    return n;
  }

  /** Drops the newest page: its rows (and the run lines after them) leave the end, and the
   *  window no longer follows the live end. */
  private dropNewest(): void {
    const segment = this.segments.pop()!;
    const gone = this.forget(segment.ids);
    const keys = this.list.keys;
    let cut = keys.findIndex((k) => !isRunKey(k) && gone.has(splitChunkKey(k).itemId));
    if (cut < 0) cut = keys.length;
    // With nothing newer stored than its start, the page still marks where to go on from.
    this.list = { ...this.list, keys: keys.slice(0, cut), after: segment.from ?? 0 };
    this.dirty.add("rows");
  }

  /** Drops the oldest page: its rows and its runs' lines leave the front. */
  private dropOldest(): void {
    const segment = this.segments.shift()!;
    const gone = this.forget(segment.ids);
    const keys = this.list.keys;
    let cut = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (isRunKey(key) ? i === cut : gone.has(splitChunkKey(key).itemId)) cut = i + 1;
      else if (!isRunKey(key)) break;
    }
    this.list = {
      ...this.list,
      keys: keys.slice(cut),
      prepended: this.list.prepended - cut,
      before: this.segments[0]?.from ?? null,
    };
    this.dirty.add("rows");
  }

  /** Forgets a dropped page's items (runs and approvals stay: they are few and all known). */
  private forget(ids: readonly string[]): Set<string> {
    const gone = new Set(ids);
    for (const id of ids) {
      const parent = this.items.get(id)?.parentId;
      const siblings = parent ? this.children.get(parent) : undefined;
      if (parent && siblings && !gone.has(parent)) {
        this.children.set(parent, siblings.filter((c) => c !== id));
        this.dirty.add(`children:${parent}`);
      }
      this.items.delete(id);
      this.chunkers.delete(id);
      this.children.delete(id);
    }
    if (this.diagnostics.some((d) => gone.has(d.id))) {
      this.diagnostics = this.diagnostics.filter((d) => !gone.has(d.id));
      this.dirty.add("diagnostics");
    }
    return gone;
  }

  /** Wakes the listeners of everything changed since the last flush. */
  flush(): void {
    if (this.dirty.size === 0) return;
    const keys = [...this.dirty, ANY];
    this.dirty.clear();
    for (const key of keys) {
      const set = this.listeners.get(key);
      if (set) for (const l of [...set]) l();
    }
  }

  private reset(items: TimelineItem[], before: number | null, runs: Run[], approvals: Approval[]): void {
    // Everything subscribed may have changed.
    for (const key of this.listeners.keys()) this.dirty.add(key);
    this.items = new Map();
    this.chunkers = new Map();
    this.children = new Map();
    this.usage = new Map();
    this.latestPlan = null;
    this.diagnostics = [];
    this.runs = new Map(runs.map((r) => [r.id, r]));
    this.approvals = new Map(approvals.map((a) => [a.id, a]));
    for (const item of items) this.remember(item);
    this.segments = [{ from: before, ids: items.map((i) => i.id) }];
    const keys = this.rowKeys(items.filter(isRow), undefined);
    // Runs with nothing in the page yet (queued, or just started) still get their line.
    // (Runs older than the page's newest belong to older pages.)
    const shown = new Set(keys.filter(isRunKey));
    const newestShown = Math.max(-1, ...runs.filter((r) => shown.has(runKey(r.id))).map((r) => r.seq));
    for (const run of [...runs].sort((a, b) => a.seq - b.seq)) {
      const open = run.status === "queued" || run.status === "running";
      if (!shown.has(runKey(run.id)) && (open || run.seq > newestShown)) keys.push(runKey(run.id));
    }
    this.list = { keys, generation: this.list.generation + 1, prepended: 0, before, after: null, loaded: true, anchor: null };
    this.recomputeActive();
  }

  private remember(item: TimelineItem): void {
    this.items.set(item.id, item);
    if (item.parentId) this.nest(item.id, item.parentId);
    if (item.body.kind === "agent_message") {
      let chunker = this.chunkers.get(item.id);
      if (!chunker) this.chunkers.set(item.id, (chunker = new Chunker()));
      chunker.update(item.body.text);
    }
    if (item.body.kind === "usage") this.usage.set(item.runId, item.body);
    if (item.body.kind === "diagnostic") this.diagnostics = [...this.diagnostics, item];
    // An older page's plan does not replace a newer one.
    if (item.body.kind === "plan" && (!this.latestPlan || this.latestPlan.id === item.id || item.createdAt >= this.latestPlan.createdAt)) {
      this.latestPlan = item;
      this.dirty.add("plan");
    }
  }

  /** `itemId` among `parentId`'s children, ordered by their place in the run. */
  private nest(itemId: string, parentId: string): void {
    const list = this.children.get(parentId) ?? NO_CHILDREN;
    if (list.includes(itemId)) return;
    const seq = (id: string) => this.items.get(id)?.seq ?? 0;
    this.children.set(parentId, [...list, itemId].sort((a, b) => seq(a) - seq(b)));
    this.dirty.add(`children:${parentId}`);
  }

  private upsert(item: TimelineItem): void {
    const known = this.items.has(item.id);
    // Newer than a window that left the live end: its pages (or the live view reopened) bring it.
    if (!known && this.detached()) return;
    if (!known) this.segments[this.segments.length - 1]?.ids.push(item.id);
    // A row moved under a subagent's call (told after the item was made) leaves the list.
    if (known && item.parentId && this.list.keys.includes(item.id)) {
      this.list = { ...this.list, keys: this.list.keys.filter((k) => splitChunkKey(k).itemId !== item.id) };
      this.dirty.add("rows");
    }
    const chunksBefore = this.chunkCount(item.id);
    if (known && item.body.kind === "diagnostic") {
      this.diagnostics = this.diagnostics.map((d) => (d.id === item.id ? item : d));
      this.items.set(item.id, item);
    } else {
      this.remember(item);
    }
    this.dirty.add(item.id);
    if (item.body.kind === "usage") this.dirty.add(runKey(item.runId));
    if (item.body.kind === "diagnostic") this.dirty.add("diagnostics");
    if (known) {
      if (isRow(item)) this.addChunks(item.id, chunksBefore);
      return;
    }
    if (!isRow(item)) return;
    // A new row: before its run's status line (normally at the very end), else at the end.
    const keys = [...this.list.keys];
    const rk = runKey(item.runId);
    const at = keys.lastIndexOf(rk);
    const mine = Array.from({ length: this.chunkCount(item.id) }, (_, k) => chunkKey(item.id, k));
    if (at >= 0) keys.splice(at, 0, ...mine);
    else keys.push(...mine, rk);
    this.list = { ...this.list, keys };
    this.dirty.add("rows");
  }

  private append(itemId: string, text: string): void {
    const item = this.items.get(itemId);
    if (!item) return; // not loaded (or unknown): the next upsert or reset brings it whole
    const body = item.body;
    let next: TimelineItem["body"];
    switch (body.kind) {
      case "agent_message":
      case "reasoning":
      case "user_message":
        next = { ...body, text: body.text + text };
        break;
      case "tool":
        next = { ...body, output: body.output + text };
        break;
      case "notice":
        next = { ...body, text: body.text + text };
        break;
      default:
        return;
    }
    this.items.set(itemId, { ...item, body: next });
    this.dirty.add(itemId);
    this.streamed += text.length;
    const chunker = this.chunkers.get(itemId);
    if (chunker && next.kind === "agent_message" && isRow(item)) {
      const before = chunker.count();
      chunker.update(next.text);
      this.addChunks(itemId, before);
    }
  }

  /** Rows for chunks an agent message grew since it had `before` of them. */
  private addChunks(itemId: string, before: number): void {
    const now = this.chunkCount(itemId);
    if (now === before) return;
    const keys = [...this.list.keys];
    const last = keys.lastIndexOf(chunkKey(itemId, before - 1));
    if (last < 0) return;
    if (now > before) {
      const added = Array.from({ length: now - before }, (_, i) => chunkKey(itemId, before + i));
      keys.splice(last + 1, 0, ...added);
    } else {
      keys.splice(last - (before - now) + 1, before - now); // the text was replaced by a shorter one
    }
    this.list = { ...this.list, keys };
    this.dirty.add("rows");
  }

  private setRun(run: Run): void {
    const known = this.runs.has(run.id);
    this.runs.set(run.id, run);
    this.dirty.add(runKey(run.id));
    if (!known && !this.detached() && !this.list.keys.includes(runKey(run.id))) {
      this.list = { ...this.list, keys: [...this.list.keys, runKey(run.id)] };
      this.dirty.add("rows");
    }
    this.recomputeActive();
  }

  /** The one place an approval's state is kept in the window: the queue's records, by id (an
   *  item names its approval; its card reads the record here). A record leaves `pending`
   *  exactly once, so a pending copy arriving after the decided one (a command's answer can
   *  overtake the live op) is stale and is not applied. */
  private setApproval(approval: Approval): void {
    const known = this.approvals.get(approval.id);
    if (known && known.state !== "pending" && approval.state === "pending") return;
    this.approvals.set(approval.id, approval);
    this.dirty.add(`approval:${approval.id}`);
  }

  /** Applies a decision returned by a command (the live op will say the same, later). */
  applyApproval(approval: Approval): void {
    this.setApproval(approval);
    this.flush();
  }

  private recomputeActive(): void {
    const active = [...this.runs.values()]
      .filter((r) => r.status === "queued" || r.status === "running")
      .sort((a, b) => a.seq - b.seq);
    const same =
      active.length === this.activeRuns.length &&
      active.every((r, i) => r === this.activeRuns[i] || (r.id === this.activeRuns[i]?.id && r.status === this.activeRuns[i]?.status));
    if (!same) {
      this.activeRuns = active;
      this.dirty.add("active");
    }
  }

  private runOfKey(key: RowKey): string | undefined {
    return isRunKey(key) ? runIdOf(key) : this.items.get(key)?.runId;
  }

  /** Row keys for items in order: each run's items (an agent message's chunks), then its status
   * line (unless `openRun` — the run whose line is already further down). */
  private rowKeys(items: TimelineItem[], openRun: string | undefined): RowKey[] {
    const keys: RowKey[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const n = this.chunkCount(item.id);
      for (let k = 0; k < n; k++) keys.push(chunkKey(item.id, k));
      const next = items[i + 1];
      if ((!next || next.runId !== item.runId) && !(next === undefined && item.runId === openRun)) {
        keys.push(runKey(item.runId));
      }
    }
    return keys;
  }
}
