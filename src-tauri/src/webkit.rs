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
/// WebKitGTK's DMA-BUF renderer hands accelerated frames from the web process to the window.
/// Without compositing there are none, but the renderer is still set up at start (GBM and EGL
/// queries in the app process before the web process gets going): turning it off brought
/// process start → navigation from 1.48 to 1.15 s (medians of 9 and 10 alternating starts
/// under Xvfb, BENCHMARKS.md "Cold start").
const DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
/// The variables set when the app renders with the CPU.
const CPU_RENDERING: [&str; 2] = [COMPOSITING, DMABUF];

fn accelerated(opt_out: Option<&OsStr>) -> bool {
    opt_out.is_some_and(|v| v == "1")
}

/// The variables of [`CPU_RENDERING`] to set, with their value: none when the user opted out,
/// and never one the user set themselves (`current` reads the environment).
fn cpu_rendering_overrides(
    opt_out: Option<&OsStr>,
    current: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(&'static str, &'static str)> {
    if accelerated(opt_out) {
        return Vec::new();
    }
    CPU_RENDERING
        .into_iter()
        .filter(|name| current(name).is_none())
        .map(|name| (name, "1"))
        .collect()
}

/// Called first thing in `run`, before any thread or GTK exists: the settings below reach a
/// page only after WebKit created it, and by then the web process has already set up
/// accelerated compositing (a software GL context it keeps: ~6 MB). The variables turn that
/// (and the DMA-BUF renderer) off from the start; a value the user set wins.
#[cfg(target_os = "linux")]
pub fn prepare_env() {
    let opt_out = std::env::var_os(OPT_OUT);
    for (name, value) in cpu_rendering_overrides(opt_out.as_deref(), |n| std::env::var_os(n)) {
        std::env::set_var(name, value);
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
    fn cpu_rendering_is_chosen_unless_the_user_decided() {
        let unset = |_: &str| None;
        let both = vec![(COMPOSITING, "1"), (DMABUF, "1")];
        assert_eq!(cpu_rendering_overrides(None, unset), both);
        assert_eq!(DMABUF, "WEBKIT_DISABLE_DMABUF_RENDERER");
        // A value the user set wins, whatever it is; the other variable is still set.
        let user_compositing = |n: &str| (n == COMPOSITING).then(|| "0".into());
        assert_eq!(
            cpu_rendering_overrides(None, user_compositing),
            vec![(DMABUF, "1")]
        );
        let user_dmabuf = |n: &str| (n == DMABUF).then(|| "0".into());
        assert_eq!(
            cpu_rendering_overrides(None, user_dmabuf),
            vec![(COMPOSITING, "1")]
        );
        // Opting out keeps WebKit's defaults; any other value of the opt-out does not.
        assert!(cpu_rendering_overrides(Some(OsStr::new("1")), unset).is_empty());
        assert_eq!(cpu_rendering_overrides(Some(OsStr::new("0")), unset), both);
    }
}
