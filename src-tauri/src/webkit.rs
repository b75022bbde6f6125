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
//! (see [`JSC_RAM`]), its JIT is off ([`JSC_JIT`]), and the web process gets a memory limit
//! under which WebKit gives back what the page no longer uses (see
//! [`limit_web_process_memory`]).

// The helpers are only called on Linux; the tests run everywhere.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::ffi::OsStr;
use std::sync::OnceLock;

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
/// JavaScriptCore sizes its heap, and how much garbage it lets pile up before collecting, by
/// the machine's RAM: on a 24 GiB machine the web process grew from 119 to 267 MB PSS while a
/// 401 KB answer streamed in (the markdown pipeline of the time), with 512 MiB to 179 MB, for
/// the same CPU; with today's pipeline 173-180 MB against 178-194 (chat bench, BENCHMARKS.md
/// "… JSC's heap"). The page holds one session's view, never hundreds of MB of live objects,
/// so a heap sized for half a gigabyte is plenty. Set whatever the rendering (it is about
/// memory, not the GPU); a value the user set wins.
const JSC_RAM: (&str, &str) = ("JSC_forceRAMSize", "536870912");
/// JavaScriptCore without its JIT compilers: the page's code is interpreted (LLInt). The page
/// is an app's UI (a click, a batch of text, a list to draw), not a long computation: in the
/// chat bench the 401 KB answer took the web process 0.69-0.89 CPU-s against 0.97-1.05 with the
/// JIT, whose compiling was more work than it saved, and its peak was 124-131 MB PSS against
/// 152-158 (the whole tree's 383-392 against 410-416 MB); at idle 13 MB less PSS; the page
/// navigates, paints and opens the 200,000-item session in the same time (BENCHMARKS.md,
/// "No JIT"). It is also a smaller surface for the hostile text the page renders: no memory
/// both writable and executable in the web process (Safari's Lockdown Mode turns the JIT off
/// for that reason). Set whatever the rendering; a value the user set wins.
const JSC_JIT: (&str, &str) = ("JSC_useJIT", "false");
/// GTK 3 sets up GL for the X11 screen when it opens the display (GLX, to choose its visuals),
/// which loads the GL driver into the app's process: Mesa's links LLVM, whose relocated pages
/// alone are 8 MB of private memory. The window draws with cairo when the page renders with
/// the CPU; nothing in it uses GTK's GL.
const GDK_GL: (&str, &str) = ("GDK_GL", "disable");
/// glvnd, the EGL loader of current Linux distributions, reads which EGL drivers there are once
/// per process, the first time a display is asked for: from this variable if it is set, else
/// from its vendor folders. See [`no_egl_in_this_process`].
const EGL_VENDORS: &str = "__EGL_VENDOR_LIBRARY_FILENAMES";
/// The variables set when the app renders with the CPU, with their value.
const CPU_RENDERING: [(&str, &str); 3] = [(COMPOSITING, "1"), (DMABUF, "1"), GDK_GL];

fn accelerated(opt_out: Option<&OsStr>) -> bool {
    opt_out.is_some_and(|v| v == "1")
}

/// The variables to set, with their value: the CPU rendering ones unless the user opted out,
/// and [`JSC_RAM`]; never one the user set themselves (`current` reads the environment).
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
        .copied()
        .chain([JSC_RAM, JSC_JIT])
        .filter(|(name, _)| current(name).is_none())
        .collect()
}

/// Called first thing in `run`, before any thread or GTK exists: the settings below reach a
/// page only after WebKit created it, and by then the web process has already set up
/// accelerated compositing (a software GL context it keeps: ~6 MB). The variables turn that
/// (and the DMA-BUF renderer, and GTK's GL) off from the start; a value the user set wins.
/// Returns whether the app's own process was kept from loading an EGL driver
/// ([`no_egl_in_this_process`]; only when rendering with the CPU).
#[cfg(target_os = "linux")]
pub fn prepare_env() -> bool {
    let opt_out = std::env::var_os(OPT_OUT);
    let overrides = env_overrides(opt_out.as_deref(), |n| std::env::var_os(n));
    for (name, value) in &overrides {
        std::env::set_var(name, value);
    }
    let _ = SET_FOR_THIS_PROCESS.set(overrides.iter().map(|(name, _)| *name).collect());
    !accelerated(opt_out.as_deref())
        && std::env::var_os(EGL_VENDORS).is_none()
        && no_egl_in_this_process()
}

