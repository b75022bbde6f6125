//! The models a profile can pick (issue 24): asked of the engine itself, in the workspace,
//! with what of the profile decides which models exist (its engine options, endpoint and
//! environment). One implementation for the profile editor and `agentdesk-cli models`.

use std::time::Duration;

use agentdesk_protocol::ids::{ProfileId, SessionId, WorkspaceId};
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{
    CommandCatalog, Engine, ModelCatalog, ProfileSpec, Session, SlashCommand,
};

use crate::engines::descriptor;
use crate::{Desk, Result};

/// Bound on one listing (an engine start plus one or a few requests).
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// The spec a session's run uses: its profile's (or the engine's defaults when it has none,
/// as a run without a profile uses), with the session's own model and effort over it.
pub(crate) fn session_spec(
    session: &Session,
    profile: Option<&ProfileSpec>,
) -> Option<ProfileSpec> {
    if session.model.is_none() && session.effort.is_none() {
        return profile.cloned();
    }
    let mut spec = profile
        .cloned()
        .unwrap_or_else(|| ProfileSpec::new("session", session.engine));
    if let Some(m) = &session.model {
        spec.model = Some(m.clone());
    }
    if let Some(e) = &session.effort {
        if !spec.engine_options.is_object() {
            spec.engine_options = serde_json::json!({});
        }
        if let Some(o) = spec.engine_options.as_object_mut() {
            o.insert(
                "reasoningEffort".into(),
                serde_json::Value::String(e.clone()),
            );
        }
    }
    Some(spec)
}

