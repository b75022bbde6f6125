//! Sessions and runs as stored: create, list, rename, archive, delete; a new run with its
//! user message; recovery of what a previous process left active.

use agentdesk_protocol::ids::{ApprovalId, ProfileId, RunId, SessionId, WorkspaceId};
use agentdesk_protocol::ui::{
    ApprovalState, AttachmentRef, Engine, ItemBody, ItemStatus, Run, RunStatus, Session,
    TimelineItem, TimelinePage, Usage,
};
use agentdesk_store::{now_ms, NewRun};

use crate::{CoreError, Desk, Result};

/// Items in the first screenful of a session.
pub const FIRST_SCREEN: u32 = 100;

/// What a new session is made from. The engine comes from the profile when not given.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub workspace_id: WorkspaceId,
    /// `None`: the workspace's default profile (if any).
    pub profile_id: Option<ProfileId>,
    pub engine: Option<Engine>,
    pub title: Option<String>,
    /// Run the session in a new git worktree of the workspace's repository.
    pub worktree: Option<agentdesk_protocol::ui::NewWorktree>,
}

impl NewSession {
    /// A session in `workspace_id` with the rest left to the defaults (the workspace's
    /// default profile, its engine, a title from the first message). Set other fields with
    /// `NewSession { engine, ..NewSession::new(ws) }`: no `Default`, as no workspace is one.
    pub fn new(workspace_id: WorkspaceId) -> NewSession {
        NewSession {
            workspace_id,
            profile_id: None,
            engine: None,
            title: None,
            worktree: None,
        }
    }
}

/// What start-up recovery changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recovery {
    pub interrupted_runs: Vec<RunId>,
    pub expired_approvals: Vec<ApprovalId>,
}

/// The timeline id of a run's user message.
pub fn user_item_id(run_id: &RunId) -> String {
    format!("{run_id}:user")
}

impl Desk {
    /// Start-up: runs left queued or running become interrupted (their streaming items
    /// too), pending approvals become expired. Call once, when this process is the one that
    /// owns the engines (the app, or `agentdesk-cli run`), never from a read-only view.
    pub async fn recover(&self) -> Result<Recovery> {
        let at = now_ms();
        let runs = self.store.interrupt_leftover_runs(at).await?;
        for r in &runs {
            self.store
                .close_open_items(&r.id, ItemStatus::Interrupted, at)
                .await?;
        }
        let approvals = self.approvals.recover().await?;
        if !runs.is_empty() || !approvals.is_empty() {
            tracing::info!(
                runs = runs.len(),
                approvals = approvals.len(),
                "recovered what the previous process left active"
            );
        }
        Ok(Recovery {
            interrupted_runs: runs.into_iter().map(|r| r.id).collect(),
            expired_approvals: approvals.into_iter().map(|a| a.id).collect(),
        })
    }

    pub async fn create_session(&self, new: &NewSession) -> Result<Session> {
        let workspace = self.store.get_workspace(&new.workspace_id).await?;
        let profile = match &new.profile_id {
            Some(id) => {
                let p = self.store.get_profile(id).await?;
                if p.workspace_id != new.workspace_id {
                    return Err(CoreError::InvalidInput(format!(
                        "the profile {:?} belongs to another workspace",
                        p.spec.name
                    )));
                }
                Some(p)
            }
            None => self.store.default_profile(&new.workspace_id).await?,
        };
        let engine = new
            .engine
            .or(profile.as_ref().map(|p| p.spec.engine))
            .ok_or_else(|| {
                CoreError::InvalidInput(
                    "choose an engine (codex or claude) or add a profile to this workspace".into(),
                )
            })?;
        let title = new.title.as_deref().map(str::trim).unwrap_or_default();
        let mut s = Session {
            profile_id: profile.map(|p| p.id),
            ..Session::begun(
                SessionId::new(),
                new.workspace_id.clone(),
                engine,
                title,
                now_ms(),
            )
        };
        let Some(want) = &new.worktree else {
            self.store.insert_session(&s).await?;
            return Ok(s);
        };
        if let Some(host) = &workspace.host {
            return Err(CoreError::InvalidInput(format!(
                "sessions in worktrees are not available for a workspace on {host} yet; start the session in the folder itself"
            )));
        }
        let name = want.name_hint.as_deref().unwrap_or(title);
        let (folder, branch, base) = self
            .add_worktree(&workspace.path, &s.id, name, want)
            .await?;
        s.worktree = Some(folder);
        s.branch = Some(branch);
        s.base_branch = Some(base);
        if let Err(e) = self.store.insert_session(&s).await {
            // No session, no worktree: take back what was made for it.
            self.undo_worktree(&workspace.path, &s).await;
            return Err(e.into());
        }
        Ok(s)
    }