/// WebKit's UI process asks EGL for a display when it starts the web process, only to find the
/// GPU's render node to pass on (`drmMainDevice`); the web process uses that node only for GPU
/// buffers (accelerated compositing, WebGL, video), which CPU rendering never creates. The
/// display loads the GL driver into the app's process: under Xvfb Mesa's, with LLVM. Kept out,
/// with GTK's GL ([`GDK_GL`]): at idle 10.6 MB less anonymous memory and 18 MB less PSS for the
/// app and its WebKit processes, the page navigating ~40 ms sooner (BENCHMARKS.md, "No GL in
/// the app's process"). WebKit then passes on no render node, as it does for software GL.
///
/// How: an empty driver list makes glvnd load no driver; a display asked for now makes it read
/// that list for this process's lifetime; the variable is removed again before any other
/// process starts, so the web process loads its driver (it needs one: WebKit aborts without an
/// EGL display) and engines never see it. Not WebKit's `WEBKIT_WEB_RENDER_DEVICE_FILE`, which
/// skips the query too: in WebKitGTK 2.50 the query is also what starts WebKit's reading of
/// GTK's settings, and without it the page never learns the dark theme or the font settings.
/// Without glvnd (or libEGL), nothing changes. Must run before any other thread exists (it
/// sets and removes a variable).
#[cfg(target_os = "linux")]
fn no_egl_in_this_process() -> bool {
    use std::ffi::c_void;
    type GetDisplay = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
    std::env::set_var(EGL_VENDORS, "");
    // SAFETY: dlopen and dlsym with NUL-terminated names; the symbol is libEGL's
    // `EGLDisplay eglGetDisplay(EGLNativeDisplayType)`, called with EGL_DEFAULT_DISPLAY (null).
    // The library is never closed: unloading it would forget the list read now.
    let no_display = unsafe {
        let egl = libc::dlopen(c"libEGL.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        let symbol = if egl.is_null() {
            std::ptr::null_mut()
        } else {
            libc::dlsym(egl, c"eglGetDisplay".as_ptr())
        };
        !symbol.is_null() && {
            let get_display = std::mem::transmute::<*mut c_void, GetDisplay>(symbol);
            get_display(std::ptr::null_mut()).is_null()
        }
    };
    std::env::remove_var(EGL_VENDORS);
    no_display
}

#[cfg(not(target_os = "linux"))]
pub fn prepare_env() -> bool {
    false
}

/// The variables [`prepare_env`] set (never one the user had set).
static SET_FOR_THIS_PROCESS: OnceLock<Vec<&'static str>> = OnceLock::new();

/// `cmd` without the variables the app set for its own WebKit and GTK: a program it starts for
/// the user (the browser for a link, the file manager) is the user's, and must not come up
/// without compositing, GL or its JavaScript heap because it was started from here (a WebKit
/// browser would read the same variables). What the user set themselves is passed on.
pub fn for_the_user(cmd: &mut std::process::Command) -> &mut std::process::Command {
    for name in SET_FOR_THIS_PROCESS
        .get()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        cmd.env_remove(name);
    }
    cmd
}

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

/// `AGENTDESK_WEB_MEMORY_MB=<n>`: the web process's memory limit in MB, of which
/// [`CONSERVATIVE`] and [`STRICT`] are fractions; `0` keeps WebKit's own settings (a limit of
/// the machine's RAM up to 3 GB, measured every 30 s: on any real machine it never releases
/// anything).
const LIMIT_VAR: &str = "AGENTDESK_WEB_MEMORY_MB";
/// 64 MB. WebKit counts the process's own anonymous pages (not the shared libraries' written
/// ones): ~32 MB for the idle page, 50-60 MB while eight sessions stream. What the page gains
/// while text streams is mostly free memory its allocators keep after each burst (BENCHMARKS.md,
/// "Hours, not minutes": the page's live objects barely grow), which WebKit gives back only when
/// its memory-pressure handler says so. 30-minute soaks, the web process's low points from
/// minute 5 to 30: WebKit's settings 87.4 → 98.6 MB; a limit of 128 MB 80.7 → 88.8; this one
/// 65.9 → 71.8, flat from minute 15, for ~0.03 of a core more (the window's CPU 0.14 cores).
const LIMIT_MB: u32 = 64;
/// Above half the limit (32 MB) WebKit releases what costs nothing to rebuild: dead cached
/// resources, font, glyph and style caches, and its allocators' free pages.
const CONSERVATIVE: f64 = 0.5;
/// Above three quarters (48 MB) it also drops compiled JavaScript and collects: what a page
/// streaming answers reaches, so it starts each stretch from its live objects again.
const STRICT: f64 = 0.75;
/// How often the web process compares its memory to the thresholds (WebKit's default: 30 s);
/// one measurement reads `/proc/self/smaps`, ~15 ms.
const POLL_SECONDS: f64 = 10.0;
// WebKit refuses (and keeps its 0.33 and 0.5) a threshold outside 0 < conservative < strict < 1.
const _: () = assert!(0.0 < CONSERVATIVE && CONSERVATIVE < STRICT && STRICT < 1.0);

