//! MCP servers a profile's runs connect to (issue 24): declared once, passed to each engine
//! its own way (Codex config overrides, Claude Code's `--mcp-config`), listed with the state
//! and tools the engine itself reports.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

fn enabled() -> bool {
    true
}

/// One MCP server: a program over stdio (`command`) or a streamable HTTP server (`url`).
///
/// It holds no secret itself: a stdio server gets named environment variables (set in the
/// profile's environment, where secrets are masked, or the app's own), an HTTP server a
/// bearer token read from a named variable, so neither ends up on a command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    /// What its tools are called under (`mcp__<name>__<tool>` for Claude Code): letters,
    /// digits, `_` and `-`.
    pub name: String,
    /// A disabled server stays in the profile but is not passed to the engine.
    #[serde(default = "enabled")]
    pub enabled: bool,
    /// The program to start (a stdio server): an absolute path or a name on PATH.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables the program gets (names only; values from the profile's
    /// environment or the app's).
    #[serde(default)]
    pub env_vars: Vec<String>,
    /// The server's URL (an HTTP server).
    #[serde(default)]
    pub url: Option<String>,
    /// The environment variable holding the bearer token sent to `url` (its name, never the
    /// token).
    #[serde(default)]
    pub bearer_token_env: Option<String>,
}

impl McpServer {
    /// A stdio server running `command`.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            enabled: true,
            command: Some(command.into()),
            args: Vec::new(),
            env_vars: Vec::new(),
            url: None,
            bearer_token_env: None,
        }
    }

    /// An HTTP server at `url`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            command: None,
            url: Some(url.into()),
            ..Self::stdio(name, "")
        }
    }
}

stored_enum! {
    /// Where an MCP server stands, as its engine reports it.
    pub enum McpState {
        /// Started (or reached) and its tools listed.
        Connected,
        /// Could not be started or reached: `error` says why.
        Failed,
        /// Waits for the user to log in to it (OAuth).
        NeedsAuth,
        /// Still starting when the engine was asked.
        Pending,
        /// In the profile but turned off: not passed to the engine.
        Disabled,
    }
}

/// A tool an MCP server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    pub name: String,
    pub description: String,
}

/// One server's state and tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerStatus {
    pub name: String,
    pub state: McpState,
    /// Why it failed, in the engine's words.
    pub error: Option<String>,
    pub tools: Vec<McpTool>,
}

/// A profile's MCP servers as its engine sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpReport {
    pub servers: Vec<McpServerStatus>,
    /// Why there is no report (the engine reports no MCP servers, could not be started).
    pub unavailable: Option<String>,
}
