//! WebKitGTK settings for the window (Linux only; other platforms keep their webview's own).
//!
//! Measured with the chat bench under Xvfb (BENCHMARKS.md, "Chat window (issue 12)"): the
//! default hardware-acceleration policy puts the page in accelerated compositing mode, which
//! on a machine without a GPU runs Mesa's software GL (llvmpipe) in the web process and costs
//! about 80 MB of PSS and CPU for every frame while text streams, for no visible difference in
//! a page of text and lists. `Never` renders with the CPU (Skia) and scrolls just as smoothly.
//! The rest drops what a single-page app never uses: a back/forward page cache (there is no
//! navigation), WebGL, and the web-browser cache model's in-memory resource cache (every asset
//! comes from the app itself).

// The helpers are only called on Linux; the tests run everywhere.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::ffi::OsStr;

/// `AGENTDESK_WEBKIT_ACCELERATION=1` keeps WebKit's own defaults (a machine with a real GPU
/// may prefer them; the chat bench measures both).
const OPT_OUT: &str = "AGENTDESK_WEBKIT_ACCELERATION";
const COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

fn accelerated(opt_out: Option<&OsStr>) -> bool {
    opt_out.is_some_and(|v| v == "1")
}

/// The value to give `WEBKIT_DISABLE_COMPOSITING_MODE`, if any: none when the user opted out
/// or set the variable themselves.
fn compositing_override(opt_out: Option<&OsStr>, current: Option<&OsStr>) -> Option<&'static str> {
    (!accelerated(opt_out) && current.is_none()).then_some("1")
}

/// Called first thing in `run`, before any thread or GTK exists: the settings below reach a
/// page only after WebKit created it, and by then the web process has already set up
/// accelerated compositing (a software GL context it keeps: ~6 MB). The variable turns that
/// off from the start; a value the user set wins.
#[cfg(target_os = "linux")]
pub fn prepare_env() {
    let opt_out = std::env::var_os(OPT_OUT);
    let current = std::env::var_os(COMPOSITING);
    if let Some(value) = compositing_override(opt_out.as_deref(), current.as_deref()) {
        std::env::set_var(COMPOSITING, value);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn prepare_env() {}

/// Applies the settings to `window`'s webview. Called from `setup` on the main thread, so it
/// runs at once, before the event loop has loaded or painted anything.
#[cfg(target_os = "linux")]
pub fn tune(window: &tauri::WebviewWindow) {
    if accelerated(std::env::var_os(OPT_OUT).as_deref()) {
        return;
    }
    let applied = window.with_webview(|webview| {
        use webkit2gtk::{
            CacheModel, HardwareAccelerationPolicy, SettingsExt, WebContextExt, WebViewExt,
        };
        let view = webview.inner();
        if let Some(settings) = WebViewExt::settings(&view) {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            settings.set_enable_page_cache(false);
            settings.set_enable_webgl(false);
        }
        if let Some(context) = view.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
        tracing::debug!("webkit settings applied");
    });
    if let Err(e) = applied {
        // Not fatal: the window works with WebKit's defaults, it only costs more memory.
        tracing::warn!(error = %e, "cannot apply the webview's settings");
    }
}

#[cfg(not(target_os = "linux"))]
pub fn tune(_window: &tauri::WebviewWindow) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_is_turned_off_unless_the_user_decided() {
        assert_eq!(compositing_override(None, None), Some("1"));
        // A value the user set wins, whatever it is.
        assert_eq!(compositing_override(None, Some(OsStr::new("0"))), None);
        // Opting out keeps WebKit's defaults; any other value of the opt-out does not.
        assert_eq!(compositing_override(Some(OsStr::new("1")), None), None);
        assert_eq!(compositing_override(Some(OsStr::new("0")), None), Some("1"));
    }
}
