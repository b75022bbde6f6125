import { act, cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Ipc } from "../../ipc";
import { agent, approval, reset, run, tool, user } from "../../test/items";
import { openSessionView } from "../../test/sessionView";
import { timelineOptions } from "./Timeline";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

function open(ipcOver: Partial<Ipc> = {}) {
  return openSessionView(ipcOver, 3000);
}

const call = (output = "") =>
  tool("r1", "toolu_agent1", {
    toolKind: "agent",
    name: "Agent",
    input: { description: "Count files", prompt: "Count the files in src", subagent_type: "general-purpose" },
    output,
  });

describe("a subagent", () => {
  it("nests its messages and tool calls in the call's card, open while it works, collapsible, and names itself in its approvals", async () => {
    const { push } = open();
    await act(async () => {});
    const parent = { ...call(), status: "running" as const };
    const subText = agent("r1", "m2", "Looking at **src**", "completed");
    const subBash = tool("r1", "toolu_sub_bash", { input: { command: "touch sub-made.txt" }, approvalId: "a-sub" });
    const nested = [
      { ...subText, parentId: parent.id },
      { ...subBash, parentId: parent.id, status: "running" as const },
    ];
    const asked = approval({
      id: "a-sub",
      itemId: subBash.id,
      request: { tool: "Bash", command: "touch sub-made.txt", cwd: "/repo", files: [], reason: "say hi", questions: [], detail: null, subagent: "general-purpose: Count files" },
    });
    push([reset([user("r1", "Count"), parent, ...nested, agent("r1", "m1", "Main waits")], [run({ id: "r1", status: "running", endedAt: null })], [asked])]);

    const card = screen.getByRole("group", { name: "Subagent: Count files" });
    expect(within(card).getByText("general-purpose")).toBeTruthy();
    const head = (el: HTMLElement) => el.querySelector(":scope > .tool-head") as HTMLElement;
    expect(within(head(card)).getByText("running")).toBeTruthy();
    const toggle = within(card).getByRole("button", { name: "Subagent activity (2 items)" });
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const list = within(card).getByRole("list", { name: "Subagent activity" });
    expect(within(list).getByText("src").tagName).toBe("STRONG");
    expect(list.querySelector(".tool-head .tool-command")?.textContent).toBe("touch sub-made.txt");
    // The subagent's request is in its own call, inside the card, and names it.
    const approvalCard = within(list).getByRole("group", { name: "Approval" });
    expect(approvalCard.textContent).toContain("Asked by the subagent general-purpose: Count files");
    // Nested items are not rows of their own: the main agent's text is, once.
    const timeline = screen.getByRole("log", { name: "Timeline" });
    expect([...timeline.querySelectorAll(".tool-head .tool-command")].map((c) => c.textContent)).toEqual(["touch sub-made.txt"]);
    expect(within(timeline).getByText("Main waits")).toBeTruthy();

    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(within(card).queryByRole("list", { name: "Subagent activity" })).toBeNull();

    // A new nested item arrives live; the subagent ends with its summary: closed by default now.
    push([
      { op: "upsert", item: { ...agent("r1", "m3", "SUB-DONE: 3 files"), parentId: parent.id } },
      { op: "upsert", item: { ...call("SUB-DONE: **3** files"), status: "completed" } },
    ]);
    const done = screen.getByRole("group", { name: "Subagent: Count files" });
    expect(within(head(done)).getByText("done")).toBeTruthy();
    expect(within(done).getByRole("button", { name: "Subagent activity (3 items)" }).getAttribute("aria-expanded")).toBe("false");
    expect(within(done).getByText("3").tagName).toBe("STRONG");
    fireEvent.click(within(done).getByRole("button", { name: "Subagent activity (3 items)" }));
    const items = within(within(done).getByRole("list", { name: "Subagent activity" })).getAllByRole("listitem");
    expect(items.map((li) => li.textContent?.slice(0, 12))).toEqual(["Looking at s", "$touch sub-m", "SUB-DONE: 3 "]);
  });
});
