//! Workspaces: one row per folder.

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::ui::Workspace;
use sqlx::Row;

use crate::{Result, Store, StoreError};

fn from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Workspace> {
    Ok(Workspace {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        path: row.try_get("path")?,
        created_at: row.try_get("created_at")?,
    })
}

impl Store {
    /// All workspaces that are not archived, by name.
    pub async fn list_workspaces(&self) -> Result<Vec<Workspace>> {
        let rows = sqlx::query(
            "SELECT id, name, path, created_at FROM workspaces
             WHERE archived_at IS NULL ORDER BY name COLLATE NOCASE, created_at",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    pub async fn get_workspace(&self, id: &WorkspaceId) -> Result<Workspace> {
        let row = sqlx::query("SELECT id, name, path, created_at FROM workspaces WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: format!("workspace {id}"),
            })?;
        from_row(&row)
    }

    pub async fn find_workspace_by_path(&self, path: &str) -> Result<Option<Workspace>> {
        let row = sqlx::query("SELECT id, name, path, created_at FROM workspaces WHERE path = ?")
            .bind(path)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Insert a workspace; a folder already added is a `Conflict`.
    pub async fn insert_workspace(&self, w: &Workspace) -> Result<()> {
        let res =
            sqlx::query("INSERT INTO workspaces (id, name, path, created_at) VALUES (?, ?, ?, ?)")
                .bind(&w.id)
                .bind(&w.name)
                .bind(&w.path)
                .bind(w.created_at)
                .execute(&self.pool)
                .await;
        match res {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => Err(
                StoreError::Conflict(format!("the folder {} is already a workspace", w.path)),
            ),
            Err(e) => Err(e.into()),
        }
    }

    /// Delete a workspace and everything in it (profiles, sessions, runs, timeline, approvals).
    pub async fn delete_workspace(&self, id: &WorkspaceId) -> Result<()> {
        let res = sqlx::query("DELETE FROM workspaces WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                what: format!("workspace {id}"),
            });
        }
        Ok(())
    }
}
