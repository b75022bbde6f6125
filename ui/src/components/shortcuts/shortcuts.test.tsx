import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ShortcutsSheet } from "./ShortcutsSheet";
import { shortcutFor, step, SHORTCUTS, useShortcuts, type ShortcutAction } from "./shortcuts";

afterEach(cleanup);

function Harness({ on }: { on: (a: ShortcutAction) => void }) {
  const [open, setOpen] = useState(false);
  useShortcuts({
    shortcuts: () => setOpen((o) => !o),
    settings: () => on("settings"),
    nextSession: () => on("nextSession"),
    focusComposer: () => on("focusComposer"),
  });
  return (
    <>
      <textarea aria-label="Message" />
      <input type="checkbox" aria-label="box" />
      {open && <ShortcutsSheet onClose={() => setOpen(false)} />}
    </>
  );
}

describe("keyboard shortcuts", () => {
  it("? opens the sheet, except while typing; Esc closes it", () => {
    const on = vi.fn();
    render(<Harness on={on} />);
    fireEvent.keyDown(screen.getByLabelText("Message"), { key: "?" });
    expect(screen.queryByTestId("shortcuts-sheet")).toBeNull();
    fireEvent.keyDown(screen.getByLabelText("box"), { key: "?" });
    const sheet = screen.getByRole("dialog", { name: "Keyboard shortcuts" });
    // Every shortcut is listed, search (owned by the search box) too.
    for (const s of SHORTCUTS) expect(sheet.textContent).toContain(s.label);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Close keyboard shortcuts" }));
    fireEvent.keyDown(sheet, { key: "Escape" });
    expect(screen.queryByTestId("shortcuts-sheet")).toBeNull();
  });

  it("chords work from inside the message box", () => {
    const on = vi.fn();
    render(<Harness on={on} />);
    const box = screen.getByLabelText("Message");
    fireEvent.keyDown(box, { key: ",", ctrlKey: true });
    fireEvent.keyDown(box, { key: "ArrowDown", altKey: true });
    fireEvent.keyDown(box, { key: "l", ctrlKey: true });
    expect(on.mock.calls.map((c) => c[0])).toEqual(["settings", "nextSession", "focusComposer"]);
  });

  it("maps keys to actions and leaves others alone", () => {
    const ev = (init: KeyboardEventInit) => new KeyboardEvent("keydown", init);
    expect(shortcutFor(ev({ key: "N", ctrlKey: true, shiftKey: true }))).toBe("newSession");
    expect(shortcutFor(ev({ key: "A", ctrlKey: true, shiftKey: true }))).toBe("openApprovals");
    expect(shortcutFor(ev({ key: "ArrowUp", altKey: true }))).toBe("previousSession");
    expect(shortcutFor(ev({ key: "k", ctrlKey: true }))).toBeNull();
    expect(shortcutFor(ev({ key: "a" }))).toBeNull();
  });

  it("steps through sessions, wrapping", () => {
    expect(step([], null, 1)).toBeNull();
    expect(step(["a", "b", "c"], null, 1)).toBe("a");
    expect(step(["a", "b", "c"], null, -1)).toBe("c");
    expect(step(["a", "b", "c"], "c", 1)).toBe("a");
    expect(step(["a", "b", "c"], "a", -1)).toBe("c");
    expect(step(["a", "b", "c"], "b", 1)).toBe("c");
  });
});
