import type { ReactNode } from "react";
import { HIDDEN_CLASS, hexOf } from "../../util/hidden";

/**
 * Agent-supplied text shown so that nothing in it can hide or reorder the rest: runs of
 * spaces, tabs, control characters, invisible and bidi-control characters, odd spaces and
 * long runs of blank lines are drawn as visible marks (never obeyed), everything else is
 * plain React text (never HTML). Nothing is dropped: each mark says what it stands for.
 */

// What is marked, in this order: a run of 3+ line breaks (blank lines, maybe with spaces
// or tabs on them), a run of 2+ spaces, then single characters: C0/C1 controls except the
// line feed, format characters (zero-width, bidi embeddings/overrides/isolates, soft hyphen,
// tags), line/paragraph separators, every space that is not U+0020, private-use and
// unassigned code points, lone surrogates, and the blank "letters" (Hangul fillers, braille
// blank) and variation selectors used to smuggle text.
const SPECIAL = new RegExp(`\n(?:[ \t]*\n){2,}| {2,}|[\\u0000-\\u0009${HIDDEN_CLASS}\\p{Cn}]`, "gu");

const NAMES: Record<number, string> = {
  0x00: "null",
  0x07: "bell",
  0x08: "backspace",
  0x09: "tab",
  0x0b: "vertical tab",
  0x0c: "form feed",
  0x0d: "carriage return",
  0x1b: "escape",
  0x7f: "delete",
  0x85: "next line",
  0xa0: "no-break space",
  0xad: "soft hyphen",
  0x200b: "zero-width space",
  0x200c: "zero-width non-joiner",
  0x200d: "zero-width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0xfeff: "zero-width no-break space",
};

export interface Mark {
  /** What the mark shows. */
  shown: string;
  /** What it stands for, in words. */
  name: string;
  /** A line break to keep after it (a run of blank lines still ends its line). */
  breakAfter: boolean;
}

// The usual abbreviations of the C0 controls (drawn as words: the Control Pictures block
// is missing from many monospace fonts).
const C0 = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "TAB", "LF", "VT", "FF", "CR", "SO", "SI",
  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"];

/** The mark for one matched run, or null for text that is shown as it is. */
export function markOf(run: string): Mark | null {
  if (run.startsWith("\n")) {
    const breaks = run.split("\n").length - 1;
    return { shown: `${breaks} line breaks`, name: `${breaks} line breaks`, breakAfter: true };
  }
  if (run.startsWith(" ")) {
    const n = run.length;
    return { shown: n <= 3 ? "·".repeat(n) : `${n} spaces`, name: `${n} spaces`, breakAfter: false };
  }
  const cp = run.codePointAt(0) ?? 0;
  const name = NAMES[cp];
  if (cp < 0x20) return { shown: C0[cp] ?? hexOf(cp), name: `${hexOf(cp)} ${name ?? "control character"}`, breakAfter: false };
  if (cp === 0x7f) return { shown: "DEL", name: `${hexOf(cp)} delete`, breakAfter: false };
  return { shown: hexOf(cp), name: `${hexOf(cp)} ${name ?? "invisible or unusual character"}`, breakAfter: false };
}

/** The text cut into plain runs and marks, in order; joined back they stand for all of it. */
export function segments(text: string): (string | Mark)[] {
  const out: (string | Mark)[] = [];
  let last = 0;
  for (const m of text.matchAll(SPECIAL)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const mark = markOf(m[0]);
    out.push(mark ?? m[0]);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** `text` as plain text with every hidden or disruptive character drawn as a mark. */
export function VisibleText({ text }: { text: string }) {
  const parts = segments(text);
  if (parts.length === 1 && typeof parts[0] === "string") return <>{parts[0]}</>;
  const nodes: ReactNode[] = parts.map((p, i) =>
    typeof p === "string" ? (
      p
    ) : (
      <span key={i}>
        <span className="ws-mark" role="img" aria-label={p.name} title={p.name}>
          {p.shown}
        </span>
        {p.breakAfter ? "\n" : null}
      </span>
    ),
  );
  return <>{nodes}</>;
}
