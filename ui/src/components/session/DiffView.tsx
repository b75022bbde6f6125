import { memo, useMemo } from "react";
import { Diff, Hunk, parseDiff, type FileData } from "react-diff-view/esm";
import type { ApprovalFile } from "../../ipc";
import { HIDDEN_CLASS, hexOf } from "../../util/hidden";
import { VisibleText } from "../approvals/VisibleText";

type Kind = ApprovalFile["kind"];

const header = (path: string, kind: Kind) => {
  const oldPath = kind === "add" ? "/dev/null" : `a/${path}`;
  const newPath = kind === "delete" ? "/dev/null" : `b/${path}`;
  return `diff --git a/${path} b/${path}\n--- ${oldPath}\n+++ ${newPath}\n`;
};

/**
 * Makes what the engines give (a unified diff with or without `diff --git` / `---` headers,
 * or only the new file's content for an added file) into something gitdiff-parser reads.
 */
export function normaliseDiff(diff: string, path: string, kind: Kind): string | null {
  const text = diff.replace(/\r\n/g, "\n");
  if (/^diff --git /m.test(text)) return text;
  const firstHunk = text.search(/^@@ /m);
  if (firstHunk >= 0) return header(path, kind) + text.slice(firstHunk);
  if (kind === "add" || kind === "delete") {
    const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
    if (text === "") return null;
    const sign = kind === "add" ? "+" : "-";
    const range = kind === "add" ? `-0,0 +1,${lines.length}` : `-1,${lines.length} +0,0`;
    return `${header(path, kind)}@@ ${range} @@\n${lines.map((l) => sign + l).join("\n")}\n`;
  }
  return null;
}

// Characters that reorder or hide code without being seen (bidi overrides and isolates,
// zero-width and other format characters, controls but tab and line feed, line/paragraph
// separators, odd spaces): a "Trojan Source" diff would read one way and do another. Code's
// indentation (runs of spaces, tabs) is left as it is.
const HIDDEN = new RegExp(`[\\u0000-\\u0008${HIDDEN_CLASS}]`, "gu");

/** `text` with every hidden character drawn as `<U+XXXX>` (the agent's diff is shown, never obeyed). */
export function revealHidden(text: string): string {
  return text.replace(HIDDEN, (c) => `<${hexOf(c.codePointAt(0) ?? 0)}>`);
}

function parse(diff: string, path: string, kind: Kind): FileData[] | null {
  const normalised = normaliseDiff(diff, path, kind);
  // After normalising: CRLF line ends are line ends, not hidden characters.
  const text = normalised && revealHidden(normalised);
  if (!text) return null;
  try {
    const files = parseDiff(text, { nearbySequences: "zip" });
    return files.some((f) => f.hunks.length > 0) ? files : null;
  } catch {
    return null;
  }
}

const KIND_LABEL: Record<Kind, string> = { add: "added", delete: "deleted", update: "modified", move: "moved" };

/** One file's change as a unified diff (react-diff-view), or the raw text if it is not one. */
export const DiffView = memo(function DiffView({ path, kind, diff }: { path: string; kind: Kind; diff: string }) {
  const files = useMemo(() => parse(diff, path, kind), [diff, path, kind]);
  return (
    <div className="file-diff">
      <div className="file-diff-head">
        <span className={`change-kind change-${kind}`}>{KIND_LABEL[kind]}</span>
        <span className="file-path">
          <VisibleText text={path} />
        </span>
      </div>
      {files ? (
        <div className="diff-scroll">
          {files.map((f, i) => (
            <Diff key={i} viewType="unified" diffType={f.type} hunks={f.hunks} className="diff-table">
              {(hunks) => hunks.map((h) => <Hunk key={h.content} hunk={h} />)}
            </Diff>
          ))}
        </div>
      ) : diff ? (
        <pre className="output">{revealHidden(diff.replace(/\r\n/g, "\n"))}</pre>
      ) : (
        <p className="muted small">No diff available.</p>
      )}
    </div>
  );
});