/// The limit to give the web process: [`LIMIT_MB`] unless `AGENTDESK_WEB_MEMORY_MB` says
/// otherwise (`None`: WebKit's own settings).
fn web_memory_limit(var: Option<&OsStr>) -> Option<u32> {
    match var.and_then(OsStr::to_str).map(str::parse::<u32>) {
        None | Some(Err(_)) => Some(LIMIT_MB),
        Some(Ok(0)) => None,
        Some(Ok(mb)) => Some(mb),
    }
}

/// Gives every web process the app starts WebKit's memory-pressure settings with
/// [`web_memory_limit`]. Call on the main thread before the window exists.
///
/// Why a hook and not a setting: WebKitGTK takes these settings only when a `WebKitWebContext`
/// is constructed (a construct-only property), and the context is built inside wry, which
/// passes none. GObject sets every construct-only property during construction, the unset ones
/// to their default (here: none), through the class's `set_property`; the app wraps that
/// function of the `WebKitWebContext` class so that a missing value becomes the app's settings.
/// A value someone did pass is left alone. Returns whether the hook is in place.
#[cfg(target_os = "linux")]
pub fn limit_web_process_memory() -> bool {
    match web_memory_limit(std::env::var_os(LIMIT_VAR).as_deref()) {
        Some(mb) => pressure::install(mb),
        None => false,
    }
}

#[cfg(not(target_os = "linux"))]
pub fn limit_web_process_memory() -> bool {
    false
}

/// Whether a web context has been built with the app's memory-pressure settings.
#[cfg(target_os = "linux")]
pub fn web_process_memory_limited() -> bool {
    pressure::applied()
}

#[cfg(not(target_os = "linux"))]
pub fn web_process_memory_limited() -> bool {
    false
}

#[cfg(target_os = "linux")]
mod pressure {
    use std::ffi::CStr;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::OnceLock;

    use webkit2gtk::glib::translate::{from_glib_full, IntoGlib, ToGlibPtr};
    use webkit2gtk::glib::{gobject_ffi, StaticType, ToValue};
    use webkit2gtk::{MemoryPressureSettings, WebContext};

    type SetProperty = unsafe extern "C" fn(
        *mut gobject_ffi::GObject,
        u32,
        *mut gobject_ffi::GValue,
        *mut gobject_ffi::GParamSpec,
    );

    const PROPERTY: &[u8] = b"memory-pressure-settings";
    /// The class's own `set_property`, called for everything.
    static ORIGINAL: OnceLock<SetProperty> = OnceLock::new();
    static LIMIT_MB: AtomicU32 = AtomicU32::new(0);
    static APPLIED: AtomicBool = AtomicBool::new(false);

    pub(super) fn install(limit_mb: u32) -> bool {
        LIMIT_MB.store(limit_mb, Ordering::Relaxed);
        // SAFETY: `g_type_class_ref` returns the class structure of a GObject type (never
        // freed: the reference taken here is kept); its `set_property` slot is replaced once,
        // on the main thread, before any web context exists (`run`'s setup), and the
        // replacement calls the original for every property.
        unsafe {
            let class = gobject_ffi::g_type_class_ref(WebContext::static_type().into_glib())
                .cast::<gobject_ffi::GObjectClass>();
            let Some(class) = class.as_mut() else {
                return false;
            };
            let Some(original) = class.set_property else {
                return false;
            };
            if ORIGINAL.set(original).is_ok() {
                class.set_property = Some(set_property);
            }
        }
        true
    }

    pub(super) fn applied() -> bool {
        APPLIED.load(Ordering::Relaxed)
    }

