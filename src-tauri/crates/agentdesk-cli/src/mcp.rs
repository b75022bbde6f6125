//! `profile mcp`: a profile's MCP servers (issue 24): add, remove, turn on and off, and list
//! them as the engine reports them (state and tools, asked of the engine started with the
//! profile).

use agentdesk_core::Desk;
use agentdesk_protocol::ui::{ErrorCode, McpServer, McpState};
use clap::Subcommand;

use crate::error::{CliError, CliResult};
use crate::escape::visible_line;
use crate::profile::{find, WorkspaceArg};
use crate::views::{print_json, workspace_for};

#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// Add a server: a program over stdio (`-- COMMAND [ARGS...]`) or an HTTP server (--url).
    Add {
        #[command(flatten)]
        ws: WorkspaceArg,
        /// The profile.
        profile: String,
        /// The server's name (its tools are called after it).
        name: String,
        /// An HTTP server's URL.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// The NAME of the variable holding the HTTP server's bearer token (never the token).
        #[arg(long, value_name = "VAR", requires = "url")]
        token_env: Option<String>,
        /// A variable the program gets (repeatable; its NAME: the value comes from the
        /// profile's env or the environment).
        #[arg(long = "env", value_name = "VAR")]
        env_vars: Vec<String>,
        /// Add it turned off.
        #[arg(long)]
        disabled: bool,
        /// The program and its arguments, after `--`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Remove a server.
    Remove {
        #[command(flatten)]
        ws: WorkspaceArg,
        profile: String,
        name: String,
    },
    /// Pass a server to the engine again.
    Enable {
        #[command(flatten)]
        ws: WorkspaceArg,
        profile: String,
        name: String,
    },
    /// Keep a server in the profile without passing it to the engine.
    Disable {
        #[command(flatten)]
        ws: WorkspaceArg,
        profile: String,
        name: String,
    },
    /// The profile's servers as its engine reports them: state, error, tools.
    List {
        #[command(flatten)]
        ws: WorkspaceArg,
        profile: String,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub async fn mcp(desk: &Desk, cmd: McpCommand) -> CliResult<()> {
    match cmd {
        McpCommand::Add {
            ws,
            profile,
            name,
            url,
            token_env,
            env_vars,
            disabled,
            command,
        } => {
            let mut server = match (url, command.split_first()) {
                (Some(u), None) => McpServer::http(&name, u),
                (None, Some((program, args))) => {
                    let mut s = McpServer::stdio(&name, program);
                    s.args = args.to_vec();
                    s
                }
                _ => {
                    return Err(CliError::invalid(
                        "give the server's program after `--`, or --url",
                    ))
                }
            };
            server.bearer_token_env = token_env;
            server.env_vars = env_vars;
            server.enabled = !disabled;
            change(desk, &ws, &profile, &name, |list| {
                if list.iter().any(|s| s.name == name) {
                    return Err(CliError::invalid(format!(
                        "the profile already has an MCP server named {name:?}"
                    )));
                }
                list.push(server);
                Ok("added")
            })
            .await
        }
        McpCommand::Remove { ws, profile, name } => {
            change(desk, &ws, &profile, &name.clone(), |list| {
                let before = list.len();
                list.retain(|s| s.name != name);
                if list.len() == before {
                    return Err(missing(&name));
                }
                Ok("removed")
            })
            .await
        }
        McpCommand::Enable { ws, profile, name } => toggle(desk, &ws, &profile, &name, true).await,
        McpCommand::Disable { ws, profile, name } => {
            toggle(desk, &ws, &profile, &name, false).await
        }
        McpCommand::List { ws, profile, json } => list(desk, &ws, &profile, json).await,
    }
}

fn missing(name: &str) -> CliError {
    CliError::not_found(format!("the profile has no MCP server named {name:?}"))
}

async fn toggle(
    desk: &Desk,
    ws: &WorkspaceArg,
    profile: &str,
    name: &str,
    on: bool,
) -> CliResult<()> {
    change(desk, ws, profile, name, |list| {
        let s = list
            .iter_mut()
            .find(|s| s.name == name)
            .ok_or_else(|| missing(name))?;
        s.enabled = on;
        Ok(if on { "enabled" } else { "disabled" })
    })
    .await
}

/// Change the profile's list and save it (checked by the core like any profile edit).
async fn change(
    desk: &Desk,
    ws: &WorkspaceArg,
    profile: &str,
    name: &str,
    edit: impl FnOnce(&mut Vec<McpServer>) -> CliResult<&'static str>,
) -> CliResult<()> {
    let ws = workspace_for(desk, &ws.workspace, false).await?;
    let p = find(desk, &ws.id, profile).await?;
    let mut spec = p.spec.clone();
    let done = edit(&mut spec.mcp_servers)?;
    let p = desk.update_profile(&p.id, &spec).await?;
    println!(
        "{done} MCP server {:?} of profile {:?}",
        visible_line(name),
        p.spec.name
    );
    Ok(())
}

/// One line per server: name, state, tools (or the error); the engine is asked.
async fn list(desk: &Desk, ws: &WorkspaceArg, profile: &str, json: bool) -> CliResult<()> {
    let ws = workspace_for(desk, &ws.workspace, false).await?;
    let p = find(desk, &ws.id, profile).await?;
    let report = desk.mcp_status(&ws.id, &p.id).await?;
    if json {
        return print_json(&report);
    }
    if let Some(why) = &report.unavailable {
        return Err(CliError::from_code(ErrorCode::EngineFailed, why.clone()));
    }
    if report.servers.is_empty() {
        println!(
            "profile {:?} has no MCP servers (add one with `profile mcp add`)",
            p.spec.name
        );
    }
    for s in &report.servers {
        let state = match s.state {
            McpState::Connected => "connected",
            McpState::Failed => "failed",
            McpState::NeedsAuth => "needs login",
            McpState::Pending => "starting",
            McpState::Disabled => "disabled",
        };
        let detail = match (&s.error, s.tools.is_empty()) {
            (Some(e), _) => format!("error: {e}"),
            (None, true) if s.state == McpState::Connected => "no tools".to_owned(),
            (None, true) => String::new(),
            (None, false) => format!(
                "tools: {}",
                s.tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        println!(
            "{:<20} {:<12} {}",
            visible_line(&s.name),
            state,
            visible_line(&detail)
        );
    }
    Ok(())
}
