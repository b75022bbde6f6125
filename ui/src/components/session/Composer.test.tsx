import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcFailure, type Ipc } from "../../ipc";
import { IpcContext } from "../../ipc/context";
import { attachment, fakeIpc, run } from "../../test/fakeIpc";
import { Composer } from "./Composer";

afterEach(cleanup);

function setup(over: Partial<Ipc> = {}, running = false) {
  const ipc = fakeIpc(over);
  const utils = render(
    <IpcContext.Provider value={ipc}>
      <Composer sessionId="s1" running={running ? run({ id: "r7", status: "running" }) : null} dropped={null} />
    </IpcContext.Provider>,
  );
  const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
  return { ipc, box, ...utils };
}

describe("Composer", () => {
  it("Enter sends the message and clears the box", async () => {
    const { ipc, box } = setup();
    fireEvent.change(box, { target: { value: "Fix the build" } });
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter" });
    });
    expect(ipc.sendMessage).toHaveBeenCalledWith("s1", "Fix the build", []);
    await waitFor(() => expect(box.value).toBe(""));
  });

  it("Shift+Enter does not send (the newline is the textarea's)", async () => {
    const { ipc, box } = setup();
    fireEvent.change(box, { target: { value: "line one" } });
    const ev = fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(ev).toBe(true); // not prevented: the browser inserts the newline
    fireEvent.change(box, { target: { value: "line one\nline two" } });
    expect(ipc.sendMessage).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Send" }));
    });
    expect(ipc.sendMessage).toHaveBeenCalledWith("s1", "line one\nline two", []);
  });

  it("Enter while composing (IME) does not send", () => {
    const { ipc, box } = setup();
    fireEvent.change(box, { target: { value: "にほん" } });
    fireEvent.keyDown(box, { key: "Enter", isComposing: true });
    fireEvent.keyDown(box, { key: "Enter", keyCode: 229 });
    expect(ipc.sendMessage).not.toHaveBeenCalled();
  });

  it("does not send an empty message", () => {
    const { ipc, box } = setup();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(ipc.sendMessage).not.toHaveBeenCalled();
    expect((screen.getByRole("button", { name: "Send" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("attaches picked files (by their tokens) as chips with remove buttons, and sends them", async () => {
    const { ipc, box } = setup({
      pickFiles: vi.fn(async () => [
        { token: "t-1", name: "shot.png", size: 3 },
        { token: "t-2", name: "notes.txt", size: 4 },
      ]),
      importAttachment: vi.fn(async (token: string) => attachment(token === "t-1" ? "shot.png" : "notes.txt")),
    });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Attach files" }));
    });
    await screen.findByRole("button", { name: "Remove shot.png" });
    // The page sends the token the picker issued, never a path.
    expect(ipc.importAttachment).toHaveBeenCalledWith("t-1");
    expect(ipc.importAttachment).toHaveBeenCalledWith("t-2");
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Remove notes.txt" }));
    });
    expect(screen.queryByRole("button", { name: "Remove notes.txt" })).toBeNull();
    fireEvent.change(box, { target: { value: "see picture" } });
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter" });
    });
    expect(ipc.sendMessage).toHaveBeenCalledWith("s1", "see picture", [{ sha256: "sha-shot.png", name: "shot.png", mime: "image/png" }]);
  });

  it("shows the core's reason for a refused file and attaches nothing", async () => {
    const importAttachment = vi.fn(async (token: string) => {
      if (token === "t-mov") throw new IpcFailure({ code: "invalid_input", message: "movie.mov is 212 MB; the limit is 20 MB" });
      return attachment("ok.txt");
    });
    setup({ pickFiles: vi.fn(async () => [{ token: "t-mov", name: "movie.mov", size: 212e6 }]), importAttachment });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Attach files" }));
    });
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("movie.mov is 212 MB; the limit is 20 MB");
    expect(screen.queryByRole("button", { name: /^Remove / })).toBeNull();
  });

  it("pasting an image imports its bytes", async () => {
    const { ipc, box } = setup();
    const file = new File([new Uint8Array([1, 2, 3])], "image.png", { type: "image/png" });
    Object.defineProperty(file, "arrayBuffer", { value: async () => new Uint8Array([1, 2, 3]).buffer });
    await act(async () => {
      fireEvent.paste(box, { clipboardData: { items: [{ kind: "file", type: "image/png", getAsFile: () => file }] } });
    });
    await screen.findByRole("button", { name: "Remove pasted-image.png" });
    expect(ipc.importAttachmentBytes).toHaveBeenCalledWith(new Uint8Array([1, 2, 3]), "pasted-image.png");
  });

  it("an empty paste (WebKitGTK with an image on the clipboard) asks the shell for the clipboard image", async () => {
    const { ipc, box } = setup();
    await act(async () => {
      fireEvent.paste(box, { clipboardData: { items: [], types: [] } });
    });
    await screen.findByRole("button", { name: "Remove pasted-image.png" });
    expect(ipc.importClipboardImage).toHaveBeenCalledTimes(1);
  });

  it("pasting text leaves the clipboard alone", async () => {
    const { ipc, box } = setup();
    await act(async () => {
      fireEvent.paste(box, { clipboardData: { items: [{ kind: "string", type: "text/plain" }], types: ["text/plain"] } });
    });
    expect(ipc.importClipboardImage).not.toHaveBeenCalled();
    expect(ipc.importAttachmentBytes).not.toHaveBeenCalled();
  });

  it("files dropped on the window are imported by their tokens", async () => {
    const ipc = fakeIpc({ importAttachment: vi.fn(async () => attachment("dropped.png")) });
    const { rerender } = render(
      <IpcContext.Provider value={ipc}>
        <Composer sessionId="s1" running={null} dropped={null} />
      </IpcContext.Provider>,
    );
    await act(async () => {
      rerender(
        <IpcContext.Provider value={ipc}>
          <Composer sessionId="s1" running={null} dropped={{ files: [{ token: "t-drop", name: "dropped.png", size: 9 }], at: 1 }} />
        </IpcContext.Provider>,
      );
    });
    await screen.findByRole("button", { name: "Remove dropped.png" });
    expect(ipc.importAttachment).toHaveBeenCalledWith("t-drop");
  });

  it("Interrupt (button and Esc) stops the running run", async () => {
    const { ipc, box } = setup({}, true);
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Interrupt" }));
    });
    expect(ipc.interruptRun).toHaveBeenCalledWith("r7");
    await act(async () => {
      fireEvent.keyDown(box, { key: "Escape" });
    });
    expect(ipc.interruptRun).toHaveBeenCalledTimes(2);
  });

  it("has no Interrupt button when nothing runs", () => {
    setup();
    expect(screen.queryByRole("button", { name: "Interrupt" })).toBeNull();
  });
});
