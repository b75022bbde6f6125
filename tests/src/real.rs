//! What the real-engine suites share: finding the pinned engine binaries (or saying loudly
//! that a suite did not run), a test image, the profiles that point each engine at its fake
//! model server with its files kept under the test's folder, and an isolated environment for
//! opencode (the ACP agent the ACP suites run).

use std::path::{Path, PathBuf};

use agentdesk_engine::acp::{AcpOptions, AcpPreset, AcpProfile};
use agentdesk_engine::claude::ClaudeProfile;
use agentdesk_engine::codex::{CodexProfile, CustomProvider};
use agentdesk_protocol::codex::{AskForApproval, SandboxMode};

/// A 2×2 pure red PNG. Its image data is a zlib "stored" (uncompressed) block, so the test
/// below can read its pixels straight from the bytes. (The bytes used before were a 2×2 blue
/// PNG under this name.)
pub const RED_PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0,
    0, 0, 253, 212, 154, 115, 0, 0, 0, 25, 73, 68, 65, 84, 120, 1, 1, 14, 0, 241, 255, 0, 255, 0,
    0, 255, 0, 0, 0, 255, 0, 0, 255, 0, 0, 31, 238, 3, 253, 138, 46, 55, 221, 0, 0, 0, 0, 73, 69,
    78, 68, 174, 66, 96, 130,
];

/// [`RED_PNG`] in base64, as the Claude CLI forwards it to the model.
pub const RED_PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAGUlEQVR4AQEOAPH/AP8AAP8AAAD/AAD/AAAf7gP9ii433QAAAABJRU5ErkJggg==";

/// Say loudly that `suite` did not run because of `why` — and fail under `CI=true`, where a
/// skipped suite is a defect, not a pass.
pub fn skip_or_fail(suite: &str, why: &str) {
    eprintln!("\n!!!!!!!! SKIP ({why}): {suite} NOT run !!!!!!!!\n");
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{suite}: {why} — required in CI"
    );
}

/// The pinned engine binary named by the env var `var` (`CODEX_BIN`, `CLAUDE_BIN`; the test
/// command sets both). `None` after [`skip_or_fail`] when unset.
pub fn engine_bin(var: &str, suite: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    if found.is_none() {
        skip_or_fail(suite, &format!("{var} not set"));
    }
    found
}

/// The CLI binary `target/debug/agentdesk-cli` (found from the suite's
/// `env!("CARGO_TARGET_TMPDIR")`, `target/tmp`); `None` after [`skip_or_fail`] when it is not
/// built.
pub fn cli_bin(target_tmp: &str, suite: &str) -> Option<PathBuf> {
    let tmp = std::path::Path::new(target_tmp);
    let bin = tmp
        .parent()
        .unwrap_or(tmp)
        .join("debug")
        .join("agentdesk-cli");
    if bin.exists() {
        return Some(bin);
    }
    skip_or_fail(
        suite,
        &format!(
            "{} missing: run `cargo build -p agentdesk-cli`",
            bin.display()
        ),
    );
    None
}

