//! Attachments: dropped or picked files by the token their drop or pick issued, pasted
//! images by bytes, thumbnails back, and links opened outside the app.
//!
//! The page never names a file by its path. The webview renders what agents write, so its
//! script is assumed hostile: a path argument would let it read `~/.ssh/id_rsa`. Paths come
//! only from the OS (the window's drag-and-drop event, the native picker), are kept here
//! ([`AttachmentGrants`]) and handed to the page as single-use tokens.

use agentdesk_core::attachments::AttachmentGrants;
use agentdesk_protocol::ipc::{
    percent_decode, Bytes, Command, ImportAttachmentBytesArgs, ImportAttachmentTokenArgs,
    ImportClipboardImageArgs, OfferedFile, OpenExternalArgs, PickFilesArgs, ReadAttachmentArgs,
};
use tauri::ipc::Response;
use tauri::{AppHandle, DragDropEvent, Emitter, EventTarget, Manager, State, Window, WindowEvent};
use tauri_plugin_dialog::DialogExt;

use super::{internal, invalid, Args, CmdResult, Raw, Reply};
use crate::state::AppState;

/// The event the page hears dropped files on: `OfferedFile[]` (token, name, size).
pub const FILES_DROPPED: &str = "attachments:dropped";

/// A file the user dropped or picked, by the token the drop or the picker issued (used up
/// here). Refused with the reason (too big, a symbolic link, a system file...) before
/// anything is sent.
#[tauri::command]
pub async fn import_attachment_token(
    state: State<'_, AppState>,
    grants: State<'_, AttachmentGrants>,
    args: Args<ImportAttachmentTokenArgs>,
) -> Reply<ImportAttachmentTokenArgs> {
    Ok(state.desk()?.import_offered(&grants, &args.token).await?)
}

/// Files dropped on the window from the OS: each gets a token, and the page hears of them
/// by token and name only.
pub fn on_window_event(window: &Window, event: &WindowEvent) {
    let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event else {
        return;
    };
    if paths.is_empty() {
        return;
    }
    let Some(grants) = window.try_state::<AttachmentGrants>() else {
        return;
    };
    let offered = grants.offer(paths.iter().cloned());
    let target = EventTarget::WebviewWindow {
        label: window.label().to_string(),
    };
    if let Err(e) = window.emit_to(target, FILES_DROPPED, offered) {
        tracing::warn!(error = %e, "cannot hand the dropped files to the window");
    }
}

/// A pasted image: the raw bytes as the request body, its name in `x-file-name`
/// (percent-encoded), so a 5 MB image is not turned into a JSON array.
#[tauri::command]
pub async fn import_attachment_bytes(
    state: State<'_, AppState>,
    request: Raw<'_, ImportAttachmentBytesArgs>,
) -> Reply<ImportAttachmentBytesArgs> {
    let name = match request.args.file_name.trim() {
        "" => "pasted",
        name => name,
    };
    Ok(state
        .desk()?
        .import_attachment_bytes(name, request.body)
        .await?)
}

