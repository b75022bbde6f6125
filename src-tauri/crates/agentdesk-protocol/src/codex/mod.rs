//! Codex `app-server` v2 wire types: the subset Agent Desk speaks, pinned to codex 0.169.0
//! (the full schema of that version is committed under `schema/codex-0.169.0/`; a test diffs it
//! against the pinned binary so an upgrade fails loudly).
//!
//! Conventions, all of them forced by the wire:
//! - Field names are camelCase except where codex itself uses snake_case (`text_elements`).
//! - Tagged unions (`ThreadItem`, `UserInput`, ...) keep unknown variants as raw JSON in an
//!   `Unknown(serde_json::Value)` variant: a newer codex must never crash a session.
//! - Unknown fields are ignored, so additive changes on codex's side are harmless.
//! - Notifications and server requests are parsed from `(method, params)` because the RPC
//!   peer has already split the envelope; unknown methods come back as `Unknown { .. }`.

/// An enum of the server's messages of one kind (notifications, requests), one variant per
/// method, and its parsing: unknown methods, and known ones whose params do not parse, are
/// kept as `Unknown` (with the reason), never an error.
macro_rules! by_method {
    ($(#[$enum_doc:meta])* pub enum $name:ident {
        $( $(#[$doc:meta])* $variant:ident($ty:ty) = $method:literal, )*
    }) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $( $(#[$doc])* $variant($ty), )*
            /// Anything else, or a known method whose params did not parse (`error` says why).
            Unknown { method: String, params: Value, error: Option<String> },
        }

        impl $name {
            /// Parses a message. Never fails: see `Unknown`.
            pub fn from_parts(method: &str, params: &Value) -> Self {
                match method {
                    $( $method => match <$ty>::deserialize(params) {
                        Ok(p) => Self::$variant(p),
                        Err(e) => Self::Unknown {
                            method: method.to_owned(),
                            params: params.clone(),
                            error: Some(e.to_string()),
                        },
                    }, )*
                    _ => Self::Unknown { method: method.to_owned(), params: params.clone(), error: None },
                }
            }

            pub fn method(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $method, )*
                    Self::Unknown { method, .. } => method,
                }
            }

            /// The params as JSON again (for diagnostics and round-trip tests).
            pub fn params(&self) -> Value {
                match self {
                    $( Self::$variant(p) => serde_json::to_value(p).unwrap_or(Value::Null), )*
                    Self::Unknown { params, .. } => params.clone(),
                }
            }
        }
    };
}

pub mod client;
pub mod history;
pub mod items;
pub mod notifications;
pub mod requests;
pub mod server_requests;

pub use client::*;
pub use history::*;
pub use items::*;
pub use notifications::*;
pub use server_requests::*;

/// The codex version whose wire this module follows and whose schema is committed.
pub const PINNED_CODEX_VERSION: &str = "0.169.0";

/// Client → server method names.
pub mod method {
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "initialized";
    pub const THREAD_START: &str = "thread/start";
    pub const THREAD_RESUME: &str = "thread/resume";
    pub const TURN_START: &str = "turn/start";
    pub const TURN_INTERRUPT: &str = "turn/interrupt";
    pub const ACCOUNT_READ: &str = "account/read";
    pub const ACCOUNT_LOGIN_START: &str = "account/login/start";
    pub const ACCOUNT_LOGIN_CANCEL: &str = "account/login/cancel";
    pub const ACCOUNT_LOGOUT: &str = "account/logout";
    pub const MODEL_LIST: &str = "model/list";
    pub const SKILLS_LIST: &str = "skills/list";
    pub const MCP_SERVER_STATUS_LIST: &str = "mcpServerStatus/list";
    pub const THREAD_LIST: &str = "thread/list";
    pub const THREAD_TURNS_LIST: &str = "thread/turns/list";
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
