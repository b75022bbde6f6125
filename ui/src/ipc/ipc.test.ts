import { describe, expect, it } from "vitest";
import { toIpcError } from "./index";

describe("toIpcError", () => {
  it("keeps a well-formed error", () => {
    expect(toIpcError({ code: "not_found", message: "gone" })).toEqual({ code: "not_found", message: "gone" });
  });
  it("never lets a bare string or unknown code through untyped", () => {
    expect(toIpcError("boom")).toEqual({ code: "internal", message: "boom" });
    expect(toIpcError({ code: "weird", message: "m" })).toEqual({ code: "internal", message: "unexpected error from the app core" });
    expect(toIpcError(new Error("e"))).toEqual({ code: "internal", message: "e" });
    expect(toIpcError(undefined).code).toBe("internal");
  });
});
