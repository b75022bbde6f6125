import { describe, expect, it, vi } from "vitest";
import { toIpcError } from "./index";

describe("toIpcError", () => {
  it("keeps a well-formed error", () => {
    expect(toIpcError({ code: "not_found", message: "gone" })).toEqual({ code: "not_found", message: "gone" });
  });
  it("keeps the codes a user can act on", () => {
    expect(toIpcError({ code: "engine_not_logged_in", message: "log in" }).code).toBe("engine_not_logged_in");
    expect(toIpcError({ code: "busy", message: "locked" }).code).toBe("busy");
    expect(toIpcError({ code: "storage_full", message: "disk" }).code).toBe("storage_full");
  });
  it("never lets a bare string or unknown code through untyped", () => {
    expect(toIpcError("boom")).toEqual({ code: "internal", message: "boom" });
    expect(toIpcError({ code: "weird", message: "m" })).toEqual({ code: "internal", message: "unexpected error from the app core" });
    expect(toIpcError(new Error("e"))).toEqual({ code: "internal", message: "e" });
    expect(toIpcError(undefined).code).toBe("internal");
  });
});

describe("openSession", () => {
  it("acks a batch on the channel it came from, with its number, once the page says it is shown", async () => {
    vi.resetModules();
    const invoke = vi.fn(async () => null);
    class Channel<T> {
      static next = 41;
      id = ++Channel.next;
      onmessage: (m: T) => void = () => {};
    }
    vi.doMock("@tauri-apps/api/core", () => ({ invoke, Channel }));
    vi.doMock("@tauri-apps/api/webview", () => ({ getCurrentWebview: () => ({}) }));
    const { ipc } = await import("./index");
    const got: { seq: number; shown?: () => void }[] = [];
    await ipc.openSession("s1", (batch, shown) => got.push({ seq: batch.seq, shown }));
    const [cmd, args] = invoke.mock.calls[0] as unknown as [string, { onBatch: Channel<unknown> }];
    expect(cmd).toBe("open_session");
    args.onBatch.onmessage({ sessionId: "s1", seq: 7, ops: [] });
    expect(got.map((g) => g.seq)).toEqual([7]);
    expect(invoke).toHaveBeenCalledTimes(1); // not before the page says so
    got[0]!.shown!();
    expect(invoke).toHaveBeenLastCalledWith("live_ack", { sessionId: "s1", channel: args.onBatch.id, seq: 7 }, undefined);
    vi.doUnmock("@tauri-apps/api/core");
    vi.doUnmock("@tauri-apps/api/webview");
  });
});
