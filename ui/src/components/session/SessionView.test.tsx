import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FileDropEvent, Ipc } from "../../ipc";
import { attachment } from "../../test/fakeIpc";
import { agent, approval, item, reset, run, tool, user } from "../../test/items";
import { openSessionView } from "../../test/sessionView";
import { timelineOptions } from "./Timeline";
import { rowStats } from "./Row";
import { parseStats } from "../markdown/MarkdownBlock";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

function open(ipcOver: Partial<Ipc> = {}) {
  return openSessionView(ipcOver);
}

const timeline = [
  user("r1", "first question"),
  agent("r1", "m", "An **answer**"),
  item("r1", "usage", { kind: "usage", input: 1200, cached: 0, output: 345, reasoning: 0, costUsd: 0.0123 }),
  item("r1", "diag:1", { kind: "diagnostic", source: "stderr", message: "engine warning xyz", raw: null }),
  user("r2", "second"),
  user("r3", "third"),
  tool("r3", "tool1", { approvalId: "a1" }),
  user("r4", "fourth"),
];
const runs = [
  run({ id: "r1", status: "completed" }),
  run({ id: "r2", seq: 2, status: "failed", error: "the engine crashed" }),
  run({ id: "r3", seq: 3, status: "running", endedAt: null }),
  run({ id: "r4", seq: 4, status: "queued", startedAt: null, endedAt: null }),
];

