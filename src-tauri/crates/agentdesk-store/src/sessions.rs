//! Sessions: conversations in a workspace.

use agentdesk_protocol::ids::{ProfileId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{Engine, Session, SessionOrigin};

use crate::select::Table;
use crate::{now_ms, stored_name, Result, Store, StoreError};

const COLUMNS: &str = "id, workspace_id, profile_id, title, engine, engine_session_id,
    origin, worktree_path, worktree_branch, worktree_base, model_override, effort_override,
    created_at, updated_at, archived_at";

/// A `sessions` row ([`COLUMNS`]); the engine is checked when it becomes a [`Session`].
#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    id: SessionId,
    workspace_id: WorkspaceId,
    profile_id: Option<ProfileId>,
    title: String,
    engine: String,
    engine_session_id: Option<String>,
    origin: String,
    worktree_path: Option<String>,
    worktree_branch: Option<String>,
    worktree_base: Option<String>,
    model_override: Option<String>,
    effort_override: Option<String>,
    created_at: i64,
    updated_at: i64,
    archived_at: Option<i64>,
}

impl TryFrom<SessionRow> for Session {
    type Error = StoreError;

    fn try_from(r: SessionRow) -> Result<Self> {
        Ok(Session {
            engine: stored_name("engine", &r.engine, Engine::parse)?,
            origin: stored_name("session origin", &r.origin, SessionOrigin::parse)?,
            id: r.id,
            workspace_id: r.workspace_id,
            profile_id: r.profile_id,
            title: r.title,
            engine_session_id: r.engine_session_id,
            worktree: r.worktree_path,
            branch: r.worktree_branch,
            base_branch: r.worktree_base,
            model: r.model_override,
            effort: r.effort_override,
            created_at: r.created_at,
            updated_at: r.updated_at,
            archived_at: r.archived_at,
        })
    }
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

impl Table for Session {
    type Row = SessionRow;
    const TABLE: &'static str = "sessions";
    const COLUMNS: &'static str = COLUMNS;
}

impl Store {
    pub async fn insert_session(&self, s: &Session) -> Result<()> {
        sqlx::query(&format!(
            "INSERT INTO sessions ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        ))
        .bind(&s.id)
        .bind(&s.workspace_id)
        .bind(&s.profile_id)
        .bind(&s.title)
        .bind(s.engine.as_str())
        .bind(&s.engine_session_id)
        .bind(s.origin.as_str())
        .bind(&s.worktree)
        .bind(&s.branch)
        .bind(&s.base_branch)
        .bind(&s.model)
        .bind(&s.effort)
        .bind(s.created_at)
        .bind(s.updated_at)
        .bind(s.archived_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn get_session(&self, id: &SessionId) -> Result<Session> {
        self.select_one("WHERE id = ?", id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// A workspace's sessions, most recently active first.
    pub async fn list_sessions(
        &self,
        workspace_id: &WorkspaceId,
        include_archived: bool,
    ) -> Result<Vec<Session>> {
        let rows: Vec<SessionRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM sessions
             WHERE workspace_id = ? AND (? OR archived_at IS NULL)
             ORDER BY updated_at DESC, id DESC"
        ))
        .bind(workspace_id)
        .bind(include_archived)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(Session::try_from).collect()
    }

    /// Every session of every workspace, most recent first (the CLI's `sessions`).
    pub async fn list_all_sessions(&self, include_archived: bool) -> Result<Vec<Session>> {
        let rows: Vec<SessionRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM sessions WHERE (? OR archived_at IS NULL)
             ORDER BY updated_at DESC, id DESC"
        ))
        .bind(include_archived)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(Session::try_from).collect()
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

    /// The session's worktree (folder, branch, base), or none once it is removed.
    pub async fn set_session_worktree(
        &self,
        id: &SessionId,
        worktree: Option<(&str, &str, &str)>,
    ) -> Result<()> {
        let (path, branch, base) = worktree.map_or((None, None, None), |(p, b, base)| {
            (Some(p), Some(b), Some(base))
        });
        let res = sqlx::query(
            "UPDATE sessions SET worktree_path = ?, worktree_branch = ?, worktree_base = ?
             WHERE id = ?",
        )
        .bind(path)
        .bind(branch)
        .bind(base)
        .bind(id)
        .execute(&self.pool)
        .await?;
        check_one(res, id)
    }

    /// The model and effort the session's next runs use instead of its profile's (`None`:
    /// the profile's).
    pub async fn set_session_model(
        &self,
        id: &SessionId,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Result<()> {
        let res = sqlx::query(
            "UPDATE sessions SET model_override = ?, effort_override = ?, updated_at = ? WHERE id = ?",
        )
        .bind(model)
        .bind(effort)
        .bind(now_ms())
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