    pub(super) fn settings(limit_mb: u32) -> MemoryPressureSettings {
        // Not `MemoryPressureSettings::new`: it asserts GTK is initialised on this thread, and
        // a panic here, called from C, would abort the app. Creating settings needs nothing.
        // SAFETY: a new boxed value, owned by the wrapper from here on.
        let mut settings: MemoryPressureSettings =
            unsafe { from_glib_full(webkit2gtk::ffi::webkit_memory_pressure_settings_new()) };
        settings.set_memory_limit(limit_mb);
        // WebKit checks conservative < strict when each is set: strict first.
        settings.set_strict_threshold(super::STRICT);
        settings.set_conservative_threshold(super::CONSERVATIVE);
        settings.set_poll_interval(super::POLL_SECONDS);
        settings
    }

    unsafe extern "C" fn set_property(
        object: *mut gobject_ffi::GObject,
        id: u32,
        // `const GValue *` in C; the binding says `*mut`, nothing writes through it.
        value: *mut gobject_ffi::GValue,
        pspec: *mut gobject_ffi::GParamSpec,
    ) {
        let Some(original) = ORIGINAL.get() else {
            return;
        };
        // SAFETY: GObject passes a valid pspec (its name a static C string) and value.
        let ours = unsafe {
            CStr::from_ptr((*pspec).name).to_bytes() == PROPERTY
                && gobject_ffi::g_value_get_boxed(value).is_null()
        };
        if !ours {
            // SAFETY: the arguments GObject gave, unchanged.
            return unsafe { original(object, id, value, pspec) };
        }
        let value = settings(LIMIT_MB.load(Ordering::Relaxed)).to_value();
        // SAFETY: a value of the property's own type (the boxed settings), alive for the call;
        // WebKit copies what it keeps.
        let pointer: *const gobject_ffi::GValue = value.to_glib_none().0;
        unsafe { original(object, id, pointer.cast_mut(), pspec) };
        APPLIED.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_process_gets_a_memory_limit_unless_the_user_decided() {
        assert_eq!(web_memory_limit(None), Some(64));
        assert_eq!(web_memory_limit(Some(OsStr::new("256"))), Some(256));
        assert_eq!(web_memory_limit(Some(OsStr::new("0"))), None);
        // Not a number: the app's own limit, not WebKit's 3 GB.
        assert_eq!(web_memory_limit(Some(OsStr::new("lots"))), Some(64));
    }

    /// WebKit takes every value (it refuses a conservative threshold not below the strict one
    /// at the moment it is set, keeping its own).
    #[cfg(target_os = "linux")]
    #[test]
    fn webkit_takes_the_settings_as_given() {
        let mut settings = pressure::settings(LIMIT_MB);
        assert_eq!(settings.memory_limit(), 64);
        assert_eq!(settings.conservative_threshold(), CONSERVATIVE);
        assert_eq!(settings.strict_threshold(), STRICT);
        assert_eq!(settings.poll_interval(), POLL_SECONDS);
        assert_eq!(settings.kill_threshold(), 0.0, "the page is never killed");
    }

    #[test]
    fn cpu_rendering_and_a_small_heap_are_chosen_unless_the_user_decided() {
        let unset = |_: &str| None;
        let all = vec![
            (COMPOSITING, "1"),
            (DMABUF, "1"),
            ("GDK_GL", "disable"),
            JSC_RAM,
            JSC_JIT,
        ];
        assert_eq!(env_overrides(None, unset), all);
        assert_eq!(DMABUF, "WEBKIT_DISABLE_DMABUF_RENDERER");
        assert_eq!(JSC_RAM, ("JSC_forceRAMSize", "536870912"));
        assert_eq!(JSC_JIT, ("JSC_useJIT", "false"));
        // A value the user set wins, whatever it is; the other variables are still set.
        for (i, (name, _)) in all.iter().enumerate() {
            let user = |n: &str| (n == *name).then(|| "0".into());
            let mut rest = all.clone();
            rest.remove(i);
            assert_eq!(env_overrides(None, user), rest, "{name} set by the user");
        }
        // Opting out keeps WebKit's rendering defaults (the heap and the JIT are not about the
        // GPU); any other value of the opt-out does not.
        assert_eq!(
            env_overrides(Some(OsStr::new("1")), unset),
            vec![JSC_RAM, JSC_JIT]
        );
        assert_eq!(env_overrides(Some(OsStr::new("0")), unset), all);
    }
}
