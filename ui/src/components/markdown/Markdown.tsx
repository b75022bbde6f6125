import { useMemo, useRef } from "react";
import { BlockSplitter } from "./blocks";
import { MarkdownBlock } from "./MarkdownBlock";

/** Highlighting a growing code block on every frame costs more than it shows. */
const HIGHLIGHT_STREAMING_MAX = 8_000;

/**
 * Markdown rendered block by block: while text streams in, finished blocks keep their
 * rendered output and only the last one is parsed again. Nothing is ever cut off.
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const splitter = useRef<BlockSplitter | null>(null);
  if (!splitter.current) splitter.current = new BlockSplitter();
  const normalised = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
  const blocks = useMemo(() => splitter.current!.update(normalised), [normalised]);
  const last = blocks.length - 1;
  return (
    <div className="markdown">
      {blocks.map((source, i) => (
        <MarkdownBlock
          key={i}
          source={source}
          highlight={!streaming || i < last || source.length <= HIGHLIGHT_STREAMING_MAX}
        />
      ))}
    </div>
  );
}
