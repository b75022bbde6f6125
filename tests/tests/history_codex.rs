//! The engines' own histories with the REAL codex (`CODEX_BIN`) against the fake Responses
//! server: a thread run in a terminal (`codex exec`, as a user would, in the Codex home the
//! workspace's profile uses) is found through `codex app-server` (`thread/list`,
//! `thread/turns/list`), imported into the workspace it ran in, found by search, and
//! continued from the desk: the model receives the earlier turns, the thread gets the new
//! turn (what `codex resume` sees), and the next import neither adds it twice nor misses what
//! the terminal does after.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_engine::codex::history::CodexHistory;
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig};
use agentdesk_protocol::ui::{Engine, RunStatus, SessionOrigin};
use agentdesk_tests::fake_responses::{FakeResponses, Reply};
use agentdesk_tests::histories::{import, imported, one_finished_turn, prompts, run_terminal};
use agentdesk_tests::real::engine_bin;
use agentdesk_tests::world::{fresh_root, Fake, World};

const SUITE: &str = "codex history suite";

/// The terminal user's Codex setup: the fake model as the provider of their `config.toml`,
/// in the Codex home the workspace's profile uses too (a thread can only be resumed where its
/// provider is configured).
fn terminal_config(root: &Path, fake: &FakeResponses) {
    let config = format!(
        "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"{}\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequires_openai_auth = false\nsupports_websockets = false\nrequest_max_retries = 0\nstream_max_retries = 0\n",
        fake.base_url()
    );
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(root.join("home/config.toml"), config).unwrap();
}

