#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

#[test]
fn parses_real_version_strings() {
    let codex = EngineVersion::parse("codex-cli 0.169.0\n").unwrap();
    assert_eq!((codex.major, codex.minor, codex.patch), (0, 169, 0));
    assert_eq!(codex.raw, "codex-cli 0.169.0");
    let claude = EngineVersion::parse("2.1.328 (Claude Code)").unwrap();
    assert_eq!(claude.to_string(), "2.1.328");
    assert_eq!(
        EngineVersion::parse("tool v1.2.3-beta.1")
            .unwrap()
            .to_string(),
        "1.2.3"
    );
    assert!(EngineVersion::parse("no version here").is_none());
    assert!(EngineVersion::parse("").is_none());
}

#[test]
fn not_found_says_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let err = Discovery::new(EngineProgram::CODEX)
        .path_var(Some(dir.path().as_os_str().to_owned()))
        .search_dirs(vec![dir.path().join("nope")])
        .find()
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("codex not found — install with `npm install -g @openai/codex`"),
        "{msg}"
    );
    assert!(matches!(err, EngineError::NotFound { ref searched, .. } if searched.len() == 2));
}

#[test]
fn bad_override_is_an_error_not_a_fallback() {
    let err = Discovery::new(EngineProgram::CLAUDE)
        .override_path(Some("/nonexistent/claude".into()))
        .find()
        .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/claude"), "{err}");
}

#[test]
fn default_dirs_cover_the_usual_places() {
    let host = HostDirs {
        home: Some("/home/u".into()),
        npm_prefix: Some("/home/u/.npm-prefix".into()),
        ..HostDirs::default()
    };
    let dirs = default_install_dirs(&host);
    if cfg!(unix) {
        for want in [
            "/home/u/.npm-prefix/bin",
            "/home/u/.local/bin",
            "/home/u/.npm-global/bin",
            "/opt/homebrew/bin",
            "/usr/local/bin",
            "/home/u/.volta/bin",
            "/home/u/.asdf/shims",
        ] {
            assert!(dirs.contains(&PathBuf::from(want)), "missing {want}");
        }
    }
}

#[cfg(unix)]
mod unix {
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    use super::*;

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn order_is_override_then_path_then_install_dirs() {
        let path_dir = tempfile::tempdir().unwrap();
        let install_dir = tempfile::tempdir().unwrap();
        let in_install = script(install_dir.path(), "codex", "true");
        let base = Discovery::new(EngineProgram::CODEX)
            .path_var(Some(path_dir.path().as_os_str().to_owned()))
            .search_dirs(vec![install_dir.path().to_owned()]);
        let found = base.find().unwrap();
        assert_eq!(
            (found.path.clone(), found.via),
            (in_install.clone(), FoundVia::InstallDir)
        );

        // Not executable → skipped.
        std::fs::write(path_dir.path().join("codex"), "x").unwrap();
        assert_eq!(base.find().unwrap().via, FoundVia::InstallDir);
        let in_path = script(path_dir.path(), "codex", "true");
        let found = base.find().unwrap();
        assert_eq!((found.path, found.via), (in_path, FoundVia::Path));

        let found = base
            .clone()
            .override_path(Some(in_install.clone()))
            .find()
            .unwrap();
        assert_eq!((found.path, found.via), (in_install, FoundVia::Override));
    }

    #[tokio::test]
    async fn probe_parses_output_and_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let ok = script(dir.path(), "claude", "echo '2.1.328 (Claude Code)'");
        let v = probe_version(&Executable::new(ok, FoundVia::Path), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(v.to_string(), "2.1.328");

        let slow = script(dir.path(), "slow", "exec sleep 30");
        let err = probe_version(
            &Executable::new(slow, FoundVia::Path),
            Duration::from_millis(200),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, EngineError::Timeout { .. }), "{err}");

        let bad = script(dir.path(), "bad", "echo 'boom' >&2; exit 2");
        let err = probe_version(
            &Executable::new(bad, FoundVia::Path),
            Duration::from_secs(5),
        )
        .await
        .unwrap_err();
        assert!(
            err.to_string().contains("exit code 2") && err.to_string().contains("boom"),
            "{err}"
        );
    }
}

