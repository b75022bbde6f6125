#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentdesk_engine::claude::history::ClaudeHistory;
use agentdesk_protocol::ui::{ItemBody, RunStatus, SessionOrigin};

use super::*;
use crate::test_desk::desk_with_workspace;

pub(super) const SID: &str = "78f3acaa-792c-4a1e-8234-e8a6eb774961";

/// The transcript the pinned claude wrote (the engine crate's fixture), its folder set to
/// `folder`.
pub(super) fn transcript(folder: &Path) -> String {
    let raw = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../agentdesk-engine/tests/fixtures/claude_history/session.jsonl"),
    )
    .unwrap();
    let folder = serde_json::to_string(&folder.display().to_string()).unwrap();
    raw.replace("\"/home/dev/project\"", &folder)
}

/// A Claude config dir holding `content` as the session's transcript.
pub(super) fn config_dir(root: &Path, content: &str) -> PathBuf {
    let dir = root.join("claude");
    let project = dir.join("projects/-some-folder");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join(format!("{SID}.jsonl")), content).unwrap();
    dir
}

fn opts(dir: &Path) -> ImportOptions {
    ImportOptions {
        sources: vec![Arc::new(ClaudeHistory::new(dir.to_path_buf()))],
        dry_run: false,
    }
}

async fn import(desk: &Desk, dir: &Path) -> SourceReport {
    let report = desk.import_histories(&opts(dir), &|_| {}).await.unwrap();
    report.sources.into_iter().next().unwrap()
}

#[tokio::test]
async fn a_transcript_becomes_a_session_of_its_workspace_with_its_turns() {
    let (desk, ws, dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = config_dir(tmp.path(), &transcript(Path::new(&ws.path)));

    let dry = desk
        .import_histories(
            &ImportOptions {
                dry_run: true,
                ..opts(&dir)
            },
            &|_| {},
        )
        .await
        .unwrap();
    assert!(dry.dry_run);
    assert_eq!(
        (dry.sources[0].sessions_added, dry.sources[0].turns),
        (1, 2)
    );
    assert!(desk.list_sessions(&ws.id, true).await.unwrap().is_empty());

    let seen = std::sync::Mutex::new(Vec::new());
    let report = desk
        .import_histories(&opts(&dir), &|p| seen.lock().unwrap().push(p))
        .await
        .unwrap();
    let r = &report.sources[0];
    assert_eq!(r.origin, SessionOrigin::ClaudeCode);
    assert_eq!(
        (r.files, r.sessions_added, r.turns, r.skipped),
        (1, 1, 2, 0)
    );
    assert_eq!(
        *seen.lock().unwrap(),
        vec![ImportProgress { done: 1, total: 1 }]
    );
    let sessions = desk.list_sessions(&ws.id, true).await.unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.origin, SessionOrigin::ClaudeCode);
    assert_eq!(s.engine_session_id.as_deref(), Some(SID));
    assert_eq!(s.title, "first question");
    let runs = desk.store().list_runs(&s.id).await.unwrap();
    let prompts: Vec<_> = runs.iter().map(|r| (r.prompt.as_str(), r.status)).collect();
    assert_eq!(
        prompts,
        [
            ("first question", RunStatus::Completed),
            ("run echo", RunStatus::Completed)
        ]
    );
    let items = desk.store().session_items(&s.id).await.unwrap();
    let texts: Vec<_> = items
        .iter()
        .filter_map(|i| match &i.body {
            ItemBody::AgentMessage { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["Hello there.", "I will use a tool.", "Done."]);
    assert!(items
        .iter()
        .any(|i| matches!(&i.body, ItemBody::Tool { name, .. } if name == "Bash")));
    // In the same index as everything else.
    let hits = desk.search("Hello", None, 10).await.unwrap();
    assert!(hits.iter().any(|h| h.session_id == s.id), "{hits:?}");

    // Nothing changed: nothing read or written again.
    let again = import(&desk, &dir).await;
    assert_eq!(
        (again.unchanged, again.sessions_added, again.turns),
        (1, 0, 0)
    );
    drop(dirs);
    desk.close().await;
}

#[tokio::test]
async fn a_growing_transcript_adds_its_new_turns_and_finishes_the_open_one() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let full = transcript(Path::new(&ws.path));
    let cut = full.find("\"Done.\"").unwrap();
    let dir = config_dir(tmp.path(), &full[..cut]);
    let file = dir.join(format!("projects/-some-folder/{SID}.jsonl"));

    let first = import(&desk, &dir).await;
    assert_eq!((first.sessions_added, first.turns), (1, 2));
    let s = desk.list_sessions(&ws.id, true).await.unwrap().remove(0);
    let runs = desk.store().list_runs(&s.id).await.unwrap();
    assert_eq!(
        runs[1].status,
        RunStatus::Interrupted,
        "unfinished when read"
    );

    // The terminal writes the rest (appending, as the CLI does).
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(&full.as_bytes()[cut..]).unwrap();
    drop(f);
    let second = import(&desk, &dir).await;
    assert_eq!(
        (second.sessions_added, second.sessions_updated, second.turns),
        (0, 1, 1),
        "only the last turn is read again"
    );
    let runs = desk.store().list_runs(&s.id).await.unwrap();
    let seqs: Vec<_> = runs.iter().map(|r| (r.seq, r.status)).collect();
    assert_eq!(
        seqs,
        [(1, RunStatus::Completed), (2, RunStatus::Completed)],
        "the open turn's run is replaced, not added to"
    );
    let items = desk.store().session_items(&s.id).await.unwrap();
    let done = items
        .iter()
        .filter(|i| matches!(&i.body, ItemBody::AgentMessage { text } if text == "Done."))
        .count();
    assert_eq!(done, 1);
    desk.close().await;
}

#[tokio::test]
async fn a_folder_that_is_no_workspace_is_reported_and_imported_once_it_is_one() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = config_dir(tmp.path(), &transcript(elsewhere.path()));
    let r = import(&desk, &dir).await;
    assert_eq!(r.sessions_added, 0);
    assert_eq!(r.without_workspace.len(), 1);
    assert_eq!(r.without_workspace[0].sessions, 1);
    assert!(desk.list_sessions(&ws.id, true).await.unwrap().is_empty());

    let other = desk
        .add_workspace(elsewhere.path().to_str().unwrap(), None)
        .await
        .unwrap();
    let r = import(&desk, &dir).await;
    assert_eq!(r.sessions_added, 1);
    assert_eq!(desk.list_sessions(&other.id, true).await.unwrap().len(), 1);
    desk.close().await;
}

