//! Codex as the registry knows it: `codex app-server`, one resident server per home.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ui::{
    CommandCatalog, EngineAccount, LoginKind, LoginRequest, McpServerStatus, ModelCatalog,
    ModelInfo, ProfileSpec, SlashCommand,
};
use serde_json::Value;

use super::{
    permission_policy, CodexEngine, CodexEngineConfig, CodexOptions, CodexProfile, CustomProvider,
};
use crate::discovery::{EngineProgram, Executable};
use crate::engine::{AgentEngine, EngineOptions};
use crate::error::EngineError;
use crate::profile_options::{
    check_bool, check_common, check_count, check_effort, present_keys, profile_env,
};
use crate::registry::{BoxFuture, Engine, EngineDescriptor, EngineSettings, LoginStarted};
use crate::vocab::EngineCapabilities;

pub struct CodexDescriptor;

pub static CODEX: CodexDescriptor = CodexDescriptor;

impl CodexDescriptor {
    /// CODEX_HOME for a profile: `engineOptions.codexHome`, else the settings', else
    /// `$CODEX_HOME` (else codex's own default).
    pub fn home(&self, opts: &CodexOptions, settings: &EngineSettings) -> Option<PathBuf> {
        opts.codex_home
            .clone()
            .or_else(|| settings.program(EngineProgram::CODEX.name).home)
            .or_else(|| {
                std::env::var_os("CODEX_HOME")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
    }
}

impl EngineDescriptor for CodexDescriptor {
    fn engine(&self) -> Engine {
        Engine::Codex
    }

    fn display_name(&self) -> &'static str {
        "Codex"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            // Codex has no way to run another command than the one it asked about.
            edited_input: false,
            deny_message: false,
            // A decline followed by `turn/interrupt` (two wire steps, done by the adapter).
            deny_and_stop: true,
            questions: true,
            cost: false,
            // `acceptForSession`: codex itself stops asking for the same thing.
            session_grants: true,
            resident_server: true,
            mid_run_settings: false,
        }
    }

