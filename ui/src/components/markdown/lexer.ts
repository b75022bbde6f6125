// marked's lexer (GFM), with its rules made cheap to fail. The page runs without a JIT (see
// src-tauri/src/webkit.rs), so regular expressions run in JavaScriptCore's interpreter, where
// two things cost most of the time the page spent in them while a 400 KB answer streamed in
// (316 ms of it; 99 ms after):
//
// - marked tries a dozen anchored block rules on the whole rest of the text at every block,
//   and each that fails scans all of it (see `atStart`). The rules whose every branch starts
//   with `^` are run at the start only: the same matches.
// - The rule for setext headings ("Title\n===") walks a block one character at a time through
//   a group with lookaheads: ~0.85 ms for a 1,000-character paragraph, on every block. Its
//   underline can only stand on a line before the block's first blank line, which a plain
//   search finds; without one the rule cannot match and is skipped.
import { lexer, Tokenizer, type Token, type Tokens } from "marked";
import { atStart } from "../../util/atStart";

/** A setext underline line (`===` or `---`, up to 3 spaces before, blanks after). */
const UNDERLINE = /\n {0,3}(?:=+|-+)[ \t]*(?:\n|$)/;

/** Whether `src` may start with a setext heading: an underline before its first blank line. */
export function maySetextHeading(src: string): boolean {
  const blank = src.indexOf("\n\n");
  return UNDERLINE.test(blank < 0 ? src : src.slice(0, blank + 1));
}

// marked's rule tables hold, for a rule a flavour turns off (`table` and `url` outside GFM), a
// plain object whose `exec` never matches, not a RegExp: such entries are kept as they are.
type RuleSet = Record<string, RegExp | { exec(src: string): RegExpExecArray | null }>;
type Rules = Tokenizer["rules"];

const converted = new WeakMap<object, RuleSet>();

function rulesAtStart(set: RuleSet): RuleSet {
  let out = converted.get(set);
  if (!out) {
    out = Object.fromEntries(Object.entries(set).map(([name, re]) => [name, re instanceof RegExp ? atStart(re) : re]));
    converted.set(set, out);
  }
  return out;
}

class CheapTokenizer extends Tokenizer {
  constructor() {
    super();
    // Each lexer hands its tokenizer marked's rules (a new object around the same block and
    // inline sets); those two sets are swapped for their at-start versions, made once per
    // set. The other patterns marked uses (replacements, searches) are left as they are.
    let rules: Rules | undefined;
    Object.defineProperty(this, "rules", {
      get: () => rules,
      set: (r: Rules) => {
        rules = {
          ...r,
          block: rulesAtStart(r.block as unknown as RuleSet) as unknown as Rules["block"],
          inline: rulesAtStart(r.inline as unknown as RuleSet) as unknown as Rules["inline"],
        };
      },
    });
  }

  override lheading(src: string): Tokens.Heading | undefined {
    return maySetextHeading(src) ? super.lheading(src) : undefined;
  }
}

// One tokenizer for every lexer: marked points it at the lexer using it, and lexing is
// synchronous, so no two lexers use it at once.
const tokenizer = new CheapTokenizer();

/** The tokens of `src` (GFM), as marked's own lexer gives them. */
export function lex(src: string): Token[] {
  return lexer(src, { gfm: true, tokenizer });
}