#[test]
fn versions_outside_the_supported_range_are_refused_with_what_to_install() {
    let v = |s: &str| EngineVersion::parse(s).unwrap();
    let exe = Path::new("/opt/x/codex");
    for ok in [
        "codex-cli 0.169.0",
        "codex-cli 0.170.2",
        "codex-cli 0.999.0",
    ] {
        assert!(
            EngineProgram::CODEX.check_version(exe, &v(ok)).is_ok(),
            "{ok}"
        );
    }
    for bad in ["codex-cli 0.1.0", "codex-cli 0.168.9", "codex-cli 1.0.0"] {
        let err = EngineProgram::CODEX
            .check_version(exe, &v(bad))
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, EngineError::UnsupportedVersion { .. }),
            "{bad}"
        );
        assert!(msg.contains("/opt/x/codex"), "{msg}");
        assert!(msg.contains(">= 0.169.0 and < 1.0.0"), "{msg}");
        assert!(
            msg.contains("npm install -g @openai/codex@0.169.0"),
            "{msg}"
        );
    }
    for ok in [
        "2.1.328 (Claude Code)",
        "2.1.0 (Claude Code)",
        "2.9.1 (Claude Code)",
    ] {
        assert!(
            EngineProgram::CLAUDE.check_version(exe, &v(ok)).is_ok(),
            "{ok}"
        );
    }
    for bad in [
        "0.5.0 (Claude Code)",
        "2.0.77 (Claude Code)",
        "3.0.0 (Claude Code)",
    ] {
        let msg = EngineProgram::CLAUDE
            .check_version(exe, &v(bad))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("@anthropic-ai/claude-code@2.1.328"), "{msg}");
    }
}

#[cfg(unix)]
mod engine_folder {
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    use super::*;

    fn executable(path: &Path, body: &str) {
        std::fs::write(path, body).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// An nvm install: `claude` is a `#!/usr/bin/env <node>` script and that node sits next
    /// to it, on no PATH. Before the engine's folder went first on its PATH: exit 127.
    #[tokio::test]
    async fn an_engine_runs_on_the_interpreter_installed_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        executable(
            &dir.path().join("agentdesk-test-beside-node"),
            "#!/bin/sh\nexec /bin/sh \"$@\"\n",
        );
        let claude = dir.path().join("claude");
        executable(
            &claude,
            "#!/usr/bin/env agentdesk-test-beside-node\necho '2.1.328 (Claude Code)'\n",
        );
        let exe = Executable::new(claude, FoundVia::InstallDir);
        assert_eq!(exe.path_first, vec![dir.path().to_path_buf()]);
        let v = probe_version(&exe, Duration::from_secs(5)).await.unwrap();
        assert_eq!(v.to_string(), "2.1.328");
    }
}

mod windows_shims {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shims");

