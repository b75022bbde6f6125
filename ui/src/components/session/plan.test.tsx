import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Plan } from "../../generated/Plan";
import type { Ipc } from "../../ipc";
import { item, reset, run, user } from "../../test/items";
import { openSessionView } from "../../test/sessionView";
import { timelineOptions } from "./Timeline";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

const step = (s: string, status: Plan["entries"][number]["status"], activeForm: string | null = null) => ({ id: null, step: s, activeForm, status });
const plan = (...entries: Plan["entries"]): Plan => ({ explanation: null, entries });

function open(ipcOver: Partial<Ipc> = {}) {
  return openSessionView(ipcOver);
}

describe("the agent's plan", () => {
  it("is a checklist in the timeline that follows its updates, and the header shows the current step", async () => {
    const { push } = open();
    await act(async () => {});
    const first = item("r1", "plan", { kind: "plan", ...plan(step("Read the code", "completed"), step("Write the fix", "in_progress", "Writing the fix"), step("Run the tests", "pending")) });
    push([reset([user("r1", "Fix it"), first], [run({ id: "r1", status: "running", endedAt: null })])]);
    const card = screen.getByRole("region", { name: "Plan, 1 of 3 done" });
    const steps = within(card).getAllByRole("listitem").map((li) => li.textContent);
    expect(steps).toEqual(["✓Read the code, done", "◐Write the fix, in progress", "○Run the tests, to do"]);
    const header = screen.getByRole("banner");
    expect(within(header).getByText("Writing the fix")).toBeTruthy();
    expect(header.textContent).toContain("Current step: Writing the fix · step 2 of 3");

    // The same item, updated: one card, the new list.
    push([{ op: "upsert", item: { ...first, body: { kind: "plan", ...plan(step("Read the code", "completed"), step("Write the fix", "completed"), step("Run the tests", "in_progress")) } } }]);
    expect(screen.getAllByRole("region", { name: /^Plan,/ })).toHaveLength(1);
    expect(screen.getByRole("region", { name: "Plan, 2 of 3 done" })).toBeTruthy();
    expect(header.textContent).toContain("Current step: Run the tests · step 3 of 3");

    push([{ op: "upsert", item: { ...first, body: { kind: "plan", ...plan(step("Read the code", "completed"), step("Write the fix", "completed"), step("Run the tests", "completed")) } } }]);
    expect(header.textContent).toContain("Plan done (3 of 3)");
  });

  it("takes the stored plan for the header when its item is older than the loaded page, until a newer one comes", async () => {
    const stored = plan(step("Old step", "in_progress"));
    const { ipc, push } = open({ sessionPlan: vi.fn(async () => stored) });
    await act(async () => {});
    push([reset([user("r9", "later message")], [run({ id: "r9", status: "completed" })], [], 5)]);
    expect(ipc.sessionPlan).toHaveBeenCalledWith("s1");
    const header = screen.getByRole("banner");
    expect(header.textContent).toContain("Current step: Old step · step 1 of 1");
    push([{ op: "upsert", item: item("r9", "plan", { kind: "plan", ...plan(step("New step", "pending")) }) }]);
    expect(header.textContent).toContain("Current step: New step · step 1 of 1");
  });

  it("shows nothing in the header without a plan", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset([user("r1", "hi")], [run({ id: "r1", status: "completed" })])]);
    expect(screen.getByRole("banner").textContent).not.toContain("Current step");
  });
});

describe("the session's total usage", () => {
  it("is in the header, and read again when a run ends", async () => {
    const sessionUsage = vi
      .fn()
      .mockResolvedValueOnce({ input: 1200, cached: 0, output: 345, reasoning: 0, costUsd: 0.0123, runs: 1 })
      .mockResolvedValue({ input: 2400, cached: 0, output: 690, reasoning: 0, costUsd: 0.25, runs: 2 });
    const { push } = open({ sessionUsage });
    await act(async () => {});
    const header = screen.getByRole("banner");
    await waitFor(() => expect(header.textContent).toContain("Session total: 1.2k in · 345 out · $0.0123"));
    push([reset([user("r1", "hi")], [run({ id: "r1", status: "running", endedAt: null })])]);
    push([{ op: "run", run: run({ id: "r1", status: "completed" }) }]);
    await waitFor(() => expect(header.textContent).toContain("Session total: 2.4k in · 690 out · $0.25"));
  });
});
