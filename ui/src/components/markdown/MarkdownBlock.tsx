import { memo, type MouseEvent, type ReactNode } from "react";
import type { Components } from "hast-util-to-jsx-runtime";
import { useIpc } from "../../ipc/context";
import { CodeBlock } from "./CodeBlock";
import { renderMarkdown } from "./pipeline";
import { safeUrl } from "./safety";

/** How many times a block went through the markdown pipeline, for tests. */
export const parseStats = { blocks: 0 };

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

type P = { node?: unknown; children?: ReactNode; href?: string; title?: string; src?: unknown; alt?: string };

const components: Partial<Components> = {
  a: ({ href, title, children }: P) => (
    <Link href={href} title={title}>
      {children}
    </Link>
  ),
  img: ({ src, alt }: P) => <Image src={typeof src === "string" ? src : undefined} alt={alt} />,
  pre: ({ node, children }: P) => <CodeBlock node={node as never}>{children}</CodeBlock>,
  table: ({ children }: P) => <Table>{children}</Table>,
};

/** One top-level block, parsed again only when its source changes. */
export const MarkdownBlock = memo(function MarkdownBlock({ source, highlight }: { source: string; highlight: boolean }) {
  parseStats.blocks++;
  return renderMarkdown(source, highlight, components);
});
