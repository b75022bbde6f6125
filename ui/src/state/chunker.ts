// Cuts a long (streaming) markdown message into chunks of about CHUNK characters, each shown
// as its own timeline row, so the list virtualises inside one long answer too: only the
// chunks on screen are parsed and in the DOM. Cuts are made only before a line that starts a
// new top-level block after a blank line (never inside a code fence or a list), and a cut,
// once made, never moves: later text cannot change where earlier chunks end.

import { atStart } from "../util/atStart";

export const CHUNK = 3000;

const FENCE = atStart(/^ {0,3}(`{3,}|~{3,})/);
const CONTINUES = atStart(/^(\s|[-*+] |\d{1,9}[.)] |>|\||$)/); // indented, list item, quote, table, blank

export class Chunker {
  /** Offsets where chunks 1.. start (chunk 0 starts at 0). */
  readonly cuts: number[] = [];
  private scanned = 0; // everything before this offset is complete lines already scanned
  private fence: string | null = null;
  private blankBefore = false;
  private text = "";

  constructor(private readonly size = CHUNK) {}

  /** Feeds the message's whole text; returns true when the number of chunks changed. */
  update(text: string): boolean {
    if (!text.startsWith(this.text)) this.restart();
    this.text = text;
    const before = this.cuts.length;
    let pos = this.scanned;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break; // an incomplete line: scanned when it ends
      this.line(text.slice(pos, nl), pos);
      pos = nl + 1;
    }
    this.scanned = pos;
    return this.cuts.length !== before;
  }

  count(): number {
    return this.cuts.length + 1;
  }

  slice(k: number): string {
    return this.text.slice(k === 0 ? 0 : this.cuts[k - 1], this.cuts[k] ?? this.text.length);
  }

  private line(line: string, start: number): void {
    const fence = FENCE.exec(line);
    if (this.fence !== null) {
      if (fence && fence[1]!.startsWith(this.fence[0]!) && fence[1]!.length >= this.fence.length && line.trim() === fence[1]) this.fence = null;
      this.blankBefore = false;
      return;
    }
    const blank = line.trim() === "";
    if (!blank && this.blankBefore && !CONTINUES.test(line)) {
      const last = this.cuts[this.cuts.length - 1] ?? 0;
      if (start - last >= this.size) this.cuts.push(start);
    }
    if (fence) this.fence = fence[1]!;
    this.blankBefore = blank;
  }

  private restart(): void {
    this.cuts.length = 0;
    this.scanned = 0;
    this.fence = null;
    this.blankBefore = false;
  }
}