/// What `agentdesk-cli` (`command`, run with the arguments `args`) printed and how it exited,
/// within `within`; the call and its output are echoed to the test's log.
pub async fn cli_output(
    mut command: tokio::process::Command,
    args: &[&str],
    within: std::time::Duration,
) -> std::process::Output {
    let out = tokio::time::timeout(within, command.output())
        .await
        .unwrap_or_else(|_| panic!("agentdesk-cli {args:?} did not finish in time"))
        .unwrap_or_else(|e| panic!("agentdesk-cli {args:?}: {e}"));
    eprintln!(
        "$ agentdesk-cli {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The `#[tokio::test]`s of a real-engine suite whose scenarios are each an
/// `async fn name(engine: Engine, bin: PathBuf)`: those listed under `both` run with each
/// engine, the others with theirs only, in modules `codex` and `claude` (`codex::text`,
/// `claude::text`), each bounded by the suite's `TEST`. An optional `acp` list runs those
/// scenarios on the ACP agent opencode too (module `acp`). The engine binaries are named by
/// `CODEX_BIN`, `CLAUDE_BIN` and `OPENCODE_BIN` ([`engine_bin`]). The suite defines `SUITE`
/// (its name in a skip) and `TEST` (a `Duration`).
///
/// `all: [...]` in place of `both` runs those scenarios on all three engines (an `acp` list
/// then adds the ACP agent's own).
#[macro_export]
macro_rules! scenarios {
    (
        all: [$($all:ident),* $(,)?],
        codex: [$($codex:ident),* $(,)?],
        claude: [$($claude:ident),* $(,)?],
        acp: [$($acp:ident),* $(,)?] $(,)?
    ) => {
        $crate::scenarios!(
            both: [$($all),*],
            codex: [$($codex),*],
            claude: [$($claude),*],
            acp: [$($all,)* $($acp),*]
        );
    };
    (
        both: [$($both:ident),* $(,)?],
        codex: [$($codex:ident),* $(,)?],
        claude: [$($claude:ident),* $(,)?] $(,)?
    ) => {
        $crate::scenarios!(@engine codex, Codex, "CODEX_BIN", [$($both,)* $($codex,)*]);
        $crate::scenarios!(@engine claude, Claude, "CLAUDE_BIN", [$($both,)* $($claude,)*]);
    };
    (
        both: [$($both:ident),* $(,)?],
        codex: [$($codex:ident),* $(,)?],
        claude: [$($claude:ident),* $(,)?],
        acp: [$($acp:ident),* $(,)?] $(,)?
    ) => {
        $crate::scenarios!(both: [$($both),*], codex: [$($codex),*], claude: [$($claude),*]);
        $crate::scenarios!(@engine acp, Acp, "OPENCODE_BIN", [$($acp,)*]);
    };
    (@engine $module:ident, $engine:ident, $var:literal, [$($scenario:ident,)*]) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let Some(bin) = $crate::real::engine_bin($var, super::SUITE) else {
                        return;
                    };
                    let engine = agentdesk_protocol::ui::Engine::$engine;
                    tokio::time::timeout(super::TEST, super::$scenario(engine, bin))
                        .await
                        .expect("scenario timed out");
                }
            )*
        }
    };
}

