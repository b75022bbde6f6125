import { describe, expect, it } from "vitest";
import { Chunker } from "./chunker";

const para = (i: number) => `Paragraph ${i} ${"lorem ipsum ".repeat(10)}\n\n`;

describe("Chunker", () => {
  it("keeps a short message in one chunk", () => {
    const c = new Chunker(1000);
    c.update("hello\n\nworld");
    expect(c.count()).toBe(1);
    expect(c.slice(0)).toBe("hello\n\nworld");
  });

  it("cuts a long message at block starts; the chunks are the whole text", () => {
    const text = Array.from({ length: 50 }, (_, i) => para(i)).join("");
    const c = new Chunker(1000);
    c.update(text);
    expect(c.count()).toBeGreaterThan(5);
    const parts = Array.from({ length: c.count() }, (_, k) => c.slice(k));
    expect(parts.join("")).toBe(text);
    for (const p of parts.slice(1)) expect(p.startsWith("Paragraph")).toBe(true);
  });

  it("gives the same cuts whether the text streams in or comes whole", () => {
    const text = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? "```js\nconst a = 1;\n\n\nconst b = 2;\n```\n\n" : para(i))).join("");
    const whole = new Chunker(800);
    whole.update(text);
    const streamed = new Chunker(800);
    for (let i = 0; i < text.length; i += 37) streamed.update(text.slice(0, i + 37));
    expect(streamed.cuts).toEqual(whole.cuts);
  });

  it("never cuts inside a code fence, a list or a table", () => {
    const fence = "```\n" + "line\n\nmore\n".repeat(200) + "```\n\nafter";
    const c = new Chunker(100);
    c.update(fence);
    for (const cut of c.cuts) expect(cut).toBeGreaterThanOrEqual(fence.indexOf("after"));
    const list = "intro\n\n" + Array.from({ length: 100 }, (_, i) => `- item ${i}\n\n  more ${i}\n`).join("");
    const l = new Chunker(100);
    l.update(list);
    expect(l.cuts.every((cut) => !list.slice(cut).startsWith(" ") && !list.slice(cut).startsWith("-"))).toBe(true);
  });

  it("starts over when the text is replaced", () => {
    const c = new Chunker(100);
    c.update(Array.from({ length: 10 }, (_, i) => para(i)).join(""));
    expect(c.count()).toBeGreaterThan(1);
    c.update("short");
    expect(c.count()).toBe(1);
    expect(c.slice(0)).toBe("short");
  });
});
