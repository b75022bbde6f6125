#!/usr/bin/env bash
# Build the installers (.deb/.AppImage on Linux, .dmg/.app on macOS, .msi/.exe on Windows)
# with the headless CLI inside: `agentdesk-cli` is built first and handed to Tauri as an
# external binary (`bundle.externalBin`, which wants the file named with the target
# triple), so an installed app has `agentdesk-cli` next to `agentdesk` (on Linux,
# /usr/bin/agentdesk-cli).
#
#   src-tauri/scripts/bundle.sh [--debug] [any `tauri build` option, e.g. --bundles deb]
#
# The externalBin entry lives in tauri.bundle.conf.json, merged only here: a plain
# `cargo build -p agentdesk` must not need the CLI binary to exist.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"

profile=release
for a in "$@"; do [ "$a" = "--debug" ] && profile=debug; done
cargo_flags=()
[ "$profile" = release ] && cargo_flags+=(--release)

triple="$(rustc -vV | sed -n 's/^host: //p')"
ext=""
case "$triple" in *windows*) ext=".exe" ;; esac

cargo build -p agentdesk-cli "${cargo_flags[@]}"
mkdir -p src-tauri/binaries
cp "target/$profile/agentdesk-cli$ext" "src-tauri/binaries/agentdesk-cli-$triple$ext"

[ -d ui/node_modules ] || npm --prefix ui ci
npm --prefix ui run build

tauri="ui/node_modules/.bin/tauri"
[ -x "$tauri" ] || tauri="ui/node_modules/.bin/tauri.cmd"
"$tauri" build --config src-tauri/tauri.bundle.conf.json "$@"
