import { memo, useCallback, useEffect, useRef, useState } from "react";
import { Virtuoso, type VirtuosoHandle } from "react-virtuoso";
import { errorOf, type IpcError } from "../../ipc";
import { useIpc } from "../../ipc/context";
import { useRows } from "../../state/hooks";
import { ANY, type RowKey, type SessionStore } from "../../state/sessionStore";
import { Row } from "./Row";

/** Virtuoso's firstItemIndex starts high so older pages can be put in front. */
const START_INDEX = 1_000_000_000;
const PAGE = 200;

/** Tests turn `startAtEnd` off: Virtuoso's mock context renders nothing with an initial index. */
export const timelineOptions = { startAtEnd: true };

interface Props {
  store: SessionStore;
  /** Scroll to this approval's card and focus it (from the Approvals view). */
  focusApproval: { approvalId: string; itemId: string | null } | null;
  onError: (e: IpcError) => void;
  /** Open the live stream again (its reset is the session's newest page): the window of pages
   *  left the live end and the user goes back to it. */
  onLatest: () => void;
}

interface Ctx {
  store: SessionStore;
  focusKey: RowKey | null;
}

function itemContent(_index: number, key: RowKey, ctx: Ctx) {
  return <Row store={ctx.store} rowKey={key} focused={key === ctx.focusKey} />;
}

