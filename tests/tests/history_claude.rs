//! The engines' own histories with the REAL claude (`CLAUDE_BIN`) against the fake model
//! server: a session run in a terminal (`claude -p`, as a user would, with its own config dir)
//! is imported into the workspace it ran in — by the core and by `agentdesk-cli import` —,
//! found by search, and continued from the desk: the model receives the earlier turns, the
//! engine's own file gets the new turn (what `claude --resume` sees), and the next import
//! neither adds it twice nor misses what the terminal does after.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_engine::claude::history::ClaudeHistory;
use agentdesk_protocol::ui::{Engine, ImportReport, RunStatus, SessionOrigin};
use agentdesk_tests::fake_messages::{FakeMessages, Reply, FAKE_MODEL};
use agentdesk_tests::histories::{import, imported, one_finished_turn, prompts, run_terminal};
use agentdesk_tests::real::{cli_bin, cli_output, engine_bin};
use agentdesk_tests::world::{fresh_root, Fake, World};

const SUITE: &str = "claude history suite";

/// What a terminal user's `claude` sees: its own HOME and config dir under `root`, the fake
/// model as its endpoint.
fn terminal_env(root: &Path, fake: &FakeMessages) -> Vec<(String, String)> {
    let s = |p: PathBuf| p.display().to_string();
    vec![
        ("HOME".into(), s(root.join("home"))),
        ("CLAUDE_CONFIG_DIR".into(), s(root.join("home/.claude"))),
        ("CLAUDE_CODE_TMPDIR".into(), s(root.join("t"))),
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("ANTHROPIC_BASE_URL".into(), fake.base_url()),
        ("ANTHROPIC_API_KEY".into(), "dummy".into()),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        ),
        ("CLAUDE_CODE_MAX_RETRIES".into(), "0".into()),
        ("DISABLE_AUTOUPDATER".into(), "1".into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ]
}

/// `claude -p PROMPT [--resume ID]` in `work`, as a terminal would run it.
async fn terminal(
    bin: &Path,
    work: &Path,
    env: &[(String, String)],
    prompt: &str,
    resume: Option<&str>,
) {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(["-p", "--model", FAKE_MODEL])
        .args(resume.map(|id| vec!["--resume", id]).unwrap_or_default())
        .arg(prompt)
        .current_dir(work)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)));
    run_terminal(cmd).await;
}

#[tokio::test]
async fn a_terminal_session_is_imported_searched_and_continued() {
    let Some(bin) = engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "history_claude", "continue");
    let w = World::new(root.clone(), Engine::Claude, &bin, None, |_| {}).await;
    let Fake::Claude(fake) = &w.fake else {
        unreachable!()
    };
    let env = terminal_env(&root, fake);
    let config = root.join("home/.claude");
    w.desk
        .use_history_sources(vec![Arc::new(ClaudeHistory::new(config.clone()))]);

    // In the terminal: one question, one answer.
    fake.push(Reply::text(&["The zebra number ", "is forty-two."]));
    terminal(&bin, &w.work, &env, "what is the zebra number?", None).await;

    let report = import(&w).await;
    let r = &report.sources[0];
    assert_eq!((r.sessions_added, r.turns, r.skipped), (1, 1, 0), "{r:?}");
    let s = imported(&w, SessionOrigin::ClaudeCode).await;
    assert_eq!(s.title, "what is the zebra number?");
    let engine_sid = s.engine_session_id.clone().unwrap();
    let hits = w.desk.search("zebra", None, 10).await.unwrap();
    assert!(hits.iter().any(|h| h.session_id == s.id), "{hits:?}");

    // Continued from the desk: the same engine session, the earlier turn sent along.
    fake.push(Reply::text(&["Still ", "forty-two."]));
    let run = w
        .desk
        .send_message(&s.id, "and the giraffe number?", &[])
        .await
        .unwrap();
    w.completed(&run.id).await;
    let last = fake.model_requests().pop().unwrap();
    let seen = last.transcript();
    assert!(
        seen.contains("what is the zebra number?") && seen.contains("is forty-two."),
        "the model saw the terminal's turn: {seen}"
    );
    assert_eq!(
        w.desk
            .get_session(&s.id)
            .await
            .unwrap()
            .engine_session_id
            .as_deref(),
        Some(engine_sid.as_str()),
        "the same engine session"
    );
    let file = std::fs::read_dir(config.join("projects"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p| p.file_stem().is_some_and(|n| n == engine_sid.as_str()))
        .expect("the engine's own file");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("and the giraffe number?"),
        "what `claude --resume` sees"
    );

    // The next import does not add the desk's turn a second time…
    let again = import(&w).await;
    assert_eq!(again.sources[0].turns, 0, "{again:?}");
    assert_eq!(w.desk.list_runs(&s.id).await.unwrap().len(), 2);

    // …and picks up what the terminal does next, after it.
    fake.push(Reply::text(&["Seven."]));
    terminal(
        &bin,
        &w.work,
        &env,
        "and the okapi number?",
        Some(&engine_sid),
    )
    .await;
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

    // The CLI imports the same way, into another data dir, and lists the origin.
    if let Some(cli) = cli_bin(env!("CARGO_TARGET_TMPDIR"), SUITE) {
        let data = root.join("cli-data").display().to_string();
        let work = w.work.display().to_string();
        let call = |args: Vec<&str>| {
            let mut cmd = tokio::process::Command::new(&cli);
            cmd.arg("--data-dir").arg(&data).args(&args);
            cmd.env("CLAUDE_CONFIG_DIR", &config);
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            async move {
                let shown: Vec<&str> = args.iter().map(String::as_str).collect();
                cli_output(cmd, &shown, Duration::from_secs(60)).await
            }
        };
        let out = call(vec![
            "profile",
            "add",
            "--workspace",
            &work,
            "c",
            "--engine",
            "claude",
        ])
        .await;
        assert!(out.status.success());
        let out = call(vec!["import", "--engine", "claude", "--json"]).await;
        assert!(out.status.success());
        let report: ImportReport = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (report.sources[0].sessions_added, report.sources[0].turns),
            (1, 3),
            "{report:?}"
        );
        let out = call(vec!["sessions", "--json"]).await;
        assert!(out.status.success());
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(list[0]["origin"], "claude-code", "{list}");
        assert_eq!(list[0]["engineSessionId"], engine_sid.as_str());
    }
    w.finish(&[]).await;
}

