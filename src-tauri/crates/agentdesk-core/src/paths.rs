//! Where Agent Desk keeps its data, shared by the app and the CLI so both open the same file.
//!
//! `AGENTDESK_DATA_DIR` wins. Otherwise the platform's per-user data directory joined with the
//! app identifier, resolved by the `dirs` crate (what Tauri's path resolver calls), so the app
//! and the CLI cannot disagree: Linux `$XDG_DATA_HOME` (or `~/.local/share`), macOS
//! `~/Library/Application Support`, Windows the Local known folder (`%LOCALAPPDATA%`, Tauri's
//! `app_local_data_dir()`). Not Roaming (`%APPDATA%`): that one may be redirected to a network
//! share, where SQLite's WAL (shared memory) does not work, and it is copied around at every
//! sign-in. Logs go to `<data dir>/logs`.

use std::path::{Path, PathBuf};

use crate::{CoreError, Result};

/// Must equal `identifier` in `src-tauri/tauri.conf.json` (a test checks it).
pub const APP_IDENTIFIER: &str = "dev.agentdesk.desktop";

pub const DATA_DIR_ENV: &str = "AGENTDESK_DATA_DIR";

pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = non_empty_env(DATA_DIR_ENV) {
        return Ok(PathBuf::from(dir));
    }
    let dir = platform_data_root()?.join(APP_IDENTIFIER);
    // Builds before issue 20 kept their data in Roaming AppData: moved over once.
    #[cfg(windows)]
    if let Some(roaming) = dirs::data_dir() {
        return Ok(adopt_older_folder(&roaming.join(APP_IDENTIFIER), &dir));
    }
    Ok(dir)
}

pub fn log_dir(data_dir: &std::path::Path) -> PathBuf {
    data_dir.join("logs")
}

/// Create a folder only its owner may enter (0700), or tighten an existing one: the data
/// folder, `logs/` and `attachments/` hold conversations, logs and files nobody else should
/// read.
pub fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    agentdesk_store::private::create_dir(dir)
}

/// Tighten what an older build (or a permissive umask) left readable by others in the data
/// folder: `logs/`, `attachments/` and its blobs. Best effort: a read-only data folder
/// cannot change, and is still usable for reading.
pub(crate) async fn secure_data_dir(data_dir: &std::path::Path) {
    let data_dir = data_dir.to_path_buf();
    let done = tokio::task::spawn_blocking(move || {
        let logs = log_dir(&data_dir);
        if logs.exists() {
            create_private_dir(&logs)?;
        }
        crate::attachments::tighten_dir(&data_dir.join(crate::attachments::DIR_NAME))
    })
    .await;
    match done {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot make the data folder private"),
        Err(e) => tracing::warn!(error = %e, "the data folder check stopped"),
    }
}

fn non_empty_env(key: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(key).filter(|v| !v.is_empty())
}

fn platform_data_root() -> Result<PathBuf> {
    // `dirs` falls back to the password database when HOME is unset, as Tauri does.
    #[cfg(windows)]
    let root = dirs::data_local_dir();
    #[cfg(not(windows))]
    let root = dirs::data_dir();
    root.ok_or_else(|| {
        CoreError::DataDir(
            "the per-user data folder cannot be found (no home folder); set AGENTDESK_DATA_DIR"
                .into(),
        )
    })
}

/// The data folder to use when an older build may have left its data in `old`: `new`, after
/// moving the old folder's contents there, unless `new` already holds a database (then `old`
/// is left as it is) or `old` holds none.
///
/// Each entry is renamed (same volume: instant, nothing doubled); across volumes (a redirected
/// Roaming folder) it is copied under a temporary name and renamed into place, and the old one
/// is left behind. The database goes last, so `new` holds one only once everything else is
/// there: an interrupted move is finished at the next start. When the move fails (an older
/// build still running holds the file), the old folder stays in use — nothing is lost or
/// split in two — and the move is tried again at the next start.
#[cfg_attr(not(windows), allow(dead_code))]
fn adopt_older_folder(old: &Path, new: &Path) -> PathBuf {
    let db = agentdesk_store::DATABASE_FILE_NAME;
    if new.join(db).exists() || !old.join(db).is_file() {
        return new.to_path_buf();
    }
    match move_contents(old, new) {
        Ok(()) => new.to_path_buf(),
        // Another process (the CLI next to the app) may have just finished the same move.
        Err(_) if new.join(db).exists() => new.to_path_buf(),
        Err(e) => {
            tracing::warn!(from = %old.display(), to = %new.display(), error = %e, "cannot move the data folder; using the old one");
            old.to_path_buf()
        }
    }
}

