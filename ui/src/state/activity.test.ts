import { describe, expect, it, vi } from "vitest";
import { ActivityStore } from "./activity";

describe("ActivityStore", () => {
  it("each snapshot replaces the last; absent sessions are idle; unchanged entries keep their object", () => {
    const s = new ActivityStore();
    const l = vi.fn();
    s.subscribe(l);
    s.set([{ sessionId: "a", running: true, queued: 1, waiting: 2 }, { sessionId: "b", running: false, queued: 0, waiting: 1 }]);
    expect(s.waiting()).toBe(3);
    const a = s.get("a");
    s.set([{ sessionId: "a", running: true, queued: 1, waiting: 2 }]);
    expect(s.get("a")).toBe(a);
    expect(s.get("b")).toBeUndefined();
    expect(s.waiting()).toBe(2);
    expect(l).toHaveBeenCalledTimes(2);
  });
});
