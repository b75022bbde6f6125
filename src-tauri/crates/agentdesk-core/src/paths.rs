//! Where Agent Desk keeps its data, shared by the app and the CLI so both open the same file.
//!
//! `AGENTDESK_DATA_DIR` wins. Otherwise the platform's per-user data directory joined with the
//! app identifier — the same folder Tauri's `app_data_dir()` resolves to:
//! Linux `$XDG_DATA_HOME` (or `~/.local/share`), macOS `~/Library/Application Support`,
//! Windows `%APPDATA%`. Logs go to `<data dir>/logs`.

use std::path::PathBuf;

use crate::{CoreError, Result};

/// Must equal `identifier` in `src-tauri/tauri.conf.json` (a test checks it).
pub const APP_IDENTIFIER: &str = "dev.agentdesk.desktop";

pub const DATA_DIR_ENV: &str = "AGENTDESK_DATA_DIR";

pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = non_empty_env(DATA_DIR_ENV) {
        return Ok(PathBuf::from(dir));
    }
    platform_data_root().map(|root| root.join(APP_IDENTIFIER))
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

fn home() -> Result<PathBuf> {
    non_empty_env("HOME")
        .or_else(|| non_empty_env("USERPROFILE"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            CoreError::DataDir("neither HOME nor USERPROFILE is set; set AGENTDESK_DATA_DIR".into())
        })
}

#[cfg(target_os = "macos")]
fn platform_data_root() -> Result<PathBuf> {
    Ok(home()?.join("Library").join("Application Support"))
}

#[cfg(windows)]
fn platform_data_root() -> Result<PathBuf> {
    match non_empty_env("APPDATA") {
        Some(d) => Ok(PathBuf::from(d)),
        None => Ok(home()?.join("AppData").join("Roaming")),
    }
}

#[cfg(not(any(target_os = "macos", windows)))]
fn platform_data_root() -> Result<PathBuf> {
    match non_empty_env("XDG_DATA_HOME") {
        // The XDG spec says relative values are to be ignored.
        Some(d) if PathBuf::from(&d).is_absolute() => Ok(PathBuf::from(d)),
        _ => Ok(home()?.join(".local").join("share")),
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
}
