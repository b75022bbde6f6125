//! Where a profile sends its model requests, and with which key: the part of a profile that,
//! changed by someone other than the user, would hand the user's API key (or login) to a
//! third party. The window is not trusted with it — whatever an agent printed runs next to
//! it — so the shell asks the user in a native dialog before such a change is saved from the
//! window (see `src-tauri/src/commands/profiles.rs`), and the answer is remembered here.
//!
//! The CLI and the core's own API are the user at a terminal and ask nothing.

use std::collections::BTreeMap;

use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::{Engine, ProfileSpec};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Desk, Result};

/// Settings key of the endpoints the user confirmed (their fingerprints).
pub const CONFIRMED_ENDPOINTS_KEY: &str = "confirmedEndpoints";

/// How many confirmations are kept (the oldest go first): a window calling in a loop must
/// not grow the settings without bound.
const MAX_CONFIRMED: usize = 256;

/// Environment variables that choose where an engine's requests go, through what, or which
/// certificates it trusts (and so who can read them), or where it reads its config and login.
const ROUTING_ENV: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CODEX_CA_CERTIFICATE",
    "HOME",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_AUTH_TOKEN",
];

/// Name endings of variables that hold an endpoint (`ANTHROPIC_BASE_URL`, `OPENAI_API_BASE`...).
const ROUTING_ENV_SUFFIXES: &[&str] = &["_URL", "_API_BASE", "_ENDPOINT"];

fn is_routing_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ROUTING_ENV.contains(&upper.as_str()) || ROUTING_ENV_SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// Engine options that decide where requests and keys go (a Codex home or project config,
/// Claude's workspace settings, an ACP agent's command...), as the engine's descriptor names
/// them, under `engineOptions.`.
fn routing_options(spec: &ProfileSpec) -> BTreeMap<String, String> {
    crate::engines::descriptor(spec.engine)
        .routing_options(&spec.engine_options)
        .into_iter()
        .map(|(k, v)| (format!("engineOptions.{k}"), v))
        .collect()
}

/// A profile's endpoint: everything that decides where its requests and its key go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileEndpoint {
    pub engine: Engine,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    /// The routing environment variables and engine options, by their field name
    /// (`env.HTTPS_PROXY`, `engineOptions.codexHome`); secret values as a hash.
    pub routing: BTreeMap<String, String>,
}

impl ProfileEndpoint {
    pub fn of(spec: &ProfileSpec) -> Self {
        let mut routing = routing_options(spec);
        for (name, value) in spec.env.iter().filter(|(n, _)| is_routing_env(n)) {
            // A secret (a proxy with a password) is compared by hash: the fingerprint is
            // stored in the settings, where the value must not be.
            let shown = if spec.is_secret(name) {
                format!("secret:{}", hex(&Sha256::digest(value.as_bytes())))
            } else {
                value.clone()
            };
            routing.insert(format!("env.{name}"), shown);
        }
        // An MCP server is a program the engine starts, or a URL it sends tool calls to (with
        // a token): what a window must not add or change on its own either.
        for m in spec.mcp_servers.iter().filter(|m| m.enabled) {
            let what = match (&m.command, &m.url) {
                (Some(c), _) => {
                    let mut w = format!(
                        "runs {}",
                        std::iter::once(c)
                            .chain(&m.args)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                    if !m.env_vars.is_empty() {
                        w.push_str(&format!(" (given {})", m.env_vars.join(", ")));
                    }
                    w
                }
                (None, Some(u)) => match &m.bearer_token_env {
                    Some(t) => format!("connects to {u} (with the token in {t})"),
                    None => format!("connects to {u}"),
                },
                (None, None) => continue,
            };
            routing.insert(format!("mcpServers.{}", m.name), what);
        }
        ProfileEndpoint {
            engine: spec.engine,
            base_url: spec.base_url.clone(),
            api_key_env: spec.api_key_env.clone(),
            routing,
        }
    }

    /// The engine's own endpoint with the user's own login: nothing to confirm.
    pub fn is_engine_default(&self) -> bool {
        self.base_url.is_none() && self.api_key_env.is_none() && self.routing.is_empty()
    }

    /// A stable digest of the whole endpoint (what a confirmation is remembered by).
    pub fn fingerprint(&self) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        hex(&Sha256::digest(text.as_bytes()))
    }

    /// The profile fields that differ from `old` (all of them without one), in the editor's
    /// names, for the error shown next to them when the change is not confirmed.
    pub fn changed_fields(&self, old: Option<&ProfileEndpoint>) -> Vec<String> {
        let mut fields = Vec::new();
        if old.is_none_or(|o| o.base_url != self.base_url) && self.base_url.is_some() {
            fields.push("baseUrl".to_string());
        }
        if old.is_none_or(|o| o.api_key_env != self.api_key_env) && self.api_key_env.is_some() {
            fields.push("apiKeyEnv".to_string());
        }
        for (k, v) in &self.routing {
            if old.is_none_or(|o| o.routing.get(k) != Some(v)) {
                fields.push(k.clone());
            }
        }
        if fields.is_empty() {
            // Something was removed (e.g. the base URL, leaving the key variable).
            fields.push(if self.base_url.is_some() {
                "baseUrl".to_string()
            } else {
                "apiKeyEnv".to_string()
            });
        }
        fields
    }

