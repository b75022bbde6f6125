//! The environment of an engine child: BUILT from an allow-list, never the app's whole one.
//!
//! This is the one place that says which of the app's variables an engine (and, through it,
//! every command the agent runs) may see. The app's environment holds secrets of other tools
//! (`AWS_*`, `GITHUB_TOKEN`, other providers' keys) and the app's own settings (`AGENTDESK_*`,
//! `RUST_LOG`: the app's `RUST_LOG` made codex log one line per streamed delta); none of them
//! is the engine's business. What passes:
//!
//! 1. [`COMMON_VARS`] / [`COMMON_PREFIXES`] for every child: what a shell and the tools it runs
//!    need (PATH, HOME, user, locale, terminal, temp dirs, XDG dirs, proxies, CA bundles, the
//!    Windows and macOS basics).
//! 2. The engine's own variables and login ([`engine_env`]): codex `CODEX_*` and `OPENAI_*`;
//!    claude `ANTHROPIC_*`, `CLAUDE_*` (never `CLAUDECODE`) and its documented switches; the
//!    cloud-provider credentials claude uses only when it is configured for that provider
//!    (`CLAUDE_CODE_USE_BEDROCK` → `AWS_*`; `CLAUDE_CODE_USE_VERTEX` → `GOOGLE_*`, `GCLOUD_*`,
//!    `CLOUDSDK_*`, `CLOUD_ML_*`, `VERTEX_REGION_*`; `CLAUDE_CODE_USE_FOUNDRY` → `AZURE_*`).
//! 3. The variable a profile names as its API key, and the profile's own `env` (added by the
//!    adapters, last).
//!
//! Anything else a user wants an agent to see goes into the profile's `env`.

use std::ffi::{OsStr, OsString};

use crate::vocab::Engine;

/// Variables removed from every child environment, whatever the profile says. A nested
/// Claude Code CLI refuses to start when it sees `CLAUDECODE` (set when the app itself is run
/// from inside Claude Code).
pub const ALWAYS_REMOVED_ENV: &[&str] = &["CLAUDECODE"];

/// Passed to every engine child when set in the app's environment.
pub const COMMON_VARS: &[&str] = &[
    // Unix basics.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    // Proxies and CA bundles: without them nothing reaches the model behind a corporate proxy.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    // Windows: without SystemRoot even DNS fails; the rest locate the user's profile and tools.
    "SystemRoot",
    "SystemDrive",
    "windir",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    "PATHEXT",
    "COMSPEC",
    "TEMP",
    "TMP",
    "ProgramData",
    "ProgramFiles",
    "ProgramFiles(x86)",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
    // macOS: the text encoding CoreFoundation tools expect.
    "__CF_USER_TEXT_ENCODING",
];

/// Prefixes passed to every engine child (locale categories, XDG base directories).
pub const COMMON_PREFIXES: &[&str] = &["LC_", "XDG_"];

/// Codex's own variables and login (`OPENAI_API_KEY` goes to codex only).
pub const CODEX_PREFIXES: &[&str] = &["CODEX_", "OPENAI_"];

/// Claude Code's own variables and login (`CLAUDECODE` is never passed, see
/// [`ALWAYS_REMOVED_ENV`]).
pub const CLAUDE_PREFIXES: &[&str] = &["ANTHROPIC_", "CLAUDE_"];

/// Claude Code's documented switches without a prefix of their own.
pub const CLAUDE_VARS: &[&str] = &[
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "DISABLE_BUG_COMMAND",
    "DISABLE_COST_WARNINGS",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
    "DISABLE_PROMPT_CACHING",
    "MAX_THINKING_TOKENS",
    "MAX_MCP_OUTPUT_TOKENS",
    "MCP_TIMEOUT",
    "MCP_TOOL_TIMEOUT",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "BASH_MAX_OUTPUT_LENGTH",
    "USE_BUILTIN_RIPGREP",
    "IS_SANDBOX",
];

