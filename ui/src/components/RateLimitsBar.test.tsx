import { act, cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineRateLimits } from "../generated/EngineRateLimits";
import { IpcContext } from "../ipc/context";
import { ENGINES, fakeIpc } from "../test/fakeIpc";
import { RateLimitsBar } from "./RateLimitsBar";

afterEach(cleanup);

const at = Date.now() + 3_600_000;
const codex = (primary: number, reached: string | null = null): EngineRateLimits => ({
  engine: "codex",
  updatedAt: Date.now(),
  limits: {
    reached,
    windows: [
      { name: "5-hour", usedPercent: primary, resetsAt: at, windowMinutes: 300 },
      { name: "weekly", usedPercent: 20, resetsAt: at + 86_400_000, windowMinutes: 10080 },
    ],
  },
});

describe("the status bar's rate limits", () => {
  it("shows each engine's windows, warns near the limit and says when a reached one resets", async () => {
    let push: (l: EngineRateLimits[]) => void = () => {};
    const ipc = fakeIpc({
      listEngines: vi.fn(async () => ENGINES),
      watchRateLimits: vi.fn(async (on: (l: EngineRateLimits[]) => void) => {
        push = (l) => act(() => on(l));
      }),
    });
    render(
      <IpcContext.Provider value={ipc}>
        <RateLimitsBar />
      </IpcContext.Provider>,
    );
    await act(async () => {});
    expect(screen.queryByRole("list", { name: "Rate limits" })).toBeNull();
    push([codex(42)]);
    const list = screen.getByRole("list", { name: "Rate limits" });
    const item = within(list).getByRole("listitem");
    expect(item.textContent).toBe("Codex: 5-hour 42 % · weekly 20 %");
    expect(item.className).toBe("rate-limit");
    expect(item.getAttribute("title")).toContain("5-hour window: 42 % used, resets ");

    push([codex(85)]);
    const warned = within(screen.getByRole("list", { name: "Rate limits" })).getByRole("listitem");
    expect(warned.className).toContain("limit-warn");
    expect(warned.textContent).toMatch(/^⚠ Codex: 5-hour 85 % · weekly 20 % \(near the limit, resets .+\)$/);

    push([codex(100, "rate_limit_reached")]);
    const reached = within(screen.getByRole("list", { name: "Rate limits" })).getByRole("listitem");
    expect(reached.className).toContain("limit-reached");
    expect(reached.textContent).toMatch(/· limit reached, resets .+$/);
  });
});
