//! What the real-engine suites share: finding the pinned engine binaries (or saying loudly
//! that a suite did not run), and a test image.

use std::path::PathBuf;

/// A 2×2 red PNG (the one from the engines' research transcripts).
pub const RED_PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0,
    0, 0, 253, 212, 154, 115, 0, 0, 0, 15, 73, 68, 65, 84, 120, 156, 99, 96, 96, 248, 15, 70, 96,
    10, 0, 23, 246, 3, 253, 126, 235, 55, 243, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// [`RED_PNG`] in base64, as the Claude CLI forwards it to the model.
pub const RED_PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAD0lEQVR4nGNgYPgPRmAKABf2A/1+6zfzAAAAAElFTkSuQmCC";

/// Say loudly that `suite` did not run because of `why` — and fail under `CI=true`, where a
/// skipped suite is a defect, not a pass.
pub fn skip_or_fail(suite: &str, why: &str) {
    eprintln!("\n!!!!!!!! SKIP ({why}): {suite} NOT run !!!!!!!!\n");
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{suite}: {why} — required in CI"
    );
}

/// The pinned engine binary named by the env var `var` (`CODEX_BIN`, `CLAUDE_BIN`; the test
/// command sets both). `None` after [`skip_or_fail`] when unset.
pub fn engine_bin(var: &str, suite: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    if found.is_none() {
        skip_or_fail(suite, &format!("{var} not set"));
    }
    found
}
