//! A profile's MCP servers (issue 24), given to each engine its own way and read back from
//! each engine's report. Only enabled servers are passed. No secret goes on a command line:
//! a stdio server's variables and an HTTP server's token are named, and the named variables
//! are passed to the engine's process (which hands them on: codex's `env_vars` and
//! `bearer_token_env_var`, Claude Code's `${VAR}` expansion in `--mcp-config`).

use agentdesk_protocol::codex::ListMcpServerStatusResponse;
use agentdesk_protocol::ui::{McpServer, McpServerStatus, McpState, McpTool};
use serde_json::{json, Map, Value};

fn enabled(servers: &[McpServer]) -> impl Iterator<Item = &McpServer> {
    servers.iter().filter(|s| s.enabled)
}

/// The variables of the app's environment the engine must receive for its servers.
pub fn env_names(servers: &[McpServer]) -> Vec<String> {
    let mut names: Vec<String> = enabled(servers)
        .flat_map(|s| s.env_vars.iter().chain(s.bearer_token_env.iter()))
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

fn toml_string(s: &str) -> String {
    // A TOML basic string: JSON's string escaping is a valid subset.
    Value::String(s.to_owned()).to_string()
}

fn toml_strings(v: &[String]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|s| toml_string(s))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// Codex: one `-c mcp_servers.<name>={...}` override per server (key, inline-table value).
pub fn codex_overrides(servers: &[McpServer]) -> Vec<(String, String)> {
    enabled(servers)
        .map(|s| {
            let mut fields = Vec::new();
            if let Some(c) = &s.command {
                fields.push(format!("command={}", toml_string(c)));
                if !s.args.is_empty() {
                    fields.push(format!("args={}", toml_strings(&s.args)));
                }
                if !s.env_vars.is_empty() {
                    fields.push(format!("env_vars={}", toml_strings(&s.env_vars)));
                }
            }
            if let Some(u) = &s.url {
                fields.push(format!("url={}", toml_string(u)));
                if let Some(t) = &s.bearer_token_env {
                    fields.push(format!("bearer_token_env_var={}", toml_string(t)));
                }
            }
            (
                format!("mcp_servers.{}", s.name),
                format!("{{{}}}", fields.join(",")),
            )
        })
        .collect()
}

/// Claude Code: the `--mcp-config` JSON (`None` without an enabled server).
pub fn claude_config(servers: &[McpServer]) -> Option<String> {
    let mut all = Map::new();
    for s in enabled(servers) {
        let entry = match (&s.command, &s.url) {
            (Some(c), _) => {
                let env: Map<String, Value> = s
                    .env_vars
                    .iter()
                    .map(|v| (v.clone(), Value::String(format!("${{{v}}}"))))
                    .collect();
                json!({"type": "stdio", "command": c, "args": s.args, "env": env})
            }
            (None, Some(u)) => {
                let mut e = json!({"type": "http", "url": u});
                if let Some(t) = &s.bearer_token_env {
                    e["headers"] = json!({"Authorization": format!("Bearer ${{{t}}}")});
                }
                e
            }
            (None, None) => continue,
        };
        all.insert(s.name.clone(), entry);
    }
    (!all.is_empty()).then(|| json!({ "mcpServers": all }).to_string())
}

/// The profile's servers as the engine reported them (`reported`), in the profile's order;
/// disabled ones as such, enabled ones the engine did not mention as failed.
pub fn report(servers: &[McpServer], mut reported: Vec<McpServerStatus>) -> Vec<McpServerStatus> {
    servers
        .iter()
        .map(|s| {
            if !s.enabled {
                return McpServerStatus {
                    name: s.name.clone(),
                    state: McpState::Disabled,
                    error: None,
                    tools: Vec::new(),
                };
            }
            match reported.iter().position(|r| r.name == s.name) {
                Some(i) => reported.swap_remove(i),
                None => McpServerStatus {
                    name: s.name.clone(),
                    state: McpState::Failed,
                    error: Some("the engine did not report this server".into()),
                    tools: Vec::new(),
                },
            }
        })
        .collect()
}

/// Codex's `mcpServerStatus/list` reply.
pub fn from_codex(reply: ListMcpServerStatusResponse) -> Vec<McpServerStatus> {
    reply
        .data
        .into_iter()
        .map(|e| {
            let needs_auth = e.auth_status.as_deref() == Some("notLoggedIn");
            let state = if needs_auth {
                McpState::NeedsAuth
            } else if e.tools_error.is_some() {
                McpState::Failed
            } else {
                McpState::Connected
            };
            McpServerStatus {
                name: e.name,
                state,
                error: e.tools_error,
                tools: e
                    .tools
                    .into_values()
                    .map(|t| McpTool {
                        name: t.name,
                        description: t.description.unwrap_or_default(),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Claude Code's `mcp_status` reply (`{"mcpServers": [...]}`). Its `config` (which echoes
/// expanded headers) is never read.
pub fn from_claude(reply: &Value) -> Vec<McpServerStatus> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    reply
        .get("mcpServers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let name = text(s, "name")?;
            let state = match text(s, "status").as_deref() {
                Some("connected") => McpState::Connected,
                Some("pending") => McpState::Pending,
                Some("needs-auth" | "needs_auth") => McpState::NeedsAuth,
                Some("disabled") => McpState::Disabled,
                _ => McpState::Failed,
            };
            let tools = s
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| {
                    Some(McpTool {
                        name: text(t, "name")?,
                        description: text(t, "description").unwrap_or_default(),
                    })
                })
                .collect();
            Some(McpServerStatus {
                name,
                state,
                error: text(s, "error"),
                tools,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn servers() -> Vec<McpServer> {
        let mut notes = McpServer::stdio("notes", "/bin/notes");
        notes.args = vec!["--dir".into(), "a \"b\"".into()];
        notes.env_vars = vec!["NOTES_TOKEN".into()];
        let mut web = McpServer::http("web", "https://mcp.example/api");
        web.bearer_token_env = Some("WEB_TOKEN".into());
        let mut off = McpServer::stdio("off", "/bin/off");
        off.enabled = false;
        off.env_vars = vec!["OFF_SECRET".into()];
        vec![notes, web, off]
    }

    #[test]
    fn codex_gets_inline_tables_naming_its_variables() {
        let o = codex_overrides(&servers());
        assert_eq!(
            o,
            [
                (
                    "mcp_servers.notes".to_owned(),
                    r#"{command="/bin/notes",args=["--dir","a \"b\""],env_vars=["NOTES_TOKEN"]}"#
                        .to_owned()
                ),
                (
                    "mcp_servers.web".to_owned(),
                    r#"{url="https://mcp.example/api",bearer_token_env_var="WEB_TOKEN"}"#
                        .to_owned()
                ),
            ]
        );
        assert_eq!(env_names(&servers()), ["NOTES_TOKEN", "WEB_TOKEN"]);
    }

    #[test]
    fn claude_gets_variables_to_expand_never_values() {
        let c: Value = serde_json::from_str(&claude_config(&servers()).unwrap()).unwrap();
        assert_eq!(
            c,
            json!({"mcpServers": {
                "notes": {"type": "stdio", "command": "/bin/notes", "args": ["--dir", "a \"b\""],
                          "env": {"NOTES_TOKEN": "${NOTES_TOKEN}"}},
                "web": {"type": "http", "url": "https://mcp.example/api",
                        "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}
            }})
        );
        assert_eq!(claude_config(&servers()[2..]), None);
    }

    #[test]
    fn reports_follow_the_profile_and_ignore_the_echoed_config() {
        let reply = json!({"mcpServers": [
            {"name": "web", "status": "failed", "error": "ECONNREFUSED",
             "config": {"headers": {"Authorization": "Bearer s3cr3t"}}},
            {"name": "notes", "status": "connected", "tools": [{"name": "note", "annotations": {}}]},
            {"name": "user-own", "status": "connected"}
        ]});
        let r = report(&servers(), from_claude(&reply));
        assert_eq!(r.len(), 3);
        assert_eq!(
            (r[0].name.as_str(), r[0].state),
            ("notes", McpState::Connected)
        );
        assert_eq!(r[0].tools[0].name, "note");
        assert_eq!(
            (r[1].state, r[1].error.as_deref()),
            (McpState::Failed, Some("ECONNREFUSED"))
        );
        assert_eq!(r[2].state, McpState::Disabled);
        assert!(!format!("{r:?}").contains("s3cr3t"));
    }
}
