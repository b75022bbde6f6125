import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "./App";
import type { LibraryApi, SearchHit } from "./ipc/library";
import { timelineOptions } from "./components/session/Timeline";
import { fakeIpc, session } from "./test/fakeIpc";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

const LAZY = { timeout: 10_000 };
const ws = { id: "w1", name: "proj", path: "/home/me/proj", createdAt: 1 };

function hit(over: Partial<SearchHit> = {}): SearchHit {
  return {
    itemId: "r1:msg",
    sessionId: "s1",
    sessionTitle: "Older",
    workspaceId: "w1",
    runId: "r1",
    kind: "agent_message",
    snippet: [
      { text: "the ", highlight: false },
      { text: "kettle", highlight: true },
      { text: " boils", highlight: false },
    ],
    rank: -1,
    createdAt: Date.UTC(2026, 10, 3, 12, 0),
    ...over,
  };
}

function fakeLibrary(over: Partial<LibraryApi> = {}): LibraryApi {
  return {
    searchMessages: vi.fn(async () => [hit()]),
    renameSession: vi.fn(async (id: string, title: string) => session({ id, title })),
    archiveSession: vi.fn(async (id: string, archived: boolean) => session({ id, title: "Older", archivedAt: archived ? 5 : null })),
    sessionFootprint: vi.fn(async () => ({ messages: 12, runs: 3, attachments: 1 })),
    deleteSession: vi.fn(async () => null),
    exportSession: vi.fn(async () => "/home/me/older.md"),
    ...over,
  };
}

function setup(library = fakeLibrary()) {
  const ipc = fakeIpc({
    listWorkspaces: vi.fn(async () => [ws]),
    listSessions: vi.fn(async (_w: string, archived = false) =>
      archived
        ? [session({ id: "s2", title: "Newer" }), session({ id: "s1", title: "Older" }), session({ id: "s0", title: "Shelved", archivedAt: 3 })]
        : [session({ id: "s2", title: "Newer" }), session({ id: "s1", title: "Older" })],
    ),
  });
  render(<App ipc={ipc} library={library} />);
  return { ipc, library };
}

const titles = () => screen.getAllByTestId("session-item").map((b) => b.querySelector(".session-title")?.textContent);

describe("search in the window", () => {
  it("Ctrl+K focuses the search box; results show session, workspace, date and the match; a hit opens its session", async () => {
    const { ipc, library } = setup();
    await screen.findByRole("button", { name: "Newer" });
    const box = screen.getByRole("searchbox", { name: "Search" });
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: "kett" } });
    const results = await screen.findByRole("region", { name: /Results for/ });
    const button = await within(results).findByTestId("search-hit");
    expect(library.searchMessages).toHaveBeenCalledWith("kett", null, 50);
    expect(button.textContent).toContain("Older");
    expect(button.textContent).toContain("proj");
    expect(button.querySelector("time")?.getAttribute("datetime")).toBe("2026-11-03T12:00:00.000Z");
    expect(button.querySelector("mark")?.textContent).toBe("kettle");
    await act(async () => fireEvent.click(button));
    expect(screen.queryByRole("region", { name: /Results for/ })).toBeNull();
    expect((box as HTMLInputElement).value).toBe("");
    await waitFor(() => expect(ipc.openSession).toHaveBeenCalledWith("s1", expect.any(Function)), LAZY);
  });

  it("Escape clears the query and the results", async () => {
    setup();
    await screen.findByRole("button", { name: "Newer" });
    const box = screen.getByRole("searchbox", { name: "Search" });
    fireEvent.change(box, { target: { value: "kettle" } });
    await screen.findByTestId("search-hit");
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryByTestId("search-hit")).toBeNull();
  });

  it("says so when nothing matches", async () => {
    setup(fakeLibrary({ searchMessages: vi.fn(async () => []) }));
    await screen.findByRole("button", { name: "Newer" });
    fireEvent.change(screen.getByRole("searchbox", { name: "Search" }), { target: { value: "zzz" } });
    expect(await screen.findByText("No messages match “zzz”.")).toBeTruthy();
  });
});

describe("session management in the sidebar", () => {
  const menu = async (title: string) => {
    const button = await screen.findByRole("button", { name: `Actions for ${title}` });
    await act(async () => fireEvent.click(button));
    return screen.getByRole("menu", { name: `Actions for ${title}` });
  };

  it("renames in place", async () => {
    const { library } = setup();
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Rename" });
      await act(async () => fireEvent.click(item));
    }
    const field = screen.getByRole("textbox", { name: "Session name" });
    fireEvent.change(field, { target: { value: "Kettle talk" } });
    await act(async () => fireEvent.keyDown(field, { key: "Enter" }));
    expect(library.renameSession).toHaveBeenCalledWith("s1", "Kettle talk");
    expect(titles()).toEqual(["Newer", "Kettle talk"]);
  });

  it("archives out of the list; Show archived lists archived sessions, marked", async () => {
    const { ipc, library } = setup();
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Archive" });
      await act(async () => fireEvent.click(item));
    }
    expect(library.archiveSession).toHaveBeenCalledWith("s1", true);
    expect(titles()).toEqual(["Newer"]);
    await act(async () => fireEvent.click(screen.getByRole("checkbox", { name: "Show archived" })));
    await waitFor(() => expect(titles()).toEqual(["Newer", "Older", "Shelved"]));
    expect(ipc.listSessions).toHaveBeenLastCalledWith("w1", true);
    const shelved = screen.getAllByTestId("session-item")[2]!;
    expect(shelved.textContent).toContain("archived");
    expect(within(await menu("Shelved")).getByRole("menuitem", { name: "Unarchive" })).toBeTruthy();
  });

  it("deletes after a confirm that names what is lost", async () => {
    const { library } = setup();
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Delete…" });
      await act(async () => fireEvent.click(item));
    }
    const dialog = await screen.findByRole("alertdialog", { name: "Delete “Older”?" });
    expect(dialog.textContent).toContain("Its 12 messages and 3 runs, with 1 attached file no other session uses, will be removed.");
    expect(library.deleteSession).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" })));
    expect(library.deleteSession).not.toHaveBeenCalled();
    expect(titles()).toEqual(["Newer", "Older"]);

    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Delete…" });
      await act(async () => fireEvent.click(item));
    }
    const again = await screen.findByRole("alertdialog");
    await act(async () => fireEvent.click(within(again).getByRole("button", { name: "Delete session" })));
    expect(library.deleteSession).toHaveBeenCalledWith("s1");
    expect(titles()).toEqual(["Newer"]);
  });

  it("exports through the save dialog and says where", async () => {
    const { library } = setup();
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Export as Markdown…" });
      await act(async () => fireEvent.click(item));
    }
    expect(library.exportSession).toHaveBeenCalledWith("s1", "markdown");
    expect(await screen.findByText("Exported to /home/me/older.md")).toBeTruthy();
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Export as JSON…" });
      await act(async () => fireEvent.click(item));
    }
    expect(library.exportSession).toHaveBeenLastCalledWith("s1", "json");
  });

  it("a failed action shows the core's message", async () => {
    setup(fakeLibrary({ deleteSession: vi.fn(async () => Promise.reject({ code: "invalid_input", message: "this session has a run in progress" })) }));
    {
      const item = within(await menu("Older")).getByRole("menuitem", { name: "Delete…" });
      await act(async () => fireEvent.click(item));
    }
    const confirm = within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Delete session" });
    await act(async () => fireEvent.click(confirm));
    expect(await screen.findByText(/this session has a run in progress/)).toBeTruthy();
    expect(titles()).toEqual(["Newer", "Older"]);
  });
});
