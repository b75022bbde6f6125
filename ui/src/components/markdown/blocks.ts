// Splits markdown into top-level blocks (marked's lexer, as streamdown does), incrementally:
// when the text only grew, everything before the last block is kept as it was (the same
// strings, so memoised renderers skip them) and only the last block onwards is lexed again.
import { lex } from "./lexer";

/** How much text went through the lexer, for tests and benchmarks. */
export const lexStats = { calls: 0, chars: 0 };

/** Top-level blocks of `src`; their concatenation is exactly `src` (nothing is ever lost). */
export function lexBlocks(src: string): string[] {
  if (src === "") return [];
  lexStats.calls++;
  lexStats.chars += src.length;
  let tokens;
  try {
    tokens = lex(src);
  } catch {
    return [src];
  }
  const blocks: string[] = [];
  let at = 0;
  for (const token of tokens) {
    const raw = token.raw ?? "";
    if (raw === "") continue;
    // The lexer may normalise what it reads (it trims a list that ends the text, for one):
    // from the first token that is not the text as written, the rest is one block. Cutting
    // there, and not giving up on the whole text, keeps the split the same whether the text
    // is lexed at once or from its last block on (see `BlockSplitter`).
    if (!src.startsWith(raw, at)) break;
    if (token.type === "space" && blocks.length > 0) {
      blocks[blocks.length - 1] += raw; // blank lines belong to the block before them
    } else {
      blocks.push(raw);
    }
    at += raw.length;
  }
  if (at < src.length) blocks.push(src.slice(at));
  return blocks;
}

export class BlockSplitter {
  private text = "";
  private blocks: string[] = [];

  update(text: string): string[] {
    if (text === this.text) return this.blocks;
    const last = this.blocks[this.blocks.length - 1];
    if (last !== undefined && this.blocks.length > 1 && text.startsWith(this.text)) {
      const offset = this.text.length - last.length;
      this.blocks = this.blocks.slice(0, -1).concat(lexBlocks(text.slice(offset)));
    } else {
      this.blocks = lexBlocks(text);
    }
    this.text = text;
    return this.blocks;
  }
}