/// Cloud-provider credentials claude reads only when switched to that provider: (switch,
/// prefixes that then pass).
pub const CLAUDE_CLOUD_AUTH: &[(&str, &[&str])] = &[
    ("CLAUDE_CODE_USE_BEDROCK", &["AWS_"]),
    (
        "CLAUDE_CODE_USE_VERTEX",
        &[
            "GOOGLE_",
            "GCLOUD_",
            "CLOUDSDK_",
            "CLOUD_ML_",
            "VERTEX_REGION_",
        ],
    ),
    ("CLAUDE_CODE_USE_FOUNDRY", &["AZURE_"]),
];

/// Environment variable names compare case-insensitively on Windows.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

fn has_prefix(name: &str, prefix: &str) -> bool {
    name.get(..prefix.len())
        .is_some_and(|head| same_name(head, prefix))
}

fn never(name: &str) -> bool {
    ALWAYS_REMOVED_ENV.iter().any(|n| same_name(name, n))
}

/// True when `name` passes to every engine child.
pub fn is_common(name: &str) -> bool {
    !never(name)
        && (COMMON_VARS.iter().any(|v| same_name(name, v))
            || COMMON_PREFIXES.iter().any(|p| has_prefix(name, p)))
}

/// The allow-listed common part of `parent` (normally `std::env::vars_os()`).
pub fn common_env(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    parent
        .into_iter()
        .filter(|(k, _)| k.to_str().is_some_and(is_common))
        .collect()
}

