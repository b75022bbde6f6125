fn main() {
    // The built UI is embedded by `tauri::generate_context!`: rebuild the shell whenever it
    // changes, or a fresh `npm run build` would ship inside a stale binary.
    println!("cargo:rerun-if-changed=../ui/dist");
    // `cfg(freedesktop)`: the desktops where Tauri uses GTK and notifications go over the
    // freedesktop D-Bus API (Linux and the BSDs). One name instead of the same five-OS list
    // repeated on every item that depends on it.
    println!("cargo::rustc-check-cfg=cfg(freedesktop)");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "dragonfly" | "freebsd" | "openbsd" | "netbsd"
    ) {
        println!("cargo:rustc-cfg=freedesktop");
    }
    tauri_build::build();
}
