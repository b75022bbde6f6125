//! Sessions: conversations in a workspace.

use agentdesk_protocol::ids::{ProfileId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{Engine, Session};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::{now_ms, Result, Store, StoreError};

const COLUMNS: &str = "id, workspace_id, profile_id, title, engine, engine_session_id,
    created_at, updated_at, archived_at";

fn from_row(row: &SqliteRow) -> Result<Session> {
    let engine: String = row.try_get("engine")?;
    Ok(Session {
        id: row.try_get("id")?,
        workspace_id: row.try_get("workspace_id")?,
        profile_id: row.try_get("profile_id")?,
        title: row.try_get("title")?,
        engine: Engine::parse(&engine)
            .ok_or_else(|| StoreError::Schema(format!("unknown engine {engine:?}")))?,
        engine_session_id: row.try_get("engine_session_id")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        archived_at: row.try_get("archived_at")?,
    })
}

fn not_found(id: &SessionId) -> StoreError {
    StoreError::NotFound {
        what: format!("session {id}"),
    }
}

fn check_one(res: sqlx::sqlite::SqliteQueryResult, id: &SessionId) -> Result<()> {
    if res.rows_affected() == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

impl Store {
    pub async fn insert_session(&self, s: &Session) -> Result<()> {
        sqlx::query(&format!(
            "INSERT INTO sessions ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
        ))
        .bind(&s.id)
        .bind(&s.workspace_id)
        .bind(&s.profile_id)
        .bind(&s.title)
        .bind(s.engine.as_str())
        .bind(&s.engine_session_id)
        .bind(s.created_at)
        .bind(s.updated_at)
        .bind(s.archived_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn get_session(&self, id: &SessionId) -> Result<Session> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM sessions WHERE id = ?"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| not_found(id))?;
        from_row(&row)
    }

    /// A workspace's sessions, most recently active first.
    pub async fn list_sessions(
        &self,
        workspace_id: &WorkspaceId,
        include_archived: bool,
    ) -> Result<Vec<Session>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM sessions
             WHERE workspace_id = ? AND (? OR archived_at IS NULL)
             ORDER BY updated_at DESC, id DESC"
        ))
        .bind(workspace_id)
        .bind(include_archived)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// Every session of every workspace, most recent first (the CLI's `sessions`).
    pub async fn list_all_sessions(&self, include_archived: bool) -> Result<Vec<Session>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM sessions WHERE (? OR archived_at IS NULL)
             ORDER BY updated_at DESC, id DESC"
        ))
        .bind(include_archived)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    pub async fn rename_session(&self, id: &SessionId, title: &str) -> Result<()> {
        let res = sqlx::query("UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?")
            .bind(title)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }

    /// Archive (`Some(time)`) or unarchive (`None`).
    pub async fn set_session_archived(
        &self,
        id: &SessionId,
        archived_at: Option<i64>,
    ) -> Result<()> {
        let res = sqlx::query("UPDATE sessions SET archived_at = ? WHERE id = ?")
            .bind(archived_at)
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }

    /// Record the engine's id for the conversation (or forget it after a stale resume).
    pub async fn set_engine_session_id(
        &self,
        id: &SessionId,
        engine_session_id: Option<&str>,
    ) -> Result<()> {
        let res = sqlx::query("UPDATE sessions SET engine_session_id = ? WHERE id = ?")
            .bind(engine_session_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }

    /// Which profile the next run uses.
    pub async fn set_session_profile(
        &self,
        id: &SessionId,
        profile_id: Option<&ProfileId>,
    ) -> Result<()> {
        let res = sqlx::query("UPDATE sessions SET profile_id = ?, updated_at = ? WHERE id = ?")
            .bind(profile_id)
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }

    /// Move the session to the top of its workspace's list.
    pub async fn touch_session(&self, id: &SessionId, at: i64) -> Result<()> {
        let res = sqlx::query("UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?")
            .bind(at)
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }

    /// Delete a session and, by cascade, its runs, timeline, approvals, usage and attachment
    /// links. The blobs themselves are the caller's (see `unreferenced_attachments`).
    pub async fn delete_session(&self, id: &SessionId) -> Result<()> {
        let res = sqlx::query("DELETE FROM sessions WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        check_one(res, id)
    }
}
