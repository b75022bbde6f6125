import { memo, type MouseEvent, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { useIpc } from "../../ipc/context";
import { CodeBlock } from "./CodeBlock";
import { remarkHtmlAsText, safeUrl, sanitizeSchema, urlTransform } from "./safety";

/** How many times a block went through the markdown pipeline, for tests. */
export const parseStats = { blocks: 0 };

const remarkPlugins = [remarkGfm, remarkHtmlAsText];
const sanitizeOnly = [[rehypeSanitize, sanitizeSchema]] as const;
// Highlighting runs after sanitising, so its `hljs-*` classes survive (and nothing else does).
const sanitizeAndHighlight = [
  [rehypeSanitize, sanitizeSchema],
  [rehypeHighlight, { detect: false }],
] as const;

function Link({ href, title, children }: { href?: string; title?: string; children?: ReactNode }) {
  const ipc = useIpc();
  const url = href ? safeUrl(href) : undefined;
  if (!url) return <span className="md-link-disabled">{children}</span>;
  const open = (e: MouseEvent) => {
    e.preventDefault();
    ipc.openExternal(url).catch(() => {});
  };
  return (
    <a href={url} title={title ?? url} onClick={open} onAuxClick={open} rel="noreferrer noopener">
      {children}
    </a>
  );
}

/** Images are never loaded: they become a link to open in the browser, or their alt text. */
function Image({ src, alt }: { src?: string; alt?: string }) {
  const label = `image: ${alt || src || ""}`;
  const url = src ? safeUrl(src) : undefined;
  if (!url) return <span className="md-image">[{label}]</span>;
  return <Link href={url}>[{label}]</Link>;
}

function Table({ children }: { children?: ReactNode }) {
  return (
    <div className="md-table">
      <table>{children}</table>
    </div>
  );
}

const components: Components = {
  a: ({ href, title, children }) => <Link href={href} title={title}>{children}</Link>,
  img: ({ src, alt }) => <Image src={typeof src === "string" ? src : undefined} alt={alt} />,
  pre: ({ node, children }) => <CodeBlock node={node as never}>{children}</CodeBlock>,
  table: ({ children }) => <Table>{children}</Table>,
};

/** One top-level block, parsed again only when its source changes. */
export const MarkdownBlock = memo(function MarkdownBlock({ source, highlight }: { source: string; highlight: boolean }) {
  parseStats.blocks++;
  return (
    <ReactMarkdown
      remarkPlugins={remarkPlugins}
      rehypePlugins={(highlight ? sanitizeAndHighlight : sanitizeOnly) as never}
      components={components}
      urlTransform={urlTransform}
    >
      {source}
    </ReactMarkdown>
  );
});
