//! Profiles: several named per workspace, at most one default (a partial unique index
//! enforces it; these queries keep it true when the default changes hands).

use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::{Engine, PermissionMode, Profile, ProfileSpec};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{now_ms, Result, Store, StoreError};

const COLUMNS: &str = "id, workspace_id, name, is_default, engine, model, base_url, api_key_env,
    permission_mode, allowed_tools, denied_tools, system_prompt, extra_dirs, env, approval_rules,
    approval_timeout_secs, engine_options, created_at, updated_at, secret_env";

fn from_row(row: &SqliteRow) -> Result<Profile> {
    let engine: String = row.try_get("engine")?;
    let mode: String = row.try_get("permission_mode")?;
    let json = |col: &str| -> Result<serde_json::Value> {
        let s: String = row.try_get(col)?;
        Ok(serde_json::from_str(&s)?)
    };
    let timeout: Option<i64> = row.try_get("approval_timeout_secs")?;
    Ok(Profile {
        id: row.try_get("id")?,
        workspace_id: row.try_get("workspace_id")?,
        is_default: row.try_get::<i64, _>("is_default")? == 1,
        spec: ProfileSpec {
            name: row.try_get("name")?,
            engine: Engine::parse(&engine)
                .ok_or_else(|| StoreError::Schema(format!("unknown engine {engine:?}")))?,
            model: row.try_get("model")?,
            base_url: row.try_get("base_url")?,
            api_key_env: row.try_get("api_key_env")?,
            permission_mode: PermissionMode::parse(&mode)
                .ok_or_else(|| StoreError::Schema(format!("unknown permission mode {mode:?}")))?,
            allowed_tools: serde_json::from_value(json("allowed_tools")?)?,
            denied_tools: serde_json::from_value(json("denied_tools")?)?,
            system_prompt: row.try_get("system_prompt")?,
            extra_dirs: serde_json::from_value(json("extra_dirs")?)?,
            env: serde_json::from_value(json("env")?)?,
            secret_env: serde_json::from_value(json("secret_env")?)?,
            approval_rules: serde_json::from_value(json("approval_rules")?)?,
            approval_timeout_secs: timeout.and_then(|t| u32::try_from(t).ok()),
            engine_options: json("engine_options")?,
        },
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
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
            "INSERT INTO profiles ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
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
                engine_options = ?, updated_at = ?, secret_env = ?
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
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM profiles WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| not_found(id))?;
        from_row(&row)
    }

    /// A workspace's profiles, the default first, then by name.
    pub async fn list_profiles(&self, workspace_id: &WorkspaceId) -> Result<Vec<Profile>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM profiles WHERE workspace_id = ?
             ORDER BY is_default DESC, name COLLATE NOCASE, created_at"
        ))
        .bind(workspace_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    pub async fn default_profile(&self, workspace_id: &WorkspaceId) -> Result<Option<Profile>> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM profiles WHERE workspace_id = ? AND is_default = 1"
        ))
        .bind(workspace_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
    }

    pub async fn find_profile_by_name(
        &self,
        workspace_id: &WorkspaceId,
        name: &str,
    ) -> Result<Option<Profile>> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM profiles WHERE workspace_id = ? AND name = ?"
        ))
        .bind(workspace_id)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
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
