// The official TypeScript Agent SDK consuming the fake `claude` of the pipeline benchmark
// (tests/bench/pipeline.sh): `query()` with partial messages on, the fake as
// `pathToClaudeCodeExecutable`. Prints one JSON line: messages, text deltas, the length of the
// concatenated delta text, and the wall time inside node (the script's own start-up excluded).
// Usage: node sdk-consume.mjs <sdk package dir> <fake claude> <workspace>
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [sdkDir, fake, cwd] = process.argv.slice(2);
const { query } = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);

const t0 = performance.now();
let messages = 0;
let deltas = 0;
let chars = 0;
let result = null;
for await (const m of query({
  prompt: "go",
  options: { pathToClaudeCodeExecutable: fake, includePartialMessages: true, cwd },
})) {
  messages += 1;
  if (m.type === "stream_event" && m.event?.delta?.type === "text_delta") {
    deltas += 1;
    chars += m.event.delta.text.length;
  } else if (m.type === "result") {
    result = m.subtype;
  }
}
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ messages, deltas, chars, result, seconds }));
