#!/usr/bin/env bash
# Idempotent set-up of everything Agent Desk needs on Debian/Ubuntu: system packages, Node
# packages for the UI and, with --test, the test tools (tauri-driver, WebKitWebDriver, Xvfb)
# and the pinned engine binaries (codex, claude, opencode) under target/engines/
# (AGENTDESK_ENGINES_DIR overrides that folder, e.g. to share one install between checkouts).
# Safe to run again: whatever is present is skipped.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WITH_TESTS=0
[ "${1:-}" = "--test" ] && WITH_TESTS=1

# Pinned engine versions the real-engine suites are written against.
CODEX_NPM="@openai/codex@0.169.0"
CLAUDE_NPM="@anthropic-ai/claude-code-linux-x64@2.1.328"
# The ACP agent of the ACP suites (tests/tests/acp_real.rs, the conformance suite).
OPENCODE_VERSION="1.18.33"
OPENCODE_NPM="opencode-ai@$OPENCODE_VERSION"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[setup] not root and no sudo: install the packages listed in README.md by hand" >&2; exit 1
  fi
fi

APP_PKGS=(build-essential pkg-config file curl libssl-dev libwebkit2gtk-4.1-dev libgtk-3-dev
  librsvg2-dev libayatana-appindicator3-dev libxdo-dev openssh-client)
TEST_PKGS=(xvfb xauth webkit2gtk-driver dbus imagemagick xdotool xclip python3-gi gir1.2-gtk-3.0
  openssh-server strace)

missing_pkgs() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

want=("${APP_PKGS[@]}")
[ "$WITH_TESTS" = 1 ] && want+=("${TEST_PKGS[@]}")
command -v node >/dev/null 2>&1 || want+=(nodejs npm)
mapfile -t need < <(missing_pkgs "${want[@]}")
if [ "${#need[@]}" -gt 0 ]; then
  log "installing system packages: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
else
  log "system packages present"
fi

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "[setup] Rust is missing: install it with https://rustup.rs (rustup), then run this again" >&2
  exit 1
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 18 ]; then
  echo "[setup] Node.js $node_major is too old: the UI build needs Node.js 18 or newer" >&2
  exit 1
fi

# npm ci only when the lock file changed since the last install (npm writes this marker).
if [ ! -f "$ROOT/ui/node_modules/.package-lock.json" ] || [ "$ROOT/ui/package-lock.json" -nt "$ROOT/ui/node_modules/.package-lock.json" ]; then
  log "installing UI packages (npm ci)"
  (cd "$ROOT/ui" && npm ci --no-audit --no-fund)
else
  log "UI packages present"
fi

[ "$WITH_TESTS" = 1 ] || exit 0

if ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  log "installing tauri-driver"
  cargo install tauri-driver --locked
else
  log "tauri-driver present"
fi

# The lint step's unused-dependency check (tests/run-all.sh).
if ! command -v cargo-machete >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo-machete" ]; then
  log "installing cargo-machete"
  cargo install cargo-machete --locked
else
  log "cargo-machete present"
fi

ENGINES="${AGENTDESK_ENGINES_DIR:-$ROOT/target/engines}"
CODEX_BIN="$ENGINES/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
CLAUDE_BIN="$ENGINES/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if [ ! -x "$CODEX_BIN" ]; then
  log "installing $CODEX_NPM"
  npm install --no-save --no-audit --no-fund --prefix "$ENGINES/codex" "$CODEX_NPM"
else
  log "codex present: $("$CODEX_BIN" --version)"
fi
if [ ! -x "$CLAUDE_BIN" ]; then
  log "installing $CLAUDE_NPM"
  npm install --no-save --no-audit --no-fund --ignore-scripts --prefix "$ENGINES/claude" "$CLAUDE_NPM"
else
  log "claude present: $("$CLAUDE_BIN" --version)"
fi

# opencode: one self-contained binary in a per-platform package (npm may skip the wrapper's
# postinstall; the binary does not need it). Reinstalled when the version differs from the pin.
# Its --version runs with a throw-away HOME and XDG dirs: opencode writes into its config and
# data folders at start and must not touch the user's.
OPENCODE_BIN="$ENGINES/opencode/node_modules/opencode-linux-x64/bin/opencode"
opencode_version() {
  local home rc=0
  home="$(mktemp -d)"
  env HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    XDG_CACHE_HOME="$home/cache" XDG_STATE_HOME="$home/state" OPENCODE_DISABLE_AUTOUPDATE=true \
    OPENCODE_DISABLE_MODELS_FETCH=true timeout 60 "$OPENCODE_BIN" --version || rc=$?
  rm -rf "$home"
  return "$rc"
}
if [ -x "$OPENCODE_BIN" ] && [ "$(opencode_version 2>/dev/null)" = "$OPENCODE_VERSION" ]; then
  log "opencode present: $OPENCODE_VERSION"
else
  log "installing $OPENCODE_NPM"
  rm -rf "$ENGINES/opencode"
  npm install --no-save --no-audit --no-fund --prefix "$ENGINES/opencode" "$OPENCODE_NPM"
  got="$(opencode_version)" || { echo "[setup] $OPENCODE_BIN does not run" >&2; exit 1; }
  [ "$got" = "$OPENCODE_VERSION" ] || { echo "[setup] opencode reports $got, want $OPENCODE_VERSION" >&2; exit 1; }
  log "opencode installed: $got"
fi
