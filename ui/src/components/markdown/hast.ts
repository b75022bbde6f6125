// Markdown (GFM) → hast, with marked's lexer: the tree the sanitiser, the highlighter and the
// React conversion in pipeline.ts take. marked already splits the blocks (blocks.ts); it
// tokenises agent answers ~15× faster than remark's micromark, which was the single largest
// cost of the web process while a long answer streamed (BENCHMARKS.md, issue 12).
//
// The tree has the shape remark-rehype gives (what the styles and CodeBlock expect). Raw HTML
// becomes the text the agent wrote; nothing here decides what is safe: every tree still goes
// through rehype-sanitize and the URL check after it. A token type this does not know is
// shown as its source text, never dropped.
import { decodeNamedCharacterReference } from "decode-named-character-reference";
import { type Token, type Tokens } from "marked";
import { lex } from "./lexer";

export interface HastText {
  type: "text";
  value: string;
}
export interface HastElement {
  type: "element";
  tagName: string;
  properties: Record<string, string | number | boolean | string[]>;
  children: HastChild[];
}
export type HastChild = HastText | HastElement;
export interface HastRoot {
  type: "root";
  children: HastChild[];
}

const el = (tagName: string, properties: HastElement["properties"] = {}, children: HastChild[] = []): HastElement => ({
  type: "element",
  tagName,
  properties,
  children,
});
const txt = (value: string): HastText => ({ type: "text", value });

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{0,31}));/g;

/** Character references (`&amp;`, `&#169;`, `&#xA9;`) as the characters they stand for. */
export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (whole: string, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) {
      const value = decodeNamedCharacterReference(name);
      return value === false ? whole : value;
    }
    const cp = dec !== undefined ? parseInt(dec, 10) : parseInt(hex ?? "", 16);
    // CommonMark: NUL, surrogates and anything past Unicode become U+FFFD.
    return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(cp);
  });
}

/** The hast tree of `source` (GFM). */
export function markdownToHast(source: string): HastRoot {
  let tokens: Token[];
  try {
    tokens = lex(source);
  } catch {
    return { type: "root", children: [el("p", {}, [txt(source)])] };
  }
  return { type: "root", children: blocks(tokens) };
}

function blocks(tokens: Token[] | undefined): HastChild[] {
  const out: HastChild[] = [];
  for (const token of tokens ?? []) out.push(...block(token));
  return out;
}

function block(t: Token): HastChild[] {
  switch (t.type) {
    case "space":
    case "def": // a link reference definition shows nothing; links that use it are resolved
      return [];
    case "paragraph":
      return [el("p", {}, inline(t.tokens))];
    case "heading":
      return [el(`h${Math.min(6, Math.max(1, (t as Tokens.Heading).depth))}`, {}, inline(t.tokens))];
    case "code": {
      const code = t as Tokens.Code;
      // The info string's first word, as remark-rehype does; fenced code ends with a newline.
      const lang = decodeEntities((code.lang ?? "").trim().split(/\s+/)[0] ?? "");
      const value = code.text ? `${code.text}\n` : "";
      return [el("pre", {}, [el("code", lang ? { className: [`language-${lang}`] } : {}, value ? [txt(value)] : [])])];
    }
    case "blockquote":
      return [el("blockquote", {}, blocks(t.tokens))];
    case "hr":
      return [el("hr")];
    case "list":
      return [list(t as Tokens.List)];
    case "table":
      return [table(t as Tokens.Table)];
    case "html": // shown as written, never rendered
      return [txt((t as Tokens.HTML).text)];
    case "text": // the text of a tight list item
      return t.tokens ? inline(t.tokens) : [txt(decodeEntities((t as Tokens.Text).text))];
    case "checkbox":
      return [checkbox((t as Tokens.Checkbox).checked)];
    default:
      return "raw" in t && typeof t.raw === "string" && t.raw ? [txt(t.raw)] : [];
  }
}

const checkbox = (checked: boolean) => el("input", { type: "checkbox", disabled: true, ...(checked ? { checked: true } : {}) });

function list(t: Tokens.List): HastElement {
  const tasks = t.items.some((item) => item.task);
  const items = t.items.map((item) => {
    const children = blocks(item.tokens);
    // A space between the box and the text, as remark-rehype puts it.
    const box = children[0];
    if (item.task && box?.type === "element" && box.tagName === "input" && children.length > 1) children.splice(1, 0, txt(" "));
    return el("li", item.task ? { className: ["task-list-item"] } : {}, children);
  });
  const props: HastElement["properties"] = {};
  if (t.ordered && typeof t.start === "number" && t.start !== 1) props.start = t.start;
  if (tasks) props.className = ["contains-task-list"];
  return el(t.ordered ? "ol" : "ul", props, items);
}

function table(t: Tokens.Table): HastElement {
  const cell = (tag: string, c: Tokens.TableCell, align: Tokens.Table["align"][number]) =>
    el(tag, align ? { align } : {}, inline(c.tokens));
  const head = el("thead", {}, [el("tr", {}, t.header.map((c, i) => cell("th", c, t.align[i] ?? null)))]);
  const rows = t.rows.map((row) => el("tr", {}, row.map((c, i) => cell("td", c, t.align[i] ?? null))));
  return el("table", {}, rows.length ? [head, el("tbody", {}, rows)] : [head]);
}

function inline(tokens: Token[] | undefined): HastChild[] {
  const out: HastChild[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "text":
        if (t.tokens) out.push(...inline(t.tokens));
        else out.push(txt(decodeEntities((t as Tokens.Text).text)));
        break;
      case "escape":
        out.push(txt(decodeEntities((t as Tokens.Escape).text)));
        break;
      case "codespan": // code is shown as written: no references decoded
        out.push(el("code", {}, [txt((t as Tokens.Codespan).text)]));
        break;
      case "strong":
        out.push(el("strong", {}, inline(t.tokens)));
        break;
      case "em":
        out.push(el("em", {}, inline(t.tokens)));
        break;
      case "del":
        out.push(el("del", {}, inline(t.tokens)));
        break;
      case "br":
        out.push(el("br"));
        break;
      case "link": {
        const link = t as Tokens.Link;
        const props: HastElement["properties"] = { href: decodeEntities(link.href) };
        if (link.title) props.title = decodeEntities(link.title);
        out.push(el("a", props, inline(link.tokens)));
        break;
      }
      case "image": {
        const image = t as Tokens.Image;
        const props: HastElement["properties"] = { src: decodeEntities(image.href), alt: decodeEntities(image.text) };
        if (image.title) props.title = decodeEntities(image.title);
        out.push(el("img", props));
        break;
      }
      case "html": // shown as written, never rendered
        out.push(txt((t as Tokens.Tag).text));
        break;
      case "checkbox":
        out.push(checkbox((t as Tokens.Checkbox).checked));
        break;
      default:
        if ("raw" in t && typeof t.raw === "string" && t.raw) out.push(txt(t.raw));
    }
  }
  return out;
}
