//! What the sidebar shows beside each session: running, queued, waiting for the user.
//! Changes only when a run starts or ends or an approval is asked or decided, never per
//! delta, so one app-wide stream costs nothing while runs stream.

use std::collections::{BTreeMap, HashMap};

use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{Approval, Run, RunStatus, SessionActivity};
use tokio::sync::watch;

use crate::fanout::RecvError;
use crate::pipeline::{RunUpdate, RunUpdates};
use crate::Desk;

/// An app-wide activity stream; dropping it ends it.
pub struct ActivityWatch {
    runs_rx: RunUpdates,
    pending_rx: watch::Receiver<Vec<Approval>>,
    /// Runs not yet ended, by id.
    open_runs: HashMap<RunId, Run>,
    last: Option<Vec<SessionActivity>>,
    desk: Desk,
}

impl Desk {
    /// Watch every session's activity. The first `next()` answers at once.
    pub async fn watch_activity(&self) -> ActivityWatch {
        // Statuses only: the badges never change per delta.
        let runs_rx = self.subscribe_runs_where(|u| matches!(u, RunUpdate::Status { .. }));
        let pending_rx = self.approvals().watch_pending();
        let mut open_runs = HashMap::new();
        for id in self.active_run_ids() {
            if let Ok(run) = self.store().get_run(&id).await {
                open_runs.insert(id, run);
            }
        }
        ActivityWatch {
            runs_rx,
            pending_rx,
            open_runs,
            last: None,
            desk: self.clone(),
        }
    }
}

impl ActivityWatch {
    /// The next snapshot that differs from the last one; `None` when the core is gone.
    pub async fn next(&mut self) -> Option<Vec<SessionActivity>> {
        loop {
            let now = self.snapshot();
            if self.last.as_ref() != Some(&now) {
                self.last = Some(now.clone());
                return Some(now);
            }
            tokio::select! {
                update = self.runs_rx.recv() => match update {
                    Ok(RunUpdate::Status { run }) => self.on_run(run),
                    Ok(_) => {}
                    Err(RecvError::Overflowed(_)) => self.reseed().await,
                    Err(RecvError::Closed) => return None,
                },
                changed = self.pending_rx.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    fn on_run(&mut self, run: Run) {
        if run.status.is_terminal() {
            self.open_runs.remove(&run.id);
        } else {
            self.open_runs.insert(run.id.clone(), run);
        }
    }

    /// Status updates were discarded (overflowed): ask the core which runs are active now.
    async fn reseed(&mut self) {
        let active = self.desk.active_run_ids();
        self.open_runs
            .retain(|id, r| r.status == RunStatus::Queued || active.iter().any(|a| a == id));
        for id in active {
            if let Ok(run) = self.desk.store().get_run(&id).await {
                self.open_runs.insert(id, run);
            }
        }
        // Queued runs that started or were cancelled meanwhile: re-read them.
        let queued: Vec<RunId> = self
            .open_runs
            .values()
            .filter(|r| r.status == RunStatus::Queued)
            .map(|r| r.id.clone())
            .collect();
        for id in queued {
            match self.desk.store().get_run(&id).await {
                Ok(run) => self.on_run(run),
                Err(_) => {
                    self.open_runs.remove(&id);
                }
            }
        }
    }

    fn snapshot(&self) -> Vec<SessionActivity> {
        let mut by_session: BTreeMap<SessionId, SessionActivity> = BTreeMap::new();
        for run in self.open_runs.values() {
            let a = slot(&mut by_session, &run.session_id);
            match run.status {
                RunStatus::Running => a.running = true,
                RunStatus::Queued => a.queued += 1,
                _ => {}
            }
        }
        for ap in self.pending_rx.borrow().iter() {
            slot(&mut by_session, &ap.session_id).waiting += 1;
        }
        by_session.into_values().collect()
    }
}

fn slot<'a>(
    m: &'a mut BTreeMap<SessionId, SessionActivity>,
    sid: &SessionId,
) -> &'a mut SessionActivity {
    m.entry(sid.clone()).or_insert_with(|| SessionActivity {
        session_id: sid.clone(),
        running: false,
        queued: 0,
        waiting: 0,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Duration;

    use agentdesk_protocol::ui::Engine;

    use super::*;
    use crate::sessions::NewSession;

    fn run(id: &str, session_id: &SessionId, status: RunStatus) -> Run {
        Run {
            id: id.into(),
            session_id: session_id.clone(),
            seq: 1,
            status,
            prompt: "hi".into(),
            profile_id: None,
            model: None,
            stop_reason: None,
            error: None,
            created_at: 0,
            started_at: None,
            ended_at: None,
        }
    }

    async fn next(w: &mut ActivityWatch) -> Vec<SessionActivity> {
        tokio::time::timeout(Duration::from_secs(5), w.next())
            .await
            .expect("in time")
            .expect("core alive")
    }

    #[tokio::test]
    async fn badges_follow_runs_and_nothing_is_sent_for_live_text() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        let ws_dir = dir.path().join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        let ws = desk
            .add_workspace(ws_dir.to_str().unwrap(), None)
            .await
            .unwrap();
        let s = desk
            .create_session(&NewSession {
                workspace_id: ws.id,
                profile_id: None,
                engine: Some(Engine::Codex),
                title: None,
                worktree: None,
            })
            .await
            .unwrap();
        let mut w = desk.watch_activity().await;
        assert_eq!(
            next(&mut w).await,
            vec![],
            "the first snapshot comes at once"
        );

        desk.pipeline.publish(RunUpdate::Status {
            run: run("r1", &s.id, RunStatus::Running),
        });
        desk.pipeline.publish(RunUpdate::Status {
            run: run("r2", &s.id, RunStatus::Queued),
        });
        let mut snap = next(&mut w).await;
        if snap[0].queued == 0 {
            // The two updates may arrive as two snapshots.
            snap = next(&mut w).await;
        }
        assert_eq!(
            snap,
            vec![SessionActivity {
                session_id: s.id.clone(),
                running: true,
                queued: 1,
                waiting: 0
            }]
        );

        // Streaming text changes no badge: no snapshot.
        let _ = desk.pipeline.start(&s.id, &"r1".into());
        for _ in 0..50 {
            desk.pipeline.apply_event(
                &"r1".into(),
                &agentdesk_protocol::events::AgentEvent::MessageDelta {
                    item_id: "m".into(),
                    text: "x".into(),
                },
            );
        }
        assert!(tokio::time::timeout(Duration::from_millis(200), w.next())
            .await
            .is_err());
        // Nor is a delta ever queued for the badges (filtered where it is published).
        desk.pipeline.publish(RunUpdate::Event {
            session_id: s.id.clone(),
            run_id: "r1".into(),
            event: agentdesk_protocol::events::AgentEvent::MessageDelta {
                item_id: "m".into(),
                text: "y".into(),
            },
        });
        assert_eq!(w.runs_rx.len(), 0);

        desk.pipeline.publish(RunUpdate::Status {
            run: run("r1", &s.id, RunStatus::Completed),
        });
        desk.pipeline.publish(RunUpdate::Status {
            run: run("r2", &s.id, RunStatus::Interrupted),
        });
        let mut snap = next(&mut w).await;
        if !snap.is_empty() {
            snap = next(&mut w).await;
        }
        assert_eq!(snap, vec![], "idle sessions are absent");
    }
}
