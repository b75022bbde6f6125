//! What each engine can do, for the window: the engine crate's one declaration, so a card
//! never offers what the session's engine cannot carry out.

use agentdesk_protocol::ipc::EngineCapabilitiesArgs;

use super::{Args, Reply};

#[tauri::command]
pub fn engine_capabilities(args: Args<EngineCapabilitiesArgs>) -> Reply<EngineCapabilitiesArgs> {
    Ok(agentdesk_core::engines::engine_kind(args.engine).capabilities())
}
