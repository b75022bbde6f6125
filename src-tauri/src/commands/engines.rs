//! What each engine can do, for the window: the engine crate's one declaration, so a card
//! never offers what the session's engine cannot carry out.

use agentdesk_protocol::capabilities::EngineCapabilities;
use agentdesk_protocol::ui::Engine;

#[tauri::command]
pub fn engine_capabilities(engine: Engine) -> EngineCapabilities {
    agentdesk_core::engines::engine_kind(engine).capabilities()
}
