//! What each engine can do through Agent Desk, declared once by the engine crate
//! (each engine's descriptor in `agentdesk_engine::registry`) and read by the core, the CLI and the window (a ts-rs type:
//! the window asks `engine_capabilities` instead of finding out from an error).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What an engine can do through Agent Desk. Adding a capability is one field here plus its
/// value per engine in its descriptor (engine crate); every reader gets it from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineCapabilities {
    /// Approve with an edited input (`ApprovalDecision::allow_edited`).
    pub edited_input: bool,
    /// A denial's message reaches the model.
    pub deny_message: bool,
    /// Deny and end the turn in one decision (`ApprovalDecision::deny_and_stop`).
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