impl Desk {
    /// The model and reasoning effort a session runs from its next run on, instead of its
    /// profile's (`None`: the profile's). Checked as a profile's would be.
    pub async fn set_session_model(
        &self,
        session_id: &SessionId,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Result<Session> {
        let session = self.store.get_session(session_id).await?;
        let clean = |v: Option<&str>| {
            v.map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let (model, effort) = (clean(model), clean(effort));
        if let Some(m) = &model {
            if m.chars().any(|c| c.is_whitespace() || c.is_control()) || m.len() > 200 {
                return Err(crate::CoreError::InvalidInput(format!(
                    "the model name {m:?} is not one a model is called by"
                )));
            }
        }
        if let Some(e) = &effort {
            let problems = descriptor(session.engine)
                .check_options(&serde_json::json!({ "reasoningEffort": e }));
            if let Some((_, message)) = problems.into_iter().next() {
                return Err(crate::CoreError::InvalidInput(message));
            }
        }
        self.store
            .set_session_model(session_id, model.as_deref(), effort.as_deref())
            .await?;
        Ok(self.store.get_session(session_id).await?)
    }

    /// The commands the composer's `/` offers in a session: its engine's, asked of the engine
    /// itself in the session's folder with its profile (Claude Code's commands and skills,
    /// Codex's skills). Not an error when the engine cannot say: the catalog says why.
    pub async fn list_commands(&self, session_id: &SessionId) -> Result<CommandCatalog> {
        let session = self.store.get_session(session_id).await?;
        // An agent that only names its commands in a session (ACP's
        // `available_commands_update`): the latest it named for this workspace and profile.
        if let Some(commands) = lock(&self.announced_commands).get(&commands_key(&session)) {
            return Ok(CommandCatalog {
                commands: commands.clone(),
                unavailable: None,
            });
        }
        let folder = match self.session_place(session_id).await? {
            crate::files::SessionPlace::Here(folder) => folder,
            crate::files::SessionPlace::Host(loc) => {
                return Ok(CommandCatalog {
                    commands: Vec::new(),
                    unavailable: Some(format!(
                        "The engine on {} names its commands during a run.",
                        loc.host_label()
                    )),
                })
            }
        };
        let spec = match &session.profile_id {
            Some(id) => self.store.get_profile(id).await.ok().map(|p| p.spec),
            None => None,
        }
        .filter(|s| s.engine == session.engine)
        .unwrap_or_else(|| ProfileSpec::new("commands", session.engine));
        let d = descriptor(session.engine);
        let unavailable = |why: String| CommandCatalog {
            commands: Vec::new(),
            unavailable: Some(why),
        };
        let exe = if d.command_from_profile() {
            std::path::PathBuf::new()
        } else {
            match self.locate_engine(session.engine).await {
                Ok(exe) => exe.path,
                Err(e) => return Ok(unavailable(e.to_ipc().message)),
            }
        };
        let settings = self.engine_settings().await.unwrap_or_default();
        let listing = d.commands(&exe, &folder, &spec, &settings);
        Ok(match tokio::time::timeout(LIST_TIMEOUT, listing).await {
            Ok(Ok(catalog)) => catalog,
            Ok(Err(e)) => unavailable(format!(
                "{} could not list its commands: {e}",
                d.display_name()
            )),
            Err(_) => unavailable(format!(
                "{} did not list its commands within {} s",
                d.display_name(),
                LIST_TIMEOUT.as_secs()
            )),
        })
    }

    /// [`Self::list_models`] for `engine` with a saved profile's options (`profile`, when it
    /// is one of that engine), else the engine's defaults: what the window may ask for (it
    /// never hands in a spec of its own, since a listing starts the engine).
    pub async fn list_models_for(
        &self,
        workspace_id: &WorkspaceId,
        engine: Engine,
        profile: Option<&ProfileId>,
    ) -> Result<ModelCatalog> {
        let spec = match profile {
            Some(id) => Some(self.store.get_profile(id).await?.spec),
            None => None,
        };
        let spec = spec
            .filter(|s| s.engine == engine)
            .unwrap_or_else(|| ProfileSpec::new("models", engine));
        self.list_models(workspace_id, &spec).await
    }

    /// The engine's models for `spec` (the profile as being edited). An engine that cannot
    /// be found or started is not an error here: the catalog says why and the model is typed.
    pub async fn list_models(
        &self,
        workspace_id: &WorkspaceId,
        spec: &ProfileSpec,
    ) -> Result<ModelCatalog> {
        let workspace = self.store.get_workspace(workspace_id).await?;
        let d = descriptor(spec.engine);
        let unavailable = |why: String| ModelCatalog {
            models: Vec::new(),
            unavailable: Some(why),
        };
        let folder = std::path::PathBuf::from(&workspace.path);
        let exe = if d.command_from_profile() {
            // An ACP agent's command is the profile's own: no program of ours to find.
            std::path::PathBuf::new()
        } else {
            match self.locate_engine(spec.engine).await {
                Ok(exe) => exe.path,
                Err(e) => return Ok(unavailable(e.to_ipc().message)),
            }
        };
        let settings = self.engine_settings().await.unwrap_or_default();
        // Only what decides which models exist: a listing runs no prompt and reads no folder.
        let probe = ProfileSpec {
            name: spec.name.clone(),
            model: None,
            base_url: spec.base_url.clone(),
            api_key_env: spec.api_key_env.clone(),
            env: spec.env.clone(),
            secret_env: spec.secret_env.clone(),
            engine_options: spec.engine_options.clone(),
            ..ProfileSpec::new(spec.name.clone(), spec.engine)
        };
        let listing = d.models(&exe, &folder, &probe, &settings);
        Ok(match tokio::time::timeout(LIST_TIMEOUT, listing).await {
            Ok(Ok(catalog)) => catalog,
            Ok(Err(e)) => unavailable(format!(
                "{} could not list its models: {e}",
                d.display_name()
            )),
            Err(_) => unavailable(format!(
                "{} did not list its models within {} s",
                d.display_name(),
                LIST_TIMEOUT.as_secs()
            )),
        })
    }
}

/// The commands agents announced in their runs, by [`commands_key`].
pub(crate) type AnnouncedCommands =
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<SlashCommand>>>>;

/// Commands depend on the agent (the profile) and the folder (a project's own commands).
fn commands_key(session: &Session) -> String {
    let profile = session
        .profile_id
        .as_ref()
        .map_or_else(|| session.engine.as_str().to_owned(), ToString::to_string);
    format!("{}/{profile}", session.workspace_id)
}

impl Desk {
    /// A run's agent named the commands it offers: kept for its workspace and profile.
    pub(crate) async fn commands_announced(
        &self,
        session_id: &SessionId,
        commands: Vec<SlashCommand>,
    ) {
        match self.store.get_session(session_id).await {
            Ok(session) => {
                lock(&self.announced_commands).insert(commands_key(&session), commands);
            }
            Err(e) => tracing::debug!(error = %e, "commands of an unknown session"),
        }
    }
}
