import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../../App";
import { fakeIpc } from "../../test/fakeIpc";

afterEach(cleanup);

const TITLE = "Keep Agent Desk running in the tray?";

function setup(keepRunningInTray = vi.fn(async () => null)) {
  let ask: () => void = () => {};
  const ipc = fakeIpc({
    watchCloseRequests: vi.fn(async (cb: () => void) => {
      ask = cb;
    }),
    keepRunningInTray,
  });
  render(<App ipc={ipc} />);
  return { ipc, ask: () => act(() => ask()) };
}

describe("closing the window while a run is active", () => {
  it("asks, and keeping it in the tray sends the answer and closes the dialog", async () => {
    const { ipc, ask } = setup();
    await waitFor(() => expect(ipc.watchCloseRequests).toHaveBeenCalled());
    expect(screen.queryByRole("dialog")).toBeNull();
    ask();
    const dialog = await screen.findByRole("dialog", { name: TITLE });
    expect(dialog.textContent).toContain("Your answer is remembered");
    // The safe choice (the run goes on) has the focus.
    expect(document.activeElement?.textContent).toBe("Keep running in the tray");
    fireEvent.click(screen.getByRole("button", { name: "Keep running in the tray" }));
    await waitFor(() => expect(ipc.keepRunningInTray).toHaveBeenCalledWith(true));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("quitting sends false", async () => {
    const { ipc, ask } = setup();
    await waitFor(() => expect(ipc.watchCloseRequests).toHaveBeenCalled());
    ask();
    fireEvent.click(await screen.findByRole("button", { name: "Quit Agent Desk" }));
    await waitFor(() => expect(ipc.keepRunningInTray).toHaveBeenCalledWith(false));
  });

  it("cancel and Escape decide nothing", async () => {
    const { ipc, ask } = setup();
    await waitFor(() => expect(ipc.watchCloseRequests).toHaveBeenCalled());
    ask();
    fireEvent.click(await screen.findByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    ask();
    fireEvent.keyDown(await screen.findByRole("dialog"), { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(ipc.keepRunningInTray).not.toHaveBeenCalled();
  });

  it("a failed answer is shown and the dialog stays", async () => {
    const { ask, ipc } = setup(
      vi.fn(async () => {
        throw { code: "storage_read_only", message: "The data folder is read-only." };
      }),
    );
    await waitFor(() => expect(ipc.watchCloseRequests).toHaveBeenCalled());
    ask();
    fireEvent.click(await screen.findByRole("button", { name: "Keep running in the tray" }));
    expect((await screen.findByRole("alert")).textContent).toContain("read-only");
    expect(screen.getByRole("dialog", { name: TITLE })).toBeTruthy();
  });
});
