//! The window stays on the app. The webview renders what agents write, so its page may be
//! hostile: a link opened by WebKit's context menu ("Open Link"), a `window.location = …`
//! or a form would otherwise load a foreign page *with the app's IPC bridge*. Every
//! navigation is checked here; links the user follows go to the system browser through the
//! `open_external` command instead. The context menu (whose "Open Link", "Inspect Element"
//! and friends act behind the page's back) is turned off as well.

use tauri::Url;

/// Is `url` the app's own page? The embedded UI is served at `tauri://localhost` (Linux,
/// macOS) or `http(s)://tauri.localhost` (Windows); a dev build (`tauri dev`, no
/// `custom-protocol`) loads the Vite server, `dev_url`, and only its origin.
pub fn is_app_url(url: &Url, dev_url: Option<&Url>) -> bool {
    let host = url.host_str().unwrap_or_default();
    let app = match url.scheme() {
        "tauri" => host == "localhost" && url.port().is_none(),
        "http" | "https" => host == "tauri.localhost" && url.port().is_none(),
        _ => false,
    };
    app || dev_url.is_some_and(|dev| dev.origin() == url.origin())
}

/// Where the page may go: the app's own origin only; anything else is logged and stays
/// where it was.
pub fn guard(dev_url: Option<Url>) -> impl Fn(&Url) -> bool + Send + 'static {
    move |url| {
        let allowed = is_app_url(url, dev_url.as_ref());
        if !allowed {
            tracing::warn!(url = %url, "the window tried to leave the app; stopped");
        }
        allowed
    }
}

/// No context menu in the webview (WebKitGTK's; the page's own `contextmenu` handler is no
/// defence once the page's script is not ours).
#[cfg(freedesktop)]
pub fn disable_context_menu(window: &tauri::WebviewWindow) {
    let done = window.with_webview(|webview| {
        use webkit2gtk::WebViewExt;
        // `true`: handled, the menu is not shown.
        webview
            .inner()
            .connect_context_menu(|_view, _menu, _event, _hit| true);
    });
    if let Err(e) = done {
        tracing::warn!(error = %e, "cannot turn the webview's context menu off");
    }
}

#[cfg(not(freedesktop))]
pub fn disable_context_menu(_window: &tauri::WebviewWindow) {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_apps_own_origin_is_allowed() {
        for ok in [
            "tauri://localhost",
            "tauri://localhost/",
            "tauri://localhost/index.html#/session/1",
            "http://tauri.localhost/",
            "https://tauri.localhost/assets/x.js",
        ] {
            assert!(is_app_url(&url(ok), None), "{ok}");
        }
        for bad in [
            "https://example.com/",
            "http://localhost:5173/",
            "tauri://localhost.evil.com/",
            "tauri://evil/",
            "http://tauri.localhost.evil.com/",
            "http://tauri.localhost:8080/",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "javascript:alert(1)",
            "about:blank",
            "blob:tauri://localhost/1234",
        ] {
            assert!(!is_app_url(&url(bad), None), "{bad}");
        }
    }

    #[test]
    fn a_dev_build_also_allows_its_dev_server_only() {
        let dev = url("http://localhost:5173");
        assert!(is_app_url(&url("http://localhost:5173/"), Some(&dev)));
        assert!(is_app_url(
            &url("http://localhost:5173/src/main.tsx"),
            Some(&dev)
        ));
        assert!(!is_app_url(&url("http://localhost:5174/"), Some(&dev)));
        assert!(!is_app_url(&url("https://localhost:5173/"), Some(&dev)));
        assert!(!is_app_url(&url("https://example.com/"), Some(&dev)));
        let guard = guard(Some(dev));
        assert!(guard(&url("tauri://localhost/")));
        assert!(!guard(&url("https://example.com/")));
    }
}
