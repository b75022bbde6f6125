#!/usr/bin/env bash
# Run Agent Desk from source: installs what is missing, builds the UI, starts the app.
# Extra arguments go to the app. The data directory follows AGENTDESK_DATA_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bash "$ROOT/src-tauri/scripts/setup-linux.sh"
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
cd "$ROOT"
npm --prefix ui run build
# The default `custom-protocol` feature embeds ui/dist into the binary.
exec cargo run -p agentdesk -- "$@"
