import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcContext } from "../../ipc/context";
import { fakeIpc } from "../../test/fakeIpc";
import { Composer } from "./Composer";
import { commandAt, filterCommands } from "./Commands";

afterEach(cleanup);

const CLAUDE = [
  { name: "init", description: "Initialize a new CLAUDE.md file", argumentHint: null, insert: "/init " },
  { name: "review", description: "Review a pull request", argumentHint: "[pr]", insert: "/review " },
  { name: "security-review", description: "Review the pending changes", argumentHint: null, insert: "/security-review " },
];

describe("the composer's commands", () => {
  it("finds a command word: / first in the message, $ anywhere", () => {
    expect(commandAt("/rev", 4)).toEqual({ start: 0, sigil: "/", query: "rev" });
    expect(commandAt("please /rev", 11)).toBeNull();
    expect(commandAt("use $pdf", 8)).toEqual({ start: 4, sigil: "$", query: "pdf" });
    expect(commandAt("cost $5 each", 12)).toBeNull();
    expect(filterCommands(CLAUDE, "/", "rev").map((c) => c.name)).toEqual(["review", "security-review"]);
    expect(filterCommands(CLAUDE, "$", "")).toEqual([]);
  });

  it("lists the engine's commands on /, asked once, and inserts the one chosen", async () => {
    const listCommands = vi.fn(async () => ({ commands: CLAUDE, unavailable: null }));
    const ipc = fakeIpc({ listCommands });
    render(
      <IpcContext.Provider value={ipc}>
        <Composer sessionId="s1" running={null} dropped={null} />
      </IpcContext.Provider>,
    );
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    const type = async (value: string) => {
      await act(async () => {
        fireEvent.change(box, { target: { value } });
        box.setSelectionRange(value.length, value.length);
        fireEvent.select(box);
      });
    };
    await type("/");
    const list = await screen.findByRole("listbox", { name: "Commands" });
    expect(within(list).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "/init — Initialize a new CLAUDE.md file",
      "/review [pr] — Review a pull request",
      "/security-review — Review the pending changes",
    ]);
    await type("/sec");
    expect(within(screen.getByRole("listbox", { name: "Commands" })).getAllByRole("option")).toHaveLength(1);
    await act(async () => {
      fireEvent.keyDown(box, { key: "Tab" });
    });
    expect(box.value).toBe("/security-review ");
    expect(screen.queryByRole("listbox", { name: "Commands" })).toBeNull();
    expect(listCommands).toHaveBeenCalledTimes(1);
    expect(ipc.sendMessage).not.toHaveBeenCalled();
  });

  it("says why there are no commands, and asks again at the next / (an agent that names them in a session)", async () => {
    const listCommands = vi
      .fn()
      .mockResolvedValueOnce({ commands: [], unavailable: "ACP agent lists no commands." })
      .mockResolvedValue({ commands: CLAUDE, unavailable: null });
    const ipc = fakeIpc({ listCommands });
    render(
      <IpcContext.Provider value={ipc}>
        <Composer sessionId="s1" running={null} dropped={null} />
      </IpcContext.Provider>,
    );
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    await act(async () => {
      fireEvent.change(box, { target: { value: "/" } });
      box.setSelectionRange(1, 1);
      fireEvent.select(box);
    });
    expect(await screen.findByText("ACP agent lists no commands.")).toBeTruthy();
    for (const value of ["", "/"]) {
      await act(async () => {
        fireEvent.change(box, { target: { value } });
        box.setSelectionRange(value.length, value.length);
        fireEvent.select(box);
      });
    }
    const list = await screen.findByRole("listbox", { name: "Commands" });
    expect(within(list).getAllByRole("option")).toHaveLength(3);
    expect(listCommands).toHaveBeenCalledTimes(2);
  });
});
