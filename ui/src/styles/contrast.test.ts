// WCAG 2.1 AA on the stylesheets themselves (issue 13 item 6): jsdom lays nothing out and
// computes no cascade, so the pairs are derived from the CSS rules. Every colour the UI
// paints comes from these files (a raw colour outside them fails the last tests), so a
// token change that breaks contrast in any theme fails here.
import { describe, expect, it } from "vitest";

// vitest hands CSS imports (even `?raw`) over as empty strings, so the sheets are read from
// disk; the glob only lists them (any new sheet is checked without touching this file).
// The module name is built so TypeScript does not ask for Node's types, which the UI lacks.
const { readFileSync } = (await import(/* @vite-ignore */ ["node", "fs"].join(":"))) as {
  readFileSync(path: URL, encoding: "utf8"): string;
};
const read = (rel: string) => readFileSync(new URL(rel, import.meta.url), "utf8");
const OWN = Object.keys(import.meta.glob("../**/*.css"));
// Load order of main.tsx first (same-specificity rules: the later file wins), then the
// components' sheets.
const ORDER = ["styles/base.css", "styles/sidebar.css", "styles/session.css", "styles/cards.css", "styles/markdown.css"];
const rank = (path: string) => {
  const i = ORDER.findIndex((p) => path.endsWith(p));
  return i < 0 ? ORDER.length : i;
};
const SHEETS: [string, string][] = [
  ["react-diff-view/style/index.css", read("../../node_modules/react-diff-view/style/index.css")],
  ...OWN.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((p): [string, string] => [p, read(p)]),
];

type Scheme = "light" | "dark";
interface Rule {
  file: string;
  selector: string;
  media: Scheme | null;
  forced: Scheme | null;
  decls: Map<string, string>;
}

function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

function parseDecls(body: string): Map<string, string> {
  const decls = new Map<string, string>();
  for (const d of splitTop(body, ";")) {
    const colon = d.indexOf(":");
    if (colon > 0) decls.set(d.slice(0, colon).trim().toLowerCase(), d.slice(colon + 1).trim());
  }
  return decls;
}

/** A brace-matching reader: enough for our sheets (rules and @media blocks, no nesting beyond). */
function parseSheet(file: string, css: string): Rule[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const rules: Rule[] = [];
  const walk = (src: string, media: Scheme | null) => {
    let i = 0;
    while (i < src.length) {
      const open = src.indexOf("{", i);
      if (open < 0) break;
      const prelude = src.slice(i, open).trim();
      let depth = 1;
      let j = open + 1;
      for (; j < src.length && depth > 0; j++) {
        if (src[j] === "{") depth++;
        else if (src[j] === "}") depth--;
      }
      const body = src.slice(open + 1, j - 1);
      if (prelude.startsWith("@media")) {
        const scheme = /prefers-color-scheme:\s*(light|dark)/.exec(prelude)?.[1] as Scheme | undefined;
        // Width-only media queries restyle layout, not colour: their rules count as always on.
        walk(body, scheme ?? media);
      } else {
        const decls = parseDecls(body);
        for (const raw of splitTop(prelude, ",")) {
          const m = /^:root\.theme-(light|dark)\b\s*/.exec(raw);
          const selector = m ? raw.slice(m[0].length) || ":root" : raw;
          rules.push({ file, selector, media, forced: (m?.[1] as Scheme | undefined) ?? null, decls });
        }
      }
      i = j;
    }
  };
  walk(text, null);
  return rules;
}

const RULES = SHEETS.flatMap(([file, css]) => parseSheet(file, css));

interface Scenario {
  name: string;
  system: Scheme;
  forced: Scheme | null;
}
const SCENARIOS: Scenario[] = (["light", "dark"] as Scheme[]).flatMap((system) =>
  ([null, "light", "dark"] as (Scheme | null)[]).map((forced) => ({
    name: forced ? `theme-${forced} (system ${system})` : `system ${system}`,
    system,
    forced,
  })),
);

/** The rules in force for a scenario, in cascade order: plain, then the scheme's media block,
 *  then the forced theme's `:root.theme-*` rules (which outrank both). */
function inForce(s: Scenario): Rule[] {
  const applies = (r: Rule) => (r.media === null || r.media === s.system) && (r.forced === null || r.forced === s.forced);
  const tier = (r: Rule) => (r.forced ? 2 : r.media ? 1 : 0);
  return RULES.filter(applies).sort((a, b) => tier(a) - tier(b));
}

type RGB = [number, number, number, number];

