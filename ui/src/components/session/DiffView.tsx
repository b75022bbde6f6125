import { memo, useMemo } from "react";
import { Diff, Hunk, parseDiff, type FileData } from "react-diff-view/esm";
import type { ApprovalFile } from "../../ipc";

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

function parse(diff: string, path: string, kind: Kind): FileData[] | null {
  const text = normaliseDiff(diff, path, kind);
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
        <span className="file-path">{path}</span>
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
        <pre className="output">{diff}</pre>
      ) : (
        <p className="muted small">No diff available.</p>
      )}
    </div>
  );
});
