import { lexer, Tokenizer } from "marked";
import { afterEach, describe, expect, it, vi } from "vitest";
import { lex, maySetextHeading } from "./lexer";

// Lines that make every kind of block, setext underlines among them, in and out of place.
const LINES = [
  "plain words here",
  "Title",
  "===",
  "---",
  "   ----  ",
  "    ===",
  "= not",
  "-- x",
  "",
  "   ",
  "- item",
  "1. first",
  "# heading",
  "> quoted",
  "> ===",
  "```",
  "~~~ts",
  "    code",
  "| a | b |",
  "|---|---|",
  "<div>",
  "[ref]: https://example.com",
  "***",
  "text with *em* and `code`",
  "**strong** _under_ ~~del~~ ~one~ \\*escaped\\*",
  "a [link](https://x.org/a_(b)) and ![img](/i.png \"t\") [ref] [ref][] [x][ref]",
  "mail me@example.com, see www.example.com or http://a.b/c?d=e.",
  "<b>tag</b> <https://auto.link> <me@x.org> <!-- c --> a<br>b",
  "hard break  ",
  "trailing\\",
  "_a_b_ *a**b* __x__y ***z*** `` a ` b ``",
  "wörds, ünïcode — “quotes” and emoji 🎉!",
];

/** A deterministic pseudo-random generator (the test must fail the same way every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("lex (marked's lexer, its rules cheap to fail)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("gives exactly marked's tokens on 3,000 generated documents", () => {
    const next = random(26);
    for (let n = 0; n < 3000; n++) {
      const count = 1 + Math.floor(next() * 14);
      const lines = Array.from({ length: count }, () => LINES[Math.floor(next() * LINES.length)]);
      const src = lines.join("\n") + (next() < 0.5 ? "\n" : "");
      expect(JSON.stringify(lex(src)), JSON.stringify(src)).toBe(JSON.stringify(lexer(src, { gfm: true })));
    }
  });

  it("still finds setext headings, inside quotes and lists too", () => {
    const kinds = (src: string) => lex(src).map((t) => (t.type === "heading" ? `h${t.depth}` : t.type));
    expect(kinds("Title\n===")).toEqual(["h1"]);
    expect(kinds("Two\nlines\n  ---\n\nafter")).toEqual(["h2", "space", "paragraph"]);
    expect(kinds("para\n\n===")).toEqual(["paragraph", "space", "paragraph"]);
    const quote = lex("> Quoted\n> ---")[0];
    expect(quote?.type === "blockquote" && quote.tokens?.map((t) => t.type)).toEqual(["heading"]);
  });

  it("runs marked's setext rule only where an underline could be", () => {
    const rule = vi.spyOn(Tokenizer.prototype, "lheading");
    lex("A long paragraph. ".repeat(60) + "\n\nAnother one.\n\n- a list\n");
    expect(rule).not.toHaveBeenCalled();
    lex("Title\n---\n");
    expect(rule).toHaveBeenCalled();
  });

  it("tells where an underline could be", () => {
    expect(maySetextHeading("a\n===")).toBe(true);
    expect(maySetextHeading("a\nb\n   - \nc")).toBe(true);
    expect(maySetextHeading("a\n\n===")).toBe(false);
    expect(maySetextHeading("a\n    ===")).toBe(false);
    expect(maySetextHeading("a === b\nc")).toBe(false);
  });
});