    pub async fn get_session(&self, id: &SessionId) -> Result<Session> {
        Ok(self.store.get_session(id).await?)
    }

    pub async fn list_sessions(
        &self,
        workspace_id: &WorkspaceId,
        include_archived: bool,
    ) -> Result<Vec<Session>> {
        Ok(self
            .store
            .list_sessions(workspace_id, include_archived)
            .await?)
    }

    pub async fn rename_session(&self, id: &SessionId, title: &str) -> Result<()> {
        Ok(self.store.rename_session(id, title.trim()).await?)
    }

    /// The profile the session's next run uses; it must belong to the session's workspace
    /// and drive the session's engine (an engine's conversation cannot move to another).
    pub async fn set_session_profile(
        &self,
        id: &SessionId,
        profile_id: &ProfileId,
    ) -> Result<Session> {
        let session = self.store.get_session(id).await?;
        let profile = self.store.get_profile(profile_id).await?;
        if profile.workspace_id != session.workspace_id {
            return Err(CoreError::InvalidInput(format!(
                "the profile {:?} belongs to another workspace",
                profile.spec.name
            )));
        }
        if profile.spec.engine != session.engine {
            return Err(CoreError::InvalidInput(format!(
                "the profile {:?} drives {}, and this session is a {} conversation; start a new session for it",
                profile.spec.name,
                profile.spec.engine.as_str(),
                session.engine.as_str()
            )));
        }
        self.store.set_session_profile(id, Some(profile_id)).await?;
        Ok(self.store.get_session(id).await?)
    }

    pub async fn archive_session(&self, id: &SessionId, archived: bool) -> Result<()> {
        let at = archived.then(now_ms);
        Ok(self.store.set_session_archived(id, at).await?)
    }

    /// Whether one of the session's runs is queued or going on (as recorded: another
    /// process's run counts too).
    pub(crate) async fn has_active_run(&self, id: &SessionId) -> Result<bool> {
        Ok(self
            .store
            .list_runs(id)
            .await?
            .iter()
            .any(|r| !r.status.is_terminal()))
    }

