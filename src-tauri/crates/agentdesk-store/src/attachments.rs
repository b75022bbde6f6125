//! Attachment rows: one per content hash (the file is `<data dir>/attachments/<sha256>`, the
//! core's business), linked to the runs that carry them.

use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::AttachmentKind;

use crate::{stored_name, Result, Store, StoreError};

/// A stored blob's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub sha256: String,
    pub mime: String,
    pub kind: AttachmentKind,
    pub size: i64,
    /// When it was last imported (see `record_blob`).
    pub created_at: i64,
}

/// A blob as attached to a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunAttachment {
    pub blob: Blob,
    pub position: i64,
    pub name: String,
}

/// An `attachments` row; the kind is checked when it becomes a [`Blob`].
#[derive(sqlx::FromRow)]
struct BlobRow {
    sha256: String,
    mime: String,
    kind: String,
    size: i64,
    created_at: i64,
}

impl TryFrom<BlobRow> for Blob {
    type Error = StoreError;

    fn try_from(r: BlobRow) -> Result<Self> {
        Ok(Blob {
            kind: stored_name("attachment kind", &r.kind, AttachmentKind::parse)?,
            sha256: r.sha256,
            mime: r.mime,
            size: r.size,
            created_at: r.created_at,
        })
    }
}

/// A blob joined with its link to a run.
#[derive(sqlx::FromRow)]
struct RunAttachmentRow {
    #[sqlx(flatten)]
    blob: BlobRow,
    position: i64,
    name: String,
}

impl TryFrom<RunAttachmentRow> for RunAttachment {
    type Error = StoreError;

    fn try_from(r: RunAttachmentRow) -> Result<Self> {
        Ok(RunAttachment {
            blob: r.blob.try_into()?,
            position: r.position,
            name: r.name,
        })
    }
}

impl Store {
    /// Record a blob. Importing the same bytes again keeps one row but moves `created_at` to
    /// now: it is "last imported", so a blob just imported for a message not sent yet is not
    /// collected as unreferenced (see `unreferenced_blobs`).
    pub async fn record_blob(&self, b: &Blob) -> Result<()> {
        sqlx::query(
            "INSERT INTO attachments (sha256, mime, kind, size, created_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(sha256) DO UPDATE SET created_at = MAX(created_at, excluded.created_at)",
        )
        .bind(&b.sha256)
        .bind(&b.mime)
        .bind(b.kind.as_str())
        .bind(b.size)
        .bind(b.created_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn get_blob(&self, sha256: &str) -> Result<Blob> {
        let row: BlobRow = sqlx::query_as(
            "SELECT sha256, mime, kind, size, created_at FROM attachments WHERE sha256 = ?",
        )
        .bind(sha256)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound {
            what: format!("attachment {sha256}"),
        })?;
        row.try_into()
    }

    /// Attach blobs to a run, in order, in one transaction.
    pub async fn link_run_attachments(&self, run_id: &RunId, blobs: &[(&str, &str)]) -> Result<()> {
        let mut tx = self.write_tx().await?;
        for (position, (sha256, name)) in blobs.iter().enumerate() {
            let res = sqlx::query(
                "INSERT INTO run_attachments (run_id, sha256, position, name) VALUES (?, ?, ?, ?)",
            )
            .bind(run_id)
            .bind(sha256)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(name)
            .execute(&mut *tx)
            .await;
            match res {
                Ok(_) => {}
                Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
                    return Err(StoreError::NotFound {
                        what: format!("run {run_id} or attachment {sha256}"),
                    })
                }
                Err(e) => return Err(e.into()),
            }
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn run_attachments(&self, run_id: &RunId) -> Result<Vec<RunAttachment>> {
        let rows: Vec<RunAttachmentRow> = sqlx::query_as(
            "SELECT a.sha256, a.mime, a.kind, a.size, a.created_at, r.position, r.name
             FROM run_attachments r JOIN attachments a ON a.sha256 = r.sha256
             WHERE r.run_id = ? ORDER BY r.position",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(RunAttachment::try_from).collect()
    }

    /// The blobs a session's runs carry (to collect them once the session is deleted).
    pub async fn session_blobs(&self, session_id: &SessionId) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT ra.sha256 FROM run_attachments ra JOIN runs r ON r.id = ra.run_id
             WHERE r.session_id = ?",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Blobs no run refers to, last imported before `imported_before`.
    pub async fn unreferenced_blobs(&self, imported_before: i64) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT sha256 FROM attachments a WHERE created_at < ?
               AND NOT EXISTS (SELECT 1 FROM run_attachments r WHERE r.sha256 = a.sha256)",
        )
        .bind(imported_before)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Delete a blob's row if (still) unreferenced and not re-imported since
    /// `imported_before`; true when deleted (then the file may go too).
    pub async fn forget_blob_if_unreferenced(
        &self,
        sha256: &str,
        imported_before: i64,
    ) -> Result<bool> {
        let res = sqlx::query(
            "DELETE FROM attachments WHERE sha256 = ? AND created_at < ?
               AND NOT EXISTS (SELECT 1 FROM run_attachments r WHERE r.sha256 = attachments.sha256)",
        )
        .bind(sha256)
        .bind(imported_before)
        .execute(&self.pool)
        .await?;
        Ok(res.rows_affected() == 1)
    }
}
