#!/usr/bin/env bash
# Whole pipeline vs the official SDK (issue 10, BENCHMARKS.md "Whole pipeline vs the official
# SDK"). One run measures, on the same bytes:
#   1. the raw parse: serde_json::Value per line of the turn (json-parse-rate, in memory);
#   2. the official TypeScript Agent SDK: query() with partial messages, the fake as its
#      claude executable (installed from npm into target/bench-sdk, pinned);
#   3. `agentdesk-cli run --engine claude --approve deny go` (release), stdout to a file,
#      the fake as AGENTDESK_CLAUDE_BIN: adapter + reducer + recorder + SQLite + printing.
# Each of 2 and 3 runs ROUNDS times (default 3); wall, CPU (user+sys of the whole process tree,
# the fake included) and peak RSS (the largest process of the tree) come from GNU time.
# Checks that every delta reached the CLI's output and the database.
# Usage: tests/bench/pipeline.sh [ROUNDS]      (env FAKE_STREAM_DELTAS, default 200000)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
ROUNDS=${1:-3}
DELTAS=${FAKE_STREAM_DELTAS:-200000}
SDK_VERSION=0.3.332
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$TARGET/bench-pipeline
mkdir -p "$OUT/ws"

if [[ -z "${SKIP_BUILD:-}" ]]; then
  cargo build --release -q -p agentdesk-cli
  cargo build --release -q -p agentdesk-tests --bin fake-claude-stream --bin json-parse-rate
fi
CLI=${AGENTDESK_CLI:-$TARGET/release/agentdesk-cli}
FAKE=${FAKE_CLAUDE_STREAM:-$TARGET/release/fake-claude-stream}
PARSE=${JSON_PARSE_RATE:-$TARGET/release/json-parse-rate}
SDK_DIR=$TARGET/bench-sdk
if [[ ! -f $SDK_DIR/node_modules/@anthropic-ai/claude-agent-sdk/package.json ]] \
  || ! grep -q "\"version\": \"$SDK_VERSION\"" "$SDK_DIR/node_modules/@anthropic-ai/claude-agent-sdk/package.json"; then
  mkdir -p "$SDK_DIR"
  [[ -f $SDK_DIR/package.json ]] || (cd "$SDK_DIR" && npm init -y >/dev/null)
  (cd "$SDK_DIR" && npm install --no-audit --no-fund "@anthropic-ai/claude-agent-sdk@$SDK_VERSION" >/dev/null)
fi
export FAKE_STREAM_DELTAS=$DELTAS

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$FAKE" --emit > "$OUT/turn.jsonl"
echo "turn: $(wc -l < "$OUT/turn.jsonl") lines, $(wc -c < "$OUT/turn.jsonl") bytes, $DELTAS text deltas"
raw=$("$PARSE" "$OUT/turn.jsonl" 3)
echo "raw parse (serde_json::Value, best of 3): $raw"
raw_rate=$(sed 's/.*"lines_per_s":\([0-9]*\).*/\1/' <<<"$raw")

# One measured command: prints "wall user sys maxrss_kb".
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/time.txt" "$@"
  cat "$OUT/time.txt"
}

report() { # name wall user sys rss
  awk -v n="$1" -v w="$2" -v u="$3" -v s="$4" -v m="$5" -v d="$DELTAS" -v raw="$raw_rate" \
    'BEGIN { r = d / w; printf "%-14s wall %.2f s  cpu %.2f s (user %.2f sys %.2f)  peak RSS %.0f MB  %.0fk deltas/s  (%.2f of raw parse)\n", n, w, u + s, u, s, m / 1024, r / 1000, r / raw }'
}

lost=0
for i in $(seq 1 "$ROUNDS"); do
  read -r w u s m < <(measure node "$ROOT/tests/bench/sdk-consume.mjs" \
    "$SDK_DIR/node_modules/@anthropic-ai/claude-agent-sdk" "$FAKE" "$OUT/ws" > "$OUT/sdk.json"; tail -1 "$OUT/time.txt")
  grep -q "\"deltas\":$DELTAS," "$OUT/sdk.json" || { echo "SDK missed deltas: $(cat "$OUT/sdk.json")"; exit 1; }
  report "sdk #$i" "$w" "$u" "$s" "$m"

  rm -rf "$OUT/data" && mkdir -p "$OUT/data"
  read -r w u s m < <(cd "$OUT/ws" && AGENTDESK_DATA_DIR="$OUT/data" AGENTDESK_CLAUDE_BIN="$FAKE" \
    measure "$CLI" run --engine claude --approve deny go > "$OUT/cli.txt" 2> "$OUT/cli.err"; tail -1 "$OUT/time.txt")
  printed=$(grep -o 'lorem ip' "$OUT/cli.txt" | wc -l)
  report "agentdesk #$i" "$w" "$u" "$s" "$m"
  if [[ $printed -ne $DELTAS ]] || grep -q skipped "$OUT/cli.err"; then
    echo "  LOST: agentdesk-cli printed $printed of $DELTAS deltas ($(grep -c skipped "$OUT/cli.err") 'skipped' notes)"
    lost=1
  fi
done
session=$(AGENTDESK_DATA_DIR="$OUT/data" "$CLI" sessions | awk 'NR==1{print $1}')
stored=$(AGENTDESK_DATA_DIR="$OUT/data" "$CLI" export --format md "$session" | grep -o 'lorem ip' | wc -l)
echo "stored deltas' text in the database (last run): $stored of $DELTAS"
[[ $stored -eq $DELTAS && $lost -eq 0 ]]
