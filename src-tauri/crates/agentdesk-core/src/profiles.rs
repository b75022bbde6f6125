//! Profiles: several named per workspace, one default. Validated here so the app, the CLI
//! and the store agree on what a profile may hold; a run snapshots its profile when it
//! starts, so an edit applies to the next run, never mid-run.

use std::path::Path;

use agentdesk_protocol::ui::{Engine, PermissionMode, Profile, ProfileSpec, SECRET_MASK};

use crate::{CoreError, Desk, Result};

const MAX_NAME: usize = 64;
const MAX_MODEL: usize = 128;
/// A deadline longer than a day is a mistake, not a policy.
const MAX_TIMEOUT_SECS: u32 = 24 * 60 * 60;

fn invalid(msg: impl Into<String>) -> CoreError {
    CoreError::InvalidInput(msg.into())
}

/// `codex` or `claude`, with a clear error otherwise (CLI flags, settings files).
pub fn parse_engine(s: &str) -> Result<Engine> {
    Engine::parse(s.trim())
        .ok_or_else(|| invalid(format!("unknown engine {s:?}: use \"codex\" or \"claude\"")))
}

/// `ask`, `auto_edit` (or `auto-edit`), `full_auto`, `read_only`.
pub fn parse_permission_mode(s: &str) -> Result<PermissionMode> {
    PermissionMode::parse(&s.trim().replace('-', "_")).ok_or_else(|| {
        invalid(format!(
            "unknown permission mode {s:?}: use ask, auto_edit, full_auto or read_only"
        ))
    })
}

/// A model id as the engines accept them: `gpt-5.1-codex`, `claude-sonnet-4-5`,
/// `openrouter/meta/llama-3:70b`... Letters, digits and `. _ - : / @ +`, no spaces.
fn valid_model(m: &str) -> bool {
    let mut chars = m.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    first_ok
        && m.len() <= MAX_MODEL
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-:/@+".contains(c))
}