#[tokio::test]
async fn a_replaced_file_is_read_again_whole_and_a_missing_folder_is_no_error() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    let full = transcript(Path::new(&ws.path));
    let dir = config_dir(tmp.path(), &full);
    import(&desk, &dir).await;
    // Rotated: a new file under the same name, shorter than what was read.
    let file = dir.join(format!("projects/-some-folder/{SID}.jsonl"));
    let cut = full.find("\"run echo\"").unwrap();
    let head = &full[..full[..cut].rfind('\n').unwrap() + 1];
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, head).unwrap();
    let r = import(&desk, &dir).await;
    assert_eq!((r.sessions_updated, r.turns), (1, 1));
    let s = desk.list_sessions(&ws.id, true).await.unwrap().remove(0);
    assert_eq!(desk.store().list_runs(&s.id).await.unwrap().len(), 1);

    let none = import(&desk, &tmp.path().join("no-such-dir")).await;
    assert_eq!((none.files, none.unreadable), (0, 0));
    desk.close().await;
}

#[tokio::test]
async fn a_long_transcript_is_imported_a_part_at_a_time_into_one_session() {
    let (desk, ws, _dirs) = desk_with_workspace().await;
    let tmp = tempfile::tempdir().unwrap();
    // 1,100 turns: more than one read's worth (the reader stops at 1,000).
    let long = transcript(Path::new(&ws.path)).repeat(550);
    let dir = config_dir(tmp.path(), &long);
    let heard = std::sync::Mutex::new(Vec::new());
    let report = desk
        .import_histories(&opts(&dir), &|p| heard.lock().unwrap().push(p))
        .await
        .unwrap();
    let r = &report.sources[0];
    assert_eq!(
        (r.files, r.sessions_added, r.sessions_updated, r.turns),
        (1, 1, 0, 1_100),
        "{r:?}"
    );
    assert_eq!(
        heard.lock().unwrap().last().map(|p| (p.done, p.total)),
        Some((1, 1)),
        "one file, one step"
    );
    let s = desk.list_sessions(&ws.id, true).await.unwrap();
    assert_eq!(s.len(), 1);
    let runs = desk.store().list_runs(&s[0].id).await.unwrap();
    let seqs: Vec<i64> = runs.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=1_100).collect::<Vec<_>>());
    assert!(runs.iter().all(|r| r.status == RunStatus::Completed));
    // Unchanged: nothing read again.
    let again = import(&desk, &dir).await;
    assert_eq!((again.unchanged, again.turns), (1, 0));
    desk.close().await;
}