/// One `#[tokio::test]` of a real-engine suite (its attributes first, `#[ignore]`...): `body`
/// runs with `bin`, the engine binary named by the suite's `BIN_VAR` or by the env var given
/// after the name (a SKIP without it, [`engine_bin`]), bounded by the suite's `TEST`; the
/// suite's name in a skip is its `SUITE`.
#[macro_export]
macro_rules! real_test {
    ($(#[$attr:meta])* $name:ident, |$bin:ident| $body:block) => {
        $crate::real_test!($(#[$attr])* $name, BIN_VAR, |$bin| $body);
    };
    ($(#[$attr:meta])* $name:ident, $var:expr, |$bin:ident| $body:block) => {
        $(#[$attr])*
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some($bin) = $crate::real::engine_bin($var, SUITE) else {
                return;
            };
            tokio::time::timeout(TEST, async move { $body })
                .await
                .expect("test timed out");
        }
    };
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn pairs(vars: &[(&str, &str)]) -> Vec<(String, String)> {
    vars.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The variable a test's Claude profile takes its (dummy) key from.
pub const CLAUDE_KEY_ENV: &str = "AGENTDESK_TEST_ANTHROPIC_KEY";

/// Where a Claude Code run keeps its files: `home` (its config in `home/.claude`), the
/// workspace `work`, and `tmp` (short: the CLI puts a unix socket under it, ≤ 103 bytes).
#[derive(Debug, Clone)]
pub struct ClaudeDirs {
    pub home: PathBuf,
    pub work: PathBuf,
    pub tmp: PathBuf,
}

/// `root/{home/.claude,work,t}`, created.
pub fn claude_dirs(root: &Path) -> ClaudeDirs {
    let dirs = ClaudeDirs {
        home: root.join("home"),
        work: root.join("work"),
        tmp: root.join("t"),
    };
    for d in [&dirs.home.join(".claude"), &dirs.work, &dirs.tmp] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    }
    dirs
}

/// The environment that keeps Claude Code in `home` (config in `home/.claude`) and `tmp`,
/// quiet (no non-essential traffic, no update) and without retries, talking to 127.0.0.1
/// directly.
pub fn claude_env(home: &Path, tmp: &Path) -> Vec<(String, String)> {
    pairs(&[
        ("HOME", &s(home)),
        ("CLAUDE_CONFIG_DIR", &s(&home.join(".claude"))),
        ("CLAUDE_CODE_TMPDIR", &s(tmp)),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("CLAUDE_CODE_MAX_RETRIES", "0"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("NO_PROXY", "127.0.0.1,localhost"),
    ])
}

/// A Claude profile on the fake Messages API at `base_url` (its model, a dummy key in
/// [`CLAUDE_KEY_ENV`]), confined by [`claude_env`], without the login tokens of the shell.
pub fn claude_profile(base_url: String, dirs: &ClaudeDirs) -> ClaudeProfile {
    let mut env = claude_env(&dirs.home, &dirs.tmp);
    env.push((CLAUDE_KEY_ENV.into(), "dummy".into()));
    ClaudeProfile {
        model: Some(crate::fake_messages::FAKE_MODEL.into()),
        base_url: Some(base_url),
        api_key_env: Some(CLAUDE_KEY_ENV.into()),
        env,
        env_remove: vec![
            "ANTHROPIC_AUTH_TOKEN".into(),
            "CLAUDE_CODE_OAUTH_TOKEN".into(),
        ],
        ..Default::default()
    }
}

/// `root/home` (a CODEX_HOME) and `root/repo` (a git repository), created. Under `target/`,
/// not $TMPDIR: the Linux sandbox refuses helper binaries there.
pub fn codex_dirs(root: &Path) -> (PathBuf, PathBuf) {
    let (home, repo) = (root.join("home"), root.join("repo"));
    for d in [&home, &repo] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    }
    let _ = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status();
    (home, repo)
}

/// The model provider `mock` at `base_url`, its key in `env_key`, no retries.
pub fn mock_provider(base_url: String, env_key: &str) -> CustomProvider {
    CustomProvider {
        id: "mock".into(),
        name: "mock".into(),
        base_url,
        env_key: env_key.into(),
        request_max_retries: Some(0),
        stream_max_retries: Some(0),
    }
}

/// A Codex profile on the fake Responses API at `base_url` (a dummy key in `MOCK_API_KEY`),
/// HOME `home`, asking by `approval`, writing in the workspace only.
pub fn codex_profile(base_url: String, home: &Path, approval: AskForApproval) -> CodexProfile {
    CodexProfile {
        // A catalog slug: codex then offers `apply_patch` (file-change approvals).
        model: Some("gpt-5.5".into()),
        approval_policy: Some(approval),
        sandbox: Some(SandboxMode::WorkspaceWrite),
        provider: Some(mock_provider(base_url, "MOCK_API_KEY")),
        env: pairs(&[
            ("MOCK_API_KEY", "dummy"),
            ("HOME", &s(home)),
            ("NO_PROXY", "127.0.0.1,localhost"),
        ]),
        ..Default::default()
    }
}

/// The opencode preset's profile (its `acp` argument and asking environment) for `bin`, in
/// the isolated environment `oc`.
pub fn opencode_profile(bin: &Path, oc: &OpencodeEnv) -> AcpProfile {
    let options = AcpOptions {
        preset: Some(AcpPreset::Opencode),
        ..AcpOptions::default()
    };
    let mut profile = AcpProfile::from_options(&options, bin.to_path_buf());
    profile.env.extend(oc.env.iter().cloned());
    profile.env_remove.extend(oc.env_remove.iter().cloned());
    profile
}

/// The env var naming the pinned opencode binary (`tests/run-all.sh` sets it).
pub const OPENCODE_BIN: &str = "OPENCODE_BIN";

/// Switches that keep opencode off the network and out of the user's tools: no self-update,
/// no models.dev catalogue, no share links, no LSP downloads, no default plugins, no reading
/// of Claude Code's files, no external skills.
const OPENCODE_DISABLE: [&str; 7] = [
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_SHARE",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS",
];

/// Credentials a developer's shell may carry that must not reach the agent (it talks to the
/// fake model server only).
pub const OPENCODE_ENV_REMOVE: [&str; 4] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENROUTER_API_KEY",
    "GEMINI_API_KEY",
];

/// An opencode that reads and writes only under one folder of the test.
#[derive(Debug, Clone)]
pub struct OpencodeEnv {
    /// `HOME`, the XDG folders and the config file live under it.
    pub root: PathBuf,
    /// For `AcpProfile.env`.
    pub env: Vec<(String, String)>,
    /// For `AcpProfile.env_remove`: [`OPENCODE_ENV_REMOVE`].
    pub env_remove: Vec<String>,
}

/// Creates `root/{home,config,data,cache,state}` and `root/opencode.json` holding `config`
/// (the fake model server's provider: `FakeChat::opencode_config`), and returns the
/// environment that confines opencode to them. Without every one of these it reads and
/// writes the user's real folders. `OPENCODE_PERMISSION` makes edits and shell commands ask
/// (opencode allows everything by default, and then no `session/request_permission` is sent).
/// Two agents sharing a `root` share their sessions (what a resume in a new process needs).
pub fn opencode_env(root: &Path, config: &serde_json::Value) -> std::io::Result<OpencodeEnv> {
    let dir = |name: &str| -> std::io::Result<String> {
        let d = root.join(name);
        std::fs::create_dir_all(&d)?;
        Ok(d.to_string_lossy().into_owned())
    };
    std::fs::create_dir_all(root)?;
    let config_file = root.join("opencode.json");
    std::fs::write(&config_file, config.to_string())?;
    let mut env = vec![
        ("HOME".to_owned(), dir("home")?),
        ("XDG_CONFIG_HOME".to_owned(), dir("config")?),
        ("XDG_DATA_HOME".to_owned(), dir("data")?),
        ("XDG_CACHE_HOME".to_owned(), dir("cache")?),
        ("XDG_STATE_HOME".to_owned(), dir("state")?),
        (
            "OPENCODE_CONFIG".to_owned(),
            config_file.to_string_lossy().into_owned(),
        ),
        (
            "OPENCODE_PERMISSION".to_owned(),
            r#"{"edit":"ask","bash":"ask"}"#.to_owned(),
        ),
        ("NO_PROXY".to_owned(), "127.0.0.1,localhost".to_owned()),
        ("no_proxy".to_owned(), "127.0.0.1,localhost".to_owned()),
    ];
    env.extend(
        OPENCODE_DISABLE
            .iter()
            .map(|k| ((*k).to_owned(), "true".to_owned())),
    );
    Ok(OpencodeEnv {
        root: root.to_path_buf(),
        env,
        env_remove: OPENCODE_ENV_REMOVE
            .iter()
            .map(|k| (*k).to_owned())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opencode_env_confines_it_to_its_root() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = serde_json::json!({"model": "fake/fake-model"});
        let oc = opencode_env(tmp.path(), &cfg).unwrap();
        let get = |k: &str| {
            oc.env
                .iter()
                .find(|(name, _)| name == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{k} not set"))
        };
        for k in [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
        ] {
            let d = PathBuf::from(get(k));
            assert!(d.starts_with(tmp.path()) && d.is_dir(), "{k}={d:?}");
        }
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(get("OPENCODE_CONFIG")).unwrap())
                .unwrap();
        assert_eq!(written, cfg);
        let perm: serde_json::Value = serde_json::from_str(&get("OPENCODE_PERMISSION")).unwrap();
        assert_eq!(perm, serde_json::json!({"edit": "ask", "bash": "ask"}));
        for k in OPENCODE_DISABLE {
            assert_eq!(get(k), "true");
        }
        assert!(oc.env_remove.contains(&"OPENAI_API_KEY".to_owned()));
    }

    /// Every pixel of [`RED_PNG`] is (255, 0, 0): read from its IDAT chunk, which holds a
    /// zlib header (2 bytes), one stored block's header (5 bytes), then the scanlines.
    #[test]
    fn red_png_is_red() {
        assert_eq!(&RED_PNG[12..16], b"IHDR");
        // 2×2, 8 bits per channel, colour type 2 (RGB).
        assert_eq!(&RED_PNG[16..26], &[0, 0, 0, 2, 0, 0, 0, 2, 8, 2]);
        let idat = RED_PNG
            .windows(4)
            .position(|w| w == b"IDAT")
            .expect("an IDAT chunk");
        let data = &RED_PNG[idat + 4..];
        assert_eq!(data[2], 1, "one final stored block");
        let scanlines = &data[7..7 + 14];
        for line in scanlines.chunks(7) {
            assert_eq!(line, &[0, 255, 0, 0, 255, 0, 0], "filter 0, two red pixels");
        }
    }
}
