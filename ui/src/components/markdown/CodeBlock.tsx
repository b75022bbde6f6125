import { useState, type ReactNode } from "react";
import { copyText } from "../../util/clipboard";

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

function textOf(node: HastNode | undefined): string {
  if (!node) return "";
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(textOf).join("");
}

function languageOf(node: HastNode | undefined): string | null {
  const code = node?.children?.find((c) => c.tagName === "code");
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : [];
  const lang = list.find((c): c is string => typeof c === "string" && c.startsWith("language-"));
  return lang ? lang.slice("language-".length) : null;
}

/** A fenced code block with its language and a copy button. */
export function CodeBlock({ node, children }: { node?: HastNode; children?: ReactNode }) {
  const [copied, setCopied] = useState(false);
  const lang = languageOf(node);
  const copy = async () => {
    const ok = await copyText(textOf(node).replace(/\n$/, ""));
    setCopied(ok);
    if (ok) setTimeout(() => setCopied(false), 1500);
  };
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-lang">{lang ?? "text"}</span>
        <button type="button" className="code-copy" onClick={copy} aria-label="Copy code">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>{children}</pre>
    </div>
  );
}
