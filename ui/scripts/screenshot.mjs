// Screenshots of the built UI (ui/dist) with a fake back end (scripts/demo-ipc.js), in light
// and dark, wide and narrow. Serves dist with the app's CSP, so a CSP violation shows up here.
//   npm --prefix ui run build && node ui/scripts/screenshot.mjs [outDir]
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { extname, join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, "../dist");
const out = resolve(process.argv[2] ?? join(here, "../../target/ui-shots"));
const demo = await readFile(join(here, "demo-ipc.js"), "utf8");
const conf = JSON.parse(await readFile(resolve(here, "../../src-tauri/tauri.conf.json"), "utf8"));
const csp = Object.entries(conf.app.security.csp)
  .map(([k, v]) => `${k} ${v}`)
  .join("; ");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png" };

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = join(dist, path === "/" ? "index.html" : path);
  if (!file.startsWith(dist)) return res.writeHead(403).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-security-policy": csp });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;
await mkdir(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const problems = [];

async function page(scheme, width, height) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme, deviceScaleFactor: 1 });
  const p = await context.newPage();
  await p.addInitScript(demo);
  await p.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
  p.on("console", (m) => m.type() === "error" && problems.push(`[${scheme} ${width}] ${m.text()}`));
  p.on("pageerror", (e) => problems.push(`[${scheme} ${width}] ${e.message}`));
  await p.goto(url);
  await p.getByRole("button", { name: "Fix the flaky timeline test" }).first().waitFor();
  return { p, context };
}

const shot = async (p, name) => {
  await p.waitForTimeout(250);
  await p.screenshot({ path: join(out, `${name}.png`) });
  console.log(`${name}.png`);
};

for (const scheme of ["light", "dark"]) {
  for (const [w, h, tag] of [
    [1280, 800, "wide"],
    [760, 700, "narrow"],
  ]) {
    const { p, context } = await page(scheme, w, h);
    const n = (s) => `${s}-${tag}-${scheme}`;
    await shot(p, n("home"));
    await p.getByRole("button", { name: "Fix the flaky timeline test" }).first().click();
    await p.getByRole("log", { name: "Timeline" }).waitFor();
    await shot(p, n("session-bottom"));
    // Streaming while at the bottom: the view follows; scrolled up, it stays put.
    const log0 = p.getByRole("log", { name: "Timeline" });
    const gap = () => log0.evaluate((el) => Math.round(el.scrollHeight - el.scrollTop - el.clientHeight));
    const stream = async (lines) => {
      for (let i = 0; i < lines; i++) {
        await p.evaluate((i) => window.__demo.batch([{ op: "append", itemId: "r3:msg2", text: `\n\nStep ${i}: checking \`cargo test\` output for flaky tests, **${i * 7}** so far.` }]), i);
        await p.waitForTimeout(20);
      }
      await p.waitForTimeout(300);
    };
    await stream(12);
    const followGap = await gap();
    await shot(p, n("streaming-follows"));
    await p.mouse.move(w / 2 + 100, 300);
    await p.mouse.wheel(0, -400);
    await p.waitForTimeout(300);
    const before = await log0.evaluate((el) => el.scrollTop);
    await stream(6);
    const after = await log0.evaluate((el) => el.scrollTop);
    if (followGap > 60) problems.push(`[${scheme} ${w}] not following the stream: ${followGap}px below the view`);
    if (Math.abs(after - before) > 2) problems.push(`[${scheme} ${w}] scrolled up, but the view moved ${before} → ${after}`);
    await p.getByRole("button", { name: "Jump to latest" }).waitFor();
    await shot(p, n("streaming-scrolled-up"));
    await p.getByRole("button", { name: "Jump to latest" }).click();
    // Scroll up through the timeline: following stops, "Jump to latest" appears.
    const log = p.getByRole("log", { name: "Timeline" });
    for (const frac of [0.55, 0.3, 0]) {
      await log.evaluate((el, f) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * f), frac);
      await shot(p, n(`session-scroll-${Math.round(frac * 100)}`));
    }
    // At the top: the older page is loaded in front, the view stays where it was.
    await p.waitForTimeout(400);
    await log.evaluate((el) => (el.scrollTop = 0));
    await shot(p, n("session-older-page"));
    await p.getByRole("button", { name: "Jump to latest" }).click();
    await p.getByRole("button", { name: "Diagnostics" }).click();
    await shot(p, n("diagnostics"));
    await p.getByRole("button", { name: "Diagnostics" }).click();
    await p.getByRole("button", { name: "Attach files" }).click();
    await p.getByRole("button", { name: "Remove layout-bug.png" }).waitFor();
    await p.getByRole("textbox", { name: "Message" }).fill("Here is the layout bug.\nAnd the trace.");
    await shot(p, n("composer-attachments"));
    await p.evaluate(() => window.__demo.emit("tauri://drag-enter", { paths: ["/tmp/a.png"], position: { x: 10, y: 10 } }));
    await shot(p, n("drop-overlay"));
    await p.evaluate(() => window.__demo.emit("tauri://drag-leave", {}));
    await p.getByRole("button", { name: /^Approvals/ }).click();
    await shot(p, n("approvals"));
    // Each request opens its session scrolled to the card (the question is the second entry).
    await p.getByRole("button", { name: "Open in session" }).nth(1).click();
    await p.getByRole("log", { name: "Timeline" }).waitFor();
    await shot(p, n("open-from-approvals"));
    // The engines from the registry: one row per program in Settings, an ACP profile in the editor.
    await p.getByRole("button", { name: "Settings", exact: true }).click();
    await p.getByTestId("engine-opencode").waitFor();
    await p.getByTestId("engine-opencode").scrollIntoViewIfNeeded();
    await shot(p, n("settings-engines"));
    await p.getByRole("button", { name: "Profiles for agent-desk" }).click();
    await p.getByRole("button", { name: /^opencode/ }).click();
    const acp = p.getByRole("group", { name: "ACP agent options" });
    await acp.waitFor();
    await acp.scrollIntoViewIfNeeded();
    await shot(p, n("profile-acp"));
    await p.getByLabel("Agent", { exact: true }).selectOption("");
    await shot(p, n("profile-acp-custom"));
    await context.close();
  }
}

await browser.close();
server.close();
if (problems.length) {
  console.log("\nConsole errors / CSP violations:");
  for (const x of [...new Set(problems)]) console.log("  " + x);
  process.exitCode = 1;
}
