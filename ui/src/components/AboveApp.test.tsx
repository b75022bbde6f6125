import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ConfirmDialog } from "./ConfirmDialog";

afterEach(cleanup);

describe("modal layers", () => {
  // The app's columns contain their own layout and paint (base.css), so a fixed backdrop left
  // inside one would cover only that column: dialogs render at the end of <body>.
  it("a confirm opened from inside a column renders outside it, over the whole window", () => {
    render(
      <div className="app">
        <main className="main">
          <ConfirmDialog id="c" title="Delete “Scratch”?" confirm="Delete session" onCancel={() => {}} onConfirm={async () => {}}>
            It cannot be undone.
          </ConfirmDialog>
        </main>
      </div>,
    );
    const dialog = screen.getByRole("alertdialog", { name: "Delete “Scratch”?" });
    expect(dialog.closest(".main")).toBeNull();
    expect(dialog.closest(".app")).toBeNull();
    expect(dialog.parentElement?.className).toBe("session-dialog-backdrop");
    expect(dialog.parentElement?.parentElement).toBe(document.body);
    // Still the dialog it was: named, described, Cancel focused.
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Cancel" }));
  });
});
