//! Profiles: several named per workspace, one default. Validated here so the app, the CLI
//! and the store agree on what a profile may hold; a run snapshots its profile when it
//! starts, so an edit applies to the next run, never mid-run.

mod endpoint;
mod validate;

use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::{
    Engine, PermissionMode, Profile, ProfileFieldError, ProfileSpec, SECRET_MASK,
};

pub use endpoint::{EndpointChange, ProfileEndpoint, CONFIRMED_ENDPOINTS_KEY};
pub use validate::{extra_dir_problem, valid_env_name, validate_profile_fields};

use crate::{CoreError, Desk, Result};

fn invalid(msg: impl Into<String>) -> CoreError {
    CoreError::InvalidInput(msg.into())
}

/// `codex` or `claude`, with a clear error otherwise (CLI flags, settings files).
pub fn parse_engine(s: &str) -> Result<Engine> {
    Engine::parse(s.trim()).ok_or_else(|| {
        let names: Vec<&str> = Engine::ALL.iter().map(|e| e.as_str()).collect();
        invalid(format!("unknown engine {s:?}: use {}", names.join(", ")))
    })
}

/// `ask`, `auto_edit` (or `auto-edit`), `full_auto`, `read_only`.
pub fn parse_permission_mode(s: &str) -> Result<PermissionMode> {
    PermissionMode::parse(&s.trim().replace('-', "_")).ok_or_else(|| {
        invalid(format!(
            "unknown permission mode {s:?}: use ask, auto_edit, full_auto or read_only"
        ))
    })
}

/// Check a spec and return it normalised (trimmed, empty optional strings as `None`); a
/// rejected spec is [`CoreError::InvalidProfile`] with every field error.
pub fn validate_profile(spec: &ProfileSpec) -> Result<ProfileSpec> {
    validate_profile_fields(spec).map_err(CoreError::InvalidProfile)
}

/// A value still equal to the mask (after the stored secrets are merged back) was never
/// given: the editor only ever shows the mask, so a secret that is new, renamed or no longer
/// marked secret would otherwise be saved as `••••`.
fn unset_secrets(spec: &ProfileSpec) -> Result<()> {
    let fields: Vec<ProfileFieldError> = spec
        .env
        .iter()
        .filter(|(_, v)| v.as_str() == SECRET_MASK)
        .map(|(n, _)| ProfileFieldError {
            field: format!("env.{n}"),
            message: format!(
                "type the value of {n}: a secret's value is never shown, so a new, renamed or un-marked secret needs it typed again"
            ),
        })
        .collect();
    if fields.is_empty() {
        Ok(())
    } else {
        Err(CoreError::InvalidProfile(fields))
    }
}

/// Secret values sent back as [`SECRET_MASK`] take the `stored` profile's values (the editor
/// only ever saw the mask).
fn merge_masked_secrets(spec: &mut ProfileSpec, stored: &ProfileSpec) {
    for name in &spec.secret_env {
        if let (Some(v), Some(old)) = (spec.env.get_mut(name), stored.env.get(name)) {
            if v == SECRET_MASK && stored.is_secret(name) {
                v.clone_from(old);
            }
        }
    }
}

/// `name (copy)`, `name (copy 2)`... the first one no profile of the workspace has.
fn copy_name(name: &str, taken: &[String]) -> String {
    // Room for the suffix within the name limit.
    let base: String = name.chars().take(50).collect();
    (1..)
        .map(|i| {
            if i == 1 {
                format!("{base} (copy)")
            } else {
                format!("{base} (copy {i})")
            }
        })
        .find(|n| !taken.contains(n))
        .unwrap_or_default()
}

impl Desk {
    pub async fn list_profiles(&self, workspace_id: &WorkspaceId) -> Result<Vec<Profile>> {
        Ok(self.store.list_profiles(workspace_id).await?)
    }

    /// The workspace's profiles as they may be shown (the window, a listing): every secret env
    /// value replaced by [`SECRET_MASK`], so a secret never leaves the core in clear.
    pub async fn list_profiles_masked(&self, workspace_id: &WorkspaceId) -> Result<Vec<Profile>> {
        let mut list = self.store.list_profiles(workspace_id).await?;
        for p in &mut list {
            p.spec = p.spec.masked();
        }
        Ok(list)
    }

    pub async fn get_profile(&self, id: &ProfileId) -> Result<Profile> {
        Ok(self.store.get_profile(id).await?)
    }

    pub async fn default_profile(&self, workspace_id: &WorkspaceId) -> Result<Option<Profile>> {
        Ok(self.store.default_profile(workspace_id).await?)
    }

    pub async fn find_profile(
        &self,
        workspace_id: &WorkspaceId,
        name: &str,
    ) -> Result<Option<Profile>> {
        Ok(self
            .store
            .find_profile_by_name(workspace_id, name.trim())
            .await?)
    }

    /// Add a profile; the workspace's first profile becomes its default.
    pub async fn create_profile(
        &self,
        workspace_id: &WorkspaceId,
        spec: &ProfileSpec,
    ) -> Result<Profile> {
        let spec = validate_profile(spec)?;
        unset_secrets(&spec)?;
        self.store.get_workspace(workspace_id).await?;
        let first = self.store.default_profile(workspace_id).await?.is_none();
        let now = agentdesk_store::now_ms();
        let p = Profile {
            id: ProfileId::new(),
            workspace_id: workspace_id.clone(),
            is_default: first,
            spec,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_profile(&p).await?;
        Ok(p)
    }

    /// Replace a profile's fields. A secret env value sent back as [`SECRET_MASK`] (an editor
    /// that only ever saw the masked profile) keeps the stored value instead of becoming the
    /// mask.
    pub async fn update_profile(&self, id: &ProfileId, spec: &ProfileSpec) -> Result<Profile> {
        let mut spec = validate_profile(spec)?;
        if spec
            .secret_env
            .iter()
            .any(|n| spec.env.get(n).map(String::as_str) == Some(SECRET_MASK))
        {
            let stored = self.store.get_profile(id).await?.spec;
            merge_masked_secrets(&mut spec, &stored);
        }
        unset_secrets(&spec)?;
        Ok(self.store.update_profile(id, &spec).await?)
    }

    /// A copy of a profile under a free name (`name (copy)`), secrets included (copied inside
    /// the core: the window never holds them), not the default.
    pub async fn duplicate_profile(&self, id: &ProfileId) -> Result<Profile> {
        let source = self.store.get_profile(id).await?;
        let taken: Vec<String> = self
            .store
            .list_profiles(&source.workspace_id)
            .await?
            .into_iter()
            .map(|p| p.spec.name)
            .collect();
        let mut spec = source.spec;
        spec.name = copy_name(&spec.name, &taken);
        self.create_profile(&source.workspace_id, &spec).await
    }

    pub async fn set_default_profile(&self, id: &ProfileId) -> Result<()> {
        Ok(self.store.set_default_profile(id).await?)
    }

    /// Remove a profile; its sessions keep their history and run under no profile.
    pub async fn delete_profile(&self, id: &ProfileId) -> Result<()> {
        Ok(self.store.delete_profile(id).await?)
    }
}

#[cfg(test)]
#[path = "profiles_tests.rs"]
pub(crate) mod tests;
