import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Ipc, Question } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { approval, fakeIpc } from "../../test/fakeIpc";
import { ApprovalCard } from "./ApprovalCard";
import { fromApproval } from "./decision";
import { isMultiSelect, QuestionCard } from "./QuestionCard";

afterEach(cleanup);

function card(ipc: Ipc, over: Parameters<typeof approval>[0] = {}) {
  return render(
    <IpcContext.Provider value={ipc}>
      <ApprovalCard data={fromApproval(approval(over))} />
    </IpcContext.Provider>,
  );
}

describe("ApprovalCard", () => {
  it("shows the exact command, cwd and reason in a group named Approval", () => {
    card(fakeIpc());
    const group = screen.getByRole("group", { name: "Approval" });
    expect(group.textContent).toContain("rm -rf build");
    expect(group.textContent).toContain("/repo");
    expect(group.textContent).toContain("clean build");
  });

  it.each([
    ["Approve once", "approve_once"],
    ["Approve for session", "approve_session"],
    ["Deny", "deny"],
  ])("%s calls decide_approval with %s", async (name, decision) => {
    const ipc = fakeIpc();
    card(ipc);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name }));
    });
    expect(ipc.decideApproval).toHaveBeenCalledWith("a1", decision, null);
  });

  it("Deny sends the optional message", async () => {
    const ipc = fakeIpc();
    card(ipc);
    fireEvent.change(screen.getByRole("textbox", { name: "Reason for denying (optional)" }), { target: { value: "not on main" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    });
    expect(ipc.decideApproval).toHaveBeenCalledWith("a1", "deny", "not on main");
  });

  it.each([
    ["a", "approve_once"],
    ["s", "approve_session"],
    ["d", "deny"],
  ])("key %s on the focused card decides %s", async (key, decision) => {
    const ipc = fakeIpc();
    card(ipc);
    const group = screen.getByRole("group", { name: "Approval" });
    group.focus();
    await act(async () => {
      fireEvent.keyDown(group, { key });
    });
    expect(ipc.decideApproval).toHaveBeenCalledWith("a1", decision, null);
  });

  it("typing in the message field does not trigger shortcuts", () => {
    const ipc = fakeIpc();
    card(ipc);
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Reason for denying (optional)" }), { key: "a" });
    expect(ipc.decideApproval).not.toHaveBeenCalled();
  });

  it("shows the shortcut in each button's title", () => {
    card(fakeIpc());
    expect(screen.getByRole("button", { name: "Approve once" }).title).toContain("A");
    expect(screen.getByRole("button", { name: "Approve for session" }).title).toContain("S");
    expect(screen.getByRole("button", { name: "Deny" }).title).toContain("D");
  });

  it("a decided card says who decided and has no buttons", () => {
    card(fakeIpc(), { state: "approved_session", decidedBy: "notification", decidedAt: Date.now() });
    const group = screen.getByRole("group", { name: "Approval" });
    expect(group.textContent).toMatch(/Approved for this session by you, from a notification at/);
    expect(screen.queryByRole("button", { name: "Approve once" })).toBeNull();
  });

  it.each([
    ["expired", /Expired/],
    ["cancelled", /Cancelled/],
    ["timed_out", /Timed out/],
  ] as const)("a %s card says so", (state, text) => {
    card(fakeIpc(), { state });
    expect(screen.getByRole("group", { name: "Approval" }).textContent).toMatch(text);
  });

  it("shows a refused decision's reason", async () => {
    const ipc = fakeIpc({
      decideApproval: async () => {
        throw { code: "conflict", message: "this request is no longer pending" };
      },
    });
    card(ipc);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Approve once" }));
    });
    expect((await screen.findByRole("alert")).textContent).toContain("no longer pending");
  });

  it("a file change card shows each file's diff", () => {
    card(fakeIpc(), {
      kind: "file_change",
      request: { tool: "Write", command: null, cwd: null, reason: null, questions: [], detail: null,
        files: [{ path: "src/a.rs", kind: "update", diff: "@@ -1 +1 @@\n-old\n+new\n" }] },
    });
    const group = screen.getByRole("group", { name: "Approval" });
    expect(group.textContent).toContain("src/a.rs");
    expect(group.querySelector(".diff-code-insert")?.textContent).toContain("new");
  });
});

const questions: Question[] = [
  { id: "q1", header: "Approach", question: "Which fix?", allowOther: false, secret: false,
    options: [{ label: "Lock", description: null }, { label: "Retry", description: "with backoff" }] },
  { id: "q2", header: "Multi-select", question: "Which suites?", allowOther: true, secret: false,
    options: [{ label: "unit", description: null }, { label: "e2e", description: null }] },
];

describe("QuestionCard", () => {
  it("submits the chosen options (radio, checkboxes for multi-select) and free text", async () => {
    const ipc = fakeIpc();
    render(
      <IpcContext.Provider value={ipc}>
        <QuestionCard approvalId="a2" questions={questions} answers={null} state="pending" decidedBy={null} decidedAt={null} />
      </IpcContext.Provider>,
    );
    const submit = screen.getByRole("button", { name: "Submit answer" }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.click(screen.getByRole("radio", { name: "Retry with backoff" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "unit" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "e2e" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Other answer: Which suites?" }), { target: { value: "bench" } });
    await act(async () => {
      fireEvent.click(submit);
    });
    expect(ipc.answerQuestion).toHaveBeenCalledWith("a2", { q1: ["Retry"], q2: ["unit", "e2e", "bench"] });
  });

  it("tells multi-select questions apart", () => {
    expect(isMultiSelect(questions[0]!)).toBe(false);
    expect(isMultiSelect(questions[1]!)).toBe(true);
    expect(isMultiSelect({ ...questions[0]!, header: null, question: "Select all that apply" })).toBe(true);
  });

  it("an answered question shows the answers", () => {
    render(
      <IpcContext.Provider value={fakeIpc()}>
        <QuestionCard approvalId="a2" questions={questions} answers={{ q1: ["Lock"], q2: ["unit"] }} state="answered" decidedBy="user" decidedAt={null} />
      </IpcContext.Provider>,
    );
    const group = screen.getByRole("group", { name: "Question" });
    expect(group.textContent).toContain("Answered by you");
    expect(group.textContent).toContain("Lock");
    expect(screen.queryByRole("button", { name: "Submit answer" })).toBeNull();
  });
});
