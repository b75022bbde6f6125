//! The engines, for the window: the engine crate's registry (names, capabilities, programs),
//! so the window lists what exists and a card never offers what the session's engine cannot
//! carry out.

use agentdesk_protocol::ipc::{EngineCapabilitiesArgs, ListEnginesArgs};

use super::{Args, Reply};

#[tauri::command]
pub fn engine_capabilities(args: Args<EngineCapabilitiesArgs>) -> Reply<EngineCapabilitiesArgs> {
    Ok(agentdesk_core::engines::descriptor(args.engine).capabilities())
}

/// Every engine the app can run, in the order the window lists them.
#[tauri::command]
pub fn list_engines(_args: Args<ListEnginesArgs>) -> Reply<ListEnginesArgs> {
    Ok(agentdesk_core::engines::engine_infos())
}
