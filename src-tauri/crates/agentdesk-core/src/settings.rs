//! The window's preferences (theme, send key), the data folders with the database size,
//! and compacting the database (Settings).

use agentdesk_protocol::ui::{CompactReport, DataInfo, UiSettings};

use crate::{paths, CoreError, Desk, Result};

/// Settings key of [`UiSettings`].
pub const UI_SETTINGS_KEY: &str = "ui";

impl Desk {
    pub async fn ui_settings(&self) -> Result<UiSettings> {
        Ok(self
            .store
            .get_setting(UI_SETTINGS_KEY)
            .await?
            .unwrap_or_default())
    }

    pub async fn set_ui_settings(&self, settings: &UiSettings) -> Result<()> {
        Ok(self.store.set_setting(UI_SETTINGS_KEY, settings).await?)
    }

    /// Where the data and the logs are, and how much the database takes on disk (with its
    /// write-ahead log, which holds recent writes until a checkpoint).
    pub async fn data_info(&self) -> DataInfo {
        let db = self.database_path().to_path_buf();
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        let mut bytes = 0;
        for file in [db.clone(), wal.into()] {
            if let Ok(meta) = tokio::fs::metadata(&file).await {
                bytes += meta.len();
            }
        }
        DataInfo {
            data_dir: self.data_dir().display().to_string(),
            log_dir: paths::log_dir(self.data_dir()).display().to_string(),
            database_path: db.display().to_string(),
            database_bytes: bytes,
        }
    }
}