/// Live, as a user sees it with the app open: a session a terminal starts appears while the
/// terminal is still answering, the app will not start a second run on it meanwhile, and
/// the finished turn replaces the unfinished one; then the app continues it.
#[tokio::test]
async fn a_session_running_in_a_terminal_appears_live_and_is_not_run_twice() {
    let Some(bin) = engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "history_claude", "live");
    let w = World::new(root.clone(), Engine::Claude, &bin, None, |_| {}).await;
    let Fake::Claude(fake) = &w.fake else {
        unreachable!()
    };
    let env = terminal_env(&root, fake);
    let config = root.join("home/.claude");
    std::fs::create_dir_all(&config).unwrap();
    w.desk
        .use_history_sources(vec![Arc::new(ClaudeHistory::new(config.clone()))]);
    let watch = w.desk.watch_histories();
    let mut status = watch.status();
    wait_status(&mut status, |s| s.last_at.is_some()).await;

    // A slow answer: 60 pieces, a fifth of a second apart.
    fake.push(Reply::slow_text_then_end(60, Duration::from_millis(200)));
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.args(["-p", "--model", FAKE_MODEL, "count slowly to sixty"])
        .current_dir(&w.work)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut terminal_claude = cmd.spawn().unwrap();

    // It appears while the terminal answers; how long after its transcript was created.
    let projects = config.join("projects");
    let created = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let any = std::fs::read_dir(&projects)
                .into_iter()
                .flatten()
                .flatten()
                .any(|d| {
                    std::fs::read_dir(d.path())
                        .into_iter()
                        .flatten()
                        .flatten()
                        .next()
                        .is_some()
                });
            if any {
                return std::time::Instant::now();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the terminal writes its transcript");
    wait_status(&mut status, |s| s.generation >= 1).await;
    eprintln!(
        "the terminal's session appeared {:?} after its transcript",
        created.elapsed()
    );
    let s = imported(&w, SessionOrigin::ClaudeCode).await;
    let why = w.desk.terminal_driving(&s.id).await.unwrap();
    eprintln!("while the terminal answers: {why:?}");
    assert!(why.is_some(), "the terminal drives it");
    let refused = w.desk.send_message(&s.id, "me too", &[]).await;
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.code() == agentdesk_protocol::ui::ErrorCode::Busy),
        "{refused:?}"
    );

    // The terminal finishes: the turn is complete, the app may go on with it.
    let exit = tokio::time::timeout(Duration::from_secs(90), terminal_claude.wait())
        .await
        .expect("the terminal's claude ends")
        .unwrap();
    assert!(exit.success());
    let done = one_finished_turn(&w, &s.id).await;
    assert_eq!(
        prompts(&done),
        [(1, "count slowly to sixty", RunStatus::Completed)]
    );
    assert_eq!(w.desk.terminal_driving(&s.id).await.unwrap(), None);
    fake.push(Reply::text(&["Sixty-one."]));
    let run = w.desk.send_message(&s.id, "and then?", &[]).await.unwrap();
    w.completed(&run.id).await;
    drop(watch);
    w.finish(&[]).await;
}

async fn wait_status(
    rx: &mut tokio::sync::watch::Receiver<agentdesk_protocol::ui::HistoryStatus>,
    done: impl Fn(&agentdesk_protocol::ui::HistoryStatus) -> bool,
) {
    tokio::time::timeout(Duration::from_secs(60), rx.wait_for(|s| done(s)))
        .await
        .expect("the history watch in time")
        .expect("the watch alive");
}
