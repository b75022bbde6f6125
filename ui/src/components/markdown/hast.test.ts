import { describe, expect, it } from "vitest";
import { decodeEntities, markdownToHast, type HastChild } from "./hast";

/** The tree as compact HTML-like text, for readable expectations. */
function html(nodes: HastChild[]): string {
  return nodes
    .map((n) => {
      if (n.type === "text") return n.value;
      const props = Object.entries(n.properties)
        .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
        .join("");
      return `<${n.tagName}${props}>${html(n.children)}</${n.tagName}>`;
    })
    .join("");
}
const render = (md: string) => html(markdownToHast(md).children);

describe("markdown → hast (marked's lexer)", () => {
  it("renders GFM: tables with alignment, task lists, strikethrough, autolinks", () => {
    expect(render("| a | b | c |\n|:-|-:|-|\n| 1 | **2** | 3 |")).toBe(
      '<table><thead><tr><th align="left">a</th><th align="right">b</th><th>c</th></tr></thead>' +
        '<tbody><tr><td align="left">1</td><td align="right"><strong>2</strong></td><td>3</td></tr></tbody></table>',
    );
    expect(render("- [x] done\n- [ ] todo")).toBe(
      '<ul className=["contains-task-list"]><li className=["task-list-item"]><input type="checkbox" disabled=true checked=true></input> done</li>' +
        '<li className=["task-list-item"]><input type="checkbox" disabled=true></input> todo</li></ul>',
    );
    expect(render("~~gone~~ see https://example.com/a?b=1 or me@example.com")).toBe(
      '<p><del>gone</del> see <a href="https://example.com/a?b=1">https://example.com/a?b=1</a> or <a href="mailto:me@example.com">me@example.com</a></p>',
    );
  });

  it("renders blocks: headings, fenced code with its language, quotes, lists, rules, breaks", () => {
    expect(render("# One\n\nSetext\n---")).toBe("<h1>One</h1><h2>Setext</h2>");
    expect(render("```rust title=x\nfn main() {}\n```")).toBe('<pre><code className=["language-rust"]>fn main() {}\n</code></pre>');
    expect(render("    indented")).toBe("<pre><code>indented\n</code></pre>");
    expect(render("> quoted *text*")).toBe("<blockquote><p>quoted <em>text</em></p></blockquote>");
    expect(render("3. three\n4. four\n   - nested")).toBe("<ol start=3><li>three</li><li>four<ul><li>nested</li></ul></li></ol>");
    expect(render("- loose\n\n- list")).toBe("<ul><li><p>loose</p></li><li><p>list</p></li></ul>");
    expect(render("a  \nb\n\n***")).toBe("<p>a<br></br>b</p><hr></hr>");
    expect(render("[r] and [text][r]\n\n[r]: https://ref.example \"T\"")).toBe(
      '<p><a href="https://ref.example" title="T">r</a> and <a href="https://ref.example" title="T">text</a></p>',
    );
  });

  it("shows raw HTML as the text the agent wrote, never as elements", () => {
    expect(render("<div onclick=x>block</div>")).toBe("<div onclick=x>block</div>");
    expect(render("a <b>bold</b> <img src=x onerror=alert(1)>")).toBe("<p>a <b>bold</b> <img src=x onerror=alert(1)></p>");
    const tree = markdownToHast("<script>alert(1)</script>\n\ntext <span>x</span>");
    const tags: string[] = [];
    const walk = (n: HastChild) => {
      if (n.type === "element") {
        tags.push(n.tagName);
        n.children.forEach(walk);
      }
    };
    tree.children.forEach(walk);
    expect(tags).toEqual(["p"]);
  });

  it("decodes character references in text and links but not in code", () => {
    expect(render("AT&amp;T &copy; &#169; &#xA9; &bogus; & \\*")).toBe("<p>AT&T © © © &bogus; & *</p>");
    expect(render("`a &amp; b`")).toBe("<p><code>a &amp; b</code></p>");
    expect(render("```\n&lt;x&gt;\n```")).toBe("<pre><code>&lt;x&gt;\n</code></pre>");
    expect(render("[x](https://e.example/?a=1&amp;b=2)")).toBe('<p><a href="https://e.example/?a=1&b=2">x</a></p>');
    expect(decodeEntities("&#0;&#xD800;&#1114112;")).toBe("\uFFFD\uFFFD\uFFFD");
  });

  it("loses no text: every word of a long mixed answer is in the tree", () => {
    const words: string[] = [];
    let md = "";
    for (let i = 0; i < 300; i++) {
      const w = `word${i}`;
      words.push(w);
      md += [`${w} plain. `, `- ${w}\n`, `| ${w} |\n|---|\n\n`, `\`\`\`\n${w}\n\`\`\`\n`, `> ${w}\n\n`, `<i>${w}</i>\n\n`][i % 6];
      if (i % 6 === 0) md += "\n\n";
    }
    const text = (nodes: HastChild[]): string => nodes.map((n) => (n.type === "text" ? n.value : text(n.children))).join(" ");
    const shown = text(markdownToHast(md).children);
    for (const w of words) expect(shown).toContain(w);
  });
});
