//! The engine-neutral vocabulary both adapters and the facade ([`crate::engine`]) share: the
//! user's input, a decision on an approval, and what each engine can do. A leaf module (it
//! imports no adapter), so the adapters never import upward from the facade.

use std::path::PathBuf;

use agentdesk_protocol::events::UserDecision;
use serde_json::Value;

/// A piece of the user's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputPart {
    Text(String),
    /// An image file (png, jpeg, gif, webp) on disk.
    LocalImage(PathBuf),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineKind {
    Codex,
    Claude,
}

impl EngineKind {
    /// What this engine can do, declared once: the core, the CLI and the adapters' shared
    /// run handle read it instead of finding out from an error.
    pub const fn capabilities(self) -> EngineCapabilities {
        match self {
            Self::Codex => EngineCapabilities {
                // Codex has no way to run another command than the one it asked about.
                edited_input: false,
                deny_message: false,
                // A decline followed by `turn/interrupt` (two wire steps, done by the adapter).
                deny_and_stop: true,
                questions: true,
                cost: false,
                // `acceptForSession`: codex itself stops asking for the same thing.
                session_grants: true,
                resident_server: true,
                mid_run_settings: false,
            },
            Self::Claude => EngineCapabilities {
                edited_input: true,
                deny_message: true,
                // One wire decision (`interrupt: true` on the deny).
                deny_and_stop: true,
                questions: true,
                cost: true,
                // Claude's session rules are wider than what the user saw: Agent Desk's own
                // queue answers exact repeats instead (see the adapter's resolve).
                session_grants: false,
                resident_server: false,
                mid_run_settings: true,
            },
        }
    }
}

/// What an engine can do through Agent Desk. Adding a capability is one field here plus its
/// value per engine in [`EngineKind::capabilities`]; every reader gets it from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineCapabilities {
    /// Approve with an edited input ([`ApprovalDecision::allow_edited`]).
    pub edited_input: bool,
    /// A denial's message reaches the model.
    pub deny_message: bool,
    /// Deny and end the turn in one decision ([`ApprovalDecision::deny_and_stop`]).
    pub deny_and_stop: bool,
    /// The agent may ask the user questions (`question.asked`).
    pub questions: bool,
    /// The run's cost in money is reported (`run.completed.usage.costUsd`).
    pub cost: bool,
    /// "Approve for the session" is remembered by the engine itself (otherwise Agent Desk's
    /// queue answers exact repeats).
    pub session_grants: bool,
    /// One resident engine process serves many sessions (otherwise one process per run).
    pub resident_server: bool,
    /// Permission mode and model can change during a run.
    pub mid_run_settings: bool,
}

impl EngineCapabilities {
    /// `Err(why)` when this engine cannot carry out `d` as asked.
    pub fn check(&self, kind: EngineKind, d: &ApprovalDecision) -> Result<(), String> {
        if d.updated_input.is_some() && !self.edited_input {
            return Err(format!(
                "{} cannot run an edited version of a requested action; approve or deny it",
                kind.name()
            ));
        }
        if d.stop && !self.deny_and_stop {
            return Err(format!("{} cannot deny and stop in one step", kind.name()));
        }
        Ok(())
    }
}

impl EngineKind {
    /// The engine's name as users know it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Codex => "Codex",
            Self::Claude => "Claude Code",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_input_is_refused_only_where_the_engine_cannot_do_it() {
        let edited = ApprovalDecision::allow_edited(serde_json::json!({"command": "ls"}));
        let codex = EngineKind::Codex;
        let err = codex.capabilities().check(codex, &edited);
        assert!(err.is_err_and(|m| m.contains("Codex cannot run an edited version")));
        let claude = EngineKind::Claude;
        assert_eq!(claude.capabilities().check(claude, &edited), Ok(()));
        let stop = ApprovalDecision::deny_and_stop("no");
        assert_eq!(codex.capabilities().check(codex, &stop), Ok(()));
    }
}
