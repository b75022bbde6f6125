fn main() {
    // The built UI is embedded by `tauri::generate_context!`: rebuild the shell whenever it
    // changes, or a fresh `npm run build` would ship inside a stale binary.
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::build();
}
