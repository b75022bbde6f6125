#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;

use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shims");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

fn parse(name: &str) -> ShimTarget {
    parse_cmd_shim(&fixture(name), Path::new("/npm")).unwrap()
}

fn p(parts: &[&str]) -> PathBuf {
    parts.iter().collect()
}

#[test]
fn every_recorded_shim_uses_crlf_like_the_real_ones() {
    // Parsing must not depend on it, but the fixtures should be what Windows has.
    for entry in std::fs::read_dir(FIXTURES).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(text.contains("\r\n"));
    }
}

#[test]
fn npm_7_shims_name_node_and_the_packages_script() {
    let codex = parse("npm-codex.cmd");
    assert_eq!(codex.interpreter.as_deref(), Some("node"));
    assert_eq!(codex.interpreter_path, None);
    assert!(codex.interpreter_args.is_empty() && codex.target_args.is_empty());
    assert_eq!(
        codex.target,
        p(&[
            "/npm",
            "node_modules",
            "@openai",
            "codex",
            "bin",
            "codex.js"
        ])
    );
    let claude = parse("npm-claude.cmd");
    assert_eq!(
        claude.target,
        p(&[
            "/npm",
            "node_modules",
            "@anthropic-ai",
            "claude-code",
            "cli.js"
        ])
    );
}

#[test]
fn npm_6_yarn_and_pnpm_shims_are_read_too() {
    let npm6 = parse("npm6-claude.cmd");
    assert_eq!(npm6.interpreter.as_deref(), Some("node"));
    assert_eq!(
        npm6.target,
        p(&[
            "/npm",
            "node_modules",
            "@anthropic-ai",
            "claude-code",
            "cli.js"
        ])
    );
    // `..` in the target is resolved against the shim's folder.
    let yarn = parse_cmd_shim(&fixture("yarn-claude.cmd"), &p(&["/yarn", "bin"])).unwrap();
    assert_eq!(
        yarn.target,
        p(&[
            "/yarn",
            "Data",
            "global",
            "node_modules",
            "@anthropic-ai",
            "claude-code",
            "cli.js"
        ])
    );
    let pnpm = parse("pnpm-codex.cmd");
    assert_eq!(
        pnpm.target,
        p(&[
            "/npm",
            "global",
            "5",
            "node_modules",
            "@openai",
            "codex",
            "bin",
            "codex.js"
        ])
    );
    let node_path = pnpm.node_path.unwrap();
    assert!(node_path.starts_with(r"C:\Users\John Doe\AppData\Local\pnpm\global\5"));
    assert!(!node_path.contains("%NODE_PATH%"), "{node_path}");
    // pnpm's own node and a package on another drive: absolute paths as written.
    let own = parse("pnpm-node-claude.cmd");
    assert_eq!(own.interpreter.as_deref(), Some("node"));
    assert_eq!(
        own.interpreter_path,
        Some(PathBuf::from(
            r"C:\Users\John Doe\AppData\Local\pnpm\nodejs\22.11.0\node.exe"
        ))
    );
    assert_eq!(
        own.target,
        PathBuf::from(r"D:\pnpm-global\5\node_modules\@anthropic-ai\claude-code\cli.js")
    );
}

#[test]
fn a_native_target_is_run_itself() {
    let native = parse("npm-claude-native.cmd");
    assert_eq!(native.interpreter, None);
    assert_eq!(
        native.target,
        p(&[
            "/npm",
            "node_modules",
            "@anthropic-ai",
            "claude-code",
            "bin",
            "claude.exe"
        ])
    );
}

#[test]
fn what_is_not_a_shim_is_not_read() {
    for text in [
        "",
        "@echo hello\r\n",
        "@ECHO off\r\nnode\r\n",
        "@node --version %*\r\n",
    ] {
        assert_eq!(parse_cmd_shim(text, Path::new("/npm")), None, "{text:?}");
    }
}