fn move_contents(old: &Path, new: &Path) -> std::io::Result<()> {
    create_private_dir(new)?;
    let db = agentdesk_store::DATABASE_FILE_NAME;
    let mut entries = std::fs::read_dir(old)?.collect::<std::io::Result<Vec<_>>>()?;
    entries.sort_by_key(|e| e.file_name() == db);
    for entry in entries {
        let to = new.join(entry.file_name());
        // Something of the new build's own (a log folder, WebView2's `EBWebView`) stays.
        if to.exists() {
            continue;
        }
        match std::fs::rename(entry.path(), &to) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
                copy_into_place(&entry.path(), &to)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Copy a file or folder to `to` under a temporary name first, so a half-done copy is never
/// taken for the real thing.
fn copy_into_place(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut partial = to.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    if partial.is_dir() {
        std::fs::remove_dir_all(&partial)?;
    }
    copy_tree(from, &partial)?;
    std::fs::rename(&partial, to)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(from)?.is_dir() {
        create_private_dir(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn identifier_matches_tauri_config() {
        let conf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tauri.conf.json");
        let conf: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(conf).unwrap()).unwrap();
        assert_eq!(conf["identifier"], APP_IDENTIFIER);
    }

    const CHILD: &str = "AGENTDESK_PATHS_TEST_CHILD";

    /// Run in a child process (below) with a chosen environment; prints what it resolved.
    #[test]
    fn resolve_in_child() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        println!("DATA_DIR={}", data_dir().unwrap().display());
    }

    #[cfg(target_os = "linux")]
    fn resolve_with(env: &[(&str, &str)], unset: &[&str]) -> String {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "paths::tests::resolve_in_child", "--nocapture"])
            .env(CHILD, "1")
            .env_remove(DATA_DIR_ENV);
        for k in unset {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.lines()
            .find_map(|l| l.strip_prefix("DATA_DIR="))
            .unwrap()
            .to_owned()
    }

    /// The folder is Tauri's (`dirs::data_dir()` + identifier) whatever the environment:
    /// with HOME unset the app still finds it (from the password database), so the CLI must
    /// too, instead of failing where the app succeeds.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_app_and_the_cli_resolve_the_same_folder() {
        // With XDG_DATA_HOME unset, what dirs (and so Tauri) derives from the home folder.
        let tauri_like = dirs::home_dir()
            .unwrap()
            .join(".local/share")
            .join(APP_IDENTIFIER);
        assert_eq!(
            resolve_with(&[], &["XDG_DATA_HOME"]),
            tauri_like.display().to_string()
        );
        assert_eq!(
            resolve_with(&[("XDG_DATA_HOME", "/srv/xdg")], &[]),
            format!("/srv/xdg/{APP_IDENTIFIER}")
        );
        // A relative XDG_DATA_HOME is ignored (XDG spec), as Tauri ignores it.
        assert_eq!(
            resolve_with(&[("XDG_DATA_HOME", "rel/xdg")], &[]),
            tauri_like.display().to_string()
        );
        let no_home = resolve_with(&[], &["HOME", "XDG_DATA_HOME"]);
        assert!(
            no_home.ends_with(&format!(".local/share/{APP_IDENTIFIER}")),
            "{no_home}"
        );
    }

    /// An older build's folder (database, WAL, attachments, logs) moves into a new folder that
    /// already holds something of the new build's (WebView2 data), the database last.
    #[test]
    fn an_older_builds_data_folder_is_moved_over_once() {
        let root = tempfile::tempdir().unwrap();
        let (old, new) = (root.path().join("Roaming/id"), root.path().join("Local/id"));
        std::fs::create_dir_all(old.join("attachments/ab")).unwrap();
        std::fs::create_dir_all(old.join("logs")).unwrap();
        std::fs::create_dir_all(new.join("EBWebView")).unwrap();
        std::fs::write(old.join("agentdesk.db"), "db").unwrap();
        std::fs::write(old.join("agentdesk.db-wal"), "wal").unwrap();
        std::fs::write(old.join("attachments/ab/blob"), "blob").unwrap();
        std::fs::write(old.join("logs/agentdesk.log"), "log").unwrap();

        assert_eq!(adopt_older_folder(&old, &new), new);
        for (file, text) in [
            ("agentdesk.db", "db"),
            ("agentdesk.db-wal", "wal"),
            ("attachments/ab/blob", "blob"),
            ("logs/agentdesk.log", "log"),
        ] {
            assert_eq!(std::fs::read_to_string(new.join(file)).unwrap(), text);
            assert!(!old.join(file).exists(), "{file} still in the old folder");
        }
        assert!(new.join("EBWebView").is_dir());

        // Once moved, a new database of the old folder's is not taken over again.
        std::fs::write(old.join("agentdesk.db"), "older").unwrap();
        assert_eq!(adopt_older_folder(&old, &new), new);
        assert_eq!(
            std::fs::read_to_string(new.join("agentdesk.db")).unwrap(),
            "db"
        );
        assert_eq!(
            std::fs::read_to_string(old.join("agentdesk.db")).unwrap(),
            "older"
        );
    }

    #[test]
    fn without_an_older_database_nothing_moves() {
        let root = tempfile::tempdir().unwrap();
        let (old, new) = (root.path().join("Roaming/id"), root.path().join("Local/id"));
        assert_eq!(adopt_older_folder(&old, &new), new);
        assert!(!new.exists());
        std::fs::create_dir_all(old.join("logs")).unwrap();
        assert_eq!(adopt_older_folder(&old, &new), new);
        assert!(old.join("logs").is_dir() && !new.exists());
    }

    /// Across volumes (a redirected Roaming folder) entries are copied into place: the copy is
    /// whole, a leftover partial copy of an interrupted run is replaced, the source stays.
    #[test]
    fn a_copy_into_place_is_whole_and_replaces_a_partial_one() {
        let root = tempfile::tempdir().unwrap();
        let from = root.path().join("attachments");
        std::fs::create_dir_all(from.join("ab/cd")).unwrap();
        std::fs::write(from.join("ab/cd/blob"), "blob").unwrap();
        std::fs::write(from.join("top"), "top").unwrap();
        let to = root.path().join("new/attachments");
        std::fs::create_dir_all(root.path().join("new/attachments.partial/stale")).unwrap();
        copy_into_place(&from, &to).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("ab/cd/blob")).unwrap(),
            "blob"
        );
        assert_eq!(std::fs::read_to_string(to.join("top")).unwrap(), "top");
        assert!(!to.join("stale").exists());
        assert!(!root.path().join("new/attachments.partial").exists());
        assert!(from.join("ab/cd/blob").exists());
        let file = root.path().join("new/agentdesk.db");
        copy_into_place(&from.join("top"), &file).unwrap();
        assert_eq!(std::fs::read_to_string(file).unwrap(), "top");
    }
}
