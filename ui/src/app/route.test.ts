import { describe, expect, it, vi } from "vitest";
import { Navigator, routedSessionId } from "./route";

describe("Navigator", () => {
  it("starts at home, goes where asked, and tells its listeners", () => {
    const nav = new Navigator();
    const heard = vi.fn();
    const off = nav.subscribe(heard);
    expect(nav.get()).toEqual({ kind: "home" });
    nav.openSettings();
    expect(nav.get()).toEqual({ kind: "settings" });
    nav.go({ kind: "session", id: "s1", focus: null });
    expect(routedSessionId(nav.get())).toBe("s1");
    expect(heard).toHaveBeenCalledTimes(2);
    off();
    nav.go({ kind: "approvals" });
    expect(heard).toHaveBeenCalledTimes(2);
  });

  it("an update that keeps the route changes nothing", () => {
    const nav = new Navigator();
    nav.go({ kind: "session", id: "s1", focus: null });
    const heard = vi.fn();
    nav.subscribe(heard);
    // A deleted session that is not the one shown leaves the route as it is.
    nav.go((r) => (r.kind === "session" && r.id === "s2" ? { kind: "home" } : r));
    expect(heard).not.toHaveBeenCalled();
    nav.go((r) => (r.kind === "session" && r.id === "s1" ? { kind: "home" } : r));
    expect(nav.get()).toEqual({ kind: "home" });
    expect(heard).toHaveBeenCalledTimes(1);
  });
});
