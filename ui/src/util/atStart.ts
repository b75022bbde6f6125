// Regular expressions tried at the start of a string only. The page runs without a JIT (see
// src-tauri/src/webkit.rs), and JavaScriptCore's interpreter tries an anchored pattern
// (`/^ {0,3}#/`) that fails at the start again at every later position before it gives up:
// ~9 ns a character, so a rule tried on the rest of a long text costs as much as the text is
// long. Sticky, it is tried at the start alone: the same matches.

/** The top-level alternatives of a pattern's source (`a|(b|c)` → `a`, `(b|c)`). */
export function topLevelBranches(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++; // the escaped character, whatever it is
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "(") {
      depth++;
    } else if (c === ")") {
      depth--;
    } else if (c === "|" && depth === 0) {
      out.push(source.slice(from, i));
      from = i + 1;
    }
  }
  out.push(source.slice(from));
  return out;
}

/** A rule tried at the start of the text only (sticky), whatever `lastIndex` was left at. */
class AtStart extends RegExp {
  override exec(s: string): RegExpExecArray | null {
    this.lastIndex = 0;
    return super.exec(s);
  }
}

/** `re` tried at the start only, when that is all it could match anyway. */
export function atStart(re: RegExp): RegExp {
  const anchored =
    !re.global && !re.sticky && !re.multiline && topLevelBranches(re.source).every((b) => b.startsWith("^"));
  return anchored ? new AtStart(re.source, re.flags + "y") : re;
}
