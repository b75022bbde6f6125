//! WebKitGTK settings for the window (Linux only; other platforms keep their webview's own).
//!
//! Measured with the chat bench under Xvfb (BENCHMARKS.md, "Chat window (issue 12)"): the
//! default hardware-acceleration policy puts the page in accelerated compositing mode, which
//! on a machine without a GPU runs Mesa's software GL (llvmpipe) in the web process and costs
//! about 80 MB of PSS and CPU for every frame while text streams, for no visible difference in
//! a page of text and lists. `Never` renders with the CPU (Skia) and scrolls just as smoothly.
//! The rest drops what a single-page app never uses: a back/forward page cache (there is no
//! navigation), WebGL, and the web-browser cache model's in-memory resource cache (every asset
//! comes from the app itself). JavaScriptCore's heap is sized as for a 512 MiB machine
//! (see [`JSC_RAM`]).

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
/// JavaScriptCore sizes its heap, and how much garbage it lets pile up before collecting, by
/// the machine's RAM: on a 24 GiB machine the web process grew from 119 to 267 MB PSS while a
/// 401 KB answer streamed in (the markdown pipeline of the time), with 512 MiB to 179 MB, for
/// the same CPU; with today's pipeline 173-180 MB against 178-194 (chat bench, BENCHMARKS.md
/// "… JSC's heap"). The page holds one session's view, never hundreds of MB of live objects,
/// so a heap sized for half a gigabyte is plenty. Set whatever the rendering (it is about
/// memory, not the GPU); a value the user set wins.
const JSC_RAM: (&str, &str) = ("JSC_forceRAMSize", "536870912");

fn accelerated(opt_out: Option<&OsStr>) -> bool {
    opt_out.is_some_and(|v| v == "1")
}

/// The variables to set, with their value: [`CPU_RENDERING`] unless the user opted out, and
/// [`JSC_RAM`]; never one the user set themselves (`current` reads the environment).
fn env_overrides(
    opt_out: Option<&OsStr>,
    current: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(&'static str, &'static str)> {
    let rendering = if accelerated(opt_out) {
        &[][..]
    } else {
        &CPU_RENDERING[..]
    };
    rendering
        .iter()
        .map(|name| (*name, "1"))
        .chain([JSC_RAM])
        .filter(|(name, _)| current(name).is_none())
        .collect()
}

/// Called first thing in `run`, before any thread or GTK exists: the settings below reach a
/// page only after WebKit created it, and by then the web process has already set up
/// accelerated compositing (a software GL context it keeps: ~6 MB). The variables turn that
/// (and the DMA-BUF renderer) off from the start; a value the user set wins.
#[cfg(target_os = "linux")]
pub fn prepare_env() {
    let opt_out = std::env::var_os(OPT_OUT);
    for (name, value) in env_overrides(opt_out.as_deref(), |n| std::env::var_os(n)) {
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
    fn cpu_rendering_and_a_small_heap_are_chosen_unless_the_user_decided() {
        let unset = |_: &str| None;
        let all = vec![(COMPOSITING, "1"), (DMABUF, "1"), JSC_RAM];
        assert_eq!(env_overrides(None, unset), all);
        assert_eq!(DMABUF, "WEBKIT_DISABLE_DMABUF_RENDERER");
        assert_eq!(JSC_RAM, ("JSC_forceRAMSize", "536870912"));
        // A value the user set wins, whatever it is; the other variables are still set.
        let user_compositing = |n: &str| (n == COMPOSITING).then(|| "0".into());
        assert_eq!(
            env_overrides(None, user_compositing),
            vec![(DMABUF, "1"), JSC_RAM]
        );
        let user_dmabuf = |n: &str| (n == DMABUF).then(|| "0".into());
        assert_eq!(
            env_overrides(None, user_dmabuf),
            vec![(COMPOSITING, "1"), JSC_RAM]
        );
        let user_ram = |n: &str| (n == JSC_RAM.0).then(|| "0".into());
        assert_eq!(
            env_overrides(None, user_ram),
            vec![(COMPOSITING, "1"), (DMABUF, "1")]
        );
        // Opting out keeps WebKit's rendering defaults (the heap is not about the GPU); any
        // other value of the opt-out does not.
        assert_eq!(env_overrides(Some(OsStr::new("1")), unset), vec![JSC_RAM]);
        assert_eq!(env_overrides(Some(OsStr::new("0")), unset), all);
    }
}
