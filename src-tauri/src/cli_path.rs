//! "Install command-line tool" (the tray menu on macOS and Windows), as VS Code offers it.
//!
//! Every installer ships `agentdesk-cli` next to the app's executable (`bundle.externalBin`).
//! The Linux packages put both in `/usr/bin`, already on PATH; the macOS app bundle
//! (`Agent Desk.app/Contents/MacOS/`) and the Windows install folder are not on PATH.
//!
//! - **macOS**: a symbolic link `agentdesk-cli` → the bundled binary, in `/usr/local/bin` when
//!   this user may write there (Homebrew on Intel Macs makes it so), else in `~/.local/bin`
//!   (created if missing); the dialog says which, and how to put `~/.local/bin` on PATH. No
//!   administrator prompt: neither Tauri nor its plugins offer an authorised write, and a
//!   `sudo` in a hidden shell would ask for a password nobody sees. A link (not a copy)
//!   follows app updates; an existing file that is not a link is never replaced.
//! - **Windows**: the install folder is added to the user's PATH (`HKCU\Environment\Path`,
//!   kept as `REG_EXPAND_SZ` so `%VARS%` in it stay unexpanded), and a WM_SETTINGCHANGE is
//!   broadcast so new terminals see it. Done in the app rather than in the installer: the
//!   NSIS and MSI templates of the Tauri bundler have no PATH option, and one action covers
//!   both installers (and a portable copy). Through PowerShell, present on every Windows 10/11.
//!
//! The decisions (which folder, what the new PATH is) are plain functions, tested on Linux.

#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

use tauri::{AppHandle, Wry};

/// Whether the tray offers the action on this platform.
pub const OFFERED: bool = cfg!(any(target_os = "macos", windows));

/// The bundled CLI's file name.
const CLI: &str = if cfg!(windows) {
    "agentdesk-cli.exe"
} else {
    "agentdesk-cli"
};

/// Run the action and say what happened in a native dialog.
pub fn install_from_menu(app: &AppHandle<Wry>) {
    use tauri_plugin_dialog::{DialogExt, MessageDialogKind};
    let (kind, text) = match install() {
        Ok(done) => (MessageDialogKind::Info, done),
        Err(why) => (MessageDialogKind::Error, why),
    };
    tracing::info!(result = %text, "install command-line tool");
    app.dialog()
        .message(text)
        .title("Command-line tool")
        .kind(kind)
        .show(|_| {});
}

/// The bundled CLI next to this executable.
fn bundled_cli() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("Cannot find the app: {e}"))?;
    let cli = exe
        .parent()
        .map(|d| d.join(CLI))
        .ok_or("Cannot find the app's folder")?;
    if cli.is_file() {
        Ok(cli)
    } else {
        Err(format!(
            "{} is not there: only an installed Agent Desk ships the command-line tool.",
            cli.display()
        ))
    }
}

#[cfg(unix)]
fn install() -> Result<String, String> {
    let cli = bundled_cli()?;
    let mut dirs = vec![PathBuf::from("/usr/local/bin")];
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".local/bin"));
    }
    let link = link_into(&cli, &dirs)?;
    let dir = link.parent().unwrap_or(Path::new("/"));
    let mut text = format!(
        "agentdesk-cli is installed: {} → {}.",
        link.display(),
        cli.display()
    );
    if dir != Path::new("/usr/local/bin") {
        text.push_str(&format!(
            "\n\n/usr/local/bin is not writable for you. If {} is not on your PATH, add \
             this line to ~/.zshrc:\nexport PATH=\"{}:$PATH\"",
            dir.display(),
            dir.display()
        ));
    }
    Ok(text)
}

/// Link `cli` as `agentdesk-cli` into the first folder of `dirs` that takes it. Only the
/// last folder is created when missing (the user's own `~/.local/bin`); an existing link is
/// replaced (it may point into an older copy of the app), anything else is left alone.
#[cfg(unix)]
fn link_into(cli: &Path, dirs: &[PathBuf]) -> Result<PathBuf, String> {
    let mut why = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        if i + 1 == dirs.len() {
            if let Err(e) = std::fs::create_dir_all(dir) {
                why.push(format!("{}: {e}", dir.display()));
                continue;
            }
        } else if !dir.is_dir() {
            why.push(format!("{}: no such folder", dir.display()));
            continue;
        }
        let link = dir.join("agentdesk-cli");
        match std::fs::symlink_metadata(&link) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Err(e) = std::fs::remove_file(&link) {
                    why.push(format!("{}: {e}", link.display()));
                    continue;
                }
            }
            Ok(_) => {
                why.push(format!(
                    "{}: a file that is not a link is there",
                    link.display()
                ));
                continue;
            }
            Err(_) => {}
        }
        match std::os::unix::fs::symlink(cli, &link) {
            Ok(()) => return Ok(link),
            Err(e) => why.push(format!("{}: {e}", link.display())),
        }
    }
    Err(format!(
        "agentdesk-cli could not be linked anywhere:\n{}",
        why.join("\n")
    ))
}

