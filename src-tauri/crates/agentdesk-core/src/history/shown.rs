//! What imported sessions mean for the rest of the desk: which sources the user shows
//! (Settings), and whether a terminal is driving a session right now (then the app does not
//! start a second run on it).

use agentdesk_protocol::ids::{SessionId, WorkspaceId};
use agentdesk_protocol::ui::{HistorySettings, RunStatus, Session, SessionOrigin};
use agentdesk_store::now_ms;

use crate::{CoreError, Desk, Result};

/// Settings key of [`HistorySettings`].
const HISTORY_SETTINGS_KEY: &str = "histories";

/// An unfinished turn in a history whose file changed this recently is taken as a terminal
/// still answering it. Longer than a quiet build or test run between two writes; a terminal
/// closed mid-turn frees the session after it.
pub const DRIVING_QUIET_MS: i64 = 5 * 60 * 1000;

/// The stop reason of an imported turn the history has not finished (see `turn_to_run`).
pub const UNFINISHED: &str = "unfinished";

impl Desk {
    pub async fn history_settings(&self) -> Result<HistorySettings> {
        Ok(self
            .store
            .get_setting(HISTORY_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    pub async fn set_history_settings(&self, settings: &HistorySettings) -> Result<()> {
        Ok(self
            .store
            .set_setting(HISTORY_SETTINGS_KEY, settings)
            .await?)
    }

    /// A workspace's sessions as the sidebar lists them: without those of the history
    /// sources the user turned off.
    pub async fn shown_sessions(
        &self,
        workspace_id: &WorkspaceId,
        include_archived: bool,
    ) -> Result<Vec<Session>> {
        let hidden = self.history_settings().await?.hidden;
        let mut sessions = self.list_sessions(workspace_id, include_archived).await?;
        sessions.retain(|s| s.origin == SessionOrigin::App || !hidden.contains(&s.origin));
        Ok(sessions)
    }

    /// Why a new run of the session must wait: a terminal has it open now (the engine says
    /// so: Claude Code's record of its running sessions), or is answering its last turn (the
    /// history says the turn goes on, and changed within [`DRIVING_QUIET_MS`]). `None` when
    /// the app may run it (a run of its own on it is queued behind as usual).
    pub async fn terminal_driving(&self, session_id: &SessionId) -> Result<Option<String>> {
        let Some(file) = self.store.history_file_of_session(session_id).await? else {
            return Ok(None);
        };
        if self.sessions_running_here().contains(session_id) {
            return Ok(None);
        }
        let session = self.store.get_session(session_id).await?;
        let mut who = session.origin.display_name().to_owned();
        if let Some(first) = who.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        let sources = self.history_sources().await;
        let source = sources.iter().find(|s| s.origin() == file.origin);
        if let (Some(source), Some(engine_sid)) = (source, &session.engine_session_id) {
            if let Some(pid) = source.opened_by(engine_sid).await {
                return Ok(Some(format!(
                    "{who} has this session open in a terminal right now (process {pid}). \
                     Quit it there, then continue it here."
                )));
            }
        }
        let runs = self.store.list_runs(session_id).await?;
        let Some(last) = runs.last() else {
            return Ok(None);
        };
        let unfinished = last.status == RunStatus::Interrupted
            && last.stop_reason.as_deref() == Some(UNFINISHED);
        let quiet_for = now_ms().saturating_sub(file.mtime_ms);
        if !unfinished || quiet_for >= DRIVING_QUIET_MS {
            return Ok(None);
        }
        Ok(Some(format!(
            "{who} is answering this session in a terminal right now (its history changed {}s ago). \
             Continue it here once that turn is done, or {} min after the terminal's last write \
             if it was closed.",
            quiet_for / 1000,
            DRIVING_QUIET_MS / 60_000
        )))
    }

    /// Refuse a run on a session a terminal is driving.
    pub(crate) async fn refuse_if_terminal_driving(&self, session_id: &SessionId) -> Result<()> {
        match self.terminal_driving(session_id).await? {
            Some(why) => Err(CoreError::Busy(why)),
            None => Ok(()),
        }
    }
}
