import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IpcContext } from "../../ipc/context";
import { fakeIpc } from "../../test/fakeIpc";
import { Composer } from "./Composer";
import { mentionAt, mentionText } from "./Mentions";

afterEach(cleanup);

describe("the composer's @", () => {
  it("finds the word the caret is in", () => {
    expect(mentionAt("read @src/ma", 12)).toEqual({ start: 5, query: "src/ma" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@host", 12)).toBeNull();
    expect(mentionAt("@done file", 10)).toBeNull();
    expect(mentionText("a b.md")).toBe('@"a b.md" ');
    expect(mentionText("src/main.rs")).toBe("@src/main.rs ");
  });

  it("lists the core's matches and inserts the one chosen, by keys or by mouse", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const findFiles = vi.fn(async (_s: string, q: string) => (q === "comp" ? ["src/Composer.tsx", "docs/composer.md"] : ["README.md"]));
    const ipc = fakeIpc({ findFiles });
    render(
      <IpcContext.Provider value={ipc}>
        <Composer sessionId="s1" running={null} dropped={null} />
      </IpcContext.Provider>,
    );
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    const type = async (value: string) => {
      await act(async () => {
        fireEvent.change(box, { target: { value, selectionStart: value.length } });
        box.setSelectionRange(value.length, value.length);
        fireEvent.select(box);
        await vi.advanceTimersByTimeAsync(100);
      });
    };
    await type("Look at @comp");
    expect(findFiles).toHaveBeenLastCalledWith("s1", "comp");
    const list = screen.getByRole("listbox", { name: "Files to mention" });
    expect(within(list).getAllByRole("option").map((o) => o.textContent)).toEqual(["src/Composer.tsx", "docs/composer.md"]);
    expect(box.getAttribute("aria-expanded")).toBe("true");
    expect(box.getAttribute("aria-activedescendant")).toBe("mention-files-0");
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(within(list).getAllByRole("option")[1]!.getAttribute("aria-selected")).toBe("true");
    // Enter picks (and does not send).
    await act(async () => {
      fireEvent.keyDown(box, { key: "Enter" });
    });
    expect(box.value).toBe("Look at @docs/composer.md ");
    expect(ipc.sendMessage).not.toHaveBeenCalled();
    expect(screen.queryByRole("listbox")).toBeNull();

    // Escape closes the list; the next Enter sends.
    await type("Look at @docs/composer.md and @r");
    expect(screen.getByRole("listbox", { name: "Files to mention" })).toBeTruthy();
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryByRole("listbox")).toBeNull();
    // By mouse.
    await type("Look at @docs/composer.md and @re");
    await act(async () => {
      fireEvent.mouseDown(screen.getByRole("option", { name: "README.md" }));
    });
    expect(box.value).toBe("Look at @docs/composer.md and @README.md ");
    vi.useRealTimers();
  });
});
