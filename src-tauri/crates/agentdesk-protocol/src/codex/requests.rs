//! The client → server method table: each request is a type naming its method, its params
//! and its response, so a call with mismatched params or an expected response of the wrong
//! type does not compile (`RpcPeer::call::<ThreadStart>(&params)`).

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::client::{
    CancelLoginAccountParams, CancelLoginAccountResponse, GetAccountParams, GetAccountResponse,
    InitializeParams, InitializeResponse, ListMcpServerStatusParams, ListMcpServerStatusResponse,
    LoginAccountParams, LoginAccountResponse, LogoutAccountParams, LogoutAccountResponse,
    ModelListParams, ModelListResponse, SkillsListParams, SkillsListResponse, ThreadResumeParams,
    ThreadResumeResponse, ThreadStartParams, ThreadStartResponse, TurnInterruptParams,
    TurnInterruptResponse, TurnStartParams, TurnStartResponse,
};
use super::history::{
    ThreadListParams, ThreadListResponse, ThreadTurnsListParams, ThreadTurnsListResponse,
};
use super::method;

/// A client → server request of the app-server protocol.
pub trait Request {
    const METHOD: &'static str;
    type Params: Serialize + Sync;
    type Response: DeserializeOwned;
}

macro_rules! requests {
    ($($(#[$doc:meta])* $name:ident = $method:path, $params:ty => $response:ty;)+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub enum $name {}

        impl Request for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Response = $response;
        }
    )+};
}

requests! {
    /// The handshake (followed by the `initialized` notification).
    Initialize = method::INITIALIZE, InitializeParams => InitializeResponse;
    /// A new thread (a session's first turn).
    ThreadStart = method::THREAD_START, ThreadStartParams => ThreadStartResponse;
    /// Reopen a thread (a session's later turns, also in a new process).
    ThreadResume = method::THREAD_RESUME, ThreadResumeParams => ThreadResumeResponse;
    TurnStart = method::TURN_START, TurnStartParams => TurnStartResponse;
    TurnInterrupt = method::TURN_INTERRUPT, TurnInterruptParams => TurnInterruptResponse;
    AccountRead = method::ACCOUNT_READ, GetAccountParams => GetAccountResponse;
    /// Log in (the answer comes first; a browser or device flow completes later with
    /// `account/login/completed`).
    AccountLoginStart = method::ACCOUNT_LOGIN_START, LoginAccountParams => LoginAccountResponse;
    AccountLoginCancel = method::ACCOUNT_LOGIN_CANCEL, CancelLoginAccountParams => CancelLoginAccountResponse;
    /// Forget the login (codex removes its stored credentials).
    AccountLogout = method::ACCOUNT_LOGOUT, LogoutAccountParams => LogoutAccountResponse;
    /// The bundled model catalog (no HTTP call).
    ModelList = method::MODEL_LIST, ModelListParams => ModelListResponse;
    /// The configured MCP servers with their tools (each started to ask).
    McpServerStatusList = method::MCP_SERVER_STATUS_LIST, ListMcpServerStatusParams => ListMcpServerStatusResponse;
    /// The skills a folder's turns can use (the user's, the repository's, the system's).
    SkillsList = method::SKILLS_LIST, SkillsListParams => SkillsListResponse;
    /// The threads on this machine (a terminal's history), a page at a time.
    ThreadList = method::THREAD_LIST, ThreadListParams => ThreadListResponse;
    /// A thread's turns with their items, a page at a time.
    ThreadTurnsList = method::THREAD_TURNS_LIST, ThreadTurnsListParams => ThreadTurnsListResponse;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_names_its_wire_method() {
        assert_eq!(ThreadStart::METHOD, "thread/start");
        assert_eq!(ThreadResume::METHOD, "thread/resume");
        assert_eq!(TurnInterrupt::METHOD, "turn/interrupt");
        assert_eq!(AccountRead::METHOD, "account/read");
    }
}
