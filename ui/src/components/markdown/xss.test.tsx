import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { IpcContext } from "../../ipc/context";
import { fakeIpc } from "../../test/fakeIpc";
import { Markdown } from "./Markdown";

afterEach(cleanup);

// Each payload is rendered as an agent message; none may produce anything that runs,
// loads or navigates.
const CORPUS: string[] = [
  "<script>alert(1)</script>",
  "text <script src=https://evil.example/x.js></script> more",
  '<img src=x onerror="alert(1)">',
  "<img src=x onerror=alert(1)//",
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click](jav&#x09;ascript:alert(1))",
  "[click](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
  "[click](javascript&colon;alert(1))",
  "[click](  javascript:alert(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  "![img](javascript:alert(1))",
  "![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  "![img](https://evil.example/track.png)",
  "<javascript:alert(1)>",
  "<data:text/html,<script>alert(1)</script>>",
  "[ref]\n\n[ref]: javascript:alert(1)",
  "![ref][r]\n\n[r]: data:image/png;base64,AAAA",
  '<svg onload="alert(1)"><circle r="1"/></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<a href="javascript:alert(1)">raw link</a>',
  '<a href="https://ok.example" onclick="alert(1)">raw ok link</a>',
  '<div style="position:fixed;inset:0;background:red">overlay</div>',
  '<p style="color:red">styled</p>',
  '[title](https://ok.example "a\\" onmouseover=\\"alert(1)")',
  "[title](https://ok.example 'x\" onclick=\"alert(1)')",
  '<details open ontoggle="alert(1)"><summary>x</summary></details>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>',
  '<base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  "<style>body{display:none}</style>",
  "```html\n<script>alert(1)</script>\n```",
  "| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |",
  "- [ ] <script>alert(1)</script>\n- [x] [y](vbscript:x)",
  "> <iframe src=javascript:alert(1)>",
  "[x](java\nscript:alert(1))",
  "[x](\u0001javascript:alert(1))",
  "https://ok.example/<script>alert(1)</script>",
  "www.evil.example/\"onmouseover=\"alert(1)",
  "[x](mailto:a@b.example?body=<script>)",
  '<video src=x onerror=alert(1)></video><audio src=x onerror=alert(1)></audio>',
];

function renderMd(text: string) {
  return render(
    <IpcContext.Provider value={fakeIpc()}>
      <Markdown text={text} />
    </IpcContext.Provider>,
  ).container;
}

function problems(root: HTMLElement): string[] {
  const found: string[] = [];
  for (const el of root.querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    if (["script", "iframe", "object", "embed", "style", "link", "meta", "base", "form", "img", "svg", "math", "video", "audio"].includes(tag)) {
      found.push(`<${tag}>`);
    }
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
      if (name.startsWith("on")) found.push(`${tag}[${name}]`);
      if (name === "style") found.push(`${tag}[style]`);
      if (["href", "src", "action", "formaction", "xlink:href", "srcdoc", "data"].includes(name)) {
        if (/^(javascript|data|vbscript):/.test(value)) found.push(`${tag}[${name}=${attr.value}]`);
        if (name === "href" && !/^(https?|mailto):/.test(value)) found.push(`${tag}[href=${attr.value}]`);
        if (name !== "href") found.push(`${tag}[${name}]`);
      }
    }
  }
  return found;
}

describe("markdown sanitising", () => {
  it("has a corpus of at least 30 payloads", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CORPUS.map((p, i) => [i, p]))("payload %i renders nothing active", (_i, payload) => {
    const root = renderMd(payload);
    expect(problems(root)).toEqual([]);
  });

  it("shows raw HTML as text instead of dropping it", () => {
    const root = renderMd("before <b>bold?</b> after");
    expect(root.textContent).toContain("<b>");
    expect(root.querySelector("b")).toBeNull();
  });

  it("keeps safe links, opening them outside the app", () => {
    const root = renderMd("[docs](https://example.com/a) and <mailto:me@example.com>");
    const links = [...root.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["https://example.com/a", "mailto:me@example.com"]);
  });
});
