import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "./App";
import type { SessionActivity } from "./ipc";
import { timelineOptions } from "./components/session/Timeline";
import { approval, fakeIpc, session } from "./test/fakeIpc";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

// The session and approvals views are lazy chunks: the first import can be slow on a busy machine.
const LAZY = { timeout: 10_000 };

const ws = { id: "w1", name: "proj", path: "/home/me/proj", createdAt: 1 };

function setup() {
  let activity: (s: SessionActivity[]) => void = () => {};
  const ipc = fakeIpc({
    listWorkspaces: vi.fn(async () => [ws]),
    listSessions: vi.fn(async () => [session({ id: "s2", title: "Newer" }), session({ id: "s1", title: "Older" })]),
    listPendingApprovals: vi.fn(async () => [approval({ sessionId: "s1" })]),
    watchActivity: vi.fn(async (cb: (s: SessionActivity[]) => void) => {
      activity = cb;
    }),
  });
  render(<App ipc={ipc} />);
  return { ipc, activity: (s: SessionActivity[]) => act(() => activity(s)) };
}

describe("App with sessions", () => {
  it("lists a workspace's sessions newest first, with a New session button", async () => {
    const { ipc } = setup();
    await screen.findByRole("button", { name: "Newer" });
    const titles = screen.getAllByTestId("session-item").map((b) => b.textContent);
    expect(titles).toEqual(["Newer", "Older"]);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "New session" }));
    });
    expect(ipc.createSession).toHaveBeenCalledWith("w1", null, null, null);
    expect(screen.getAllByTestId("session-item")).toHaveLength(3);
    expect(await screen.findByRole("textbox", { name: "Message" }, LAZY)).toBeTruthy();
    await waitFor(() => expect(ipc.openSession).toHaveBeenCalledWith("new", expect.any(Function)), LAZY);
  });

  it("a workspace without profiles asks for the engine first", async () => {
    const { ipc } = setup();
    (ipc.listProfiles as ReturnType<typeof vi.fn>).mockResolvedValue([]);
    await screen.findByRole("button", { name: "Newer" });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "New session" }));
    });
    expect(ipc.createSession).not.toHaveBeenCalled();
    const choice = screen.getByRole("group", { name: "Engine for the new session" });
    await act(async () => {
      fireEvent.click(within(choice).getByRole("button", { name: "Claude Code" }));
    });
    expect(ipc.createSession).toHaveBeenCalledWith("w1", null, "claude", null);
  });

  it("opens a session when selected", async () => {
    const { ipc } = setup();
    const older = await screen.findByRole("button", { name: "Older" });
    await act(async () => {
      fireEvent.click(older);
    });
    expect(await screen.findByRole("heading", { name: "Older" }, LAZY)).toBeTruthy();
    await waitFor(() => expect(ipc.openSession).toHaveBeenCalledWith("s1", expect.any(Function)), LAZY);
  });

  it("shows running and waiting badges from the activity channel", async () => {
    const { activity } = setup();
    await screen.findByRole("button", { name: "Newer" });
    await act(async () => {});
    activity([{ sessionId: "s1", running: true, queued: 0, waiting: 2 }]);
    const older = screen.getByRole("button", { name: /^Older/ });
    expect(older.textContent).toContain("running");
    expect(older.textContent).toContain("2 waiting for you");
    activity([]);
    expect(screen.getByRole("button", { name: "Older" }).textContent).toBe("Older");
  });

  it("the Approvals entry shows the pending count and lists them; Open in session goes to the card", async () => {
    const { ipc } = setup();
    await screen.findByRole("button", { name: "Newer" });
    const entry = screen.getByTestId("approvals-entry");
    await act(async () => {});
    expect(within(entry).getByTestId("approvals-count").textContent).toBe("1");
    await act(async () => {
      fireEvent.click(entry);
    });
    const card = await screen.findByRole("group", { name: "Approval" }, LAZY);
    expect(card.textContent).toContain("rm -rf build");
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Open in session" }));
    });
    expect(ipc.openSession).toHaveBeenCalledWith("s1", expect.any(Function));
  });
});