function parseColor(value: string): RGB | null {
  const v = value.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3,8})$/.exec(v)?.[1];
  if (hex) {
    const full = hex.length <= 4 ? [...hex].map((c) => c + c).join("") : hex;
    const n = (k: number) => parseInt(full.slice(k, k + 2), 16);
    return [n(0), n(2), n(4), full.length === 8 ? n(6) / 255 : 1];
  }
  const fn = /^rgba?\(([^)]*)\)$/.exec(v)?.[1];
  if (fn) {
    const parts = fn.split(/[\s,/]+/).filter(Boolean).map(Number);
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
  }
  if (v === "white") return [255, 255, 255, 1];
  if (v === "black") return [0, 0, 0, 1];
  return null;
}

const RAW_COLOR = /#[0-9a-f]{3,8}\b|rgba?\(|\b(white|black)\b/i;

class Theme {
  readonly tokens = new Map<string, string>();
  /** Effective declarations per selector (state selectors include their base's). */
  readonly bySelector = new Map<string, Map<string, string>>();
  constructor(readonly scenario: Scenario) {
    for (const r of inForce(scenario)) {
      const merged = this.bySelector.get(r.selector) ?? new Map<string, string>();
      for (const [k, v] of r.decls) {
        if (k.startsWith("--")) this.tokens.set(k, v);
        else merged.set(k, v);
      }
      this.bySelector.set(r.selector, merged);
    }
    for (const [sel, decls] of this.bySelector) {
      const base = sel.replace(/:(hover|active|focus|focus-visible)\b(:not\([^)]*\))?/g, "");
      if (base !== sel) {
        const b = this.bySelector.get(base);
        if (b) this.bySelector.set(sel, new Map([...b, ...decls]));
      }
    }
  }
  resolve(value: string, depth = 0): string {
    if (depth > 10) return value;
    return value.replace(/var\(\s*(--[\w-]+)\s*(?:,\s*([^)]*))?\)/g, (_, name: string, fallback?: string) => {
      const t = this.tokens.get(name) ?? fallback ?? "";
      return this.resolve(t, depth + 1);
    });
  }
  /** The first colour a declaration value holds (`background: var(--bg)`, `border: 1px solid x`). */
  color(value: string | undefined): RGB | null {
    if (!value) return null;
    for (const part of splitTop(this.resolve(value), " ")) {
      const c = parseColor(part);
      if (c) return c;
    }
    return null;
  }
  token(name: string): RGB {
    const c = this.color(`var(${name})`);
    if (!c) throw new Error(`${this.scenario.name}: token ${name} is not a colour`);
    return c;
  }
}

function luminance([r, g, b]: RGB): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
/** Composites a translucent colour over an opaque one. */
function over(fg: RGB, bg: RGB): RGB {
  const a = fg[3];
  return [fg[0] * a + bg[0] * (1 - a), fg[1] * a + bg[1] * (1 - a), fg[2] * a + bg[2] * (1 - a), 1];
}
function contrast(a: RGB, b: RGB): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
const hex = (c: RGB) => "#" + c.slice(0, 3).map((n) => Math.round(n).toString(16).padStart(2, "0")).join("");

const TEXT = 4.5;
const NON_TEXT = 3;

// Backgrounds that hold no UI text: 8 px status dots, pseudo-elements (the selection, the
// diff's omitted-lines bar). The diff's own cells hold only diff text: checked on their own.
const NOT_SURFACES = /\.(run-dot|activity-dot)\b|::?(before|after|selection|-moz-selection)\b/;

interface Pair {
  what: string;
  fg: RGB;
  bg: RGB;
  min: number;
}

