//! Where Agent Desk keeps its data, shared by the app and the CLI so both open the same file.
//!
//! `AGENTDESK_DATA_DIR` wins. Otherwise the platform's per-user data directory joined with the
//! app identifier, resolved by the `dirs` crate, which is what Tauri's `app_data_dir()` calls,
//! so the app and the CLI cannot disagree: Linux `$XDG_DATA_HOME` (or `~/.local/share`),
//! macOS `~/Library/Application Support`, Windows the Roaming known folder (`%APPDATA%`).
//! Logs go to `<data dir>/logs`.

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

fn platform_data_root() -> Result<PathBuf> {
    // `dirs` falls back to the password database when HOME is unset, as Tauri does.
    dirs::data_dir().ok_or_else(|| {
        CoreError::DataDir(
            "the per-user data folder cannot be found (no home folder); set AGENTDESK_DATA_DIR"
                .into(),
        )
    })
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
}