    fn programs(&self) -> &'static [EngineProgram] {
        &[EngineProgram::CODEX]
    }

    fn login_commands(&self) -> &'static [&'static str] {
        &["codex login"]
    }

    fn profile_warnings(&self, spec: &ProfileSpec) -> Vec<String> {
        if CodexOptions::from_json(&spec.engine_options).trust_project_config {
            return vec![
                "loads the workspace's own Codex config (.codex/config.toml): MCP servers declared in the repository start without approval and its instructions reach the agent"
                    .to_owned(),
            ];
        }
        Vec::new()
    }

    fn routing_options(&self, opts: &Value) -> Vec<(String, String)> {
        let mut out = present_keys(opts, &["codexHome", "trustProjectConfig"]);
        let overrides = opts.get("configOverrides").and_then(Value::as_object);
        for (k, v) in overrides.into_iter().flatten() {
            let lower = k.to_ascii_lowercase();
            if lower.contains("provider") || lower.contains("url") || lower.contains("base") {
                out.push((format!("configOverrides.{k}"), v.to_string()));
            }
        }
        out
    }

    fn check_options(&self, opts: &Value) -> Vec<(String, String)> {
        let (map, mut out) = match check_common(opts) {
            Ok(checked) => checked,
            Err(problems) => return problems,
        };
        check_count(map, "requestMaxRetries", &mut out);
        check_count(map, "streamMaxRetries", &mut out);
        check_bool(map, "planMode", &mut out);
        check_bool(map, "trustProjectConfig", &mut out);
        check_effort(map, &mut out);
        if let Some(v) = map.get("codexHome") {
            if !v.as_str().is_some_and(|p| Path::new(p).is_absolute()) {
                out.push((
                    "codexHome".to_owned(),
                    "codexHome must be an absolute path to a folder".to_owned(),
                ));
            }
        }
        if let Some(v) = map.get("configOverrides") {
            check_config_overrides(v, &mut out);
        }
        out
    }

    fn create(&self, exe: Option<&Executable>, settings: &EngineSettings) -> AgentEngine {
        let program = exe.map_or_else(|| PathBuf::from("codex"), |e| e.path.clone());
        let mut config = CodexEngineConfig::new(program);
        config.limits = settings.limits(config.limits);
        AgentEngine::Codex(CodexEngine::new(config))
    }

    fn run_options(
        &self,
        spec: &ProfileSpec,
        settings: &EngineSettings,
    ) -> Result<EngineOptions, EngineError> {
        let o = CodexOptions::from_json(&spec.engine_options);
        Ok(EngineOptions::Codex {
            codex_home: self.home(&o, settings),
            profile: codex_profile(spec, o),
        })
    }

    fn login_state<'a>(
        &'a self,
        exe: &'a Path,
        _cwd: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<bool>, EngineError>> {
        // The account read (its app-server stopped after, no orphans) says it.
        let home = self.home(&CodexOptions::default(), settings);
        Box::pin(async move { Ok(super::login::account(exe, home).await?.logged_in) })
    }

    fn commands<'a>(
        &'a self,
        exe: &'a Path,
        cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<CommandCatalog, EngineError>> {
        Box::pin(async move {
            let skills = self
                .ask_once(exe, spec, settings, |codex, home, profile| async move {
                    codex.skills(home, &profile, cwd).await
                })
                .await?;
            let mut commands: Vec<SlashCommand> = skills
                .into_iter()
                .map(|s| SlashCommand {
                    insert: format!("${} ", s.name),
                    description: s
                        .short_description
                        .filter(|d| !d.is_empty())
                        .unwrap_or(s.description),
                    argument_hint: None,
                    name: s.name,
                })
                .collect();
            commands.sort_by(|a, b| a.name.cmp(&b.name));
            // The user's custom prompts, after the skills.
            let home = self.home(&CodexOptions::from_json(&spec.engine_options), settings);
            if let Some(dir) = super::prompts::folder(home) {
                let prompts = tokio::task::spawn_blocking(move || super::prompts::list(&dir))
                    .await
                    .unwrap_or_default();
                commands.extend(prompts);
            }
            Ok(CommandCatalog {
                commands,
                unavailable: None,
            })
        })
    }

    fn takes_mcp_servers(&self) -> bool {
        true
    }

    fn login_kinds(&self) -> &'static [LoginKind] {
        &[LoginKind::Browser, LoginKind::DeviceCode, LoginKind::ApiKey]
    }

    fn account<'a>(
        &'a self,
        exe: &'a Path,
        _cwd: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<EngineAccount, EngineError>> {
        let home = self.home(&CodexOptions::default(), settings);
        Box::pin(super::login::account(exe, home))
    }

    fn login<'a>(
        &'a self,
        exe: &'a Path,
        settings: &'a EngineSettings,
        request: LoginRequest,
    ) -> BoxFuture<'a, Result<LoginStarted, EngineError>> {
        let home = self.home(&CodexOptions::default(), settings);
        Box::pin(super::login::start(exe, home, request))
    }

    fn logout<'a>(
        &'a self,
        exe: &'a Path,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<(), EngineError>> {
        let home = self.home(&CodexOptions::default(), settings);
        Box::pin(super::login::logout(exe, home))
    }

    fn mcp_status<'a>(
        &'a self,
        exe: &'a Path,
        _cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<Option<Vec<McpServerStatus>>, EngineError>> {
        Box::pin(async move {
            let reply = self
                .ask_once(exe, spec, settings, |codex, home, profile| async move {
                    codex.mcp_status(home, &profile).await
                })
                .await?;
            Ok(Some(crate::mcp::from_codex(reply)))
        })
    }

    fn models<'a>(
        &'a self,
        exe: &'a Path,
        _cwd: &'a Path,
        spec: &'a ProfileSpec,
        settings: &'a EngineSettings,
    ) -> BoxFuture<'a, Result<ModelCatalog, EngineError>> {
        Box::pin(async move {
            let all = self
                .ask_once(exe, spec, settings, |codex, home, profile| async move {
                    let mut all = Vec::new();
                    let mut cursor = None;
                    for _ in 0..MODEL_PAGES {
                        let page = codex
                            .models_page(home.clone(), &profile, cursor.take())
                            .await?;
                        all.extend(page.data);
                        match page.next_cursor {
                            Some(c) => cursor = Some(c),
                            None => break,
                        }
                    }
                    Ok(all)
                })
                .await?;
            Ok(model_catalog(all))
        })
    }
}