    /// What the native confirmation says, in words.
    pub fn describe(&self, profile_name: &str) -> String {
        let engine = crate::engines::descriptor(self.engine).display_name();
        let target = self
            .base_url
            .as_deref()
            .map_or_else(|| format!("{engine}'s own service"), str::to_string);
        let key = self.api_key_env.as_deref().map_or_else(
            || {
                if self.base_url.is_some() {
                    ", with no API key variable (the engine may send its own login)".to_string()
                } else {
                    String::new()
                }
            },
            |v| format!(", with the API key from the environment variable {v}"),
        );
        let mut text = format!(
            "The {engine} profile “{profile_name}” will send your prompts and files to {target}{key}."
        );
        if !self.routing.is_empty() {
            text.push_str("\n\nIt also sets:");
            for (k, v) in &self.routing {
                let v = if v.starts_with("secret:") {
                    "(secret value)"
                } else {
                    v.as_str()
                };
                text.push_str(&format!("\n  {k} = {v}"));
            }
        }
        text.push_str(
            "\n\nConfirm only if you made this change yourself: text shown in the app, an agent's output included, must never be able to send your key elsewhere.",
        );
        text
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An endpoint the user has to confirm before the profile is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointChange {
    pub endpoint: ProfileEndpoint,
    /// The profile's name, for the dialog.
    pub profile_name: String,
    /// The fields that changed, for the error next to them when it is not confirmed.
    pub fields: Vec<String>,
}

impl EndpointChange {
    pub fn describe(&self) -> String {
        self.endpoint.describe(&self.profile_name)
    }
}

impl Desk {
    /// Whether saving `spec` over the profile `id` changes its endpoint to one the user has
    /// not confirmed: `Some` then, with what to ask. See [`Desk::new_profile_endpoint_check`].
    pub async fn profile_endpoint_check(
        &self,
        id: &ProfileId,
        spec: &ProfileSpec,
    ) -> Result<Option<EndpointChange>> {
        let Ok(mut spec) = super::validate_profile(spec) else {
            return Ok(None);
        };
        let stored = self.store.get_profile(id).await?;
        super::merge_masked_secrets(&mut spec, &stored.spec);
        let old = ProfileEndpoint::of(&stored.spec);
        self.endpoint_check(&stored.workspace_id, &spec, Some(&old))
            .await
    }

    /// Whether creating `spec` in `workspace_id` needs the user's confirmation of its
    /// endpoint. `None` (nothing to ask) when the endpoint is the engine's own, one a profile
    /// of the workspace already has, or one the user confirmed before — and when the spec is
    /// invalid (saving it fails with its field errors anyway).
    pub async fn new_profile_endpoint_check(
        &self,
        workspace_id: &WorkspaceId,
        spec: &ProfileSpec,
    ) -> Result<Option<EndpointChange>> {
        let Ok(spec) = super::validate_profile(spec) else {
            return Ok(None);
        };
        self.endpoint_check(workspace_id, &spec, None).await
    }

    async fn endpoint_check(
        &self,
        workspace_id: &WorkspaceId,
        spec: &ProfileSpec,
        old: Option<&ProfileEndpoint>,
    ) -> Result<Option<EndpointChange>> {
        let new = ProfileEndpoint::of(spec);
        if new.is_engine_default() || old == Some(&new) {
            return Ok(None);
        }
        // Already in use in this workspace (a profile saved before, from the CLI or
        // confirmed): moving to it sends nothing anywhere new.
        let known = self
            .store
            .list_profiles(workspace_id)
            .await?
            .iter()
            .any(|p| ProfileEndpoint::of(&p.spec) == new);
        if known
            || self
                .confirmed_endpoints()
                .await?
                .contains(&new.fingerprint())
        {
            return Ok(None);
        }
        Ok(Some(EndpointChange {
            fields: new.changed_fields(old),
            profile_name: spec.name.clone(),
            endpoint: new,
        }))
    }

    /// Remember that the user confirmed this endpoint (the same one is not asked again).
    pub async fn confirm_endpoint(&self, change: &EndpointChange) -> Result<()> {
        let mut list = self.confirmed_endpoints().await?;
        let fp = change.endpoint.fingerprint();
        list.retain(|f| *f != fp);
        list.push(fp);
        if list.len() > MAX_CONFIRMED {
            let extra = list.len() - MAX_CONFIRMED;
            list.drain(..extra);
        }
        let stored = ConfirmedEndpoints { fingerprints: list };
        Ok(self
            .store
            .set_setting(CONFIRMED_ENDPOINTS_KEY, &stored)
            .await?)
    }

    async fn confirmed_endpoints(&self) -> Result<Vec<String>> {
        Ok(self
            .store
            .get_setting::<ConfirmedEndpoints>(CONFIRMED_ENDPOINTS_KEY)
            .await?
            .unwrap_or_default()
            .fingerprints)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ConfirmedEndpoints {
    #[serde(default)]
    fingerprints: Vec<String>,
}

#[cfg(test)]
#[path = "endpoint_tests.rs"]
mod tests;
