//! The one way this codebase canonicalises a path: [`canonicalize`].
//!
//! `std::fs::canonicalize` on Windows answers in the verbatim form (`\\?\C:\work`,
//! `\\?\UNC\server\share\work`). Stored as a workspace and used as an engine's cwd, that
//! breaks things: `cmd.exe` (every npm `.cmd` shim) refuses such a cwd and falls back to
//! `C:\Windows`, and codex keys its "trusted project" setting on the plain spelling. So the
//! prefix is dropped whenever the plain form names the same file.
//!
//! It lives in the store because the stored form of a path is the store's business: migration
//! `0005_plain_workspace_paths.sql` rewrites rows written by older builds with the same rule
//! as [`plain_form`], and a test runs both over one corpus. Hand-written rather than the
//! `dunce` crate: dunce's rule only compiles on Windows (on Linux its `simplified` is a no-op,
//! so it could not be tested here) and it leaves `\\?\UNC\…` alone.

use std::io;
use std::path::{Path, PathBuf};

/// `std::fs::canonicalize`, answering on Windows in the plain form (`C:\work`,
/// `\\server\share\work`) when that names the same file; elsewhere exactly the same.
pub fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let real = std::fs::canonicalize(path)?;
    if cfg!(windows) {
        if let Some(plain) = real.to_str().and_then(plain_form) {
            return Ok(PathBuf::from(plain));
        }
    }
    Ok(real)
}

/// The verbatim prefix of a local drive path.
const VERBATIM: &str = r"\\?\";
/// The verbatim prefix of a network share path.
const VERBATIM_UNC: &str = r"\\?\UNC\";
/// Windows' `MAX_PATH` (with the terminating NUL): a longer plain path is not read by the
/// programs the verbatim form is avoided for.
const MAX_PATH: usize = 260;

/// The plain form of a verbatim Windows path when it names the same file:
/// `\\?\C:\work` → `C:\work`, `\\?\UNC\server\share\work` → `\\server\share\work`.
///
/// `None` for anything else and whenever dropping the prefix would change the meaning or
/// make the path unusable: other verbatim forms (`\\?\Volume{…}`, `\\?\GLOBALROOT\…`), a
/// component Win32 would rewrite or refuse (empty, `.`/`..`, a trailing dot or space, `<>:"/|?*`
/// or a control character) or read as a device (`CON`, `nul.txt`, `COM1`…), or a result of
/// `MAX_PATH` UTF-16 units or more. Pure text: it runs (and is tested) on every platform.
pub fn plain_form(path: &str) -> Option<String> {
    let (plain, components) = if let Some(rest) = path.strip_prefix(VERBATIM_UNC) {
        let mut parts = rest.split('\\');
        // A share path needs both its server and its share.
        let (server, share) = (parts.next()?, parts.next()?);
        if server.is_empty() || share.is_empty() {
            return None;
        }
        (format!(r"\\{rest}"), rest)
    } else {
        let rest = path.strip_prefix(VERBATIM)?;
        let bytes = rest.as_bytes();
        let is_drive = bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'\\';
        if !is_drive {
            return None;
        }
        (rest.to_string(), &rest[3..])
    };
    // The drive's root (`C:\`) has no components; anything else is checked one by one.
    if !components.is_empty() && !components.split('\\').all(plain_component) {
        return None;
    }
    (plain.encode_utf16().count() < MAX_PATH).then_some(plain)
}

/// Device names Win32 finds in any folder, whatever the extension (`con.txt` is the console).
const RESERVED: [&str; 30] = [
    "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "COM1", "COM2", "COM3", "COM4", "COM5",
    "COM6", "COM7", "COM8", "COM9", "COM¹", "COM²", "COM³", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5",
    "LPT6", "LPT7", "LPT8", "LPT9", "LPT¹", "LPT²", "LPT³",
];

/// Whether a component means the same with and without the verbatim prefix.
fn plain_component(name: &str) -> bool {
    let forbidden = |c: char| c < ' ' || matches!(c, '<' | '>' | ':' | '"' | '/' | '|' | '?' | '*');
    if name.is_empty() || name.ends_with(['.', ' ']) || name.contains(forbidden) {
        return false;
    }
    // Win32 reads `con .txt` and `con.tar.gz` as the device too: the part before the first
    // dot, trailing spaces dropped (this also covers `.` and `..`, refused above).
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    !RESERVED.iter().any(|r| stem.eq_ignore_ascii_case(r))
}

