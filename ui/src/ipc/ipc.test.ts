import { describe, expect, it } from "vitest";
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
