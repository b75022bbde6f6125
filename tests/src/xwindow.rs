//! The app's X window under Xvfb, as a window manager would handle it (there is none):
//! find it, tell whether it is shown, ask it to close (the title bar's close button),
//! give it the focus or take it away. Uses `xdotool`, `xwininfo` and
//! `tests/support/xwin.py` (libX11 through ctypes).

use std::process::Command;
use std::time::{Duration, Instant};

use crate::e2e::{repo_root, BoxError};

/// The app's top-level windows (named like the app; shown or not).
pub fn app_windows(display: &str) -> Result<Vec<u64>, BoxError> {
    let out = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(["search", "--name", "^Agent Desk$"])
        .output()?;
    // xdotool exits 1 when nothing matches.
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect())
}

/// Whether window `id` is mapped and viewable (a hidden window is unmapped).
pub fn is_viewable(display: &str, id: u64) -> Result<bool, BoxError> {
    let out = Command::new("xwininfo")
        .env("DISPLAY", display)
        .args(["-id", &id.to_string()])
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout).contains("Map State: IsViewable"))
}

/// The app's window that is shown now, waiting (bounded) for it.
pub async fn shown_app_window(display: &str, limit: Duration) -> Result<u64, BoxError> {
    let deadline = Instant::now() + limit;
    loop {
        for id in app_windows(display)? {
            if is_viewable(display, id)? {
                return Ok(id);
            }
        }
        if Instant::now() > deadline {
            return Err(format!("no shown Agent Desk window within {limit:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Wait (bounded) until window `id` is shown (`true`) or hidden / gone (`false`).
pub async fn wait_viewable(
    display: &str,
    id: u64,
    want: bool,
    limit: Duration,
) -> Result<(), BoxError> {
    let deadline = Instant::now() + limit;
    loop {
        if is_viewable(display, id)? == want {
            return Ok(());
        }
        if Instant::now() > deadline {
            let what = if want { "shown" } else { "hidden" };
            return Err(format!("window {id} never {what} within {limit:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn xwin(display: &str, args: &[&str]) -> Result<(), BoxError> {
    let status = Command::new("python3")
        .arg(repo_root().join("tests/support/xwin.py"))
        .args(args)
        .env("DISPLAY", display)
        .status()?;
    if !status.success() {
        return Err(format!("xwin.py {args:?}: {status}").into());
    }
    Ok(())
}

/// What the close button in a title bar does: `WM_DELETE_WINDOW`, which the app may refuse.
pub fn request_close(display: &str, id: u64) -> Result<(), BoxError> {
    xwin(display, &["close", &id.to_string()])
}

/// The user works in the app: it gets the keyboard focus.
pub fn focus(display: &str, id: u64) -> Result<(), BoxError> {
    let status = Command::new("xdotool")
        .env("DISPLAY", display)
        .args([
            "mousemove",
            "600",
            "400",
            "windowfocus",
            "--sync",
            &id.to_string(),
        ])
        .status()?;
    if !status.success() {
        return Err(format!("xdotool windowfocus: {status}").into());
    }
    Ok(())
}

/// The user went to another app: the focus goes to the root window and the pointer leaves
/// the app's window (with the focus on the pointer's window GTK would count it as focused).
pub fn unfocus(display: &str) -> Result<(), BoxError> {
    let status = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(["mousemove", "1275", "795"])
        .status()?;
    if !status.success() {
        return Err(format!("xdotool mousemove: {status}").into());
    }
    xwin(display, &["unfocus"])
}

/// `xdotool ARGS` on `display`: its standard output.
pub fn xdotool(display: &str, args: &[&str]) -> Result<String, BoxError> {
    let out = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(args)
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The id of the visible native window titled `title` (bounded wait). There is no window
/// manager under Xvfb, so callers give it the focus explicitly.
pub async fn native_window(display: &str, title: &str) -> Result<String, BoxError> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = xdotool(display, &["search", "--onlyvisible", "--name", title])?
            .lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .next_back();
        if let Some(id) = found {
            // The dialog builds its widgets after it maps.
            tokio::time::sleep(Duration::from_millis(800)).await;
            return Ok(id.to_string());
        }
        if Instant::now() > deadline {
            return Err(format!("no window titled {title:?} appeared").into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Dismiss the native dialog titled `title` as a user pressing Escape would (a "no").
pub async fn dismiss_native_dialog(display: &str, title: &str) -> Result<(), BoxError> {
    let dialog = native_window(display, title).await?;
    xdotool(display, &["windowfocus", "--sync", &dialog])?;
    xdotool(display, &["key", "--clearmodifiers", "Escape"])?;
    Ok(())
}
