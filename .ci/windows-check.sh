#!/usr/bin/env bash
# Type-check the Rust crates for Windows from Linux (`cargo check`, no linking, nothing runs).
# CI runs it (.ci/run: `--install --clippy`, i.e. clippy -D warnings of the crates, the CLI and
# the tests crate) so that a Linux-only change (a Unix-only import, a helper only Unix tests
# use) cannot turn the Windows leg of .github/workflows/ci.yml red. Run it by hand after
# touching cfg(windows) code, e.g. the Job Object in agentdesk-engine/src/process_os.rs.
# It only type-checks: tests that would fail at run time on Windows are not found here.
#
# Why not `rustup target add x86_64-pc-windows-gnu`: rustup's dist server may be unreachable
# (it is on the development machine). Debian bookworm-security ships a newer compiler with its
# matching std sources as ordinary packages, so std is built for Windows with -Zbuild-std
# (RUSTC_BOOTSTRAP=1 unlocks the nightly flag on that stable compiler). MinGW supplies dlltool
# (std's raw-dylib imports) and the C compiler the bundled SQLite needs.
#
#   .ci/windows-check.sh [--install] [--clippy] [cargo args...]
#     --install  apt-get install the toolchain first (root or sudo, Debian bookworm); skipped
#                when it is present and consistent
#     --clippy   `cargo clippy ... -- -D warnings` instead of `cargo check` (Debian's clippy 1.96,
#                newer than the project's: it may know lints the Linux CI does not run yet)
#     default crates: the app's libraries, the CLI and the tests crate, all targets (the Tauri shell is not
#     checked: webkit2gtk and friends are Linux-only and its Windows deps are many)
#   WINDOWS_CHECK_TARGET=x86_64-pc-windows-msvc also works for crates without C code
#   (agentdesk-engine); the store's bundled SQLite needs the MinGW compiler of the gnu target.
#   WINDOWS_CHECK_TARGET_DIR: where std and the deps are built (default target/windows-check,
#   about 1 GB; a directory of its own so the normal builds' caches and locks are not touched).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The toolchain is present and consistent: compiler, std sources of the same version, clippy,
# MinGW's dlltool.
toolchain_ready() {
  local f
  for f in /usr/bin/rustc /usr/bin/cargo /usr/lib/rustlib/src/rust/library/std /usr/bin/cargo-clippy \
    /usr/bin/clippy-driver /usr/bin/x86_64-w64-mingw32-dlltool; do
    [ -e "$f" ] || return 1
  done
  local v; v=$(/usr/bin/rustc --version | awk '{print $2}')
  case "$(dpkg-query -W -f '${Version}' rust-web-src 2>/dev/null || true)" in
    "$v"+*) return 0 ;;
    *) return 1 ;;
  esac
}

if [ "${1:-}" = "--install" ]; then
  shift
  if toolchain_ready; then
    echo "windows-check: toolchain present ($(/usr/bin/rustc --version))" >&2
  else
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "windows-check: installing the toolchain (Debian bookworm-security rust-web, MinGW)" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-security \
      rustc-web cargo-web rust-web-src rust-web-clippy
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      gcc-mingw-w64-x86-64-win32
  fi
fi
MODE=check
if [ "${1:-}" = "--clippy" ]; then
  MODE=clippy
  shift
fi

# The Debian toolchain, never rustup's proxies (which come first on PATH).
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
STD_SRC=/usr/lib/rustlib/src/rust/library
needs=("$RUSTC" "$CARGO" "$STD_SRC/std" /usr/bin/x86_64-w64-mingw32-dlltool)
[ "$MODE" = clippy ] && needs+=(/usr/bin/cargo-clippy /usr/bin/clippy-driver)
for need in "${needs[@]}"; do
  if [ ! -e "$need" ]; then
    echo "missing $need; run: $0 --install" >&2
    exit 2
  fi
done
# -Zbuild-std builds the std sources of the compiler's own sysroot: both come from the same
# Debian source package, so a version mismatch means a partial upgrade.
rustc_version=$("$RUSTC" --version | awk '{print $2}')
src_version=$(dpkg-query -W -f '${Version}' rust-web-src 2>/dev/null || true)
case "$src_version" in
  "$rustc_version"+*) ;;
  *) echo "rustc $rustc_version but rust-web-src ${src_version:-absent}; run: $0 --install" >&2; exit 2 ;;
esac

TARGET="${WINDOWS_CHECK_TARGET:-x86_64-pc-windows-gnu}"
export CARGO_TARGET_DIR="${WINDOWS_CHECK_TARGET_DIR:-$ROOT/target/windows-check}"
export RUSTC RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
unset RUSTC_WRAPPER

if [ "$#" -eq 0 ]; then
  set -- -p agentdesk-protocol -p agentdesk-engine -p agentdesk-core -p agentdesk-store \
    -p agentdesk-cli -p agentdesk-tests --all-targets
  [ "$MODE" = clippy ] && set -- "$@" -- -D warnings
fi
echo "windows-check: $MODE with $("$RUSTC" --version), target $TARGET, $*" >&2
# --locked: this compiler must not rewrite the workspace's Cargo.lock.
if [ "$MODE" = clippy ]; then
  # Run Debian's cargo-clippy directly: `cargo clippy` would pick rustup's proxy from
  # ~/.cargo/bin (cargo looks there before PATH), which has no Windows std. PATH without
  # ~/.cargo/bin so that it finds Debian's cargo and clippy-driver too.
  exec env PATH=/usr/bin:/bin CARGO="$CARGO" /usr/bin/cargo-clippy clippy --locked \
    -Zbuild-std=std,panic_abort --target "$TARGET" "$@"
fi
exec "$CARGO" check --locked -Zbuild-std=std,panic_abort --target "$TARGET" "$@"
