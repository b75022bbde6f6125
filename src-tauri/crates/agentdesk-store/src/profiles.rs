//! Profiles: several named per workspace, at most one default (a partial unique index
//! enforces it; these queries keep it true when the default changes hands).

use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::{Engine, PermissionMode, Profile, ProfileSpec};

use crate::select::Table;
use crate::{now_ms, stored_name, Result, Store, StoreError};

const COLUMNS: &str = "id, workspace_id, name, is_default, engine, model, base_url, api_key_env,
    permission_mode, allowed_tools, denied_tools, system_prompt, extra_dirs, env, approval_rules,
    approval_timeout_secs, engine_options, created_at, updated_at, secret_env, mcp_servers";

/// A `profiles` row ([`COLUMNS`]): names and JSON columns are checked when it becomes a
/// [`Profile`].
#[derive(sqlx::FromRow)]
pub(crate) struct ProfileRow {
    id: ProfileId,
    workspace_id: WorkspaceId,
    name: String,
    is_default: i64,
    engine: String,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    permission_mode: String,
    allowed_tools: String,
    denied_tools: String,
    system_prompt: Option<String>,
    extra_dirs: String,
    env: String,
    approval_rules: String,
    approval_timeout_secs: Option<i64>,
    engine_options: String,
    created_at: i64,
    updated_at: i64,
    secret_env: String,
    mcp_servers: String,
}

impl TryFrom<ProfileRow> for Profile {
    type Error = StoreError;

