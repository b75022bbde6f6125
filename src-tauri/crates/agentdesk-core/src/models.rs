//! The models a profile can pick (issue 24): asked of the engine itself, in the workspace,
//! with what of the profile decides which models exist (its engine options, endpoint and
//! environment). One implementation for the profile editor and `agentdesk-cli models`.

use std::time::Duration;

use agentdesk_protocol::ids::{ProfileId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{CommandCatalog, Engine, ModelCatalog, ProfileSpec};

use crate::engines::descriptor;
use crate::{Desk, Result};

/// Bound on one listing (an engine start plus one or a few requests).
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

impl Desk {
    /// The commands the composer's `/` offers in a session: its engine's, asked of the engine
    /// itself in the session's folder with its profile (Claude Code's commands and skills,
    /// Codex's skills). Not an error when the engine cannot say: the catalog says why.
    pub async fn list_commands(&self, session_id: &SessionId) -> Result<CommandCatalog> {
        let session = self.store.get_session(session_id).await?;
        let folder = self.session_folder(session_id).await?;
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