/// A fake `%APPDATA%\npm` with what the test puts in it.
struct Tree(tempfile::TempDir);

impl Tree {
    fn new() -> Tree {
        Tree(tempfile::tempdir().unwrap())
    }

    fn file(&self, rel: &[&str]) -> PathBuf {
        let path = rel
            .iter()
            .fold(self.0.path().to_path_buf(), |p, c| p.join(c));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "x").unwrap();
        path
    }

    fn shim(&self, fixture_name: &str, rel: &[&str]) -> (PathBuf, ShimTarget) {
        let path = self.file(rel);
        std::fs::write(&path, fixture(fixture_name)).unwrap();
        let target = parse_cmd_shim(&fixture(fixture_name), path.parent().unwrap()).unwrap();
        (path, target)
    }
}

fn os(p: &Path) -> OsString {
    p.as_os_str().to_owned()
}

#[test]
fn node_next_to_the_shim_runs_the_script_with_nothing_in_between() {
    let t = Tree::new();
    let (shim, target) = t.shim("npm-claude.cmd", &["npm", "claude.cmd"]);
    let script = t.file(&[
        "npm",
        "node_modules",
        "@anthropic-ai",
        "claude-code",
        "cli.js",
    ]);
    let node = t.file(&["npm", "node.exe"]);
    let launch = launch_for(&shim, &target, None).unwrap();
    assert_eq!(launch.program, node);
    assert_eq!(launch.prefix_args, vec![os(&script)]);
    assert_eq!(launch.path_first, vec![t.0.path().join("npm")]);
    assert!(launch.env.is_empty());
}

#[test]
fn otherwise_node_comes_from_path_and_its_folder_goes_on_path_too() {
    let t = Tree::new();
    let (shim, target) = t.shim("npm6-claude.cmd", &["npm", "claude.cmd"]);
    let script = t.file(&[
        "npm",
        "node_modules",
        "@anthropic-ai",
        "claude-code",
        "cli.js",
    ]);
    let node = t.file(&["Program Files", "nodejs", "node.exe"]);
    let path_var =
        std::env::join_paths([t.0.path().join("empty"), node.parent().unwrap().into()]).unwrap();
    let launch = launch_for(&shim, &target, Some(&path_var)).unwrap();
    assert_eq!(launch.program, node);
    assert_eq!(launch.prefix_args, vec![os(&script)]);
    assert_eq!(
        launch.path_first,
        vec![t.0.path().join("npm"), node.parent().unwrap().to_path_buf()]
    );
    // No node anywhere, or the script is gone: no launch (the caller runs the shim itself).
    assert_eq!(launch_for(&shim, &target, Some(OsStr::new(""))), None);
    std::fs::remove_file(&script).unwrap();
    assert_eq!(launch_for(&shim, &target, Some(&path_var)), None);
}