    fn try_from(r: ProfileRow) -> Result<Self> {
        Ok(Profile {
            id: r.id,
            workspace_id: r.workspace_id,
            is_default: r.is_default == 1,
            spec: ProfileSpec {
                name: r.name,
                engine: stored_name("engine", &r.engine, Engine::parse)?,
                model: r.model,
                base_url: r.base_url,
                api_key_env: r.api_key_env,
                permission_mode: stored_name(
                    "permission mode",
                    &r.permission_mode,
                    PermissionMode::parse,
                )?,
                allowed_tools: serde_json::from_str(&r.allowed_tools)?,
                denied_tools: serde_json::from_str(&r.denied_tools)?,
                system_prompt: r.system_prompt,
                extra_dirs: serde_json::from_str(&r.extra_dirs)?,
                env: serde_json::from_str(&r.env)?,
                secret_env: serde_json::from_str(&r.secret_env)?,
                approval_rules: serde_json::from_str(&r.approval_rules)?,
                approval_timeout_secs: r.approval_timeout_secs.and_then(|t| u32::try_from(t).ok()),
                engine_options: serde_json::from_str(&r.engine_options)?,
                mcp_servers: serde_json::from_str(&r.mcp_servers)?,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

fn name_conflict(e: sqlx::Error, name: &str) -> StoreError {
    match e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(format!(
            "a profile named {name:?} already exists in this workspace"
        )),
        other => other.into(),
    }
}

fn engine_options_text(spec: &ProfileSpec) -> Result<String> {
    // `null` (a spec that left it out) is stored as the empty object the schema expects.
    if spec.engine_options.is_null() {
        return Ok("{}".into());
    }
    Ok(serde_json::to_string(&spec.engine_options)?)
}

impl Table for Profile {
    type Row = ProfileRow;
    const TABLE: &'static str = "profiles";
    const COLUMNS: &'static str = COLUMNS;
}

impl Store {
    /// Insert a profile. When it is the default, the previous default stops being one.
    pub async fn insert_profile(&self, p: &Profile) -> Result<()> {
        let s = &p.spec;
        let mut tx = self.write_tx().await?;
        if p.is_default {
            sqlx::query(
                "UPDATE profiles SET is_default = 0 WHERE workspace_id = ? AND is_default = 1",
            )
            .bind(&p.workspace_id)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(&format!(
            "INSERT INTO profiles ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        ))
        .bind(&p.id)
        .bind(&p.workspace_id)
        .bind(&s.name)
        .bind(i64::from(p.is_default))
        .bind(s.engine.as_str())
        .bind(&s.model)
        .bind(&s.base_url)
        .bind(&s.api_key_env)
        .bind(s.permission_mode.as_str())
        .bind(serde_json::to_string(&s.allowed_tools)?)
        .bind(serde_json::to_string(&s.denied_tools)?)
        .bind(&s.system_prompt)
        .bind(serde_json::to_string(&s.extra_dirs)?)
        .bind(serde_json::to_string(&s.env)?)
        .bind(serde_json::to_string(&s.approval_rules)?)
        .bind(s.approval_timeout_secs.map(i64::from))
        .bind(engine_options_text(s)?)
        .bind(p.created_at)
        .bind(p.updated_at)
        .bind(serde_json::to_string(&s.secret_env)?)
        .bind(serde_json::to_string(&s.mcp_servers)?)
        .execute(&mut *tx)
        .await
        .map_err(|e| name_conflict(e, &s.name))?;
        tx.commit().await?;
        Ok(())
    }

    /// Replace a profile's fields (not its workspace, id or default flag).
    pub async fn update_profile(&self, id: &ProfileId, s: &ProfileSpec) -> Result<Profile> {
        let res = sqlx::query(
            "UPDATE profiles SET name = ?, engine = ?, model = ?, base_url = ?, api_key_env = ?,
                permission_mode = ?, allowed_tools = ?, denied_tools = ?, system_prompt = ?,
                extra_dirs = ?, env = ?, approval_rules = ?, approval_timeout_secs = ?,
                engine_options = ?, updated_at = ?, secret_env = ?, mcp_servers = ?
             WHERE id = ?",
        )
        .bind(&s.name)
        .bind(s.engine.as_str())
        .bind(&s.model)
        .bind(&s.base_url)
        .bind(&s.api_key_env)
        .bind(s.permission_mode.as_str())
        .bind(serde_json::to_string(&s.allowed_tools)?)
        .bind(serde_json::to_string(&s.denied_tools)?)
        .bind(&s.system_prompt)
        .bind(serde_json::to_string(&s.extra_dirs)?)
        .bind(serde_json::to_string(&s.env)?)
        .bind(serde_json::to_string(&s.approval_rules)?)
        .bind(s.approval_timeout_secs.map(i64::from))
        .bind(engine_options_text(s)?)
        .bind(now_ms())
        .bind(serde_json::to_string(&s.secret_env)?)
        .bind(serde_json::to_string(&s.mcp_servers)?)
        .bind(id)
        .execute(&self.pool)
        .await
        .map_err(|e| name_conflict(e, &s.name))?;
        if res.rows_affected() == 0 {
            return Err(not_found(id));
        }
        self.get_profile(id).await
    }

    pub async fn get_profile(&self, id: &ProfileId) -> Result<Profile> {
        self.select_one("WHERE id = ?", id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// A workspace's profiles, the default first, then by name.
    pub async fn list_profiles(&self, workspace_id: &WorkspaceId) -> Result<Vec<Profile>> {
        self.select(
            "WHERE workspace_id = ? ORDER BY is_default DESC, name COLLATE NOCASE, created_at",
            workspace_id,
        )
        .await
    }

    pub async fn default_profile(&self, workspace_id: &WorkspaceId) -> Result<Option<Profile>> {
        self.select_one("WHERE workspace_id = ? AND is_default = 1", workspace_id)
            .await
    }

    pub async fn find_profile_by_name(
        &self,
        workspace_id: &WorkspaceId,
        name: &str,
    ) -> Result<Option<Profile>> {
        let row: Option<ProfileRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM profiles WHERE workspace_id = ? AND name = ?"
        ))
        .bind(workspace_id)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.map(Profile::try_from).transpose()
    }

    /// Make `id` its workspace's default, in one transaction (never zero or two defaults).
    pub async fn set_default_profile(&self, id: &ProfileId) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let ws: Option<WorkspaceId> =
            sqlx::query_scalar("SELECT workspace_id FROM profiles WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let ws = ws.ok_or_else(|| not_found(id))?;
        sqlx::query("UPDATE profiles SET is_default = 0 WHERE workspace_id = ? AND is_default = 1")
            .bind(&ws)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE profiles SET is_default = 1, updated_at = ? WHERE id = ?")
            .bind(now_ms())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Delete a profile. When it was the default, the oldest remaining profile becomes the
    /// default so a workspace with profiles always has one. Sessions keep running under no
    /// profile (`profile_id` becomes NULL).
    pub async fn delete_profile(&self, id: &ProfileId) -> Result<()> {
        let mut tx = self.write_tx().await?;
        let row: Option<(WorkspaceId, i64)> =
            sqlx::query_as("SELECT workspace_id, is_default FROM profiles WHERE id = ?")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let (ws, was_default) = row.ok_or_else(|| not_found(id))?;
        sqlx::query("DELETE FROM profiles WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if was_default == 1 {
            sqlx::query(
                "UPDATE profiles SET is_default = 1 WHERE id =
                   (SELECT id FROM profiles WHERE workspace_id = ? ORDER BY created_at, id LIMIT 1)",
            )
            .bind(&ws)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

fn not_found(id: &ProfileId) -> StoreError {
    StoreError::NotFound {
        what: format!("profile {id}"),
    }
}