/// An image on the OS clipboard that the page's paste event did not carry. WebKitGTK gives a
/// page only text from the clipboard (a copied screenshot arrives as an empty paste), so the UI
/// asks for it here; the PNG bytes are imported as they are, not decoded and re-encoded.
#[tauri::command]
pub async fn import_clipboard_image(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Reply<ImportClipboardImageArgs> {
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

/// The table declares `read_attachment`'s answer as bytes: what `tauri::ipc::Response` sends.
const _: fn(Bytes) -> <ReadAttachmentArgs as Command>::Response = |b| b;

/// A stored attachment's bytes (image thumbnails).
#[tauri::command]
pub async fn read_attachment(
    state: State<'_, AppState>,
    args: Args<ReadAttachmentArgs>,
) -> Result<Response, <ReadAttachmentArgs as Command>::Error> {
    Ok(Response::new(
        state.desk()?.read_attachment(&args.sha256).await?,
    ))
}

/// The native file picker (several files), as tokens; empty when cancelled.
#[tauri::command]
pub async fn pick_files(
    app: AppHandle,
    grants: State<'_, AttachmentGrants>,
) -> Reply<PickFilesArgs> {
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
    Ok(grants
        .offer(
            picked
                .unwrap_or_default()
                .into_iter()
                .filter_map(|p| p.into_path().ok()),
        )
        .into_iter()
        .map(offered)
        .collect())
}

/// The core's offer as the table declares it (same fields).
fn offered(f: agentdesk_core::attachments::OfferedFile) -> OfferedFile {
    OfferedFile {
        token: f.token,
        name: f.name,
        size: f.size,
    }
}

/// Open a link from the agent's text in the system browser; never in the app window.
#[tauri::command]
pub fn open_external(args: Args<OpenExternalArgs>) -> Reply<OpenExternalArgs> {
    open_link(&args.url)
}

fn open_link(url: &str) -> CmdResult<()> {
    let url = external_link(url)?;
    let mut cmd = opener(&url);
    crate::webkit::for_the_user(&mut cmd)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd
        .spawn()
        .map_err(|e| internal(format!("cannot open the browser: {e}")))?;
    // Reap it in the background: the opener exits as soon as it handed the link over.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// The link as it may leave the app: web links as they are, mail links reduced to an
/// address, a subject and a body. A mail link's other fields are what a mail client acts
/// on without asking (`attach=~/.ssh/id_rsa` in Thunderbird, `cc`/`bcc` to someone else).
fn external_link(url: &str) -> CmdResult<String> {
    let lower = url.to_ascii_lowercase();
    if url.chars().any(char::is_control) {
        return Err(invalid(format!(
            "only web and mail links open outside the app: {url:?}"
        )));
    }
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return Ok(url.to_string());
    }
    if lower.starts_with("mailto:") {
        return mail_link(&url["mailto:".len()..]);
    }
    Err(invalid(format!(
        "only web and mail links open outside the app: {url:?}"
    )))
}

/// What follows `mailto:`, rebuilt with only `subject` and `body` kept.
fn mail_link(rest: &str) -> CmdResult<String> {
    // A fragment means nothing to a mail client.
    let rest = rest.split('#').next().unwrap_or_default();
    let (to, query) = rest.split_once('?').unwrap_or((rest, ""));
    // An address that decodes to a query of its own (`a%3Fattach=...`) would smuggle fields
    // past the filter below.
    let decoded = percent_decode(to);
    if decoded.contains(['?', '&', '#']) || decoded.chars().any(char::is_control) {
        return Err(invalid(format!("not a mail address: {to:?}")));
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|field| {
            let name = field.split('=').next().unwrap_or_default();
            matches!(
                percent_decode(name).to_ascii_lowercase().as_str(),
                "subject" | "body"
            )
        })
        .collect();
    Ok(if kept.is_empty() {
        format!("mailto:{to}")
    } else {
        format!("mailto:{to}?{}", kept.join("&"))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_links_keep_only_the_subject_and_the_body() {
        let ok = |u: &str| external_link(u).unwrap();
        assert_eq!(
            ok("mailto:a@b.c?attach=~/.ssh/id_rsa&subject=Hi&body=x%20y"),
            "mailto:a@b.c?subject=Hi&body=x%20y"
        );
        assert_eq!(ok("mailto:a@b.c?Attach=/etc/passwd"), "mailto:a@b.c");
        assert_eq!(
            ok("mailto:a@b.c?cc=x@y.z&bcc=z@y.x&to=w@v.u&SUBJECT=s"),
            "mailto:a@b.c?SUBJECT=s"
        );
        // An encoded name is judged by what it decodes to.
        assert_eq!(ok("mailto:a@b.c?%61ttach=/etc/passwd"), "mailto:a@b.c");
        assert_eq!(ok("MAILTO:a@b.c?body=hi#frag"), "mailto:a@b.c?body=hi");
        assert_eq!(ok("mailto:a@b.c"), "mailto:a@b.c");
        assert_eq!(ok("mailto:?subject=x"), "mailto:?subject=x");
        assert!(external_link("mailto:a%3Fattach=/etc/passwd@b.c").is_err());
        assert!(external_link("mailto:a%26attach=x@b.c").is_err());
        // Web links are left as they are.
        assert_eq!(ok("https://x.org/?a=1&b=2"), "https://x.org/?a=1&b=2");
    }

    #[test]
    fn only_web_and_mail_links_leave_the_app() {
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
            "https://x\n",
        ] {
            assert!(open_link(bad).is_err(), "{bad}");
        }
    }
}