/// `codex exec [resume ID] PROMPT` in `work`, as a terminal would run it: its HOME and
/// CODEX_HOME under `root` (see [`terminal_config`]).
async fn terminal(bin: &Path, root: &Path, work: &Path, prompt: &str, resume: Option<&str>) {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("exec")
        .arg("--skip-git-repo-check")
        .args(resume.map(|id| vec!["resume", id]).unwrap_or_default())
        .arg(prompt)
        .current_dir(work)
        .env_clear()
        .env("HOME", root.join("home"))
        .env("CODEX_HOME", root.join("home"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("MOCK_API_KEY", "dummy")
        .env("NO_PROXY", "127.0.0.1,localhost");
    run_terminal(cmd).await;
}

/// A desk on the real codex (`bin`) whose workspace's profile and the terminal share one Codex
/// home (`root/home`, with the fake as the terminal's provider), reading its history there
/// through its own app-server (the returned engine: shut it down at the end).
async fn codex_world(bin: &Path, name: &str) -> (World, PathBuf, CodexEngine) {
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "history_codex", name);
    let w = World::new(root.clone(), Engine::Codex, bin, None, |_| {}).await;
    let Fake::Codex(fake) = &w.fake else {
        unreachable!()
    };
    terminal_config(&root, fake);
    let reader = CodexEngine::new(CodexEngineConfig::new(bin));
    w.desk.use_history_sources(vec![Arc::new(CodexHistory::new(
        reader.clone(),
        root.join("home"),
    ))]);
    (w, root, reader)
}

#[tokio::test]
async fn a_terminal_thread_is_imported_searched_and_continued() {
    let Some(bin) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    let (w, root, reader) = codex_world(&bin, "continue").await;
    let Fake::Codex(fake) = &w.fake else {
        unreachable!()
    };

    // In the terminal: two turns of one thread.
    fake.push(Reply::text(&["The zebra number ", "is forty-two."]));
    terminal(&bin, &root, &w.work, "what is the zebra number?", None).await;
    let report = import(&w).await;
    let r = &report.sources[0];
    assert_eq!(
        (r.origin, r.sessions_added, r.turns),
        (SessionOrigin::CodexCli, 1, 1),
        "{r:?}"
    );
    let s = imported(&w, SessionOrigin::CodexCli).await;
    assert_eq!(s.title, "what is the zebra number?");
    assert_eq!(s.engine, Engine::Codex);
    let thread = s.engine_session_id.clone().unwrap();
    let hits = w.desk.search("zebra", None, 10).await.unwrap();
    assert!(hits.iter().any(|h| h.session_id == s.id), "{hits:?}");
    let page = w.desk.load_timeline(&s.id, None, None).await.unwrap();
    let text = serde_json::to_string(&page).unwrap();
    assert!(
        text.contains("is forty-two."),
        "the answer is on the timeline: {text}"
    );

    // An unchanged thread is not read again.
    let again = import(&w).await;
    assert_eq!(
        (again.sources[0].unchanged, again.sources[0].turns),
        (1, 0),
        "{again:?}"
    );

    // Continued from the desk: the same thread, the earlier turn sent along.
    fake.push(Reply::text(&["Still ", "forty-two."]));
    let run = w
        .desk
        .send_message(&s.id, "and the giraffe number?", &[])
        .await
        .unwrap();
    w.completed(&run.id).await;
    let last = fake.model_requests().pop().unwrap().body.to_string();
    assert!(
        last.contains("what is the zebra number?") && last.contains("is forty-two."),
        "the model saw the terminal's turn: {last}"
    );
    assert_eq!(
        w.desk
            .get_session(&s.id)
            .await
            .unwrap()
            .engine_session_id
            .as_deref(),
        Some(thread.as_str()),
        "the same thread"
    );

    // The next import does not add the desk's turn a second time…
    let after_desk = import(&w).await;
    assert_eq!(after_desk.sources[0].turns, 0, "{after_desk:?}");
    assert_eq!(w.desk.list_runs(&s.id).await.unwrap().len(), 2);

    // …and picks up what the terminal does next, after it (`codex exec resume` sees the
    // desk's turn: the model gets all three).
    fake.push(Reply::text(&["Seven."]));
    terminal(&bin, &root, &w.work, "and the okapi number?", Some(&thread)).await;
    let resumed = fake.model_requests().pop().unwrap().body.to_string();
    assert!(resumed.contains("and the giraffe number?"), "{resumed}");
    let third = import(&w).await;
    assert_eq!(third.sources[0].sessions_updated, 1, "{third:?}");
    let runs = w.desk.list_runs(&s.id).await.unwrap();
    assert_eq!(
        prompts(&runs),
        [
            (1, "what is the zebra number?", RunStatus::Completed),
            (2, "and the giraffe number?", RunStatus::Completed),
            (3, "and the okapi number?", RunStatus::Completed),
        ]
    );
    reader.shutdown().await;
    w.finish(&[]).await;
}

#[tokio::test]
async fn a_thread_in_a_folder_that_is_no_workspace_is_counted_not_imported_and_damaged_rollouts_are_skipped(
) {
    let Some(bin) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    let (w, root, reader) = codex_world(&bin, "elsewhere").await;
    let Fake::Codex(fake) = &w.fake else {
        unreachable!()
    };
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    fake.push(Reply::text(&["Elsewhere."]));
    terminal(&bin, &root, &elsewhere, "a question elsewhere", None).await;

    let report = import(&w).await;
    let r = &report.sources[0];
    assert_eq!(r.sessions_added, 0, "{r:?}");
    let canonical = std::fs::canonicalize(&elsewhere)
        .unwrap()
        .display()
        .to_string();
    assert!(
        r.without_workspace.iter().any(
            |f| f.sessions == 1 && (f.folder == canonical || Path::new(&f.folder) == elsewhere)
        ),
        "{r:?}"
    );

    // Damaged rollouts beside it (garbage, a cut-off first line, an empty file): the engine's
    // listing skips them; the import neither fails nor loses the good thread.
    let day = root.join("home/sessions/2026/12/02");
    std::fs::create_dir_all(&day).unwrap();
    let damaged = [
        (
            "0000aaaa-0000-4000-8000-000000000001",
            "not json at all\n\u{0}\u{1}",
        ),
        (
            "0000aaaa-0000-4000-8000-000000000002",
            "{\"timestamp\":\"2026-12-02T00:00:00Z\",\"type\":\"session_me",
        ),
        ("0000aaaa-0000-4000-8000-000000000003", ""),
    ];
    for (id, text) in damaged {
        std::fs::write(
            day.join(format!("rollout-2026-12-02T00-00-00-{id}.jsonl")),
            text,
        )
        .unwrap();
    }
    w.desk
        .add_workspace(elsewhere.to_str().unwrap(), None)
        .await
        .unwrap();
    let report = import(&w).await;
    let r = &report.sources[0];
    assert_eq!((r.sessions_added, r.unreadable), (1, 0), "{r:?}");
    reader.shutdown().await;
    w.finish(&[]).await;
}

#[tokio::test]
async fn a_thread_a_terminal_has_open_is_not_run_twice() {
    let Some(bin) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    let (w, root, reader) = codex_world(&bin, "busy").await;
    let Fake::Codex(fake) = &w.fake else {
        unreachable!()
    };
    fake.push(Reply::text(&["Ready."]));
    terminal(&bin, &root, &w.work, "get ready", None).await;
    import(&w).await;
    let s = imported(&w, SessionOrigin::CodexCli).await;
    let thread = s.engine_session_id.clone().unwrap();

    // The terminal goes on with the thread (a slow answer keeps it open)…
    fake.push(Reply::slow_text_then_end(30, Duration::from_millis(100)));
    let busy = {
        let (bin, root, work, thread) = (bin.clone(), root.clone(), w.work.clone(), thread.clone());
        tokio::spawn(async move {
            terminal(&bin, &root, &work, "take your time", Some(&thread)).await;
        })
    };
    assert!(
        fake.wait_for_model_requests(2, Duration::from_secs(60))
            .await,
        "the terminal's turn reached the model"
    );
    // …so the desk says so instead of a second run on it, or a new thread.
    let run = w.desk.send_message(&s.id, "me too", &[]).await.unwrap();
    let run = w.wait_run(&run.id).await;
    assert_eq!(run.status, RunStatus::Failed, "{run:?}");
    let error = run.error.unwrap_or_default();
    assert!(error.contains("open in a terminal"), "{error}");
    assert_eq!(fake.model_requests().len(), 2, "the desk asked no model");
    busy.await.unwrap();

    // Once the terminal is done, the desk continues the same thread.
    fake.push(Reply::text(&["Done."]));
    let run = w.desk.send_message(&s.id, "now me", &[]).await.unwrap();
    w.completed(&run.id).await;
    assert_eq!(
        w.desk
            .get_session(&s.id)
            .await
            .unwrap()
            .engine_session_id
            .as_deref(),
        Some(thread.as_str())
    );
    let last = fake.model_requests().pop().unwrap().body.to_string();
    assert!(last.contains("take your time"), "{last}");
    reader.shutdown().await;
    w.finish(&[]).await;
}

/// Live, with the app open: a thread a terminal starts appears while it is answered (the
/// watch on the Codex home's `sessions/`, read through the app-server), the app will not
/// start a second run on its unfinished turn, and the finished turn replaces it.
#[tokio::test]
async fn a_thread_running_in_a_terminal_appears_live() {
    let Some(bin) = engine_bin("CODEX_BIN", SUITE) else {
        return;
    };
    let (w, root, reader) = codex_world(&bin, "live").await;
    let Fake::Codex(fake) = &w.fake else {
        unreachable!()
    };
    let watch = w.desk.watch_histories();
    let mut status = watch.status();
    let first = tokio::time::timeout(
        Duration::from_secs(60),
        status.wait_for(|s| s.last_at.is_some()),
    );
    first.await.expect("the first scan in time").unwrap();

    fake.push(Reply::slow_text_then_end(60, Duration::from_millis(200)));
    let terminal_codex = {
        let (bin, root, work) = (bin.clone(), root.clone(), w.work.clone());
        tokio::spawn(async move { terminal(&bin, &root, &work, "count slowly", None).await })
    };
    assert!(
        fake.wait_for_model_requests(1, Duration::from_secs(60))
            .await,
        "the terminal's turn reached the model"
    );
    let asked = std::time::Instant::now();
    let appeared = tokio::time::timeout(
        Duration::from_secs(30),
        status.wait_for(|s| s.generation >= 1),
    );
    appeared
        .await
        .expect("the thread appears while answered")
        .unwrap();
    eprintln!(
        "the terminal's thread appeared {:?} after its model request",
        asked.elapsed()
    );
    let s = imported(&w, SessionOrigin::CodexCli).await;
    let runs = w.desk.list_runs(&s.id).await.unwrap();
    assert_eq!(
        prompts(&runs),
        [(1, "count slowly", RunStatus::Interrupted)],
        "unfinished"
    );
    let why = w.desk.terminal_driving(&s.id).await.unwrap();
    assert!(
        why.as_deref()
            .is_some_and(|w| w.starts_with("The Codex CLI is answering")),
        "{why:?}"
    );

    terminal_codex.await.unwrap();
    one_finished_turn(&w, &s.id).await;
    assert_eq!(w.desk.terminal_driving(&s.id).await.unwrap(), None);
    drop(watch);
    reader.shutdown().await;
    w.finish(&[]).await;
}
