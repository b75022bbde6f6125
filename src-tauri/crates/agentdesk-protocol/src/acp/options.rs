//! A profile's typed options for an ACP agent (`engineOptions` of an ACP profile), read
//! leniently like the other engines' options: a key of the wrong type counts as missing, keys
//! of other engines are ignored. A ts-rs type: the profile editor reads the same shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::engine_options::{string_key, strings_key};

stored_enum! {
    /// An ACP agent Agent Desk knows how to start and what its quirks are (see the engine crate's
    /// `acp::options::PresetSpec`).
    pub enum AcpPreset {
        /// opencode (`opencode acp`).
        Opencode,
        /// Gemini CLI (`gemini --acp`).
        Gemini,
    }
}

impl AcpPreset {
    /// Every preset, in declaration order; names are `as_str` / `parse` (`crate::stored`).
    pub const ALL: &'static [AcpPreset] = <AcpPreset as strum::VariantArray>::VARIANTS;
}

/// The `engineOptions` keys an ACP profile reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpOptions {
    /// `preset`: a known agent (its program, arguments, and the environment that makes it
    /// ask before acting). `None` with `command`: a custom agent, run as given.
    #[serde(default)]
    pub preset: Option<AcpPreset>,
    /// `command`: the agent's executable (a preset's is found on PATH when absent).
    #[serde(default)]
    pub command: Option<String>,
    /// `args`: extra arguments (after a preset's own).
    #[serde(default)]
    pub args: Vec<String>,
}

impl AcpOptions {
    /// Lenient: a wrong-typed or unknown value counts as missing.
    pub fn from_json(opts: &Value) -> Self {
        Self {
            preset: string_key(opts, "preset").and_then(|p| AcpPreset::parse(&p)),
            command: string_key(opts, "command"),
            args: strings_key(opts, "args").unwrap_or_default(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_leniently() {
        let o = AcpOptions::from_json(&json!({"preset": "opencode", "args": ["--x", 3]}));
        assert_eq!(o.preset, Some(AcpPreset::Opencode));
        assert_eq!(o.args, ["--x"]);
        assert_eq!(o.command, None);
        let o = AcpOptions::from_json(&json!({"preset": "nope", "command": 5, "args": "a"}));
        assert_eq!(o, AcpOptions::default());
        let o = AcpOptions::from_json(&json!({"command": "/opt/agent", "codexHome": "/x"}));
        assert_eq!(o.command.as_deref(), Some("/opt/agent"));
        // The camelCase wire shape reads back.
        let v = serde_json::to_value(AcpOptions::from_json(&json!({"preset": "gemini"}))).unwrap();
        assert_eq!(v, json!({"preset": "gemini", "command": null, "args": []}));
    }
}