    fn put(root: &Path, rel: &str, text: &str) -> PathBuf {
        let path = rel.split('/').fold(root.to_path_buf(), |p, c| p.join(c));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `%APPDATA%\npm` with npm's claude shim and the script, node on PATH.
    #[test]
    fn an_npm_shim_is_launched_as_node_and_its_script_never_through_cmd() {
        let dir = tempfile::tempdir().unwrap();
        let shim_text =
            std::fs::read_to_string(Path::new(FIXTURES).join("npm-claude.cmd")).unwrap();
        let shim = put(dir.path(), "npm/claude.cmd", &shim_text);
        let script = put(
            dir.path(),
            "npm/node_modules/@anthropic-ai/claude-code/cli.js",
            "",
        );
        let node = put(dir.path(), "nodejs/node.exe", "");
        let path_var = std::env::join_paths([node.parent().unwrap()]).unwrap();
        let exe = Executable::resolve_shim(shim.clone(), FoundVia::Path, Some(&path_var));
        assert_eq!(exe.path, shim);
        assert_eq!(exe.launch_program, node);
        assert_eq!(exe.launch_prefix_args, vec![script.into_os_string()]);
        assert_eq!(
            exe.path_first,
            vec![dir.path().join("npm"), dir.path().join("nodejs")]
        );
        // What the engine is then started with: no cmd.exe, the script first, then its args.
        let spec = crate::process::ProcessSpec::for_executable(&exe).arg("-p");
        assert_eq!(spec.program, node);
        assert_eq!(spec.label, "claude");
        assert_eq!(spec.args.last().unwrap(), "-p");
        assert!(!spec.args.iter().any(|a| a == "/C"));
        assert_eq!(spec.path_first, exe.path_first);
    }

    #[test]
    fn codexs_shim_runs_the_native_exe_with_codex_js_variables() {
        let dir = tempfile::tempdir().unwrap();
        let shim_text = std::fs::read_to_string(Path::new(FIXTURES).join("npm-codex.cmd")).unwrap();
        let shim = put(dir.path(), "npm/codex.cmd", &shim_text);
        put(
            dir.path(),
            "npm/node_modules/@openai/codex/bin/codex.js",
            "",
        );
        let (package, triple) = if cfg!(target_arch = "aarch64") {
            ("codex-win32-arm64", "aarch64-pc-windows-msvc")
        } else {
            ("codex-win32-x64", "x86_64-pc-windows-msvc")
        };
        let native = put(
            dir.path(),
            &format!("npm/node_modules/@openai/{package}/vendor/{triple}/bin/codex.exe"),
            "",
        );
        let exe = Executable::resolve_shim(shim, FoundVia::Path, None);
        assert_eq!(exe.launch_program, native);
        let spec = crate::process::ProcessSpec::for_executable(&exe).arg("app-server");
        assert_eq!(spec.args, vec![std::ffi::OsString::from("app-server")]);
        assert!(spec
            .env
            .iter()
            .any(|(k, v)| k == "CODEX_MANAGED_BY_NPM" && v == "1"));
    }

    #[test]
    fn a_shim_that_cannot_be_read_is_spawned_itself_not_through_cmd_c() {
        let dir = tempfile::tempdir().unwrap();
        let shim = put(dir.path(), "tools/codex.cmd", "@echo off\r\nrem custom\r\n");
        let exe = Executable::resolve_shim(shim.clone(), FoundVia::Path, None);
        assert_eq!(exe.launch_program, shim);
        assert!(exe.launch_prefix_args.is_empty());
    }

    /// Off Windows a `.cmd` file is just a file: spawned as it is.
    #[cfg(not(windows))]
    #[test]
    fn only_windows_reads_shims() {
        let exe = Executable::new(PathBuf::from("/x/codex.cmd"), FoundVia::Path);
        assert_eq!(exe.launch_program, PathBuf::from("/x/codex.cmd"));
    }
}

/// Issue 20 item 10: on Windows a file is a program by its extension, as `PATHEXT` lists them
/// (case-insensitive, with or without the dot), Windows' own default list when it is unset.
#[test]
fn windows_programs_are_told_by_pathext() {
    let p = |s: &str| PathBuf::from(s);
    let listed = Some(".COM;.EXE;.BAT;.CMD;.VBS;.JS;.PS1");
    assert!(runs_by_extension(&p("C:/x/codex.exe"), listed));
    assert!(runs_by_extension(&p("C:/x/codex.CMD"), listed));
    assert!(runs_by_extension(&p("C:/x/claude.Exe"), None));
    assert!(runs_by_extension(&p("C:/x/claude.bat"), Some("")));
    assert!(!runs_by_extension(&p("C:/x/notes.txt"), listed));
    assert!(!runs_by_extension(&p("C:/x/codex"), listed));
    assert!(!runs_by_extension(&p("C:/x/run.ps1"), None));
    assert!(runs_by_extension(&p("C:/x/run.ps1"), Some("exe;ps1")));
    assert!(
        !runs_by_extension(&p("C:/x/.exe"), listed),
        "a dot file has no extension"
    );
}
