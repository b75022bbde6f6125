// A streamed message must end up exactly as the same text rendered at once: the incremental
// path (block splitting that re-lexes only from the last block, memoised blocks, no
// highlighting of a long open block, chunk rows) may only save work, never change the result.
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { IpcContext } from "../../ipc/context";
import { Chunker } from "../../state/chunker";
import { fakeIpc } from "../../test/fakeIpc";
import { Markdown } from "./Markdown";
import { parseStats } from "./MarkdownBlock";

afterEach(cleanup);

const ipc = fakeIpc();
const view = (text: string, streaming: boolean) => (
  <IpcContext.Provider value={ipc}>
    <Markdown text={text} streaming={streaming} />
  </IpcContext.Provider>
);

/** What the text looks like rendered at once (a finished message opened later). */
function whole(text: string): string {
  const { container, unmount } = render(view(text, false));
  const html = container.innerHTML;
  unmount();
  return html;
}

const CORPUS: Record<string, string> = {
  prose:
    "# Title\n\nSome *emphasis*, **strong**, `code` and a [link](https://example.com).\n\n" +
    "Setext heading\n---\n\nA line\nwith a soft break.\n\n***\n\nAfter the rule.\n",
  fences:
    "Intro:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n\n\nlet x = 1;\n```\n\n" +
    "~~~python\nprint('tilde')\n~~~\n\n````md\n```\nnested fence\n```\n````\n\n" +
    "    indented code\n    more\n\nText after code.\n\n```\nunclosed at first, closed later\n```\n",
  lists:
    "- one\n- two\n  - nested *a*\n  - nested b\n- three\n\n1. first\n2. second\n\n   continued paragraph\n3. third\n\n" +
    "- loose\n\n- list\n\n  with `code`\n\n  ```js\n  const inList = true;\n  ```\n\n- [ ] task\n- [x] done\n\nAfter the list.\n",
  tables:
    "| Name | Value | Note |\n|:-----|------:|:----:|\n| a | 1 | `x \\| y` |\n| **b** | 22 | [l](https://e.com) |\n\n" +
    "Text between.\n\n| single |\n|---|\n| row |\n",
  quotes:
    "> quoted line\n> and more\n>\n> - list in quote\n\n> another\nlazy continuation\n\nPlain.\n",
  hostile:
    "<script>alert(1)</script>\n\n[x](javascript:alert(1)) and <img src=x onerror=alert(1)>\n\n" +
    "```html\n<script>alert(2)</script>\n```\n\n| <b>t</b> |\n|---|\n| <i>c</i> |\n",
  long: Array.from({ length: 120 }, (_, i) =>
    i % 9 === 4
      ? "```ts\n" + `const v${i} = ${i};\n`.repeat(6) + "```\n\n"
      : i % 9 === 7
        ? `| k | v |\n|---|---|\n| ${i} | ${i * 2} |\n\n`
        : `Paragraph ${i}: ${"lorem ipsum ".repeat(12)}\n\n`,
  ).join(""),
};

/** A seeded generator, so a failure names the pieces that caused it. */
function pieces(text: string, seed: number, max: number): string[] {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

describe("a streamed message renders as the same text rendered at once", () => {
  for (const [name, text] of Object.entries(CORPUS)) {
    it(`${name}: in pieces of one character up to a few hundred, at every step and at the end`, () => {
      const splits = name === "long" ? [pieces(text, 7, 400), pieces(text, 11, 60)] : [pieces(text, 1, 1), pieces(text, 3, 9), pieces(text, 5, 40)];
      for (const split of splits) {
        let so = "";
        const { container, rerender, unmount } = render(view(so, true));
        for (const [i, piece] of split.entries()) {
          so += piece;
          rerender(view(so, true));
          // Mid-stream too (cheap for the short ones): the open block is the only difference allowed,
          // and there is none, since a fresh streaming render splits the same way.
          if (name !== "long" || i % 25 === 0) {
            const fresh = render(view(so, true));
            expect(container.innerHTML, `${name} after ${so.length} chars`).toBe(fresh.container.innerHTML);
            fresh.unmount();
          }
        }
        rerender(view(so, false));
        expect(so).toBe(text);
        expect(container.innerHTML, name).toBe(whole(text));
        unmount();
      }
    });
  }

  it("a long answer streamed in chunk rows ends as the whole text's rows, and parses few blocks per step", () => {
    const text = CORPUS.long!;
    const streamed = new Chunker(1500);
    const rows: { rerender: (t: string, s: boolean) => void; html: () => string }[] = [];
    const row = (t: string) => {
      const r = render(view(t, true));
      return { rerender: (t2: string, s: boolean) => r.rerender(view(t2, s)), html: () => r.container.innerHTML };
    };
    let so = "";
    let parsedPerStep = 0;
    for (const piece of pieces(text, 13, 200)) {
      so += piece;
      streamed.update(so);
      while (rows.length < streamed.count()) rows.push(row(""));
      parseStats.blocks = 0;
      // As the timeline does: every row gets its chunk; only the changed ones re-render blocks.
      rows.forEach((r, k) => r.rerender(streamed.slice(k), k === rows.length - 1));
      parsedPerStep = Math.max(parsedPerStep, parseStats.blocks);
    }
    rows.forEach((r, k) => r.rerender(streamed.slice(k), false));
    const once = new Chunker(1500);
    once.update(text);
    expect(streamed.cuts).toEqual(once.cuts);
    expect(rows.map((r) => r.html())).toEqual(Array.from({ length: once.count() }, (_, k) => whole(once.slice(k))));
    // A 200-character piece touches at most a few blocks, never the whole chunk again.
    expect(parsedPerStep).toBeLessThanOrEqual(4);
  });
});