/// POSIX-portable environment variable name.
pub fn valid_env_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `http(s)://host[:port][/path]` with a non-empty host and nothing a URL cannot hold.
fn check_base_url(url: &str) -> Result<()> {
    let bad = |why: &str| invalid(format!("the base URL {url:?} is malformed: {why}"));
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| bad("it must start with http:// or https://"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("it contains spaces or control characters"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        let (h, p) = v6
            .split_once(']')
            .ok_or_else(|| bad("unclosed [ in the host"))?;
        (h, p.strip_prefix(':'))
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return Err(bad("it has no host"));
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_:".contains(c))
    {
        return Err(bad("the host has characters a host name cannot have"));
    }
    if let Some(p) = port {
        if p.parse::<u16>().ok().filter(|p| *p > 0).is_none() {
            return Err(bad("the port is not a number from 1 to 65535"));
        }
    }
    Ok(())
}

fn trimmed(o: &Option<String>) -> Option<String> {
    o.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Check a spec and return it normalised (trimmed, empty optional strings as `None`).
pub fn validate_profile(spec: &ProfileSpec) -> Result<ProfileSpec> {
    let mut s = spec.clone();
    s.name = s.name.trim().to_string();
    if s.name.is_empty() {
        return Err(invalid("give the profile a name"));
    }
    if s.name.chars().count() > MAX_NAME || s.name.chars().any(char::is_control) {
        return Err(invalid(format!(
            "the profile name {:?} is too long or has control characters (at most {MAX_NAME} characters)",
            s.name
        )));
    }
    s.model = trimmed(&s.model);
    if let Some(m) = &s.model {
        if !valid_model(m) {
            return Err(invalid(format!(
                "the model name {m:?} is not valid: use the engine's model id, e.g. gpt-5.1-codex or claude-sonnet-4-5 (letters, digits and . _ - : / @ +, no spaces)"
            )));
        }
    }
    s.base_url = trimmed(&s.base_url);
    if let Some(u) = &s.base_url {
        check_base_url(u)?;
    }
    s.api_key_env = trimmed(&s.api_key_env);
    if let Some(k) = &s.api_key_env {
        if !valid_env_name(k) {
            return Err(invalid(format!(
                "{k:?} is not an environment variable name (letters, digits and _, not starting with a digit); give the variable's name, not the key"
            )));
        }
    }
    s.system_prompt = s.system_prompt.filter(|p| !p.trim().is_empty());
    for list in [&mut s.allowed_tools, &mut s.denied_tools] {
        *list = list.iter().map(|t| t.trim().to_string()).collect();
        if list.iter().any(String::is_empty) {
            return Err(invalid("a tool name is empty"));
        }
    }
    if let Some(t) = s.allowed_tools.iter().find(|t| s.denied_tools.contains(t)) {
        return Err(invalid(format!(
            "the tool {t:?} is both allowed and denied"
        )));
    }
    for d in &mut s.extra_dirs {
        *d = d.trim().to_string();
        if !Path::new(d.as_str()).is_absolute() {
            return Err(invalid(format!(
                "the extra directory {d:?} is not an absolute path; give the full path"
            )));
        }
    }
    for (k, v) in &s.env {
        if !valid_env_name(k) {
            return Err(invalid(format!(
                "{k:?} is not a valid environment variable name (letters, digits and _, not starting with a digit)"
            )));
        }
        if v.contains('\0') {
            return Err(invalid(format!("the value of {k} contains a NUL byte")));
        }
    }
    let mut secrets: Vec<String> = s.secret_env.iter().map(|n| n.trim().to_string()).collect();
    secrets.sort();
    secrets.dedup();
    if let Some(n) = secrets.iter().find(|n| !s.env.contains_key(n.as_str())) {
        return Err(invalid(format!(
            "the secret variable {n:?} has no value: give it as NAME=VALUE"
        )));
    }
    s.secret_env = secrets;
    for (i, r) in s.approval_rules.iter().enumerate() {
        if r.kind.is_none() && r.tool.is_none() && r.command_prefix.is_none() {
            return Err(invalid(format!(
                "approval rule {} matches nothing: give a kind, a tool or a command prefix",
                i + 1
            )));
        }
    }
    if let Some(t) = s.approval_timeout_secs {
        if t == 0 || t > MAX_TIMEOUT_SECS {
            return Err(invalid(format!(
                "the approval timeout must be between 1 and {MAX_TIMEOUT_SECS} seconds"
            )));
        }
    }
    if !(s.engine_options.is_null() || s.engine_options.is_object()) {
        return Err(invalid("engine options must be a JSON object"));
    }
    Ok(s)
}

impl Desk {
    pub async fn list_profiles(&self, workspace_id: &str) -> Result<Vec<Profile>> {
        Ok(self.store.list_profiles(workspace_id).await?)
    }

    pub async fn get_profile(&self, id: &str) -> Result<Profile> {
        Ok(self.store.get_profile(id).await?)
    }

    pub async fn default_profile(&self, workspace_id: &str) -> Result<Option<Profile>> {
        Ok(self.store.default_profile(workspace_id).await?)
    }

    pub async fn find_profile(&self, workspace_id: &str, name: &str) -> Result<Option<Profile>> {
        Ok(self
            .store
            .find_profile_by_name(workspace_id, name.trim())
            .await?)
    }

    /// Add a profile; the workspace's first profile becomes its default.
    pub async fn create_profile(&self, workspace_id: &str, spec: &ProfileSpec) -> Result<Profile> {
        let spec = validate_profile(spec)?;
        self.store.get_workspace(workspace_id).await?;
        let first = self.store.default_profile(workspace_id).await?.is_none();
        let now = agentdesk_store::now_ms();
        let p = Profile {
            id: uuid::Uuid::now_v7().to_string(),
            workspace_id: workspace_id.to_string(),
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
    pub async fn update_profile(&self, id: &str, spec: &ProfileSpec) -> Result<Profile> {
        let mut spec = validate_profile(spec)?;
        if spec
            .secret_env
            .iter()
            .any(|n| spec.env.get(n).map(String::as_str) == Some(SECRET_MASK))
        {
            let stored = self.store.get_profile(id).await?.spec;
            for name in &spec.secret_env {
                if let (Some(v), Some(old)) = (spec.env.get_mut(name), stored.env.get(name)) {
                    if v == SECRET_MASK && stored.is_secret(name) {
                        v.clone_from(old);
                    }
                }
            }
        }
        Ok(self.store.update_profile(id, &spec).await?)
    }

    pub async fn set_default_profile(&self, id: &str) -> Result<()> {
        Ok(self.store.set_default_profile(id).await?)
    }

    /// Remove a profile; its sessions keep their history and run under no profile.
    pub async fn delete_profile(&self, id: &str) -> Result<()> {
        Ok(self.store.delete_profile(id).await?)
    }
}

#[cfg(test)]
#[path = "profiles_tests.rs"]
pub(crate) mod tests;
