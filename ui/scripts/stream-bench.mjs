// Streams a long answer into the built UI the way the shell does (one batch per frame of
// coalesced deltas) and reports how long the whole answer takes to show, and the renderer's
// CPU time. Uses the fake back end of screenshot.mjs.
//   npm --prefix ui run build && node ui/scripts/stream-bench.mjs [deltas] [kilobytes] [produce-ms]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, "../dist");
const DELTAS = Number(process.argv[2] ?? 20000);
const KB = Number(process.argv[3] ?? 400);
// How long the engine takes to produce it all: ~1.15 s for codex on the 20,000-delta turn;
// a paced stream of 1,000 deltas at 10 ms is `1000 40 10000`.
const PRODUCE_MS = Number(process.argv[4] ?? 1150);
const demo = await readFile(join(here, "demo-ipc.js"), "utf8");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  try {
    const body = await readFile(join(dist, path === "/" ? "index.html" : path));
    res.writeHead(200, { "content-type": TYPES[extname(path) || ".html"] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.addInitScript(demo);
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.getByRole("button", { name: /^Dark mode for the settings page/ }).click();
await page.getByText("Nothing here yet").waitFor();
// BASELINE=1: the same stream to a closed view, to see what the producer itself costs.
if (process.env.BASELINE) await page.getByRole("button", { name: /^Approvals/ }).click();
const cdp = await page.context().newCDPSession(page);
await cdp.send("Performance.enable");
const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));

const before = await metrics();
if (process.env.PROFILE) { await cdp.send("Profiler.enable"); await cdp.send("Profiler.setSamplingInterval", { interval: 200 }); await cdp.send("Profiler.start"); }
const result = await page.evaluate(
  ({ DELTAS, KB, PRODUCE_MS }) =>
    new Promise((done) => {
      const unit = [
        "## Section {n}\n\nThe store keeps **every** item; the view renders only what is visible. ",
        "Here is a list:\n\n- first point about `Store::write`\n- second point\n- third point\n\n",
        "| key | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n",
        "```rust\nfn example_{n}() -> usize {\n    (0..10).map(|x| x * 2).sum()\n}\n```\n\n",
        "A closing paragraph with a [link](https://example.com/{n}) and some more words to read. ",
        "It goes on for a while so the block is not tiny, as real answers are not.\n\n",
      ].join("");
      let text = "";
      for (let n = 0; text.length < KB * 1024; n++) text += unit.replaceAll("{n}", String(n));
      text += "THE-END-MARKER";
      const size = Math.ceil(text.length / DELTAS);
      const deltas = [];
      for (let i = 0; i < text.length; i += size) deltas.push(text.slice(i, i + size));
      const now = Date.now();
      const run = { id: "rb", sessionId: "s2", seq: 1, status: "running", prompt: "bench", profileId: null, model: null, stopReason: null, error: null, createdAt: now, startedAt: now, endedAt: null };
      const item = (status, t) => ({ id: "rb:m", sessionId: "s2", runId: "rb", seq: 1, status, body: { kind: "agent_message", text: t }, createdAt: now, updatedAt: now });
      const user = { id: "rb:user", sessionId: "s2", runId: "rb", seq: 0, status: "completed", body: { kind: "user_message", text: "bench", attachments: [] }, createdAt: now, updatedAt: now };
      const t0 = performance.now();
      window.__demo.batch([{ op: "run", run }, { op: "upsert", item: user }, { op: "upsert", item: item("running", "") }]);
      // Codex alone takes ~1.15 s for this turn; the shell sends, once per frame, what arrived
      // since the last frame (whether or not the page kept up).
      const CODEX_MS = PRODUCE_MS;
      let i = 0;
      let frames = 0;
      const tick = () => {
        if (i < deltas.length) {
          const due = Math.min(deltas.length, Math.ceil(((performance.now() - t0) / CODEX_MS) * deltas.length));
          if (due > i) {
            window.__demo.batch([{ op: "append", itemId: "rb:m", text: deltas.slice(i, due).join("") }]);
            i = due;
            frames++;
          }
          setTimeout(tick, 16);
          return;
        }
        window.__demo.batch([{ op: "upsert", item: item("completed", text) }, { op: "run", run: { ...run, status: "completed", endedAt: Date.now() } }]);
        const streamed = performance.now() - t0;
        const check = () => {
          const shown = document.querySelector("[role=log]")?.textContent ?? "";
          if (shown.includes("THE-END-MARKER") || !document.querySelector("[role=log]")) {
            requestAnimationFrame(() => done({ shownMs: performance.now() - t0, streamedMs: streamed, frames, chars: text.length, deltas: deltas.length, domChars: shown.length }));
          } else requestAnimationFrame(check);
        };
        check();
      };
      setTimeout(tick, 16);
    }),
  { DELTAS, KB, PRODUCE_MS },
);
const after = await metrics();
if (process.env.PROFILE) {
  const { profile } = await cdp.send("Profiler.stop");
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas; const counts = new Map();
  profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
  const name = (n) => `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`;
  for (const [id, t] of counts) { const k = name(byId.get(id)); self.set(k, (self.get(k) ?? 0) + t); }
  console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, t]) => `${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`).join("\n"));
  // PROFILE=total: time inside each function, callees included (each function once per stack).
  if (process.env.PROFILE === "total") {
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const total = new Map();
    for (const [id, t] of counts) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const k = name(byId.get(at));
        if (!seen.has(k)) { seen.add(k); total.set(k, (total.get(k) ?? 0) + t); }
      }
    }
    console.log("-- total");
    console.log([...total].sort((a, b) => b[1] - a[1]).slice(0, 45).map(([k, t]) => `${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`).join("\n"));
  }
}
console.log(JSON.stringify({
  ...result,
  rendererTaskSeconds: +(after.TaskDuration - before.TaskDuration).toFixed(3),
  rendererCores: +((after.TaskDuration - before.TaskDuration) / (result.shownMs / 1000)).toFixed(3),
  scriptSeconds: +(after.ScriptDuration - before.ScriptDuration).toFixed(3),
  layoutSeconds: +(after.LayoutDuration - before.LayoutDuration).toFixed(3),
  jsHeapMB: +(after.JSHeapUsedSize / 1048576).toFixed(1),
}, null, 1));
await browser.close();
server.close();
