//! Engine versions outside the supported range (codex >= 0.169.0 < 1.0.0, claude >= 2.1.0
//! < 3.0.0) are named by `doctor` and refused before a run, with what to install — through
//! the core (`Desk`) and through the CLI binary. The old engines are tiny shell scripts that
//! answer `--version` like an old release and fail anything else the way codex 0.1.0 does
//! (`unrecognized subcommand 'app-server'`).
//!
//! Also, the CLI's profile views: a profile that lets the workspace configure its own agent
//! (Claude project/local settings, Codex `.codex/config.toml`) is shown with a warning.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use agentdesk_core::{Desk, EngineSettings, NewSession};
use agentdesk_engine::EngineError;
use agentdesk_protocol::ui::{Engine, RunStatus};
use agentdesk_tests::real::cli_output;

const SUITE: &str = "engine versions suite";
const STEP: Duration = Duration::from_secs(60);

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn root(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("engine_versions/{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("work")).unwrap();
    root
}

/// An executable script named `name` in `dir` that prints `version` for `--version` and
/// otherwise fails like a release without `app-server` (and leaves a marker if it ever runs
/// as an engine).
fn old_engine(dir: &Path, name: &str, version: &str) -> PathBuf {
    let path = dir.join(name);
    let marker = dir.join(format!("{name}-started"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '{version}'; exit 0; fi\n\
             touch '{}'\necho \"error: unrecognized subcommand '$1'\" >&2\nexit 2\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

const OLD_CODEX: &str = "codex-cli 0.1.0";
const OLD_CLAUDE: &str = "0.5.0 (Claude Code)";

#[tokio::test]
async fn desk_refuses_a_run_on_an_old_engine_with_what_to_install() {
    let root = root("desk");
    let codex = old_engine(&root, "codex", OLD_CODEX);
    let claude = old_engine(&root, "claude", OLD_CLAUDE);
    let desk = Desk::open(&root.join("data")).await.unwrap();
    desk.set_engine_settings(
        &EngineSettings::default()
            .with_bin("codex", codex.clone())
            .with_bin("claude", claude.clone()),
    )
    .await
    .unwrap();
    let ws = desk
        .add_workspace(&s(&root.join("work")), None)
        .await
        .unwrap();
    for (engine, bin, found, install) in [
        (
            Engine::Codex,
            &codex,
            "0.1.0",
            "npm install -g @openai/codex@0.169.0",
        ),
        (
            Engine::Claude,
            &claude,
            "0.5.0",
            "npm install -g @anthropic-ai/claude-code@2.1.328",
        ),
    ] {
        // The check itself: a typed error naming the executable, the version and the fix.
        let err = desk.check_engine(engine).await.unwrap_err();
        assert!(
            matches!(
                err,
                agentdesk_core::CoreError::Engine(EngineError::UnsupportedVersion { .. })
            ),
            "{err:?}"
        );
        // A run is refused before the engine starts.
        let session = desk
            .create_session(&NewSession {
                engine: Some(engine),
                ..NewSession::new(ws.id.clone())
            })
            .await
            .unwrap();
        let run = desk.send_message(&session.id, "hello", &[]).await.unwrap();
        let run = desk.wait_run(&run.id, STEP).await.unwrap();
        assert_eq!(run.status, RunStatus::Failed, "{run:?}");
        let error = run.error.unwrap_or_default();
        for want in [found, install, &s(bin), "not supported"] {
            assert!(error.contains(want), "{want:?} missing in {error:?}");
        }
        assert!(
            !root.join(format!("{}-started", engine.as_str())).exists(),
            "the old {} was started as an engine",
            engine.as_str()
        );
    }
    desk.shutdown().await;
    desk.close().await;
}

fn cli_bin() -> Option<PathBuf> {
    agentdesk_tests::real::cli_bin(env!("CARGO_TARGET_TMPDIR"), SUITE)
}

async fn cli(bin: &Path, root: &Path, codex: &Path, claude: &Path, args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(bin);
    command
        .args(args)
        .env("AGENTDESK_DATA_DIR", root.join("data"))
        .env("AGENTDESK_CODEX_BIN", codex)
        .env("AGENTDESK_CLAUDE_BIN", claude)
        .env_remove("CLAUDECODE")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    cli_output(command, args, STEP).await
}

#[tokio::test]
async fn cli_doctor_names_an_old_engine_and_run_refuses_it() {
    let Some(bin) = cli_bin() else { return };
    let root = root("cli");
    let codex = old_engine(&root, "codex", OLD_CODEX);
    let claude = old_engine(&root, "claude", OLD_CLAUDE);

    let out = cli(&bin, &root, &codex, &claude, &["doctor", "--no-login"]).await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    // Both named with their version and what to install; an unusable engine fails doctor
    // with the engine exit code.
    assert_eq!(out.status.code(), Some(6), "{stdout}{stderr}");
    for want in [
        OLD_CODEX,
        OLD_CLAUDE,
        "npm install -g @openai/codex@0.169.0",
        "npm install -g @anthropic-ai/claude-code@2.1.328",
    ] {
        assert!(stdout.contains(want), "{want:?} missing in {stdout}");
    }
    // The same error (and code) a run is refused with.
    assert!(
        stderr.contains("not supported") && stderr.contains("[engine_version_unsupported]"),
        "{stderr}"
    );
    let json = cli(
        &bin,
        &root,
        &codex,
        &claude,
        &["doctor", "--no-login", "--json"],
    )
    .await;
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["engines"][0]["unsupported"], true, "{report}");
    assert_eq!(report["engines"][1]["unsupported"], true, "{report}");

    for engine in ["codex", "claude"] {
        let out = cli(
            &bin,
            &root,
            &codex,
            &claude,
            &[
                "run",
                "--workspace",
                &s(&root.join("work")),
                "--engine",
                engine,
                "--approve",
                "deny",
                "hello",
            ],
        )
        .await;
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{all}");
        assert!(all.contains("not supported"), "{all}");
        let install = if engine == "codex" {
            "npm install -g @openai/codex@0.169.0"
        } else {
            "npm install -g @anthropic-ai/claude-code@2.1.328"
        };
        assert!(all.contains(install), "{all}");
        assert!(
            !all.contains("unrecognized subcommand"),
            "the old engine was started: {all}"
        );
        assert!(!root.join(format!("{engine}-started")).exists());
    }
}

#[tokio::test]
async fn cli_profile_views_warn_about_workspace_settings() {
    let Some(bin) = cli_bin() else { return };
    let root = root("warn");
    let (codex, claude) = (root.join("none"), root.join("none"));
    let w = s(&root.join("work"));
    let add = |name: &'static str, engine: &'static str, opts: &'static str| {
        let w = w.clone();
        let (bin, root, codex, claude) = (bin.clone(), root.clone(), codex.clone(), claude.clone());
        async move {
            let args = [
                "profile",
                "add",
                "--workspace",
                &w,
                name,
                "--engine",
                engine,
                "--engine-options",
                opts,
            ];
            let out = cli(&bin, &root, &codex, &claude, &args).await;
            assert!(out.status.success());
        }
    };
    add("safe", "claude", "{}").await;
    add(
        "repo-claude",
        "claude",
        r#"{"settingSources":["user","project"]}"#,
    )
    .await;
    add("repo-codex", "codex", r#"{"trustProjectConfig":true}"#).await;
    let list = cli(
        &bin,
        &root,
        &codex,
        &claude,
        &["profile", "list", "--workspace", &w],
    )
    .await;
    let text = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(text.matches("warning:").count(), 2, "{text}");
    let show = |name: &'static str| {
        let w = w.clone();
        let (bin, root, codex, claude) = (bin.clone(), root.clone(), codex.clone(), claude.clone());
        async move {
            let out = cli(
                &bin,
                &root,
                &codex,
                &claude,
                &["profile", "show", "--workspace", &w, name],
            )
            .await;
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    assert!(!show("safe").await.contains("warning:"));
    let claude_view = show("repo-claude").await;
    assert!(
        claude_view.contains("warning:") && claude_view.contains("(project)"),
        "{claude_view}"
    );
    let codex_view = show("repo-codex").await;
    assert!(
        codex_view.contains("warning:") && codex_view.contains(".codex/config.toml"),
        "{codex_view}"
    );
}
