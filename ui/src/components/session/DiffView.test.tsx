import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { DiffView, normaliseDiff, revealHidden } from "./DiffView";

afterEach(cleanup);

describe("diffs", () => {
  it("accepts a unified diff without git headers", () => {
    const text = normaliseDiff("@@ -1,2 +1,2 @@\n keep\n-old\n+new\n", "src/a.rs", "update");
    expect(text?.startsWith("diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@")).toBe(true);
  });

  it("replaces ---/+++ headers without a/ b/ prefixes by its own", () => {
    const text = normaliseDiff("--- src/a.rs\n+++ src/a.rs\n@@ -1 +1 @@\n-x\n+y\n", "src/a.rs", "update");
    expect(text).toBe("diff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-x\n+y\n");
  });

  it("keeps a git diff as it is", () => {
    const git = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    expect(normaliseDiff(git, "x", "update")).toBe(git);
  });

  it("shows an added file given as its content", () => {
    const text = normaliseDiff("line 1\nline 2\n", "new.txt", "add");
    expect(text).toContain("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+line 1\n+line 2\n");
  });

  it("renders insertions and deletions with the diff component", () => {
    const { container } = render(<DiffView path="src/a.rs" kind="update" diff={"@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n"} />);
    expect(container.textContent).toContain("src/a.rs");
    expect(container.querySelector(".diff-code-delete")?.textContent).toContain("old line");
    expect(container.querySelector(".diff-code-insert")?.textContent).toContain("new line");
  });

  it("falls back to the raw text when it is not a diff", () => {
    const { container } = render(<DiffView path="a" kind="update" diff="not a diff at all" />);
    expect(container.querySelector("pre")?.textContent).toBe("not a diff at all");
  });

  // Trojan Source: a bidi override or a zero-width character would make the diff read one
  // way and run another; they are drawn, indentation is not touched.
  it("draws bidi and invisible characters in a diff and its path, keeping indentation", () => {
    const evil = "+    if (isAdmin\u202e /* begin admins only */ \u2066) {\u200b\n";
    const { container } = render(
      <DiffView path={"src/\u202eexe.png"} kind="update" diff={"@@ -1 +1 @@\n-    if (isAdmin) {\n" + evil} />,
    );
    const inserted = container.querySelector(".diff-code-insert")?.textContent ?? "";
    expect(inserted).toContain("    if (isAdmin<U+202E> /* begin admins only */ <U+2066>) {<U+200B>");
    expect(container.textContent).not.toMatch(/[\u202e\u2066\u200b]/u);
    expect(container.querySelector('[aria-label="U+202E right-to-left override"]')).not.toBeNull();
    const raw = render(<DiffView path="a" kind="update" diff={"plain \u202e text"} />).container;
    expect(raw.querySelector("pre")?.textContent).toBe("plain <U+202E> text");
    expect(revealHidden("\tindent  two\n")).toBe("\tindent  two\n");
    const crlf = render(<DiffView path="w.txt" kind="update" diff={"@@ -1 +1 @@\r\n-a\r\n+b\r\n"} />).container;
    expect(crlf.textContent).not.toContain("U+000D");
  });
});