#[test]
fn codex_runs_its_native_exe_with_the_variables_codex_js_sets() {
    let t = Tree::new();
    let (shim, target) = t.shim("npm-codex.cmd", &["npm", "codex.cmd"]);
    t.file(&["npm", "node_modules", "@openai", "codex", "bin", "codex.js"]);
    let triple = if cfg!(target_arch = "aarch64") {
        ["codex-win32-arm64", "aarch64-pc-windows-msvc"]
    } else {
        ["codex-win32-x64", "x86_64-pc-windows-msvc"]
    };
    let exe = t.file(&[
        "npm",
        "node_modules",
        "@openai",
        triple[0],
        "vendor",
        triple[1],
        "bin",
        "codex.exe",
    ]);
    let launch = launch_for(&shim, &target, None).unwrap();
    assert_eq!(launch.program, exe);
    assert!(launch.prefix_args.is_empty());
    let package = t.0.path().join("npm/node_modules/@openai/codex");
    assert_eq!(
        launch.env,
        vec![
            ("CODEX_MANAGED_PACKAGE_ROOT".into(), os(&package)),
            ("CODEX_MANAGED_BY_NPM".into(), "1".into()),
        ]
    );

    // pnpm: NODE_PATH kept, codex.js's pnpm hint; an older release's vendor layout.
    let t = Tree::new();
    let (shim, target) = t.shim("pnpm-codex.cmd", &["pnpm", "codex.cmd"]);
    let store = [
        "pnpm",
        "global",
        "5",
        "node_modules",
        ".pnpm",
        "x",
        "node_modules",
        "@openai",
    ];
    let script: Vec<&str> = store
        .iter()
        .copied()
        .chain(["codex", "bin", "codex.js"])
        .collect();
    t.file(&script);
    let exe: Vec<&str> = store
        .iter()
        .copied()
        .chain(["codex", "vendor", triple[1], "codex", "codex.exe"])
        .collect();
    let exe = t.file(&exe);
    // The shim names the package through a link; here the store path stands in for it.
    let target = ShimTarget {
        target: script
            .iter()
            .fold(t.0.path().to_path_buf(), |p, c| p.join(c)),
        ..target
    };
    let launch = launch_for(&shim, &target, None).unwrap();
    assert_eq!(launch.program, exe);
    assert_eq!(launch.env[0].0, "NODE_PATH");
    assert_eq!(launch.env[2], ("CODEX_MANAGED_BY_PNPM".into(), "1".into()));
}

#[test]
fn codex_without_its_native_package_runs_codex_js_on_node() {
    let t = Tree::new();
    let (shim, target) = t.shim("npm-codex.cmd", &["npm", "codex.cmd"]);
    let script = t.file(&["npm", "node_modules", "@openai", "codex", "bin", "codex.js"]);
    let node = t.file(&["npm", "node.exe"]);
    let launch = launch_for(&shim, &target, None).unwrap();
    assert_eq!(
        (launch.program, launch.prefix_args),
        (node, vec![os(&script)])
    );
}

#[test]
fn a_native_target_or_pnpms_own_node_is_used_as_is() {
    let t = Tree::new();
    let (shim, target) = t.shim("npm-claude-native.cmd", &["npm", "claude.cmd"]);
    assert_eq!(launch_for(&shim, &target, None), None, "target missing");
    let exe = t.file(&[
        "npm",
        "node_modules",
        "@anthropic-ai",
        "claude-code",
        "bin",
        "claude.exe",
    ]);
    let launch = launch_for(&shim, &target, None).unwrap();
    assert_eq!(launch.program, exe);
    assert!(launch.prefix_args.is_empty());
}

#[test]
fn a_shim_around_a_batch_file_is_not_resolved() {
    let t = Tree::new();
    let (shim, target) = t.shim("pnpm-batch.cmd", &["npm", "x.cmd"]);
    t.file(&["npm", "src.bat"]);
    t.file(&["npm", "cmd.exe"]);
    assert_eq!(target.interpreter.as_deref(), Some("cmd"));
    assert_eq!(launch_for(&shim, &target, None), None);
}

/// A target whose first letters are not ASCII (`C:\Jö…`, `öffnen\…`) is read, never a
/// panic on a cut inside a character; the shim-folder variable is matched in any case.
#[test]
fn non_ascii_targets_and_any_case_shim_folder() {
    assert_eq!(after_shim_dir("Jö\\x.js"), None);
    assert_eq!(after_shim_dir("öff\\x.js"), None);
    assert_eq!(after_shim_dir("é"), None);
    // Byte 5 (`%dp0%`) and byte 6 (`%~dp0`) fall inside `ö`.
    assert_eq!(after_shim_dir("abcdö.js"), None);
    assert_eq!(after_shim_dir("abcdeö.js"), None);
    assert_eq!(after_shim_dir("%DP0%\\x.js"), Some("\\x.js"));
    assert_eq!(after_shim_dir("%~dp0\\ö.js"), Some("\\ö.js"));
    assert!(!is_relative_to_shim("C:\\Jöhn\\x.js"));
}
