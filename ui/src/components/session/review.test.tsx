// What the last review of the chat window found: each decision and each diff said once, and
// no usage line made of zeros.
import { act, cleanup, render, screen } from "@testing-library/react";
import { VirtuosoMockContext } from "react-virtuoso";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LiveBatch, LiveOp } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { fakeIpc, session } from "../../test/fakeIpc";
import { approval, item, reset, run, tool, user } from "../../test/items";
import { SessionView } from "./SessionView";
import { timelineOptions } from "./Timeline";

afterEach(cleanup);
timelineOptions.startAtEnd = false;

function open() {
  let push: (ops: LiveOp[]) => void = () => {};
  let seq = 0;
  const ipc = fakeIpc({
    openSession: vi.fn(async (sessionId: string, onBatch: (b: LiveBatch) => void) => {
      push = (ops) => act(() => onBatch({ sessionId, seq: ++seq, ops }));
    }),
  });
  render(
    <IpcContext.Provider value={ipc}>
      <VirtuosoMockContext.Provider value={{ viewportHeight: 2000, itemHeight: 100 }}>
        <SessionView session={session()} focusApproval={null} onSessionChanged={() => {}} onError={() => {}} />
      </VirtuosoMockContext.Provider>
    </IpcContext.Provider>,
  );
  return { push: (ops: LiveOp[]) => push(ops) };
}

const DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old line\n+new line\n";
const file = { path: "notes.txt", kind: "update" as const, diff: DIFF };

describe("the chat window after review", () => {
  it("a decided file change shows its diff once, in the tool card", async () => {
    const { push } = open();
    await act(async () => {});
    const change = tool("r1", "t1", {
      toolKind: "file_change",
      name: "apply_patch",
      input: null,
      files: [file],
      approvalId: "a1",
    });
    const record = approval({ kind: "file_change", request: { ...approval().request, command: null, files: [file] }, state: "approved_once", decidedBy: "user" });
    push([reset([user("r1", "edit it"), change], [run({ id: "r1", status: "completed" })], [record])]);
    const log = screen.getByRole("log", { name: "Timeline" });
    expect(screen.getByRole("group", { name: "Approval" }).textContent).toContain("Approved once by you");
    expect(log.textContent?.split("new line").length).toBe(2);
  });

  it("a pending file change shows the proposed diff on its card", async () => {
    const { push } = open();
    await act(async () => {});
    const change = tool("r1", "t1", {
      toolKind: "file_change",
      name: "apply_patch",
      input: null,
      approvalId: "a1",
    });
    const record = approval({ kind: "file_change", request: { ...approval().request, command: null, files: [file] } });
    push([reset([user("r1", "edit it"), change], [run({ id: "r1", status: "running", endedAt: null })], [record])]);
    expect(screen.getByRole("group", { name: "Approval" }).textContent).toContain("new line");
  });

  it("a denied command says denied, in one wording", async () => {
    const { push } = open();
    await act(async () => {});
    const denied = tool("r1", "t1", { approvalId: "a1" });
    denied.status = "declined";
    push([reset([user("r1", "clean"), denied], [run({ id: "r1", status: "completed" })], [approval({ state: "denied", decidedBy: "user" })])]);
    const log = screen.getByRole("log", { name: "Timeline" });
    expect(screen.getByRole("group", { name: "Approval" }).textContent).toContain("Denied by you");
    expect(log.textContent).not.toContain("declined");
    expect(log.textContent).toContain("denied");
  });

  it("a run stopped before any usage shows no usage or cost line", async () => {
    const { push } = open();
    await act(async () => {});
    const zero = item("r1", "usage", { kind: "usage", input: 0, cached: 0, output: 0, reasoning: 0, costUsd: 0 });
    push([reset([user("r1", "stop"), zero], [run({ id: "r1", status: "interrupted" })])]);
    const line = screen.getByTestId("run-status");
    expect(line.textContent).toContain("Interrupted");
    expect(line.textContent).not.toContain("$");
    expect(line.textContent).not.toContain(" in");
  });

  it("an imported turn its terminal has not finished says so", async () => {
    const { push } = open();
    await act(async () => {});
    push([reset([user("r1", "count slowly")], [run({ id: "r1", status: "interrupted", stopReason: "unfinished" })])]);
    const status = screen.getByTestId("run-status");
    expect(status.textContent).toContain("Unfinished in the terminal");
    expect(status.textContent).not.toContain("Interrupted");
  });

  it("real usage still shows, cost included", async () => {
    const { push } = open();
    await act(async () => {});
    const used = item("r1", "usage", { kind: "usage", input: 10, cached: 0, output: 5, reasoning: 0, costUsd: 0.002 });
    push([reset([user("r1", "go"), used], [run({ id: "r1", status: "completed" })])]);
    expect(screen.getByTestId("run-status").textContent).toContain("$0.0020");
  });
});