#[cfg(windows)]
fn install() -> Result<String, String> {
    let cli = bundled_cli()?;
    let dir = cli
        .parent()
        .ok_or("Cannot find the app's folder")?
        .display()
        .to_string();
    // The raw value: `%USERPROFILE%\...` entries must not be written back expanded.
    let current = powershell(
        "$k = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment'); \
         [Console]::Out.Write($k.GetValue('Path', '', 'DoNotExpandEnvironmentNames'))",
        None,
    )?;
    let Some(new) = path_with(&current, &dir) else {
        return Ok(format!(
            "{dir} is already on your PATH: open a new terminal and run agentdesk-cli."
        ));
    };
    // The value goes through the environment, never into the script's text. Deleting a
    // variable that does not exist is how .NET broadcasts WM_SETTINGCHANGE.
    powershell(
        "$k = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment'); \
         $k.SetValue('Path', $env:AGENTDESK_USER_PATH, 'ExpandString'); $k.Close(); \
         [Environment]::SetEnvironmentVariable('AGENTDESK_PATH_BROADCAST', $null, 'User')",
        Some(&new),
    )?;
    Ok(format!(
        "{dir} was added to your PATH: open a new terminal and run agentdesk-cli."
    ))
}

#[cfg(windows)]
fn powershell(script: &str, user_path: Option<&str>) -> Result<String, String> {
    use std::os::windows::process::CommandExt;
    // No console window flashing up from a GUI app.
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    let mut cmd = std::process::Command::new("powershell.exe");
    cmd.args(["-NoProfile", "-NonInteractive", "-Command", script])
        .creation_flags(CREATE_NO_WINDOW);
    if let Some(v) = user_path {
        cmd.env("AGENTDESK_USER_PATH", v);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("Cannot run PowerShell: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "PowerShell failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `current` (a Windows PATH value) with `dir` appended, or `None` when it is already there
/// (compared without case and without a trailing `\`, as Windows does).
#[cfg_attr(not(windows), allow(dead_code))]
fn path_with(current: &str, dir: &str) -> Option<String> {
    let norm = |s: &str| s.trim().trim_end_matches('\\').to_lowercase();
    let wanted = norm(dir);
    if current.split(';').any(|p| norm(p) == wanted) {
        return None;
    }
    let kept = current.trim_end_matches(';');
    Some(if kept.trim().is_empty() {
        dir.to_string()
    } else {
        format!("{kept};{dir}")
    })
}

#[cfg(not(any(unix, windows)))]
fn install() -> Result<String, String> {
    bundled_cli().map(|cli| format!("agentdesk-cli is at {}", cli.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_folder_is_appended_to_the_user_path_once() {
        let dir = r"C:\Users\me\AppData\Local\Agent Desk";
        assert_eq!(path_with("", dir).as_deref(), Some(dir));
        assert_eq!(
            path_with(r"%USERPROFILE%\bin;C:\tools;", dir),
            Some(format!(r"%USERPROFILE%\bin;C:\tools;{dir}"))
        );
        assert_eq!(path_with(&format!(r"C:\tools;{dir}"), dir), None);
        assert_eq!(
            path_with(r"C:\tools;c:\users\ME\appdata\local\agent desk\", dir),
            None
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_cli_is_linked_into_the_first_folder_that_takes_it() {
        let tmp = std::env::temp_dir().join(format!("agentdesk-cli-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let app = tmp.join("Agent Desk.app/Contents/MacOS");
        std::fs::create_dir_all(&app).unwrap();
        let cli = app.join("agentdesk-cli");
        std::fs::write(&cli, "").unwrap();
        // A missing system folder is skipped (never created); the user's own one is made.
        let system = tmp.join("usr-local-bin");
        let user = tmp.join("home/.local/bin");
        let dirs = [system.clone(), user.clone()];
        let link = link_into(&cli, &dirs).unwrap();
        assert_eq!(link, user.join("agentdesk-cli"));
        assert_eq!(std::fs::read_link(&link).unwrap(), cli);
        assert!(!system.exists());

        // An existing system folder wins; a stale link there is replaced.
        std::fs::create_dir_all(&system).unwrap();
        std::os::unix::fs::symlink(
            tmp.join("old.app/agentdesk-cli"),
            system.join("agentdesk-cli"),
        )
        .unwrap();
        let link = link_into(&cli, &dirs).unwrap();
        assert_eq!(link, system.join("agentdesk-cli"));
        assert_eq!(std::fs::read_link(&link).unwrap(), cli);

        // A file that is not a link is never replaced: the next folder is used.
        std::fs::remove_file(system.join("agentdesk-cli")).unwrap();
        std::fs::write(system.join("agentdesk-cli"), "someone else's").unwrap();
        let link = link_into(&cli, &dirs).unwrap();
        assert_eq!(link, user.join("agentdesk-cli"));
        assert_eq!(
            std::fs::read_to_string(system.join("agentdesk-cli")).unwrap(),
            "someone else's"
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
