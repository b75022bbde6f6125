// The composer honours Settings' send key and links an engine error to Settings.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure, type Ipc } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { fakeIpc } from "../../test/fakeIpc";
import { Composer } from "../session/Composer";
import { NavigationContext } from "../../app/navigation";
import { Navigator } from "../../app/route";
import { setUiSettingsLocal } from "./prefs";

afterEach(() => {
  cleanup();
  setUiSettingsLocal({ theme: "system", sendKey: "enter" });
});

function setup(over: Partial<Ipc> = {}) {
  const ipc = fakeIpc(over);
  const nav = new Navigator();
  render(
    <NavigationContext.Provider value={nav}>
      <IpcContext.Provider value={ipc}>
        <Composer sessionId="s1" running={null} dropped={null} />
      </IpcContext.Provider>
    </NavigationContext.Provider>,
  );
  return { ipc, nav, box: screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement };
}

describe("Composer and Settings", () => {
  it("with Ctrl+Enter chosen, Enter is a new line and Ctrl+Enter sends", async () => {
    setUiSettingsLocal({ theme: "system", sendKey: "ctrl_enter" });
    const { ipc, box } = setup();
    expect(box.placeholder).toContain("Ctrl+Enter to send");
    fireEvent.change(box, { target: { value: "two\nlines" } });
    const plain = fireEvent.keyDown(box, { key: "Enter" });
    expect(plain).toBe(true); // not prevented: the textarea inserts the newline
    expect(ipc.sendMessage).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    });
    expect(ipc.sendMessage).toHaveBeenCalledWith("s1", "two\nlines", []);
  });

  it("a send refused for a missing engine offers Settings", async () => {
    const { box, nav } = setup({
      sendMessage: vi.fn(async () => {
        throw new IpcFailure({ code: "engine_missing", message: "codex not found — install with `npm install -g @openai/codex`" });
      }),
    });
    fireEvent.change(box, { target: { value: "hi" } });
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter" });
    });
    expect(screen.getByRole("alert").textContent).toContain("codex not found");
    expect(nav.get()).toEqual({ kind: "home" });
    fireEvent.click(screen.getByRole("button", { name: "Open Settings" }));
    expect(nav.get()).toEqual({ kind: "settings" });
  });
});