/** The session's timeline: virtualised, follows the stream while at the bottom. */
export const Timeline = memo(function Timeline({ store, focusApproval, onError, onLatest }: Props) {
  const ipc = useIpc();
  const rows = useRows(store);
  const ref = useRef<VirtuosoHandle>(null);
  const stick = useRef(true);
  const scrollerEl = useRef<HTMLElement | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const [focusKey, setFocusKey] = useState<RowKey | null>(null);
  const loading = useRef(false);

  const loadOlder = useCallback(async () => {
    const before = store.rows().before;
    if (loading.current || before === null) return false;
    loading.current = true;
    try {
      store.prepend(await ipc.loadTimeline(store.sessionId, before, PAGE));
      return true;
    } catch (e) {
      onError(errorOf(e));
      return false;
    } finally {
      loading.current = false;
    }
  }, [ipc, store, onError]);

  // Scrolled down a window that left the live end: the next page, or the live end again.
  const loadNewer = useCallback(async () => {
    const after = store.rows().after;
    if (loading.current || after === null) return;
    loading.current = true;
    try {
      const page = await ipc.loadTimelineNewer(store.sessionId, after, PAGE);
      if (page.after == null) onLatest();
      else store.appendNewer(page);
    } catch (e) {
      onError(errorOf(e));
    } finally {
      loading.current = false;
    }
  }, [ipc, store, onError, onLatest]);

  // Rows grow while they stream (followOutput covers new rows): keep the bottom in view.
  useEffect(() => {
    let frame = 0;
    const unsubscribe = store.subscribe(ANY, () => {
      if (!stick.current || frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        const el = scrollerEl.current;
        if (el && stick.current && !store.detached()) el.scrollTop = el.scrollHeight;
      });
    });
    return () => {
      unsubscribe();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [store]);

  // Where a (re)mounted list starts: where the user was when the window's pages changed under
  // them, else at the card the user came for when it is loaded, else at the end.
  type Start = { generation: number; key: RowKey | undefined; align: "center" | "end" };
  const [initial, setInitial] = useState<Start | null>(null);
  let start = initial?.generation === rows.generation ? initial : null;
  if (rows.loaded && !start) {
    const card = focusApproval ? store.rowOfApproval(focusApproval.approvalId, focusApproval.itemId) : undefined;
    start = rows.anchor ? { generation: rows.generation, ...rows.anchor } : { generation: rows.generation, key: card, align: "center" };
    setInitial(start);
  }
  const startIndex = start?.key ? rows.keys.indexOf(start.key) : -1;

  // Going to a card: load older pages until its row is there (bounded), then scroll and focus
  // it. The search outlives the lists the window's pages start on the way (new generations).
  const search = useRef<{ target: Props["focusApproval"]; pages: number; reopened: boolean; done: boolean } | null>(null);
  useEffect(() => {
    if (!focusApproval || !rows.loaded) return;
    if (search.current?.target !== focusApproval) search.current = { target: focusApproval, pages: 0, reopened: false, done: false };
    const state = search.current;
    if (state.done) return;
    let cancelled = false;
    (async () => {
      while (!cancelled) {
        const key = store.rowOfApproval(focusApproval.approvalId, focusApproval.itemId);
        if (key) {
          state.done = true;
          stick.current = false;
          setFocusKey(key);
          // The list may have started there already; otherwise scroll once it has settled.
          const index = store.rows().keys.indexOf(key);
          const go = () => ref.current?.scrollToIndex({ index, align: "center" });
          // Rows above it are only estimated until they render: once they are measured the
          // first jump can be off by a screen (seen opening a search hit), so go again.
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              go();
              setTimeout(() => !cancelled && go(), 300);
            }),
          );
          return;
        }
        // Not in a window that had left the live end: from the live end again (this runs
        // again for the reset's new generation; older pages may then detach it, so only once).
        if (!state.reopened && store.detached()) {
          state.reopened = true;
          return onLatest();
        }
        if (state.pages++ >= 50 || !(await loadOlder())) return;
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [focusApproval, rows.loaded, rows.generation, store, loadOlder, onLatest]);

  // The user scrolling up (wheel, keys, dragging the scrollbar) stops following; reaching the
  // bottom resumes it. Scroll events alone cannot tell: the list itself adjusts scrollTop.
  const detach = useRef<(() => void) | null>(null);
  const scroller = useCallback((el: HTMLElement | Window | null) => {
    detach.current?.();
    detach.current = null;
    scrollerEl.current = el instanceof HTMLElement ? el : null;
    if (!(el instanceof HTMLElement)) return;
    let dragging = false;
    let lastTop = el.scrollTop;
    const unstick = () => {
      stick.current = false;
    };
    el.addEventListener("wheel", (e) => e.deltaY < 0 && unstick(), { passive: true });
    el.addEventListener("touchmove", unstick, { passive: true });
    el.addEventListener("keydown", (e) => {
      if (["ArrowUp", "PageUp", "Home"].includes(e.key)) unstick();
    });
    el.addEventListener("pointerdown", (e) => {
      dragging = e.target === el; // on the scrollbar, not on a row
      lastTop = el.scrollTop;
    });
    const drop = () => (dragging = false);
    window.addEventListener("pointerup", drop);
    detach.current = () => window.removeEventListener("pointerup", drop);
    el.addEventListener(
      "scroll",
      () => {
        if (dragging && el.scrollTop < lastTop) unstick();
        lastTop = el.scrollTop;
      },
      { passive: true },
    );
  }, []);

  // The end of a window that left the live end is not the bottom to follow.
  const bottomChange = useCallback(
    (bottom: boolean) => {
      if (bottom && !store.detached()) stick.current = true;
      setAtBottom(bottom);
    },
    [store],
  );

  const jump = () => {
    stick.current = true;
    setFocusKey(null);
    if (store.detached()) onLatest();
    else ref.current?.scrollToIndex({ index: "LAST", align: "end" });
  };

  if (!rows.loaded) return <div className="timeline-loading muted">Loading…</div>;
  if (rows.keys.length === 0) {
    return (
      <div className="timeline-empty" role="log" aria-label="Timeline">
        <p>Nothing here yet. Write a message below to start.</p>
      </div>
    );
  }

  return (
    <div className="timeline-wrap">
      <Virtuoso<RowKey, Ctx>
        key={rows.generation}
        ref={ref}
        role="log"
        aria-label="Timeline"
        // Streamed text would be read out delta by delta: runs are announced by the session view.
        aria-live="off"
        tabIndex={0}
        className="timeline"
        data={rows.keys as RowKey[]}
        context={{ store, focusKey }}
        firstItemIndex={START_INDEX - rows.prepended}
        initialTopMostItemIndex={
          startIndex >= 0 && start ? { index: startIndex, align: start.align } : timelineOptions.startAtEnd ? { index: "LAST", align: "end" } : undefined
        }
        computeItemKey={(_i, key) => key}
        itemContent={itemContent}
        followOutput={() => (stick.current && !store.detached() ? "auto" : false)}
        atBottomStateChange={bottomChange}
        atBottomThreshold={48}
        startReached={() => void loadOlder()}
        endReached={() => void loadNewer()}
        increaseViewportBy={{ top: 1200, bottom: 400 }}
        defaultItemHeight={240}
        scrollerRef={scroller}
      />
      {(!atBottom || rows.after !== null) && (
        <button type="button" className="jump-latest" onClick={jump}>
          Jump to latest <span aria-hidden="true">↓</span>
        </button>
      )}
    </div>
  );
});
