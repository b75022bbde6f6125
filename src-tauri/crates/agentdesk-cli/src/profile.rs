//! `profile list|add|edit|remove`: every profile field as a flag. Validation is the core's
//! (`validate_profile`), so the CLI and the app refuse the same things with the same words.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentdesk_core::profiles::{parse_engine, parse_permission_mode};
use agentdesk_core::Desk;
use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::ui::{ApprovalRule, ErrorCode, Profile, ProfileSpec};
use clap::{Args, Subcommand};

use crate::error::{CliError, CliResult};
use crate::escape::visible_line;
use crate::views::{print_json, workspace_for};

#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// List the workspace's profiles (the default marked with *). Secret env values show as
    /// ••••.
    List {
        #[command(flatten)]
        ws: WorkspaceArg,
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one profile, every field (secret env values as ••••).
    Show {
        #[command(flatten)]
        ws: WorkspaceArg,
        name: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Add a profile (the workspace's first profile becomes its default).
    Add {
        #[command(flatten)]
        ws: WorkspaceArg,
        /// The profile's name, unique in the workspace.
        name: String,
        /// codex, claude or acp (any Agent Client Protocol agent: give --preset or --command).
        #[arg(long)]
        engine: String,
        #[command(flatten)]
        fields: ProfileFields,
    },
    /// Change some fields of a profile; the others keep their values.
    Edit {
        #[command(flatten)]
        ws: WorkspaceArg,
        /// The profile to change.
        name: String,
        /// codex, claude or acp.
        #[arg(long)]
        engine: Option<String>,
        /// A new name.
        #[arg(long, value_name = "NAME")]
        rename: Option<String>,
        /// Reset fields to empty: model, base-url, api-key-env, system-prompt, allowed-tools,
        /// denied-tools, extra-dirs, env (secret ones too), rules, approval-timeout,
        /// engine-options, mcp-servers.
        #[arg(long, value_name = "FIELD")]
        clear: Vec<String>,
        #[command(flatten)]
        fields: ProfileFields,
    },
    /// The models the engine offers (asked of the engine itself), with their reasoning
    /// efforts: for a profile (its options and environment), or for --engine's defaults.
    Models {
        #[command(flatten)]
        ws: WorkspaceArg,
        /// A profile of the workspace.
        #[arg(required_unless_present = "engine", conflicts_with = "engine")]
        name: Option<String>,
        /// codex or claude, with its defaults.
        #[arg(long)]
        engine: Option<String>,
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// A profile's MCP servers: add, remove, enable, disable, list (as the engine reports
    /// them).
    #[command(subcommand)]
    Mcp(crate::mcp::McpCommand),
    /// Remove a profile (its sessions keep their history).
    Remove {
        #[command(flatten)]
        ws: WorkspaceArg,
        name: String,
    },
}

#[derive(Args, Debug)]
pub struct WorkspaceArg {
    /// The workspace folder (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub workspace: PathBuf,
}

/// The optional fields, shared by `add` and `edit`. A list flag given on `edit` replaces the
/// whole list.
#[derive(Args, Debug)]
pub struct ProfileFields {
    /// The engine's model id (e.g. gpt-5.1-codex, claude-sonnet-4-5).
    #[arg(long)]
    model: Option<String>,
    /// A custom OpenAI- or Anthropic-compatible endpoint (http or https URL).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The NAME of the environment variable holding the endpoint's key (never the key).
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// ask, auto_edit, full_auto or read_only.
    #[arg(long, value_name = "MODE")]
    permission_mode: Option<String>,
    /// A tool the agent may use without asking (repeatable).
    #[arg(long = "allow-tool", value_name = "TOOL")]
    allowed_tools: Vec<String>,
    /// A tool the agent may never use (repeatable).
    #[arg(long = "deny-tool", value_name = "TOOL")]
    denied_tools: Vec<String>,
    /// Text appended to the engine's system prompt.
    #[arg(long, value_name = "TEXT")]
    system_prompt: Option<String>,
    /// An extra absolute directory the agent may read (repeatable).
    #[arg(long = "extra-dir", value_name = "DIR")]
    extra_dirs: Vec<String>,
    /// An environment variable for the engine process (repeatable). With --secret-env, the
    /// two together replace the profile's whole environment on `edit`.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// An environment variable whose value is a secret (a token): passed to the engine like
    /// --env, but never displayed, exported or logged (repeatable).
    #[arg(long = "secret-env", value_name = "KEY=VALUE")]
    secret_env: Vec<String>,
    /// Approval rules as a JSON array, e.g. '[{"tool":"Bash","commandPrefix":"git status","action":"allow"}]'.
    #[arg(long, value_name = "JSON")]
    rules: Option<String>,
    /// Seconds before a pending approval is safely denied (recorded as timed out).
    #[arg(long, value_name = "SECS")]
    approval_timeout: Option<u32>,
    /// Engine-specific options as a JSON object.
    #[arg(long, value_name = "JSON")]
    engine_options: Option<String>,
    /// ACP: a known agent (opencode, gemini): its program, arguments and the settings that
    /// make it ask before acting.
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// ACP: the agent's executable (a custom agent, or another path for a preset's).
    #[arg(long, value_name = "EXE")]
    command: Option<String>,
    /// ACP: an argument for the agent's command (repeatable; replaces the list on `edit`).
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    args: Vec<String>,
    /// The reasoning effort (one of the model's levels: `profile models` lists them); kept
    /// in the engine options as `reasoningEffort`.
    #[arg(long, value_name = "LEVEL")]
    effort: Option<String>,
    /// Make this the workspace's default profile.
    #[arg(long)]
    default: bool,
}

pub async fn profile(desk: &Desk, cmd: ProfileCommand) -> CliResult<()> {
    match cmd {
        ProfileCommand::List { ws, json } => list(desk, &ws, json).await,
        ProfileCommand::Show { ws, name, json } => {
            let ws = workspace_for(desk, &ws.workspace, false).await?;
            let p = masked(find(desk, &ws.id, &name).await?);
            if json {
                return print_json(&p);
            }
            print_profile(&p, true);
            Ok(())
        }
        ProfileCommand::Add {
            ws,
            name,
            engine,
            fields,
        } => {
            let ws = workspace_for(desk, &ws.workspace, true).await?;
            let mut spec = ProfileSpec::new(name, parse_engine(&engine)?);
            let make_default = fields.default;
            apply(&mut spec, fields)?;
            let p = desk.create_profile(&ws.id, &spec).await?;
            if make_default && !p.is_default {
                desk.set_default_profile(&p.id).await?;
            }
            println!("added profile {:?} ({})", p.spec.name, p.id);
            Ok(())
        }
        ProfileCommand::Edit {
            ws,
            name,
            engine,
            rename,
            clear,
            fields,
        } => edit(desk, &ws, &name, engine, rename, &clear, fields).await,
        ProfileCommand::Models {
            ws,
            name,
            engine,
            json,
        } => models(desk, &ws, name, engine, json).await,
        ProfileCommand::Mcp(cmd) => crate::mcp::mcp(desk, cmd).await,
        ProfileCommand::Remove { ws, name } => {
            let ws = workspace_for(desk, &ws.workspace, false).await?;
            let p = find(desk, &ws.id, &name).await?;
            desk.delete_profile(&p.id).await?;
            println!("removed profile {:?}", p.spec.name);
            Ok(())
        }
    }
}

/// `profile models`: one line per model, `*` on the engine's default.
async fn models(
    desk: &Desk,
    ws: &WorkspaceArg,
    name: Option<String>,
    engine: Option<String>,
    json: bool,
) -> CliResult<()> {
    let ws = workspace_for(desk, &ws.workspace, true).await?;
    let (engine, profile) = match (name, engine) {
        (Some(name), _) => {
            let p = find(desk, &ws.id, &name).await?;
            (p.spec.engine, Some(p.id))
        }
        (None, Some(e)) => (parse_engine(&e)?, None),
        (None, None) => return Err(CliError::invalid("give a profile's name or --engine")),
    };
    let catalog = desk
        .list_models_for(&ws.id, engine, profile.as_ref())
        .await?;
    if json {
        return print_json(&catalog);
    }
    if let Some(why) = &catalog.unavailable {
        return Err(CliError::from_code(ErrorCode::EngineFailed, why.clone()));
    }
    for m in &catalog.models {
        let mark = if m.is_default { "*" } else { " " };
        let efforts = if m.efforts.is_empty() {
            String::new()
        } else {
            format!("  effort: {}", m.efforts.join(", "))
        };
        println!(
            "{mark} {:<24} {}{efforts}",
            visible_line(&m.id),
            visible_line(&m.display_name)
        );
    }
    Ok(())
}

/// `profile list`: every profile of the workspace, secret env values masked.
async fn list(desk: &Desk, ws: &WorkspaceArg, json: bool) -> CliResult<()> {
    let ws = workspace_for(desk, &ws.workspace, false).await?;
    let profiles = desk.list_profiles(&ws.id).await?;
    let profiles: Vec<Profile> = profiles.into_iter().map(masked).collect();
    if json {
        return print_json(&profiles);
    }
    if profiles.is_empty() {
        println!("no profiles in {} (add one with `profile add`)", ws.path);
    }
    for p in &profiles {
        print_profile(p, false);
    }
    Ok(())
}

/// `profile edit`: the fields named in `clear` emptied first, then the given ones set.
async fn edit(
    desk: &Desk,
    ws: &WorkspaceArg,
    name: &str,
    engine: Option<String>,
    rename: Option<String>,
    clear: &[String],
    fields: ProfileFields,
) -> CliResult<()> {
    let ws = workspace_for(desk, &ws.workspace, false).await?;
    let p = find(desk, &ws.id, name).await?;
    let mut spec = p.spec.clone();
    for field in clear {
        clear_field(&mut spec, field)?;
    }
    if let Some(e) = engine {
        spec.engine = parse_engine(&e)?;
    }
    if let Some(n) = rename {
        spec.name = n;
    }
    let make_default = fields.default;
    apply(&mut spec, fields)?;
    let p = desk.update_profile(&p.id, &spec).await?;
    if make_default && !p.is_default {
        desk.set_default_profile(&p.id).await?;
    }
    println!("updated profile {:?}", p.spec.name);
    Ok(())
}

pub async fn find(desk: &Desk, workspace_id: &WorkspaceId, name: &str) -> CliResult<Profile> {
    desk.find_profile(workspace_id, name).await?.ok_or_else(|| {
        CliError::not_found(format!(
            "no profile named {name:?} in this workspace (see `agentdesk-cli profile list`)"
        ))
    })
}

fn apply(spec: &mut ProfileSpec, f: ProfileFields) -> CliResult<()> {
    let set = |target: &mut Option<String>, v: Option<String>| {
        if v.is_some() {
            *target = v;
        }
    };
    set(&mut spec.model, f.model);
    set(&mut spec.base_url, f.base_url);
    set(&mut spec.api_key_env, f.api_key_env);
    set(&mut spec.system_prompt, f.system_prompt);
    if let Some(m) = f.permission_mode {
        spec.permission_mode = parse_permission_mode(&m)?;
    }
    if !f.allowed_tools.is_empty() {
        spec.allowed_tools = f.allowed_tools;
    }
    if !f.denied_tools.is_empty() {
        spec.denied_tools = f.denied_tools;
    }
    if !f.extra_dirs.is_empty() {
        spec.extra_dirs = f.extra_dirs;
    }
    if !f.env.is_empty() || !f.secret_env.is_empty() {
        let pair = |flag: &str, kv: &str| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
                .ok_or_else(|| CliError::invalid(format!("{flag} {kv:?}: write it as KEY=VALUE")))
        };
        let mut env = BTreeMap::new();
        for kv in &f.env {
            let (k, v) = pair("--env", kv)?;
            env.insert(k, v);
        }
        let mut secret = Vec::new();
        for kv in &f.secret_env {
            // Not echoed: the value is the secret.
            let (k, v) = pair("--secret-env", kv).map_err(|_| {
                CliError::invalid("--secret-env: write it as KEY=VALUE (the value is not shown)")
            })?;
            if env.contains_key(&k) {
                return Err(CliError::invalid(format!(
                    "{k} is given both as --env and as --secret-env"
                )));
            }
            env.insert(k.clone(), v);
            secret.push(k);
        }
        spec.env = env;
        spec.secret_env = secret;
    }
    if let Some(r) = f.rules {
        spec.approval_rules = serde_json::from_str::<Vec<ApprovalRule>>(&r)
            .map_err(|e| CliError::invalid(format!("--rules is not a JSON array of rules: {e}")))?;
    }
    if let Some(t) = f.approval_timeout {
        spec.approval_timeout_secs = Some(t);
    }
    if let Some(o) = f.engine_options {
        spec.engine_options = serde_json::from_str(&o)
            .map_err(|e| CliError::invalid(format!("--engine-options is not JSON: {e}")))?;
    }
    if let Some(effort) = f.effort {
        if !spec.engine_options.is_object() {
            spec.engine_options = serde_json::json!({});
        }
        if let Some(o) = spec.engine_options.as_object_mut() {
            o.insert("reasoningEffort".into(), serde_json::Value::String(effort));
        }
    }
    apply_command(spec, f.preset, f.command, f.args)
}

/// `--preset`, `--command`, `--arg`: the agent an engine that runs the profile's command
/// starts, kept in its engine options (`preset`, `command`, `args`).
fn apply_command(
    spec: &mut ProfileSpec,
    preset: Option<String>,
    command: Option<String>,
    args: Vec<String>,
) -> CliResult<()> {
    if preset.is_none() && command.is_none() && args.is_empty() {
        return Ok(());
    }
    let d = agentdesk_core::engines::descriptor(spec.engine);
    if !d.command_from_profile() {
        return Err(CliError::invalid(format!(
            "--preset, --command and --arg are for engines that run the profile's command (acp); {} runs its own executable",
            d.display_name()
        )));
    }
    if !spec.engine_options.is_object() {
        spec.engine_options = serde_json::Value::Object(serde_json::Map::new());
    }
    if let Some(opts) = spec.engine_options.as_object_mut() {
        if let Some(p) = preset {
            opts.insert("preset".into(), p.trim().into());
        }
        if let Some(c) = command {
            opts.insert("command".into(), c.into());
        }
        if !args.is_empty() {
            opts.insert("args".into(), args.into());
        }
    }
    Ok(())
}

fn clear_field(spec: &mut ProfileSpec, field: &str) -> CliResult<()> {
    match field.replace('_', "-").as_str() {
        "model" => spec.model = None,
        "base-url" => spec.base_url = None,
        "api-key-env" => spec.api_key_env = None,
        "system-prompt" => spec.system_prompt = None,
        "allowed-tools" => spec.allowed_tools.clear(),
        "denied-tools" => spec.denied_tools.clear(),
        "extra-dirs" => spec.extra_dirs.clear(),
        "env" | "secret-env" => {
            spec.env.clear();
            spec.secret_env.clear();
        }
        "rules" => spec.approval_rules.clear(),
        "approval-timeout" => spec.approval_timeout_secs = None,
        "engine-options" => spec.engine_options = serde_json::Value::Null,
        "mcp-servers" => spec.mcp_servers.clear(),
        other => {
            return Err(CliError::invalid(format!(
                "--clear {other:?}: not a field that can be cleared (model, base-url, api-key-env, system-prompt, allowed-tools, denied-tools, extra-dirs, env, rules, approval-timeout, engine-options, mcp-servers)"
            )))
        }
    }
    Ok(())
}

/// The profile as it may be shown: secret env values masked.
fn masked(p: Profile) -> Profile {
    Profile {
        spec: p.spec.masked(),
        ..p
    }
}

/// `p` must be masked. `values`: the env values too (`show`); `list` gives names only, as
/// plain values set before secrets could be marked may be secrets all the same.
fn print_profile(p: &Profile, values: bool) {
    let s = &p.spec;
    let mark = if p.is_default { "*" } else { " " };
    println!(
        "{mark} {}  engine={} model={} permission={}",
        visible_line(&s.name),
        s.engine.as_str(),
        s.model.as_deref().unwrap_or("(engine default)"),
        s.permission_mode.as_str()
    );
    let line = |label: &str, value: String| {
        if !value.is_empty() {
            println!("    {label}: {}", visible_line(&value));
        }
    };
    line("base url", s.base_url.clone().unwrap_or_default());
    line("key env", s.api_key_env.clone().unwrap_or_default());
    line("allowed tools", s.allowed_tools.join(", "));
    line("denied tools", s.denied_tools.join(", "));
    line("extra dirs", s.extra_dirs.join(", "));
    // Values can be secrets even when not marked: names only, the marked ones flagged.
    line(
        "env",
        s.env
            .iter()
            .map(|(k, v)| match (values, s.is_secret(k)) {
                (true, _) => format!("{k}={v}"),
                (false, true) => format!("{k} (secret)"),
                (false, false) => k.clone(),
            })
            .collect::<Vec<_>>()
            .join(", "),
    );
    line(
        "mcp servers",
        s.mcp_servers
            .iter()
            .map(|m| {
                let what = m
                    .command
                    .as_deref()
                    .or(m.url.as_deref())
                    .unwrap_or_default();
                let off = if m.enabled { "" } else { ", off" };
                format!("{} ({what}{off})", m.name)
            })
            .collect::<Vec<_>>()
            .join(", "),
    );
    line("system prompt", s.system_prompt.clone().unwrap_or_default());
    line(
        "approval timeout",
        s.approval_timeout_secs
            .map(|t| format!("{t}s"))
            .unwrap_or_default(),
    );
    if !s.approval_rules.is_empty() {
        line(
            "rules",
            serde_json::to_string(&s.approval_rules).unwrap_or_default(),
        );
    }
    if values && s.engine_options.as_object().is_some_and(|o| !o.is_empty()) {
        line("engine options", s.engine_options.to_string());
    }
    for w in agentdesk_core::engines::profile_warnings(s) {
        println!("    warning: {w}");
    }
}