impl CodexDescriptor {
    /// One question to an app-server of its own, started with the profile `spec`'s options
    /// and stopped when the answer is in (no orphan, whatever the answer).
    async fn ask_once<T, F, Fut>(
        &self,
        exe: &Path,
        spec: &ProfileSpec,
        settings: &EngineSettings,
        ask: F,
    ) -> Result<T, EngineError>
    where
        F: FnOnce(CodexEngine, Option<PathBuf>, CodexProfile) -> Fut,
        Fut: std::future::Future<Output = Result<T, EngineError>>,
    {
        let o = CodexOptions::from_json(&spec.engine_options);
        let home = self.home(&o, settings);
        let codex = CodexEngine::new(CodexEngineConfig::new(exe));
        let answer = ask(codex.clone(), home, codex_profile(spec, o)).await;
        codex.shutdown().await;
        answer
    }
}

/// `model/list` pages (the bundled catalog): a bound, should a server keep handing out cursors.
const MODEL_PAGES: usize = 20;

/// The catalog as the profile editor lists it (hidden models left out, as codex's picker does).
fn model_catalog(models: Vec<agentdesk_protocol::codex::Model>) -> ModelCatalog {
    let models = models
        .into_iter()
        .filter(|m| !m.hidden)
        .map(|m| ModelInfo {
            id: m.model,
            display_name: m.display_name,
            description: m.description,
            is_default: m.is_default,
            efforts: m
                .supported_reasoning_efforts
                .into_iter()
                .map(|e| e.reasoning_effort)
                .collect(),
            default_effort: m.default_reasoning_effort,
        })
        .collect();
    ModelCatalog {
        models,
        unavailable: None,
    }
}

/// `configOverrides` become `-c key=value`: a key with `=` or spaces would split wrongly.
fn check_config_overrides(v: &Value, out: &mut Vec<(String, String)>) {
    let Some(map) = v.as_object() else {
        out.push((
            "configOverrides".to_owned(),
            "configOverrides must be an object of key: TOML value pairs".to_owned(),
        ));
        return;
    };
    for k in map.keys() {
        if k.is_empty() || k.chars().any(|c| c == '=' || c.is_whitespace()) {
            out.push((
                format!("configOverrides.{k}"),
                format!("the config key {k:?} is not valid: a codex config key (e.g. model_reasoning_effort) without spaces or ="),
            ));
        }
    }
}

fn codex_profile(spec: &ProfileSpec, o: CodexOptions) -> CodexProfile {
    let (env, env_remove) = profile_env(spec);
    let (approval, sandbox) = permission_policy(spec.permission_mode);
    let provider = spec.base_url.as_ref().map(|url| CustomProvider {
        id: "agentdesk".into(),
        name: "Agent Desk profile endpoint".into(),
        base_url: url.clone(),
        env_key: spec
            .api_key_env
            .clone()
            .unwrap_or_else(|| "OPENAI_API_KEY".into()),
        request_max_retries: o.request_max_retries,
        stream_max_retries: o.stream_max_retries,
    });
    // Extra dirs: codex's sandboxes already let the agent read the whole disk, so there is
    // nothing to add for reading.
    CodexProfile {
        model: spec.model.clone(),
        approval_policy: Some(approval),
        sandbox: Some(sandbox),
        provider,
        config_overrides: o.config_overrides.into_iter().collect(),
        enable_plugins: false,
        developer_instructions: spec.system_prompt.clone().filter(|s| !s.is_empty()),
        plan_mode: o.plan_mode,
        reasoning_effort: o.reasoning_effort,
        env,
        env_remove,
        trust_project_config: o.trust_project_config,
        // A session's, not a profile's: see `EngineOptions::for_terminal_session`.
        own_server: false,
        mcp_servers: spec.mcp_servers.clone(),
    }
}
