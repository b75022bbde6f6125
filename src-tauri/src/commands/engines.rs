//! The engines, for the window: the engine crate's registry (names, capabilities, programs),
//! so the window lists what exists and a card never offers what the session's engine cannot
//! carry out.

use agentdesk_protocol::capabilities::EngineCapabilities;
use agentdesk_protocol::ui::{Engine, EngineInfo};

#[tauri::command]
pub fn engine_capabilities(engine: Engine) -> EngineCapabilities {
    agentdesk_core::engines::descriptor(engine).capabilities()
}

/// Every engine the app can run, in the order the window lists them.
#[tauri::command]
pub fn list_engines() -> Vec<EngineInfo> {
    agentdesk_core::engines::engine_infos()
}