function textPairs(t: Theme): Pair[] {
  const fgToken = t.token("--fg");
  const surfaces = new Map<string, RGB>([["--bg", t.token("--bg")]]);
  const pairs: Pair[] = [];
  const bgOf = (d: Map<string, string>) => t.color(d.get("background-color") ?? d.get("background"));
  for (const [sel, d] of t.bySelector) {
    const bg = bgOf(d);
    const colorValue = d.get("color");
    const fg = colorValue && !/inherit|currentcolor/i.test(colorValue) ? t.color(colorValue) : null;
    // A background with no colour of its own (or the page's) hosts the text inside it.
    if (bg && bg[3] === 1 && !NOT_SURFACES.test(sel) && !sel.includes("diff") && (!fg || hex(fg) === hex(fgToken))) {
      surfaces.set(sel, bg);
    }
  }
  for (const [sel, d] of t.bySelector) {
    // Highlight.js colours only appear on the code background: checked by their own test.
    if (sel.includes("diff") || sel.includes(".hljs-") || NOT_SURFACES.test(sel)) continue;
    const colorValue = d.get("color");
    if (!colorValue || /inherit|currentcolor|initial/i.test(colorValue)) continue;
    const fg = t.color(colorValue);
    if (!fg) continue;
    const bg = t.color(d.get("background-color") ?? d.get("background"));
    if (bg && bg[3] === 1) {
      pairs.push({ what: `${sel} on its own background`, fg, bg, min: TEXT });
    } else {
      for (const [where, s] of surfaces) pairs.push({ what: `${sel} on ${where}`, fg, bg: s, min: TEXT });
    }
  }
  // Text that inherits the page colour sits on every surface too.
  for (const [where, s] of surfaces) pairs.push({ what: `--fg on ${where}`, fg: fgToken, bg: s, min: TEXT });
  // Diffs: code text on the line backgrounds, line numbers (.diff-gutter) on the gutter's.
  const diffText = t.token("--diff-text-color");
  const gutter = t.color(t.bySelector.get(".diff-gutter")?.get("color")) ?? diffText;
  for (const kind of ["code-insert", "code-delete", "code-insert-edit", "code-delete-edit", "selection"]) {
    pairs.push({ what: `diff text on --diff-${kind}-background-color`, fg: diffText, bg: t.token(`--diff-${kind}-background-color`), min: TEXT });
  }
  // (No "selected" lines: the app passes no selectedChanges, so react-diff-view's unthemed
  // yellow never shows.)
  for (const kind of ["insert", "delete"]) {
    pairs.push({ what: `diff line number on --diff-gutter-${kind}-background-color`, fg: gutter, bg: t.token(`--diff-gutter-${kind}-background-color`), min: TEXT });
  }
  pairs.push({ what: "diff line number on --diff-background-color", fg: gutter, bg: t.token("--diff-background-color"), min: TEXT });
  // The session menu's button is dimmed when idle (its row neither hovered nor selected, so
  // on the sidebar's background); its glyph is an icon (non-text, 3:1).
  const dim = t.bySelector.get(".session-menu-button")?.get("opacity");
  if (dim) {
    const icon = t.color(t.bySelector.get(".icon-button")?.get("color"));
    if (icon) {
      const faded: RGB = [icon[0], icon[1], icon[2], Number(dim)];
      const bg = t.token("--bg-side");
      pairs.push({ what: "idle .session-menu-button on --bg-side", fg: over(faded, bg), bg, min: NON_TEXT });
    }
  }
  return pairs;
}

function nonTextPairs(t: Theme): Pair[] {
  const around = ["--bg", "--bg-side", "--bg-card", "--bg-code", "--bg-hover", "--selected", "--accent-soft", "--warn-soft"];
  const pairs: Pair[] = [];
  // Outlines (focus rings, the focused timeline row): visible on whatever they surround.
  for (const [sel, d] of t.bySelector) {
    const outline = d.get("outline");
    const c = outline && !/none|^0$/.test(outline) ? t.color(outline) : null;
    if (!c) continue;
    for (const w of around) pairs.push({ what: `${sel} outline on ${w}`, fg: c, bg: t.token(w), min: NON_TEXT });
  }
  // Field borders are a text field's only outline (WCAG 1.4.11): against the field's own
  // background and the panels fields sit on.
  for (const [sel, d] of t.bySelector) {
    if (!/(^|[\s>.])(input|select|textarea)\b(?!\[type="(checkbox|radio)"\])/.test(sel) || /:/.test(sel.replace(/\[[^\]]*\]/g, ""))) continue;
    const border = d.get("border-color") ?? d.get("border");
    const c = border && !/none/.test(border) ? t.color(border) : null;
    if (!c) continue;
    const inside = t.color(d.get("background")) ?? t.token("--bg");
    pairs.push({ what: `${sel} border on its field`, fg: c, bg: inside, min: NON_TEXT });
    for (const w of ["--bg-side", "--bg-card"]) pairs.push({ what: `${sel} border on ${w}`, fg: c, bg: t.token(w), min: NON_TEXT });
  }
  return pairs;
}

const failures = (pairs: Pair[]) =>
  pairs
    .map((p) => ({ ...p, ratio: contrast(p.fg, p.bg) }))
    .filter((p) => p.ratio < p.min)
    .map((p) => `${p.what}: ${hex(p.fg)} on ${hex(p.bg)} = ${p.ratio.toFixed(2)} < ${p.min}`);

function expectNone(list: string[]) {
  expect(list, list.join("\n")).toEqual([]);
}

