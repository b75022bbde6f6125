//! A profile's ACP agent: what to start ([`AcpProfile`]) and what Agent Desk knows about the
//! agents it has presets for ([`PresetSpec`]): their program, arguments, the environment that
//! makes them ask before acting, and their quirks (verified with opencode 1.18.33 and Gemini
//! CLI 0.61.0, see `tests/fixtures/acp/`).

use std::path::PathBuf;

pub use agentdesk_protocol::acp::options::{AcpOptions, AcpPreset};
use agentdesk_protocol::ui::PermissionMode;

use crate::discovery::{EngineProgram, VersionRange};

/// What a profile says about running an ACP agent, for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AcpProfile {
    /// The agent's executable (a preset's from discovery, or the custom command).
    pub command: PathBuf,
    /// Its arguments (a preset's own first: `acp`, `--acp`).
    pub args: Vec<String>,
    /// Extra environment (a preset's asking environment, then the profile's own).
    pub env: Vec<(String, String)>,
    /// Removed from the built environment.
    pub env_remove: Vec<String>,
    /// Chosen with `session/set_config_option` (a `model` option) or `session/set_model`
    /// when the agent offers that model; otherwise ignored with a notice.
    pub model: Option<String>,
    /// The profile's permission mode. The agent itself is always left in its asking mode:
    /// Agent Desk's approval queue applies the mode to each request (as for Claude Code),
    /// so every decision is recorded in one place.
    pub permission_mode: PermissionMode,
    /// Folders besides the workspace the agent may read and write through `fs/*` without
    /// an extra approval.
    pub extra_dirs: Vec<PathBuf>,
    /// The preset the profile was made from (its quirks), `None` for a custom agent.
    pub preset: Option<AcpPreset>,
}

impl AcpProfile {
    /// A profile for `options`, started as `command` (the discovered preset program or the
    /// custom command): the preset's arguments and environment first, then the options'
    /// own arguments. The caller adds model, permission mode, extra dirs and its own env.
    pub fn from_options(options: &AcpOptions, command: PathBuf) -> Self {
        let spec = options.preset.map(PresetSpec::of);
        let mut args: Vec<String> = spec
            .iter()
            .flat_map(|s| s.default_args.iter().map(|a| (*a).to_owned()))
            .collect();
        args.extend(options.args.iter().cloned());
        let env = spec
            .iter()
            .flat_map(|s| s.ask_env.iter())
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Self {
            command,
            args,
            env,
            preset: options.preset,
            ..Self::default()
        }
    }

    /// `session/load` may be tried (the preset's quirk; a custom agent: if it says so).
    pub(crate) fn load_allowed(&self) -> bool {
        self.preset.is_none_or(|p| PresetSpec::of(p).load_session)
    }

    /// Variables made fresh for each process of this profile's agent (before the profile's
    /// own `env`, which wins): opencode serves its agent API over HTTP on 127.0.0.1 (port
    /// 4096, else a random one) and, without `OPENCODE_SERVER_PASSWORD`, to any local
    /// process; a random password per process (known only to that process) closes it, and
    /// the ACP flow over stdio does not need it.
    pub(crate) fn spawn_env(&self) -> Vec<(String, String)> {
        match self.preset {
            Some(AcpPreset::Opencode) => vec![(
                "OPENCODE_SERVER_PASSWORD".to_owned(),
                // 122 bits from the OS random source, 32 hex characters.
                uuid::Uuid::new_v4().simple().to_string(),
            )],
            Some(AcpPreset::Gemini) | None => Vec::new(),
        }
    }

    /// "Approve for the session" may choose the agent's `allow_always`: only for a preset
    /// whose grant is known to be exactly what the user saw (none so far). A custom agent's
    /// grant is unknown, so it gets `allow_once` and Agent Desk's queue answers the exact
    /// repeats itself (as for Claude Code).
    pub(crate) fn allow_always_allowed(&self) -> bool {
        self.preset.is_some_and(|p| PresetSpec::of(p).allow_always)
    }
}

/// What Agent Desk knows about a preset agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresetSpec {
    pub preset: AcpPreset,
    /// Discovery: name, install hint, supported versions.
    pub program: EngineProgram,
    /// Arguments that start its ACP server on stdio.
    pub default_args: &'static [&'static str],
    /// Environment that makes it ask (`session/request_permission`) before editing or
    /// running anything: without it opencode never asks and writes files itself.
    pub ask_env: &'static [(&'static str, &'static str)],
    /// Its `session/load` works (Gemini CLI 0.61.0's overwrites the saved session before
    /// reading it: "Invalid session identifier").
    pub load_session: bool,
    /// Its `allow_always` grants exactly what was asked, so "approve for the session" may
    /// choose it. Neither preset's does: opencode's is a wide rule (after "always" on
    /// `touch one.txt` it ran `touch two.txt` unasked; after one write, it wrote another file
    /// unasked), and Gemini CLI refuses it for edits in an untrusted folder ("Cannot enable
    /// privileged approval modes").
    pub allow_always: bool,
}

