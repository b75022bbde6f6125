//! Workspaces: one row per folder.

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::ui::Workspace;

use crate::{Result, Store, StoreError};

/// A `workspaces` row as selected here.
#[derive(sqlx::FromRow)]
struct WorkspaceRow {
    id: WorkspaceId,
    name: String,
    path: String,
    created_at: i64,
}

impl From<WorkspaceRow> for Workspace {
    /// A remote workspace's row holds its `ssh://` URL as the location.
    fn from(r: WorkspaceRow) -> Self {
        let remote = r
            .path
            .starts_with(agentdesk_protocol::remote::SCHEME)
            .then(|| SshLocation::parse_url(&r.path).ok())
            .flatten();
        let (path, host) = match remote {
            Some(loc) => (loc.path.clone(), Some(loc.host_label())),
            None => (r.path, None),
        };
        Workspace {
            id: r.id,
            name: r.name,
            path,
            host,
            created_at: r.created_at,
        }
    }
}

impl Store {
    /// All workspaces that are not archived, by name.
    pub async fn list_workspaces(&self) -> Result<Vec<Workspace>> {
        let rows: Vec<WorkspaceRow> = sqlx::query_as(
            "SELECT id, name, path, created_at FROM workspaces
             WHERE archived_at IS NULL ORDER BY name COLLATE NOCASE, created_at",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(Workspace::from).collect())
    }

    pub async fn get_workspace(&self, id: &WorkspaceId) -> Result<Workspace> {
        let row: WorkspaceRow =
            sqlx::query_as("SELECT id, name, path, created_at FROM workspaces WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| StoreError::NotFound {
                    what: format!("workspace {id}"),
                })?;
        Ok(row.into())
    }

    pub async fn find_workspace_by_path(&self, path: &str) -> Result<Option<Workspace>> {
        let row: Option<WorkspaceRow> =
            sqlx::query_as("SELECT id, name, path, created_at FROM workspaces WHERE path = ?")
                .bind(path)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(Workspace::from))
    }

    /// Insert a workspace; a folder already added is a `Conflict`.
    pub async fn insert_workspace(&self, w: &Workspace) -> Result<()> {
        let res =
            sqlx::query("INSERT INTO workspaces (id, name, path, created_at) VALUES (?, ?, ?, ?)")
                .bind(&w.id)
                .bind(&w.name)
                .bind(w.location())
                .bind(w.created_at)
                .execute(&self.pool)
                .await;
        match res {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                Err(StoreError::Conflict(format!(
                    "the folder {} is already a workspace",
                    w.location()
                )))
            }
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
