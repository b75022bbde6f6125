// Characters that hide or reorder text without being seen, as one regular-expression class
// body (without the brackets), shared by the approval cards (`VisibleText`) and the diff
// view: C0 controls from vertical tab on and C1 controls, format characters (zero-width,
// bidi embeddings/overrides/isolates, soft hyphen, tags), line/paragraph separators, every
// space that is not U+0020, private-use code points, lone surrogates, and the blank
// "letters" (Hangul fillers, braille blank) and variation selectors used to smuggle text.
// Each user adds what it treats differently (NUL to tab, unassigned code points).
export const HIDDEN_CLASS =
  "\\u000b-\\u001f\\u007f-\\u009f\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\u115f\\u1160\\u3164\\uffa0\\u2800\\u{e0100}-\\u{e01ef}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cs}";

/** `U+202E` for a code point. */
export const hexOf = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