/// opencode, verified with 1.18.33.
pub const OPENCODE: EngineProgram = EngineProgram {
    name: "opencode",
    display_name: "opencode",
    install_hint: "install with `npm install -g opencode-ai@1.18.33`, or set its path in the profile",
    supported: VersionRange {
        min: (1, 18, 0),
        below: (2, 0, 0),
    },
    install_supported: "install a supported one with `npm install -g opencode-ai@1.18.33`, or set the path of one in the profile",
    install_command: "npm install -g opencode-ai",
    install_supported_command: "npm install -g opencode-ai@1.18.33",
};

/// Gemini CLI, verified with 0.61.0.
pub const GEMINI: EngineProgram = EngineProgram {
    name: "gemini",
    display_name: "Gemini CLI",
    install_hint: "install with `npm install -g @google/gemini-cli@0.61.0`, or set its path in the profile",
    supported: VersionRange {
        min: (0, 61, 0),
        below: (1, 0, 0),
    },
    install_supported: "install a supported one with `npm install -g @google/gemini-cli@0.61.0`, or set the path of one in the profile",
    install_command: "npm install -g @google/gemini-cli",
    install_supported_command: "npm install -g @google/gemini-cli@0.61.0",
};

impl PresetSpec {
    pub const fn of(preset: AcpPreset) -> Self {
        match preset {
            AcpPreset::Opencode => Self {
                preset,
                program: OPENCODE,
                default_args: &["acp"],
                ask_env: &[(
                    "OPENCODE_PERMISSION",
                    r#"{"edit":"ask","bash":"ask","webfetch":"ask"}"#,
                )],
                load_session: true,
                allow_always: false,
            },
            AcpPreset::Gemini => Self {
                preset,
                program: GEMINI,
                default_args: &["--acp"],
                // Gemini CLI asks by default.
                ask_env: &[],
                load_session: false,
                allow_always: false,
            },
        }
    }
}

/// Whether the agent asks before editing or running anything: `Some(true)` for a preset
/// (started with its asking environment), `None` for a custom command (Agent Desk cannot
/// know: the profile should warn that approvals depend on the agent's own settings).
pub fn asks_before_acting(options: &AcpOptions) -> Option<bool> {
    options.preset.map(|_| true)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn presets_bring_their_arguments_and_asking_environment() {
        let opts = AcpOptions {
            preset: Some(AcpPreset::Opencode),
            command: None,
            args: vec!["--print-logs".into()],
        };
        let p = AcpProfile::from_options(&opts, "/bin/opencode".into());
        assert_eq!(p.args, ["acp", "--print-logs"]);
        assert_eq!(p.env[0].0, "OPENCODE_PERMISSION");
        assert!(p.env[0].1.contains(r#""edit":"ask""#));
        assert!(p.load_allowed() && !p.allow_always_allowed());
        assert_eq!(asks_before_acting(&opts), Some(true));

        let gemini = AcpOptions {
            preset: Some(AcpPreset::Gemini),
            ..AcpOptions::default()
        };
        let p = AcpProfile::from_options(&gemini, "/bin/gemini".into());
        assert_eq!(p.args, ["--acp"]);
        assert!(p.env.is_empty());
        assert!(!p.load_allowed() && !p.allow_always_allowed());
        assert_eq!(PresetSpec::of(AcpPreset::Gemini).program.name, "gemini");

        let gemini_env = AcpProfile::from_options(&gemini, "/bin/gemini".into()).spawn_env();
        assert!(gemini_env.is_empty());

        let custom = AcpOptions {
            command: Some("/opt/agent".into()),
            args: vec!["serve".into()],
            ..AcpOptions::default()
        };
        let p = AcpProfile::from_options(&custom, "/opt/agent".into());
        assert_eq!(p.args, ["serve"]);
        assert!(p.load_allowed() && !p.allow_always_allowed());
        assert_eq!(asks_before_acting(&custom), None);
        assert!(p.spawn_env().is_empty());
    }

    #[test]
    fn opencode_gets_a_fresh_server_password_per_process() {
        let opts = AcpOptions {
            preset: Some(AcpPreset::Opencode),
            ..AcpOptions::default()
        };
        let p = AcpProfile::from_options(&opts, "/bin/opencode".into());
        let (a, b) = (p.spawn_env(), p.spawn_env());
        assert_eq!(a[0].0, "OPENCODE_SERVER_PASSWORD");
        assert_eq!(a[0].1.len(), 32);
        assert!(a[0].1.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a[0].1, b[0].1);
    }
}