describe("colour contrast (WCAG 2.1 AA)", () => {
  it("computes the WCAG ratio", () => {
    expect(contrast([0, 0, 0, 1], [255, 255, 255, 1])).toBeCloseTo(21, 5);
    expect(contrast([118, 118, 118, 1], [255, 255, 255, 1])).toBeCloseTo(4.54, 2);
  });

  it("every forced theme defines every token the base theme does", () => {
    const base = new Theme({ name: "base", system: "light", forced: null });
    const names = [...base.tokens.keys()].filter((k) => !k.startsWith("--diff-") && base.color(`var(${k})`) !== null);
    for (const forced of ["light", "dark"] as Scheme[]) {
      const defined = new Set(RULES.filter((r) => r.forced === forced && r.selector === ":root").flatMap((r) => [...r.decls.keys()]));
      expect(names.filter((n) => !defined.has(n)), `theme-${forced}`).toEqual([]);
    }
  });

  for (const s of SCENARIOS) {
    it(`text is at least 4.5:1 in ${s.name}`, () => {
      const t = new Theme(s);
      const pairs = textPairs(t);
      expect(pairs.length).toBeGreaterThan(100);
      expectNone(failures(pairs));
    });
    it(`focus rings and field borders are at least 3:1 in ${s.name}`, () => {
      const t = new Theme(s);
      const pairs = nonTextPairs(t);
      expect(pairs.some((p) => p.what.startsWith(":focus-visible outline"))).toBe(true);
      expect(pairs.some((p) => p.what.includes("border on its field"))).toBe(true);
      expectNone(failures(pairs));
    });
    it(`code highlighting and search marks are at least 4.5:1 in ${s.name}`, () => {
      const t = new Theme(s);
      const code = t.token("--bg-code");
      const pairs: Pair[] = [];
      for (const [sel, d] of t.bySelector) {
        if (!sel.includes(".hljs-")) continue;
        const fg = t.color(d.get("color"));
        if (!fg) continue;
        pairs.push({ what: sel, fg, bg: t.color(d.get("background")) ?? code, min: TEXT });
      }
      expect(pairs.length).toBeGreaterThan(20);
      const mark = t.bySelector.get(".search-snippet mark");
      const markFg = t.color(mark?.get("color"));
      const markBg = t.color(mark?.get("background"));
      expect(markFg && markBg).toBeTruthy();
      if (markFg && markBg) {
        pairs.push({ what: "search <mark>", fg: markFg, bg: markBg, min: TEXT });
        // The mark must also stand out from the hit's card, or the match is invisible to
        // anyone who cannot see the bold (1.4.1 wants more than colour: bold does that).
        expect(mark?.get("font-weight")).toBe("600");
      }
      expectNone(failures(pairs));
    });
  }

  it("placeholder text takes a checked token, not the engine's pale default", () => {
    // WebKit's default placeholder colour is darkGray (#a9a9a9: 2.35:1 on white); the rule
    // is checked as text on every surface by the tests above.
    const rule = RULES.find((r) => r.selector === "::placeholder" && r.media === null && r.forced === null);
    expect(rule?.decls.get("color")).toMatch(/^var\(--[\w-]+\)$/);
    expect(rule?.decls.get("opacity")).toBe("1");
    for (const s of SCENARIOS) {
      expect(textPairs(new Theme(s)).some((p) => p.what.startsWith("::placeholder on --bg"))).toBe(true);
    }
  });

  it("no sheet paints text or a surface in a raw colour outside the checked places", () => {
    // Allowed: token definitions (custom properties), highlight.js classes (checked above
    // against the code background), shadows and the translucent backdrops of dialogs and
    // the drop overlay (no text on them: the dialog's own box is var(--bg)).
    const offenders: string[] = [];
    for (const r of RULES) {
      if (r.file.startsWith("react-diff-view")) continue;
      for (const [k, v] of r.decls) {
        if (k.startsWith("--") || k === "box-shadow" || !RAW_COLOR.test(v)) continue;
        if (r.selector.includes(".hljs-")) continue;
        if (/^background/.test(k) && /backdrop|drop-overlay/.test(r.selector) && /rgba?\([^)]*(\/|,)\s*0?\.\d+\)/.test(v)) continue;
        offenders.push(`${r.file} ${r.selector} { ${k}: ${v} }`);
      }
    }
    expectNone(offenders);
  });

  it("every interactive element shows a focus ring that nothing turns off", () => {
    const ring = RULES.find((r) => r.selector === ":focus-visible" && r.media === null && r.forced === null);
    const outline = ring?.decls.get("outline") ?? "";
    expect(outline).toMatch(/^2px solid var\(--focus\)$/);
    const hidden: string[] = [];
    for (const r of RULES) {
      if (r.file.startsWith("react-diff-view")) continue;
      for (const [k, v] of r.decls) {
        if (!/^outline(-style|-width)?$/.test(k) || !/^(none|0|0px|hidden)$/.test(v.trim())) continue;
        // The settings title takes the focus only programmatically (tabIndex -1, to move a
        // screen reader there on open); it is no control and not in the tab order.
        if (r.selector === ".settings h1:focus") continue;
        hidden.push(`${r.file} ${r.selector} { ${k}: ${v} }`);
      }
      // A per-element ring must keep a visible width and a checked colour.
      if (r.selector.includes(":focus-visible")) {
        const o = r.decls.get("outline");
        if (o !== undefined) expect(o, `${r.file} ${r.selector}`).toMatch(/^2px solid var\(--focus\)$/);
      }
    }
    expectNone(hidden);
  });
});