/// (verbatim, plain form or `None`): the rule's cases, also run through migration 0005 by
/// its test (open_tests.rs), so the two cannot drift apart.
#[cfg(test)]
pub(crate) const CORPUS: &[(&str, Option<&str>)] = &[
    (r"\\?\C:\Users\ana\work", Some(r"C:\Users\ana\work")),
    (r"\\?\c:\x", Some(r"c:\x")),
    (r"\\?\D:\", Some(r"D:\")),
    (
        r"\\?\C:\Users\ana\проекты\日本",
        Some(r"C:\Users\ana\проекты\日本"),
    ),
    (r"\\?\C:\a b\c.d\e", Some(r"C:\a b\c.d\e")),
    (r"\\?\C:\work\.config", Some(r"C:\work\.config")),
    (r"\\?\C:\work\conf", Some(r"C:\work\conf")),
    (r"\\?\C:\work\COM0", Some(r"C:\work\COM0")),
    (r"\\?\C:\work\not.con", Some(r"C:\work\not.con")),
    (r"\\?\UNC\server\share", Some(r"\\server\share")),
    (
        r"\\?\UNC\server\share\work\x",
        Some(r"\\server\share\work\x"),
    ),
    // Not a verbatim drive or share path: left alone.
    (r"C:\already\plain", None),
    (r"\\server\share\x", None),
    ("/home/ana/work", None),
    (
        r"\\?\Volume{1b3b1146-4076-11e1-84aa-806e6f6e6963}\work",
        None,
    ),
    (r"\\?\GLOBALROOT\Device\HarddiskVolume1\x", None),
    (r"\\.\C:\x", None),
    (r"\\?\C:", None),
    (r"\\?\C:x", None),
    (r"\\?\CC:\x", None),
    (r"\\?\UNC\server", None),
    (r"\\?\UNC\\share\x", None),
    (r"\\?\UNC\server\\x", None),
    // The plain form would mean something else.
    (r"\\?\C:\work\CON", None),
    (r"\\?\C:\work\con.txt", None),
    (r"\\?\C:\work\Con .txt", None),
    (r"\\?\C:\work\nul.tar.gz", None),
    (r"\\?\C:\work\lpt9", None),
    (r"\\?\C:\work\COM¹", None),
    (r"\\?\C:\work\conout$", None),
    (r"\\?\UNC\server\share\aux", None),
    (r"\\?\C:\work\dots.", None),
    (r"\\?\C:\work\space \x", None),
    (r"\\?\C:\work\.", None),
    (r"\\?\C:\work\..\x", None),
    (r"\\?\C:\work\\x", None),
    (r"\\?\C:\work\", None),
    (r"\\?\C:\work\a:b", None),
    (r"\\?\C:\work\a*b", None),
    (r"\\?\C:\work\a?b", None),
    (r"\\?\C:\work\a|b", None),
    (r"\\?\C:\work\a<b>", None),
    ("\\\\?\\C:\\work\\a\"b", None),
    ("\\\\?\\C:\\work\\a/b", None),
    ("\\\\?\\C:\\work\\tab\there", None),
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn verbatim_paths_lose_their_prefix_only_where_that_means_the_same() {
        for (verbatim, plain) in CORPUS {
            assert_eq!(plain_form(verbatim).as_deref(), *plain, "{verbatim}");
        }
    }

    #[test]
    fn a_plain_form_of_max_path_or_more_stays_verbatim() {
        // 3 + 256 = 259 UTF-16 units: fits; one more does not.
        let fits = format!(r"\\?\C:\{}", "a".repeat(256));
        assert_eq!(plain_form(&fits).map(|p| p.len()), Some(259));
        let long = format!(r"\\?\C:\{}", "a".repeat(257));
        assert_eq!(plain_form(&long), None);
        // Counted in UTF-16 units, as Windows counts: 😀 is two (259 characters, 260 units).
        let emoji = format!(r"\\?\C:\{}{}", "a".repeat(255), "😀");
        assert_eq!(plain_form(&emoji), None);
        let split = format!(r"\\?\C:\{}\{}", "a".repeat(200), "b".repeat(55));
        assert!(plain_form(&split).is_some());
    }

    /// Off Windows the answer is `std::fs::canonicalize`'s, unchanged.
    #[cfg(unix)]
    #[test]
    fn elsewhere_it_is_std_canonicalize() {
        let dir = tempfile::tempdir().unwrap();
        let spelled = dir.path().join(".").join("x").join("..");
        std::fs::create_dir(dir.path().join("x")).unwrap();
        assert_eq!(
            canonicalize(&spelled).unwrap(),
            std::fs::canonicalize(&spelled).unwrap()
        );
        assert_eq!(
            canonicalize(dir.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    /// On Windows a real folder comes back plain, and names the same folder.
    #[cfg(windows)]
    #[test]
    fn a_real_folder_comes_back_plain() {
        let dir = tempfile::tempdir().unwrap();
        let got = canonicalize(dir.path()).unwrap();
        assert!(!got.to_string_lossy().starts_with(VERBATIM), "{got:?}");
        assert_eq!(
            std::fs::canonicalize(&got).unwrap(),
            std::fs::canonicalize(dir.path()).unwrap()
        );
    }
}
