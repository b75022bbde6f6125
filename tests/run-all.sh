#!/usr/bin/env bash
# Run every test: lint, UI typecheck + unit tests, Rust unit/integration suites (with the real
# codex, claude and opencode binaries against fake model servers), and the app E2E tests (the real app
# under Xvfb through tauri-driver + WebKitWebDriver). Installs what is missing first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash src-tauri/scripts/setup-linux.sh --test
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"

# Where setup-linux.sh put the pinned engines (AGENTDESK_ENGINES_DIR overrides it there too).
ENGINES="${AGENTDESK_ENGINES_DIR:-$ROOT/target/engines}"
export CODEX_BIN="${CODEX_BIN:-$ENGINES/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex}"
export CLAUDE_BIN="${CLAUDE_BIN:-$ENGINES/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude}"
# The ACP agent (opencode) of tests/tests/acp_real.rs and the conformance suite.
export OPENCODE_BIN="${OPENCODE_BIN:-$ENGINES/opencode/node_modules/opencode-linux-x64/bin/opencode}"
# Test output (screenshots, logs) lands here.
export AGENTDESK_TEST_ARTIFACTS="${AGENTDESK_TEST_ARTIFACTS:-$ROOT/target/test-artifacts}"

# Each step prints how long the previous one took, so CI logs show where the time goes.
STEP_START=$(date +%s)
STEP_NAME=""
# Free disk under target/, in MB (a full clean build needs about 5 GB).
free_mb() { df -Pm "$ROOT" | awk 'NR==2 {print $4}'; }
step() {
  local now; now=$(date +%s)
  [ -n "$STEP_NAME" ] && printf '\033[2m-- %s: %ss (%s MB free)\033[0m\n' "$STEP_NAME" "$((now - STEP_START))" "$(free_mb)"
  STEP_START=$now
  STEP_NAME="$*"
  [ -n "$*" ] && printf '\n\033[1m== %s\033[0m\n' "$*"
  return 0
}

if [ "$(free_mb)" -lt 6000 ]; then
  printf '\033[1;33mwarning:\033[0m only %s MB free on %s; a full build and test run writes about 5 GB (target/).\n' "$(free_mb)" "$ROOT" >&2
fi

step "UI: typecheck and unit tests"
npm --prefix ui run typecheck
npm --prefix ui test

step "UI: production build (embedded by the app binary)"
npm --prefix ui run build

step "Rust: formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# Dependencies a crate declares but never uses (issue 8): each one is build time for nothing.
cargo machete

step "Rust: build the app for the E2E tests"
cargo build -p agentdesk
export AGENTDESK_APP_BIN="$ROOT/target/debug/agentdesk"
# The CLI suite (tests/tests/cli.rs) runs the built binary; a bin of another crate is not
# built by `cargo test` of the tests crate.
cargo build -p agentdesk-cli

step "Rust: the Tauri shell's unit tests"
# Not a default member (it builds webkit), so `cargo test` at the root skips it: its tests
# (the notification listener against a real dbus-daemon, the navigation guard, ...) run here.
cargo test -p agentdesk --lib

step "Rust: all suites"
cargo test --no-fail-fast
step ""