    /// Delete a session with its history, then the attachment files no other run uses.
    /// Refused while one of its runs is active.
    pub async fn delete_session(&self, id: &SessionId) -> Result<()> {
        if self.has_active_run(id).await? {
            return Err(CoreError::InvalidInput(
                "this session has a run in progress; interrupt it before deleting the session"
                    .into(),
            ));
        }
        let session = self.store.get_session(id).await?;
        self.remove_worktree_of_deleted(&session).await?;
        let _guard = self.attachments_lock.lock().await;
        let started = now_ms();
        let blobs = self.store.session_blobs(id).await?;
        self.store.delete_session(id).await?;
        self.approvals.forget_session(id);
        // Under the lock no import interleaves, so every blob of the session that no other
        // run carries goes. (One also waiting unsent in a composer is then refused by
        // `create_run` as not found, and can be attached again.)
        let removed = self
            .remove_blobs_if_unreferenced(&blobs, started + 1)
            .await?;
        // The whole outputs of its commands (those too long for the timeline) go with it.
        let outputs = crate::tool_output::session_dir(&self.data_dir, id);
        if let Err(e) = tokio::fs::remove_dir_all(&outputs).await {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(dir = %outputs.display(), error = %e, "cannot remove the session's tool outputs");
            }
        }
        tracing::info!(%id, blobs_removed = removed, "session deleted");
        Ok(())
    }

    /// The file holding the whole output of a tool item whose output the timeline shows cut
    /// (its head and tail), for "Open full output".
    pub async fn tool_output_file(
        &self,
        session: &SessionId,
        item_id: &str,
    ) -> Result<std::path::PathBuf> {
        self.store.get_session(session).await?;
        let path = crate::tool_output::session_dir(&self.data_dir, session)
            .join(crate::tool_output::file_name(item_id));
        match tokio::fs::metadata(&path).await {
            Ok(m) if m.is_file() => Ok(path),
            _ => Err(CoreError::InvalidInput(
                "this output was not kept in a file (it is shown whole, or its file was removed)"
                    .into(),
            )),
        }
    }

    /// Remove a session that never reached its engine: made for a first run that could not
    /// start (engine missing, not logged in, refused to start), so a failed attempt leaves
    /// no empty conversation behind. Returns whether it was removed. A session that ever had
    /// an engine conversation, a completed run or a run still going is kept.
    pub async fn discard_unstarted_session(&self, id: &SessionId) -> Result<bool> {
        let session = self.store.get_session(id).await?;
        if session.engine_session_id.is_some() {
            return Ok(false);
        }
        let runs = self.store.list_runs(id).await?;
        if runs
            .iter()
            .any(|r| !r.status.is_terminal() || r.status == RunStatus::Completed)
        {
            return Ok(false);
        }
        self.delete_session(id).await?;
        Ok(true)
    }

    /// The last screenful of a session (or the page before `before`).
    pub async fn load_timeline(
        &self,
        session_id: &SessionId,
        before: Option<i64>,
        limit: Option<u32>,
    ) -> Result<TimelinePage> {
        Ok(self
            .store
            .load_timeline(session_id, before, limit.unwrap_or(FIRST_SCREEN))
            .await?)
    }

    /// The page of a session's timeline from `after` on (scrolling down a window of pages).
    pub async fn load_timeline_newer(
        &self,
        session_id: &SessionId,
        after: i64,
        limit: Option<u32>,
    ) -> Result<TimelinePage> {
        Ok(self
            .store
            .load_timeline_newer(session_id, after, limit.unwrap_or(FIRST_SCREEN))
            .await?)
    }

    /// The plan the session's agent last reported, if any.
    pub async fn session_plan(
        &self,
        session_id: &SessionId,
    ) -> Result<Option<agentdesk_protocol::plan::Plan>> {
        Ok(self.store.latest_plan(session_id).await?)
    }

    pub async fn list_runs(&self, session_id: &SessionId) -> Result<Vec<Run>> {
        Ok(self.store.list_runs(session_id).await?)
    }

    /// Record a user turn: the run (running, or queued behind the session's active run),
    /// its attachments and its user-message item. Attachments are `(sha256, name)` of
    /// blobs imported with `import_attachment`.
    pub async fn create_run(
        &self,
        session_id: &SessionId,
        prompt: &str,
        attachments: &[(String, String)],
    ) -> Result<Run> {
        let session = self.store.get_session(session_id).await?;
        let busy = self.has_active_run(session_id).await?;
        let mut refs = Vec::with_capacity(attachments.len());
        for (sha, name) in attachments {
            let blob = self.store.get_blob(sha).await?;
            refs.push(AttachmentRef {
                sha256: blob.sha256,
                name: name.clone(),
                mime: blob.mime,
            });
        }
        let id = RunId::new();
        let at = now_ms();
        let run = self
            .store
            .create_run(&NewRun {
                status: if busy {
                    RunStatus::Queued
                } else {
                    RunStatus::Running
                },
                profile_id: session.profile_id.as_ref(),
                ..NewRun::running(&id, session_id, prompt, at)
            })
            .await?;
        let links: Vec<(&str, &str)> = attachments
            .iter()
            .map(|(s, n)| (s.as_str(), n.as_str()))
            .collect();
        self.store.link_run_attachments(&id, &links).await?;
        self.store
            .upsert_timeline_items(&[TimelineItem {
                id: user_item_id(&id),
                session_id: session_id.clone(),
                run_id: id.clone(),
                seq: 0,
                status: ItemStatus::Completed,
                body: ItemBody::UserMessage {
                    text: prompt.to_string(),
                    attachments: refs,
                },
                created_at: at,
                updated_at: at,
                parent_id: None,
            }])
            .await?;
        if session.title.is_empty() {
            self.store
                .rename_session(session_id, &default_title(prompt))
                .await?;
        }
        Ok(run)
    }

    /// A run that never reached its engine (queued, then the user dropped it).
    pub async fn cancel_queued_run(&self, run_id: &RunId) -> Result<Run> {
        let run = self.store.get_run(run_id).await?;
        if run.status != RunStatus::Queued {
            return Err(CoreError::InvalidInput(format!(
                "run {run_id} is {}, not queued",
                run.status.as_str()
            )));
        }
        self.approvals
            .end_run(run_id, ApprovalState::Cancelled)
            .await?;
        Ok(self
            .store
            .finish_run(
                run_id,
                &agentdesk_store::RunEnd {
                    status: RunStatus::Interrupted,
                    stop_reason: Some("cancelled before it started"),
                    error: None,
                    at: now_ms(),
                },
            )
            .await?)
    }

    pub async fn session_usage(&self, session_id: &SessionId) -> Result<Usage> {
        Ok(self.store.session_usage(session_id).await?)
    }

    pub async fn workspace_usage(&self, workspace_id: &WorkspaceId) -> Result<Usage> {
        Ok(self.store.workspace_usage(workspace_id).await?)
    }

    pub async fn run_usage(&self, run_id: &RunId) -> Result<Option<Usage>> {
        Ok(self.store.run_usage(run_id).await?)
    }

    /// Full-text search over every session's messages, best first.
    pub async fn search(
        &self,
        query: &str,
        workspace_id: Option<&WorkspaceId>,
        limit: u32,
    ) -> Result<Vec<agentdesk_protocol::ui::SearchHit>> {
        Ok(self
            .store
            .search_messages(query, workspace_id, limit)
            .await?)
    }
}

