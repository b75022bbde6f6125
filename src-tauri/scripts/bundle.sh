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
#
# `--target <triple>` builds the CLI for that triple; `--target universal-apple-darwin`
# builds it for both Mac architectures and joins them with lipo (Tauri's build script wants
# the CLI under each architecture's triple, its bundler under `universal-apple-darwin`).
# Installers then land in target/<triple>/release/bundle/.
#
# Signing, only when the variables are set (CI maps its optional secrets to them):
#   macOS: APPLE_CERTIFICATE (base64 .p12), APPLE_CERTIFICATE_PASSWORD, APPLE_SIGNING_IDENTITY;
#          notarisation with APPLE_ID, APPLE_PASSWORD (app-specific), APPLE_TEAM_ID. Read by
#          `tauri build` itself.
#   Windows: WINDOWS_CERTIFICATE_THUMBPRINT (a code-signing certificate already in the
#          user's store; CI imports it) → bundle.windows.certificateThumbprint, SHA-256,
#          timestamped (WINDOWS_TIMESTAMP_URL, default DigiCert's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"

profile=release
target=""
prev=""
for a in "$@"; do
  [ "$a" = "--debug" ] && profile=debug
  case "$prev" in --target | -t) target="$a" ;; esac
  case "$a" in --target=*) target="${a#--target=}" ;; esac
  prev="$a"
done
cargo_flags=()
[ "$profile" = release ] && cargo_flags+=(--release)

triple="${target:-$(rustc -vV | sed -n 's/^host: //p')}"
ext=""
case "$triple" in *windows*) ext=".exe" ;; esac
mkdir -p src-tauri/binaries

# Build the CLI for one triple ("" = the host) and put it where Tauri looks for it.
cli_for() {
  local t="$1" out
  if [ -n "$t" ]; then
    cargo build -p agentdesk-cli ${cargo_flags[@]+"${cargo_flags[@]}"} --target "$t"
    out="target/$t/$profile/agentdesk-cli$ext"
  else
    cargo build -p agentdesk-cli ${cargo_flags[@]+"${cargo_flags[@]}"}
    out="target/$profile/agentdesk-cli$ext"
  fi
  cp "$out" "src-tauri/binaries/agentdesk-cli-${t:-$triple}$ext"
}

if [ "$triple" = universal-apple-darwin ]; then
  cli_for aarch64-apple-darwin
  cli_for x86_64-apple-darwin
  lipo -create -output src-tauri/binaries/agentdesk-cli-universal-apple-darwin \
    src-tauri/binaries/agentdesk-cli-aarch64-apple-darwin \
    src-tauri/binaries/agentdesk-cli-x86_64-apple-darwin
else
  cli_for "$target"
fi

extra=()
if [ -n "${WINDOWS_CERTIFICATE_THUMBPRINT:-}" ]; then
  ts="${WINDOWS_TIMESTAMP_URL:-http://timestamp.digicert.com}"
  extra+=(--config "{\"bundle\":{\"windows\":{\"certificateThumbprint\":\"$WINDOWS_CERTIFICATE_THUMBPRINT\",\"digestAlgorithm\":\"sha256\",\"timestampUrl\":\"$ts\"}}}")
fi

[ -d ui/node_modules ] || npm --prefix ui ci
npm --prefix ui run build

tauri="ui/node_modules/.bin/tauri"
[ -x "$tauri" ] || tauri="ui/node_modules/.bin/tauri.cmd"
"$tauri" build --config src-tauri/tauri.bundle.conf.json ${extra[@]+"${extra[@]}"} "$@"
