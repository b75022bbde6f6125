//! Session management the window offers beyond chatting: what a delete would remove, and
//! an export written to the file the user picked.

use std::path::Path;

use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::ui::{ExportFormat, SessionFootprint};

use crate::{CoreError, Desk, Result};

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Desk {
    /// Messages, runs and attached files of a session: named in the delete confirm, so the
    /// user knows what goes before anything does.
    pub async fn session_footprint(&self, session_id: &SessionId) -> Result<SessionFootprint> {
        // Checked first: an unknown id is NotFound, not a footprint of zeros.
        self.store.get_session(session_id).await?;
        let messages = self.store.count_session_messages(session_id).await?;
        let runs = self.store.list_runs(session_id).await?.len();
        let attachments = self.store.session_blobs(session_id).await?.len();
        Ok(SessionFootprint {
            messages: u32::try_from(messages).unwrap_or(u32::MAX),
            runs: count(runs),
            attachments: count(attachments),
        })
    }

    /// The session exported in `format`, as text.
    pub async fn export_session_as(
        &self,
        session_id: &SessionId,
        format: ExportFormat,
    ) -> Result<String> {
        match format {
            ExportFormat::Markdown => self.export_session_markdown(session_id).await,
            ExportFormat::Json => self.export_session_json(session_id).await,
        }
    }

    /// Write the export to `path` (the file the save dialog returned), replacing it: see
    /// `export::write_replacing` (a private, unguessable, no-follow temporary file renamed
    /// over the target).
    pub async fn export_session_to(
        &self,
        session_id: &SessionId,
        format: ExportFormat,
        path: &Path,
    ) -> Result<()> {
        let text = self.export_session_as(session_id, format).await?;
        let io = |what: &str, e: std::io::Error| {
            CoreError::InvalidInput(format!("cannot {what} {}: {e}", path.display()))
        };
        if path.file_name().is_none() {
            return Err(CoreError::InvalidInput(format!(
                "{} is not a file path",
                path.display()
            )));
        }
        crate::export::write_replacing(path, text.into_bytes())
            .await
            .map_err(|(what, e)| io(what, e))?;
        tracing::info!(%session_id, ?format, path = %path.display(), "session exported");
        Ok(())
    }
}

#[cfg(test)]
#[path = "session_admin_tests.rs"]
mod tests;