/// The first line of the first prompt, shortened: what the sidebar shows until renamed.
fn default_title(prompt: &str) -> String {
    const MAX: usize = 60;
    let line = prompt
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("New session");
    if line.chars().count() <= MAX {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use agentdesk_store::RunEnd;

    use super::*;

    async fn failed_session(
        desk: &Desk,
        ws: &WorkspaceId,
        engine_session: Option<&str>,
    ) -> SessionId {
        let s = desk
            .create_session(&NewSession {
                engine: Some(Engine::Claude),
                ..NewSession::new(ws.clone())
            })
            .await
            .unwrap();
        let run = desk.create_run(&s.id, "hi", &[]).await.unwrap();
        let end = RunEnd {
            status: RunStatus::Failed,
            stop_reason: None,
            error: Some("claude not found"),
            at: now_ms(),
        };
        desk.store().finish_run(&run.id, &end).await.unwrap();
        if let Some(e) = engine_session {
            desk.store()
                .set_engine_session_id(&s.id, Some(e))
                .await
                .unwrap();
        }
        s.id
    }

    #[tokio::test]
    async fn only_a_session_that_never_reached_its_engine_is_discarded() {
        let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
        let never = failed_session(&desk, &ws.id, None).await;
        let reached = failed_session(&desk, &ws.id, Some("engine-conversation")).await;
        assert!(desk.discard_unstarted_session(&never).await.unwrap());
        assert!(!desk.discard_unstarted_session(&reached).await.unwrap());
        let left: Vec<SessionId> = desk
            .list_sessions(&ws.id, true)
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(left, vec![reached]);
    }
}
