#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentdesk_engine::claude::history::ClaudeHistory;
use agentdesk_protocol::ui::{HistorySettings, ItemBody, LiveOp, RunStatus};

use super::super::tests::{config_dir, transcript, SID};
use super::*;
use crate::test_desk::desk_with_workspace;
use crate::CoreError;

/// Wait (at most 20 s: a loaded machine) until the status says `done`; how long it took.
async fn until(
    rx: &mut watch::Receiver<HistoryStatus>,
    done: impl Fn(&HistoryStatus) -> bool,
) -> Duration {
    let start = Instant::now();
    tokio::time::timeout(Duration::from_secs(20), rx.wait_for(|s| done(s)))
        .await
        .expect("the watch in time")
        .expect("the watch alive");
    start.elapsed()
}

/// The first batch a view sends after now that holds a reset.
async fn next_reset(
    feed: &mut crate::live::SessionFeed,
) -> Vec<agentdesk_protocol::ui::TimelineItem> {
    loop {
        let batch = tokio::time::timeout(Duration::from_secs(20), feed.next_batch())
            .await
            .expect("a batch in time")
            .expect("the core alive");
        for op in batch.ops {
            if let LiveOp::Reset { items, .. } = op {
                return items;
            }
        }
    }
}

#[tokio::test]
async fn a_session_a_terminal_writes_appears_grows_and_is_not_run_twice() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    // Claude has never run here: its config dir exists, its projects folder not yet.
    let config = tmp.path().join("claude");
    std::fs::create_dir_all(&config).unwrap();
    desk.use_history_sources(vec![Arc::new(ClaudeHistory::new(config.clone()))]);
    let watch = desk.watch_histories();
    let mut status = watch.status();
    until(&mut status, |s| s.last_at.is_some()).await;
    assert_eq!(status.borrow().generation, 0);
    assert_eq!(status.borrow().sources.len(), 1);
    assert!(
        !status.borrow().sources[0].watching,
        "no projects folder yet"
    );

    // The terminal starts a session and is in its second turn.
    let full = transcript(Path::new(&ws.path));
    let cut = full.find("\"Done.\"").unwrap();
    let project = config.join("projects/-some-folder");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join(format!("{SID}.jsonl"));
    std::fs::write(&file, &full[..cut]).unwrap();
    let took = until(&mut status, |s| s.generation >= 1).await;
    eprintln!("a new terminal session appeared after {took:?}");
    assert!(
        status.borrow().sources[0].watching,
        "watched once it exists"
    );
    let session = desk.shown_sessions(&ws.id, false).await.unwrap().remove(0);
    assert_eq!(session.origin, SessionOrigin::ClaudeCode);

    // While the terminal answers, the app does not start a second run on it.
    let why = desk.terminal_driving(&session.id).await.unwrap();
    assert!(
        why.as_deref()
            .is_some_and(|w| w.starts_with("Claude Code is answering")),
        "{why:?}"
    );
    let refused = desk.send_message(&session.id, "me too", &[]).await;
    assert!(matches!(refused, Err(CoreError::Busy(_))), "{refused:?}");
    assert_eq!(desk.store().list_runs(&session.id).await.unwrap().len(), 2);

    // The open timeline grows as the terminal writes.
    let mut feed = desk.open_session_feed(&session.id).await.unwrap();
    next_reset(&mut feed).await;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(&full.as_bytes()[cut..]).unwrap();
    drop(f);
    let items = next_reset(&mut feed).await;
    assert!(
        items
            .iter()
            .any(|i| matches!(&i.body, ItemBody::AgentMessage { text } if text == "Done.")),
        "the view shows the turn's end"
    );
    let runs = desk.store().list_runs(&session.id).await.unwrap();
    assert_eq!(runs.last().unwrap().status, RunStatus::Completed);
    assert_eq!(
        desk.terminal_driving(&session.id).await.unwrap(),
        None,
        "the turn is done"
    );

    // Turned off in Settings: not listed, not watched.
    desk.set_history_settings(&HistorySettings {
        hidden: vec![SessionOrigin::ClaudeCode],
    })
    .await
    .unwrap();
    watch.sources_changed();
    until(&mut status, |s| s.sources.iter().all(|s| !s.enabled)).await;
    assert_eq!(status.borrow().sources.len(), 1, "listed, turned off");
    assert!(desk.shown_sessions(&ws.id, false).await.unwrap().is_empty());
    assert_eq!(
        desk.list_sessions(&ws.id, false).await.unwrap().len(),
        1,
        "kept, only hidden"
    );
    drop(watch);
    desk.close().await;
}

#[tokio::test]
async fn a_session_started_here_is_not_imported_from_the_engine_history() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let config = config_dir(tmp.path(), &transcript(Path::new(&ws.path)));
    // A session of the app whose engine session is that transcript's.
    let mine = desk
        .create_session(&crate::sessions::NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Claude),
            ..crate::sessions::NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    desk.store()
        .set_engine_session_id(&mine.id, Some(SID))
        .await
        .unwrap();
    let opts = ImportOptions {
        sources: vec![Arc::new(ClaudeHistory::new(config))],
        dry_run: false,
    };
    let report = desk.import_histories(&opts, &|_| {}).await.unwrap();
    assert_eq!(report.sources[0].sessions_added, 0, "{report:?}");
    assert_eq!(desk.list_sessions(&ws.id, true).await.unwrap().len(), 1);
    desk.close().await;
}