describe("SessionView", () => {
  it("opens the session's channel, renders the reset, and closes it on unmount", async () => {
    const { ipc, push, unmount } = open();
    await act(async () => {});
    expect(ipc.openSession).toHaveBeenCalledWith("s1", expect.any(Function));
    push([reset(timeline, runs, [approval()])]);
    const log = screen.getByRole("log", { name: "Timeline" });
    expect(within(log).getByText("first question")).toBeTruthy();
    unmount();
    expect(ipc.closeSession).toHaveBeenCalledWith("s1");
  });

  it("says why a session could not be opened, and retries", async () => {
    const openSession = vi.fn(async () => {
      throw { code: "not_found", message: "no session s1" };
    });
    const { onError } = open({ openSession });
    expect(await screen.findByText(/could not be opened: no session s1/)).toBeTruthy();
    expect(onError).toHaveBeenCalledWith({ code: "not_found", message: "no session s1" });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    });
    expect(openSession).toHaveBeenCalledTimes(2);
  });

  it("has the accessible names the issue lists", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset(timeline, runs, [approval()])]);
    screen.getByRole("log", { name: "Timeline" });
    screen.getByRole("textbox", { name: "Message" });
    screen.getByRole("button", { name: "Send" });
    screen.getByRole("button", { name: "Interrupt" });
    screen.getByRole("button", { name: "Attach files" });
    const card = screen.getByRole("group", { name: "Approval" });
    within(card).getByRole("button", { name: "Approve once" });
    within(card).getByRole("button", { name: "Approve for session" });
    within(card).getByRole("button", { name: "Deny" });
    const statuses = screen.getAllByTestId("run-status").map((el) => el.querySelector(".run-status-text")?.textContent);
    expect(statuses).toEqual(["Completed", "Failed", "Running", "Queued"]);
  });

  it("shows failure reasons, usage and cost per run; diagnostics only in their panel", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset(timeline, runs)]);
    const log = screen.getByRole("log", { name: "Timeline" });
    expect(log.textContent).toContain("the engine crashed");
    expect(log.textContent).toContain("1.2k in");
    expect(log.textContent).toContain("$0.0123");
    expect(log.textContent).not.toContain("engine warning xyz");
    fireEvent.click(screen.getByRole("button", { name: /Diagnostics/ }));
    expect(screen.getByRole("region", { name: "Diagnostics" }).textContent).toContain("engine warning xyz");
  });

  it("typing in the composer does not re-render the timeline", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset(timeline, runs, [approval()])]);
    const rows = rowStats.renders;
    const parses = parseStats.blocks;
    const box = screen.getByRole("textbox", { name: "Message" });
    for (const value of ["h", "he", "hel", "hell", "hello"]) fireEvent.change(box, { target: { value } });
    expect(rowStats.renders).toBe(rows);
    expect(parseStats.blocks).toBe(parses);
  });

  it("an append re-renders only the streaming row", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset([user("r1", "q"), agent("r1", "a", "done"), agent("r1", "m", "Hel", "running")], [run({ status: "running" })])]);
    const rows = rowStats.renders;
    push([{ op: "append", itemId: "r1:m", text: "lo" }]);
    expect(rowStats.renders - rows).toBe(1);
  });

  it("streams appended text into the message", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset([user("r1", "q"), agent("r1", "m", "Hel", "running")], [run({ status: "running" })])]);
    push([{ op: "append", itemId: "r1:m", text: "lo" }, { op: "append", itemId: "r1:m", text: " world" }]);
    expect(screen.getByRole("log", { name: "Timeline" }).textContent).toContain("Hello world");
  });

  it("a queued message can be cancelled", async () => {
    const { push, ipc } = open();
    await act(async () => {});
    push([reset(timeline, runs)]);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Cancel queued message" }));
    });
    expect(ipc.interruptRun).toHaveBeenCalledWith("r4");
  });

  it("Esc anywhere interrupts the running run", async () => {
    const { push, ipc } = open();
    await act(async () => {});
    push([reset(timeline, runs)]);
    await act(async () => {
      fireEvent.keyDown(window, { key: "Escape" });
    });
    expect(ipc.interruptRun).toHaveBeenCalledWith("r3");
  });

  it("a decision from the card updates it at once", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset(timeline, runs, [approval()])]);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Approve once" }));
    });
    expect(screen.getByRole("group", { name: "Approval" }).textContent).toContain("Approved once by you");
  });

  it("shows a drop overlay while files are dragged over the window", async () => {
    let handler: (e: FileDropEvent) => void = () => {};
    const { ipc } = open({
      onFileDrop: vi.fn(async (h) => {
        handler = h;
        return () => {};
      }),
      importAttachment: vi.fn(async () => attachment("x.png")),
    });
    await act(async () => {});
    act(() => handler({ type: "enter" }));
    expect(screen.getByText("Drop files to attach them")).toBeTruthy();
    await act(async () => handler({ type: "leave" }));
    expect(screen.queryByText("Drop files to attach them")).toBeNull();
    await act(async () => handler({ type: "drop", files: [{ token: "t-x", name: "x.png", size: 1 }] }));
    await screen.findByRole("button", { name: "Remove x.png" });
    expect(ipc.importAttachment).toHaveBeenCalledWith("t-x");
  });

  it("offers Jump to latest when scrolled up", async () => {
    const { push } = open();
    await act(async () => {});
    const many = Array.from({ length: 60 }, (_, i) => agent("r1", `m${i}`, `message ${i}`));
    push([reset(many, [run()])]);
    const log = screen.getByRole("log", { name: "Timeline" });
    // jsdom has no layout: give the scroller a height to be scrolled up in.
    Object.defineProperty(log, "scrollHeight", { configurable: true, value: 6000 });
    Object.defineProperty(log, "clientHeight", { configurable: true, value: 2000 });
    Object.defineProperty(log, "offsetHeight", { configurable: true, value: 2000 });
    await act(async () => {
      log.scrollTop = 3000;
      fireEvent.scroll(log);
    });
    await act(async () => {
      log.scrollTop = 0;
      fireEvent.scroll(log);
    });
    const jump = await screen.findByRole("button", { name: "Jump to latest" });
    expect(jump).toBeTruthy();
  });

  it("a cut output says how long it is in all and opens the whole of it", async () => {
    const openToolOutput = vi.fn(async () => null);
    const { push } = open({ openToolOutput });
    const long = tool("r1", "big", { output: "first lines\n\n[… 3.0 MB not shown …]\n\nlast lines\n", outputBytes: 3 * 1024 * 1024 });
    push([reset([user("r1", "build it"), long], [run({ id: "r1", status: "completed" })])]);
    const note = await screen.findByText(/Long output: its start and end are shown \(3\.0 MB in all\)/);
    expect(note).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Open full output" }));
    expect(openToolOutput).toHaveBeenCalledWith("s1", long.id);
  });
});