fn is_set(name: &str, parent: &[(String, String)], profile_env: &[(String, String)]) -> bool {
    let set = |vars: &[(String, String)]| {
        vars.iter()
            .rev()
            .find(|(k, _)| same_name(k, name))
            .is_some_and(|(_, v)| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
    };
    set(profile_env) || (!profile_env.iter().any(|(k, _)| same_name(k, name)) && set(parent))
}

/// The engine's own variables from `parent`: its prefixes and switches, cloud credentials when
/// the engine is switched to that cloud (by `parent` or by `profile_env`), and the names in
/// `pass` (the profile's API key variable). `remove` wins over everything. Non-UTF-8 values
/// are skipped (they cannot be a key or a URL).
pub fn engine_env(
    engine: Engine,
    parent: &[(String, String)],
    profile_env: &[(String, String)],
    pass: &[String],
    remove: &[String],
) -> Vec<(String, String)> {
    let (prefixes, vars): (Vec<&str>, &[&str]) = match engine {
        Engine::Codex => (CODEX_PREFIXES.to_vec(), &[]),
        // An ACP agent could be anything: nothing of the app's beyond the common part; its
        // profile's `env` (a preset's asking environment included) is added by the adapter.
        Engine::Acp => (Vec::new(), &[]),
        Engine::Claude => {
            let mut prefixes = CLAUDE_PREFIXES.to_vec();
            for (switch, cloud) in CLAUDE_CLOUD_AUTH {
                if is_set(switch, parent, profile_env) {
                    prefixes.extend_from_slice(cloud);
                }
            }
            (prefixes, CLAUDE_VARS)
        }
    };
    parent
        .iter()
        .filter(|(k, _)| {
            !never(k)
                && !remove.iter().any(|r| same_name(k, r))
                && (prefixes.iter().any(|p| has_prefix(k, p))
                    || vars.iter().any(|v| same_name(k, v))
                    || pass.iter().any(|p| same_name(k, p)))
        })
        .cloned()
        .collect()
}

/// The app's environment as UTF-8 pairs (others dropped), for [`engine_env`].
pub fn parent_env() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// True when a variable name is one [`ALWAYS_REMOVED_ENV`] lists.
pub(crate) fn always_removed(name: &OsStr) -> bool {
    name.to_str().is_some_and(never)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn names(v: &[(String, String)]) -> Vec<&str> {
        v.iter().map(|(k, _)| k.as_str()).collect()
    }

    const PARENT: &[(&str, &str)] = &[
        ("PATH", "/bin"),
        ("HOME", "/h"),
        ("LC_ALL", "C"),
        ("XDG_CONFIG_HOME", "/h/.config"),
        ("https_proxy", "http://p"),
        ("OPENAI_API_KEY", "sk-o"),
        ("CODEX_HOME", "/h/.codex"),
        ("ANTHROPIC_API_KEY", "sk-ant-a"),
        ("CLAUDE_CONFIG_DIR", "/h/.claude"),
        ("CLAUDECODE", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("AWS_SECRET_ACCESS_KEY", "aws"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/g.json"),
        ("GITHUB_TOKEN", "ghp_x"),
        ("AGENTDESK_SECRET", "s"),
        ("RUST_LOG", "debug"),
        ("RUST_BACKTRACE", "1"),
        ("MY_KEY", "k"),
    ];

    #[test]
    fn common_part_keeps_the_basics_only() {
        let parent: Vec<(OsString, OsString)> = PARENT
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect();
        let got: Vec<String> = common_env(parent)
            .into_iter()
            .map(|(k, _)| k.into_string().unwrap())
            .collect();
        assert_eq!(
            got,
            ["PATH", "HOME", "LC_ALL", "XDG_CONFIG_HOME", "https_proxy"]
        );
    }

    #[test]
    fn each_engine_gets_its_own_login_and_nothing_else() {
        let parent = pairs(PARENT);
        let codex = engine_env(Engine::Codex, &parent, &[], &[], &[]);
        assert_eq!(names(&codex), ["OPENAI_API_KEY", "CODEX_HOME"]);
        let claude = engine_env(Engine::Claude, &parent, &[], &["MY_KEY".into()], &[]);
        assert_eq!(
            names(&claude),
            [
                "ANTHROPIC_API_KEY",
                "CLAUDE_CONFIG_DIR",
                "DISABLE_TELEMETRY",
                "MY_KEY"
            ]
        );
        let removed = engine_env(
            Engine::Claude,
            &parent,
            &[],
            &[],
            &["ANTHROPIC_API_KEY".into()],
        );
        assert!(!names(&removed).contains(&"ANTHROPIC_API_KEY"));
    }

    #[test]
    fn cloud_credentials_pass_only_when_claude_uses_that_cloud() {
        let mut parent = pairs(PARENT);
        let plain = engine_env(Engine::Claude, &parent, &[], &[], &[]);
        assert!(!names(&plain).contains(&"AWS_SECRET_ACCESS_KEY"));
        // Switched on by the profile…
        let on = pairs(&[("CLAUDE_CODE_USE_BEDROCK", "1")]);
        let bedrock = engine_env(Engine::Claude, &parent, &on, &[], &[]);
        assert!(names(&bedrock).contains(&"AWS_SECRET_ACCESS_KEY"));
        assert!(!names(&bedrock).contains(&"GOOGLE_APPLICATION_CREDENTIALS"));
        // …or by the user's environment; a profile can switch it off again.
        parent.push(("CLAUDE_CODE_USE_VERTEX".into(), "1".into()));
        let vertex = engine_env(Engine::Claude, &parent, &[], &[], &[]);
        assert!(names(&vertex).contains(&"GOOGLE_APPLICATION_CREDENTIALS"));
        let off = pairs(&[("CLAUDE_CODE_USE_VERTEX", "0")]);
        let vertex_off = engine_env(Engine::Claude, &parent, &off, &[], &[]);
        assert!(!names(&vertex_off).contains(&"GOOGLE_APPLICATION_CREDENTIALS"));
        parent.push(("CLOUD_ML_REGION".into(), "us-east5".into()));
        parent.push(("AZURE_CLIENT_SECRET".into(), "az".into()));
        let vertex = engine_env(Engine::Claude, &parent, &[], &[], &[]);
        assert!(names(&vertex).contains(&"CLOUD_ML_REGION"));
        assert!(!names(&vertex).contains(&"AZURE_CLIENT_SECRET"));
        // Codex never gets them.
        let codex = engine_env(Engine::Codex, &parent, &on, &[], &[]);
        assert!(!names(&codex).contains(&"AWS_SECRET_ACCESS_KEY"));
    }
}
