import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "./App";
import type { Approval } from "./ipc";
import { timelineOptions } from "./components/session/Timeline";
import { approval, fakeIpc, session } from "./test/fakeIpc";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

const LAZY = { timeout: 10_000 };
const ws = { id: "w1", name: "proj", path: "/home/me/proj", createdAt: 1 };

function setup() {
  let click: (a: Approval | null) => void = () => {};
  const ipc = fakeIpc({
    listWorkspaces: vi.fn(async () => [ws]),
    listSessions: vi.fn(async () => [session({ id: "s2", title: "Newer" }), session({ id: "s1", title: "Older" })]),
    listPendingApprovals: vi.fn(async () => [approval({ sessionId: "s1" })]),
    watchNotificationClicks: vi.fn(async (cb: (a: Approval | null) => void) => {
      click = cb;
    }),
  });
  render(<App ipc={ipc} />);
  return { ipc, click: (a: Approval | null) => act(() => click(a)) };
}

describe("a clicked notification", () => {
  it("opens the session on the request's card", async () => {
    const { ipc, click } = setup();
    await screen.findByRole("button", { name: "Newer" });
    await waitFor(() => expect(ipc.watchNotificationClicks).toHaveBeenCalled());
    click(approval({ id: "a1", sessionId: "s1" }));
    expect(await screen.findByRole("heading", { name: "Older" }, LAZY)).toBeTruthy();
    await waitFor(() => expect(ipc.openSession).toHaveBeenCalledWith("s1", expect.any(Function)), LAZY);
  });

  it("a summary opens the Approvals view", async () => {
    const { ipc, click } = setup();
    await screen.findByRole("button", { name: "Newer" });
    await waitFor(() => expect(ipc.watchNotificationClicks).toHaveBeenCalled());
    click(null);
    await waitFor(() => expect(screen.getByTestId("approvals-entry").getAttribute("aria-current")).toBe("page"));
  });
});
