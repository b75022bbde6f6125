// The markdown pipeline, built once and reused for every block (building a processor per
// block cost more than parsing it): markdown → hast (GFM with marked's lexer, raw HTML kept as
// text: hast.ts) → sanitised (GitHub's schema, minus images and anything that loads) →
// highlighted (classes) → URLs checked again → React elements.
import { toJsxRuntime, type Components } from "hast-util-to-jsx-runtime";
import type { ReactElement } from "react";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize from "rehype-sanitize";
import { unified } from "unified";
import { markdownToHast } from "./hast";
import { safeUrl, sanitizeSchema } from "./safety";

const base = unified().use(rehypeSanitize, sanitizeSchema);
const plain = base().freeze();
// Highlighting runs after sanitising, so its `hljs-*` classes survive (and nothing else does).
const highlighted = base().use(rehypeHighlight, { detect: false }).freeze();

interface HastNode {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

const URL_PROPS = ["href", "src", "cite", "action", "formAction", "poster", "xLinkHref", "background", "longDesc"];

/** Belt and braces after the sanitiser: only absolute http(s)/mailto URLs stay. */
function checkUrls(node: HastNode): void {
  if (node.type === "element" && node.properties) {
    for (const prop of URL_PROPS) {
      const value = node.properties[prop];
      if (value === undefined || value === null) continue;
      const url = safeUrl(String(value));
      if (url === undefined) delete node.properties[prop];
      else node.properties[prop] = url;
    }
  }
  node.children?.forEach(checkUrls);
}

/** Parses one block of markdown into React elements. */
export function renderMarkdown(source: string, highlight: boolean, components: Partial<Components>): ReactElement {
  const processor = highlight ? highlighted : plain;
  const tree = processor.runSync(markdownToHast(source) as never) as HastNode;
  checkUrls(tree);
  return toJsxRuntime(tree as never, { Fragment, jsx, jsxs, components, ignoreInvalidStyle: true, passKeys: true, passNode: true });
}
