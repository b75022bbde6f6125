//! Attachments: dropped or picked files by path, pasted images by bytes, thumbnails back,
//! and links opened outside the app.

use std::path::PathBuf;

use agentdesk_protocol::ui::Attachment;
use tauri::ipc::{InvokeBody, Request, Response};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use super::{internal, invalid, CmdResult};
use crate::state::AppState;

/// A file the user dropped or picked. Refused with the reason (too big, unsupported, a
/// symlink...) before anything is sent.
#[tauri::command]
pub async fn import_attachment_path(
    state: State<'_, AppState>,
    path: String,
) -> CmdResult<Attachment> {
    Ok(state
        .desk()?
        .import_attachment(&PathBuf::from(path))
        .await?)
}

/// A pasted image: the raw bytes as the request body, its name in `x-file-name`
/// (percent-encoded), so a 5 MB image is not turned into a JSON array.
#[tauri::command]
pub async fn import_attachment_bytes(
    state: State<'_, AppState>,
    request: Request<'_>,
) -> CmdResult<Attachment> {
    let InvokeBody::Raw(bytes) = request.body() else {
        return Err(invalid("a pasted file must be sent as raw bytes"));
    };
    let name = request
        .headers()
        .get("x-file-name")
        .and_then(|v| v.to_str().ok())
        .map(percent_decode)
        .unwrap_or_else(|| "pasted".to_string());
    Ok(state.desk()?.import_attachment_bytes(&name, bytes).await?)
}

/// An image on the OS clipboard that the page's paste event did not carry. WebKitGTK gives a
/// page only text from the clipboard (a copied screenshot arrives as an empty paste), so the UI
/// asks for it here; the PNG bytes are imported as they are, not decoded and re-encoded.
#[tauri::command]
pub async fn import_clipboard_image(
    app: AppHandle,
    state: State<'_, AppState>,
) -> CmdResult<Attachment> {
    let bytes = clipboard_png(&app).await?;
    Ok(state
        .desk()?
        .import_attachment_bytes("pasted-image.png", &bytes)
        .await?)
}

#[cfg(freedesktop)]
async fn clipboard_png(app: &AppHandle) -> CmdResult<Vec<u8>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    // GTK objects live on the main thread; `wait_for_contents` spins its loop until the
    // clipboard's owner answers (or says it has no PNG).
    app.run_on_main_thread(move || {
        let clipboard = gtk::Clipboard::get(&gtk::gdk::SELECTION_CLIPBOARD);
        let png = clipboard
            .wait_for_contents(&gtk::gdk::Atom::intern("image/png"))
            .map(|d| d.data())
            .filter(|d| !d.is_empty());
        let _ = tx.send(png);
    })
    .map_err(|e| internal(format!("could not read the clipboard: {e}")))?;
    rx.await
        .map_err(|_| internal("the clipboard read did not finish"))?
        .ok_or_else(|| invalid("the clipboard holds no image"))
}

#[cfg(not(freedesktop))]
async fn clipboard_png(_app: &AppHandle) -> CmdResult<Vec<u8>> {
    // WebView2 and WKWebView hand pasted images to the page itself.
    Err(invalid("the clipboard holds no image"))
}

/// A stored attachment's bytes (image thumbnails).
#[tauri::command]
pub async fn read_attachment(state: State<'_, AppState>, sha256: String) -> CmdResult<Response> {
    Ok(Response::new(state.desk()?.read_attachment(&sha256).await?))
}

/// The native file picker (several files); empty when cancelled.
#[tauri::command]
pub async fn pick_files(app: AppHandle) -> CmdResult<Vec<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Attach files")
        .pick_files(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| internal("the file picker closed without an answer"))?;
    Ok(picked
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| p.into_path().ok())
        .map(|p| p.display().to_string())
        .collect())
}

/// Open a link from the agent's text in the system browser; never in the app window.
#[tauri::command]
pub fn open_external(url: String) -> CmdResult<()> {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://")
        || lower.starts_with("http://")
        || lower.starts_with("mailto:"))
        || url.chars().any(char::is_control)
    {
        return Err(invalid(format!(
            "only web and mail links open outside the app: {url:?}"
        )));
    }
    let mut cmd = opener(&url);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd
        .spawn()
        .map_err(|e| internal(format!("cannot open the browser: {e}")))?;
    // Reap it in the background: the opener exits as soon as it handed the link over.
    std::thread::spawn(move || child.wait());
    Ok(())
}

fn opener(url: &str) -> std::process::Command {
    #[cfg(target_os = "macos")]
    {
        let mut c = std::process::Command::new("open");
        c.arg(url);
        c
    }
    #[cfg(target_os = "windows")]
    {
        // Not `cmd /C start`: cmd would interpret `&` in the URL.
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler").arg(url);
        c
    }
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    {
        let mut c = std::process::Command::new("xdg-open");
        c.arg(url);
        c
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_percent_decoded() {
        assert_eq!(
            percent_decode("screen%20shot%C3%A9.png"),
            "screen shoté.png"
        );
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }

    #[test]
    fn only_web_and_mail_links_leave_the_app() {
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
            "https://x\n",
        ] {
            assert!(open_external(bad.into()).is_err(), "{bad}");
        }
    }
}