impl Desk {
    /// "Compact database" (Settings → Data): the attachment files nothing refers to are
    /// removed and the database is rewritten without its free pages. Refused while a run
    /// is active: its writes would wait for the rewrite and could run out of their
    /// retry budget.
    pub async fn compact_database(&self) -> Result<CompactReport> {
        let running = self.active_run_ids().len();
        if running > 0 {
            return Err(CoreError::Busy(format!(
                "{running} run{} in progress: compact the database when {} finished",
                if running == 1 { " is" } else { "s are" },
                if running == 1 { "it has" } else { "they have" },
            )));
        }
        let before = self.data_info().await.database_bytes;
        let removed = self.collect_attachments().await?;
        self.store.compact().await?;
        let after = self.data_info().await.database_bytes;
        tracing::info!(before, after, removed, "database compacted");
        Ok(CompactReport {
            before_bytes: before,
            after_bytes: after,
            attachments_removed: u32::try_from(removed).unwrap_or(u32::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentdesk_protocol::ui::{ErrorCode, NotifyWhen, SendKey, Theme};

    #[tokio::test]
    async fn preferences_round_trip_and_default_when_unset() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        assert_eq!(desk.ui_settings().await.unwrap(), UiSettings::default());
        let ui = UiSettings {
            theme: Theme::Dark,
            send_key: SendKey::CtrlEnter,
        };
        desk.set_ui_settings(&ui).await.unwrap();
        assert_eq!(desk.ui_settings().await.unwrap(), ui);

        let mut prefs = desk.notification_prefs().await.unwrap();
        assert_eq!(prefs.approvals, NotifyWhen::WhenUnfocused);
        prefs.runs = NotifyWhen::Never;
        prefs.run_min_secs = 5;
        prefs.sound = false;
        desk.set_notification_prefs(&prefs).await.unwrap();
        assert_eq!(desk.notification_prefs().await.unwrap(), prefs);
        desk.close().await;
    }

    #[tokio::test]
    async fn data_info_counts_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        let info = desk.data_info().await;
        assert!(info.database_bytes > 0, "{info:?}");
        assert!(info.log_dir.starts_with(&info.data_dir), "{info:?}");
        desk.close().await;
    }

    /// What deleted sessions left is given back: the file shrinks to what remains, which is
    /// all still there.
    #[tokio::test]
    async fn compacting_gives_back_what_deleted_sessions_took() {
        use agentdesk_protocol::ui::{ItemBody, ItemStatus, TimelineItem};
        let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
        let mut sessions = Vec::new();
        for n in 0..4 {
            let session = desk
                .create_session(&crate::NewSession {
                    engine: Some(agentdesk_protocol::ui::Engine::Codex),
                    ..crate::NewSession::new(ws.id.clone())
                })
                .await
                .unwrap();
            let run = desk
                .create_run(&session.id, "write a lot", &[])
                .await
                .unwrap();
            let items: Vec<TimelineItem> = (0..200)
                .map(|i| TimelineItem {
                    id: format!("{}:a{i}", run.id),
                    session_id: session.id.clone(),
                    run_id: run.id.clone(),
                    seq: i + 1,
                    status: ItemStatus::Completed,
                    body: ItemBody::AgentMessage {
                        text: format!("session {n} answer {i} ").repeat(200),
                    },
                    created_at: i,
                    updated_at: i,
                    parent_id: None,
                })
                .collect();
            desk.store().upsert_timeline_items(&items).await.unwrap();
            let end = agentdesk_store::RunEnd {
                status: agentdesk_protocol::ui::RunStatus::Completed,
                stop_reason: None,
                error: None,
                at: 1,
            };
            desk.store().finish_run(&run.id, &end).await.unwrap();
            sessions.push(session.id);
        }
        for id in &sessions[1..] {
            desk.delete_session(id).await.unwrap();
        }
        let report = desk.compact_database().await.unwrap();
        assert!(
            report.after_bytes * 2 < report.before_bytes,
            "three of four sessions deleted: {report:?}"
        );
        assert_eq!(report.after_bytes, desk.data_info().await.database_bytes);
        let kept = desk
            .store()
            .load_timeline(&sessions[0], None, 500)
            .await
            .unwrap();
        assert_eq!(kept.items.len(), 201, "the prompt and 200 answers");
        desk.close().await;
    }

    #[tokio::test]
    async fn an_engine_path_that_is_not_an_executable_is_refused_and_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        let missing = dir.path().join("no-such-codex");
        let err = desk
            .set_engine_path("codex", Some(&missing.display().to_string()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::EngineMissing);
        assert!(
            err.to_string()
                .contains(&format!("{} is not an executable file", missing.display())),
            "{err}"
        );
        assert_eq!(
            desk.engine_settings().await.unwrap().program("codex").bin,
            None
        );
        let relative = desk.set_engine_path("codex", Some("codex")).await;
        assert_eq!(relative.unwrap_err().code(), ErrorCode::InvalidInput);
        desk.close().await;
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_stored_engine_path_is_what_health_and_runs_use() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        // An executable that answers `--version` like codex does, outside the supported range.
        let fake = dir.path().join("codex");
        std::fs::write(&fake, "#!/bin/sh\necho 'codex-cli 0.1.0'\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = fake.display().to_string();
        desk.set_engine_path("codex", Some(&path)).await.unwrap();
        let check = desk
            .check_engine_health(agentdesk_protocol::ui::Engine::Codex, false)
            .await
            .unwrap();
        let h = &check.health;
        assert_eq!(h.path.as_deref(), Some(path.as_str()));
        assert_eq!(h.found_via.as_deref(), Some("settings"));
        assert_eq!(h.version.as_deref(), Some("codex-cli 0.1.0"));
        let problem = h.problem.as_ref().unwrap();
        assert_eq!(problem.code, ErrorCode::EngineVersionUnsupported);
        assert_eq!(h.fix_commands, vec!["npm install -g @openai/codex@0.169.0"]);
        assert!(check.unsupported.is_some());
        // A run is refused with the same error (the stored path is the one runs use).
        let err = desk
            .check_engine(agentdesk_protocol::ui::Engine::Codex)
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::EngineVersionUnsupported);
        // Cleared: back to PATH discovery.
        desk.set_engine_path("codex", Some("")).await.unwrap();
        assert_eq!(
            desk.engine_settings().await.unwrap().program("codex").bin,
            None
        );
        desk.close().await;
    }
}
