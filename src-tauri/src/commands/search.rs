//! Full-text search across every session (the sidebar's search box and Ctrl/Cmd+K).

use agentdesk_protocol::ipc::SearchMessagesArgs;

desk_commands! {
    /// Messages matching what the user typed, best first (at most `limit`, 1..=100). The window
    /// debounces typing and shows only the answer to its latest query.
    fn search_messages(desk, args: SearchMessagesArgs) {
        let limit = args.limit.clamp(1, 100);
        desk.search(&args.query, args.workspace_id.as_ref(), limit).await?
    }
}
