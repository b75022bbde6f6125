//! The engines' accounts (issue 24, item 7): who an engine runs as, and logging in from the
//! app. The engines keep their credentials themselves (Codex in its home, Claude Code in its
//! config); Agent Desk stores none and passes an API key straight to the engine.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Engine;

stored_enum! {
    /// A way to log in the app can start.
    pub enum LoginKind {
        /// An API key, handed to the engine (which stores it).
        ApiKey,
        /// The engine's browser flow: the app opens its page, the engine takes the callback.
        Browser,
        /// A code to type on another device (for machines without a browser).
        DeviceCode,
    }
}

/// An engine's account, as the engine reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EngineAccount {
    pub engine: Engine,
    /// `None`: the engine could not say (`unavailable` tells why).
    pub logged_in: Option<bool>,
    /// How it is logged in, in words ("ChatGPT", "API key", "Claude subscription").
    pub method: Option<String>,
    pub email: Option<String>,
    pub plan: Option<String>,
    /// What the app can start (empty: log in from a terminal, with `login_commands`).
    pub login_methods: Vec<LoginKind>,
    /// Whether the app can log the engine out.
    pub can_log_out: bool,
    /// How to log in from a terminal.
    pub login_commands: Vec<String>,
    pub unavailable: Option<String>,
}

/// What to log in with.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoginRequest {
    /// Never shown or logged: `Debug` leaves it out.
    ApiKey {
        #[serde(rename = "apiKey")]
        api_key: String,
    },
    Browser,
    DeviceCode,
}

impl std::fmt::Debug for LoginRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ApiKey { .. } => "ApiKey(••••)",
            Self::Browser => "Browser",
            Self::DeviceCode => "DeviceCode",
        })
    }
}

impl LoginRequest {
    pub fn kind(&self) -> LoginKind {
        match self {
            Self::ApiKey { .. } => LoginKind::ApiKey,
            Self::Browser => LoginKind::Browser,
            Self::DeviceCode => LoginKind::DeviceCode,
        }
    }
}

/// A login started: done already (an API key), or waiting for the user in a browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LoginStart {
    /// The flow to wait for or cancel (`None`: done).
    pub login_id: Option<String>,
    /// The page to open (browser flow).
    pub auth_url: Option<String>,
    /// Where to type `user_code` (device code flow).
    pub verification_url: Option<String>,
    pub user_code: Option<String>,
    /// The account now, when the login is already done.
    pub account: Option<EngineAccount>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_key_never_shows_in_debug() {
        let r = LoginRequest::ApiKey {
            api_key: "sk-very-secret".into(),
        };
        assert!(!format!("{r:?}").contains("secret"));
        let json = serde_json::to_value(&r).unwrap_or_default();
        assert_eq!(json["kind"], "api_key");
        assert_eq!(json["apiKey"], "sk-very-secret");
    }
}
