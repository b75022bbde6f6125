import { cleanup, render } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IpcContext } from "../../ipc/context";
import { fakeIpc } from "../../test/fakeIpc";
import { BlockSplitter, lexBlocks, lexStats } from "./blocks";
import { Markdown } from "./Markdown";
import { parseStats } from "./MarkdownBlock";

afterEach(cleanup);
beforeEach(() => {
  parseStats.blocks = 0;
  lexStats.calls = 0;
  lexStats.chars = 0;
});

const ipc = fakeIpc();
const view = (text: string, streaming = true) => (
  <IpcContext.Provider value={ipc}>
    <Markdown text={text} streaming={streaming} />
  </IpcContext.Provider>
);

describe("block splitting", () => {
  it("splits into top-level blocks whose concatenation is the text", () => {
    const text = "# T\n\npara *a*\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nlet x = 1;\n```\n\n- one\n- two\n";
    const blocks = lexBlocks(text);
    expect(blocks.join("")).toBe(text);
    expect(blocks).toHaveLength(5);
  });

  it("re-lexes only from the last block when the text grows", () => {
    const s = new BlockSplitter();
    const first = s.update("para one\n\npara two\n\npara th");
    expect(first).toHaveLength(3);
    lexStats.chars = 0;
    const next = s.update("para one\n\npara two\n\npara three\n\n```\ncode");
    expect(next.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(next[0]).toBe(first[0]);
    expect(lexStats.chars).toBe("para three\n\n```\ncode".length);
    expect(next.join("")).toBe("para one\n\npara two\n\npara three\n\n```\ncode");
  });

  it("a list that continues after a blank line stays one block", () => {
    const s = new BlockSplitter();
    s.update("- a\n\n");
    const blocks = s.update("- a\n\n- b\n");
    expect(blocks).toEqual(["- a\n\n- b\n"]);
  });

  it("starts over when the text is not a continuation", () => {
    const s = new BlockSplitter();
    s.update("aaa\n\nbbb");
    expect(s.update("zzz\n\nyyy")).toEqual(["zzz\n\n", "yyy"]);
  });
});

describe("incremental rendering", () => {
  it("parses only the last block again while text streams in", () => {
    let text = "# Heading\n\nFirst paragraph.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nThe last one";
    const { rerender, container } = render(view(text));
    expect(parseStats.blocks).toBe(4);
    for (const delta of [" grows", " and grows", " more."]) {
      text += delta;
      parseStats.blocks = 0;
      rerender(view(text));
      expect(parseStats.blocks).toBe(1);
    }
    expect(container.textContent).toContain("The last one grows and grows more.");
    // A new block: the previous last one is parsed once more (it ended), then the new one.
    parseStats.blocks = 0;
    text += "\n\n```rust\nfn main() {}\n```\n";
    rerender(view(text));
    expect(parseStats.blocks).toBeLessThanOrEqual(2);
    expect(container.querySelector("table")).not.toBeNull();
    expect(container.querySelector("code.language-rust")).not.toBeNull();
  });

  it("renders a long answer whole — nothing truncated", () => {
    const paragraphs = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} ${"word ".repeat(100)}`);
    const text = paragraphs.join("\n\n") + "\n\nTHE END";
    expect(text.length).toBeGreaterThan(200_000);
    const { container } = render(view(text, false));
    expect(container.querySelectorAll("p")).toHaveLength(401);
    expect(container.textContent).toContain("Paragraph 399");
    expect(container.textContent?.endsWith("THE END")).toBe(true);
  });
});
