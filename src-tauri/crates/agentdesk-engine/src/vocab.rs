//! The engine-neutral vocabulary both adapters and the facade ([`crate::engine`]) share: the
//! user's input, a decision on an approval, and what each engine can do. A leaf module (it
//! imports no adapter), so the adapters never import upward from the facade.

use std::path::PathBuf;

pub use agentdesk_protocol::capabilities::EngineCapabilities;
use agentdesk_protocol::events::UserDecision;
pub use agentdesk_protocol::ui::Engine;
use serde_json::Value;

/// A piece of the user's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputPart {
    Text(String),
    /// An image file (png, jpeg, gif, webp) on disk.
    LocalImage(PathBuf),
    /// A file the text mentions as `@name` (relative to the run's folder; `path` is where it
    /// is). Engines that read mentions themselves skip it; the others get its text.
    FileMention {
        name: String,
        path: PathBuf,
    },
}

impl InputPart {
    pub fn text(t: impl Into<String>) -> Self {
        Self::Text(t.into())
    }

    pub fn image(path: impl Into<PathBuf>) -> Self {
        Self::LocalImage(path.into())
    }
}

/// The answer to an approval, whole: what the user chose plus the options only some engines
/// honour (see [`EngineCapabilities`]). It travels unchanged from the user (app, CLI,
/// notification) through the core's queue to the adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalDecision {
    pub decision: UserDecision,
    /// Run this input instead of the one asked about (Claude's `updatedInput`).
    pub updated_input: Option<Value>,
    /// Told to the model with a denial.
    pub message: Option<String>,
    /// Deny and end the turn.
    pub stop: bool,
}

impl ApprovalDecision {
    pub fn allow_edited(input: Value) -> Self {
        Self {
            updated_input: Some(input),
            ..UserDecision::ApproveOnce.into()
        }
    }

    pub fn deny(message: impl Into<String>) -> Self {
        Self {
            message: Some(message.into()),
            ..UserDecision::Deny.into()
        }
    }

    pub fn deny_and_stop(message: impl Into<String>) -> Self {
        Self {
            stop: true,
            ..Self::deny(message)
        }
    }
}

impl From<UserDecision> for ApprovalDecision {
    fn from(decision: UserDecision) -> Self {
        Self {
            decision,
            updated_input: None,
            message: None,
            stop: false,
        }
    }
}

impl ApprovalDecision {
    /// `Err(why)` when `engine` cannot carry out this decision as asked.
    pub fn check(&self, engine: Engine) -> Result<(), String> {
        let d = crate::registry::descriptor(engine);
        let caps = d.capabilities();
        if self.updated_input.is_some() && !caps.edited_input {
            return Err(format!(
                "{} cannot run an edited version of a requested action; approve or deny it",
                d.display_name()
            ));
        }
        if self.stop && !caps.deny_and_stop {
            return Err(format!(
                "{} cannot deny and stop in one step",
                d.display_name()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_input_is_refused_only_where_the_engine_cannot_do_it() {
        let edited = ApprovalDecision::allow_edited(serde_json::json!({"command": "ls"}));
        let codex = Engine::Codex;
        let err = edited.check(codex);
        assert!(err.is_err_and(|m| m.contains("Codex cannot run an edited version")));
        let claude = Engine::Claude;
        assert_eq!(edited.check(claude), Ok(()));
        let stop = ApprovalDecision::deny_and_stop("no");
        assert_eq!(stop.check(codex), Ok(()));
    }

    /// The window reads the same declaration (camelCase, through `engine_capabilities`).
    #[test]
    fn capabilities_cross_to_the_window_in_camel_case() {
        let v = serde_json::to_value(crate::registry::descriptor(Engine::Codex).capabilities())
            .unwrap_or_default();
        assert_eq!(v["editedInput"], false);
        assert_eq!(v["denyMessage"], false);
        assert_eq!(v["denyAndStop"], true);
        assert_eq!(v["sessionGrants"], true);
        let v = serde_json::to_value(crate::registry::descriptor(Engine::Claude).capabilities())
            .unwrap_or_default();
        assert_eq!(v["editedInput"], true);
        assert_eq!(v["denyMessage"], true);
    }
}
