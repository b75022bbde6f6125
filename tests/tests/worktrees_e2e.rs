//! Sessions in worktrees, end to end: the real app under Xvfb, the real pinned `codex` and
//! `claude` against the fake model servers, one git repository. Two sessions in worktrees of
//! the same workspace run at once (the Codex one waits on its approval while the Claude one
//! runs); each agent writes a different file, in its own worktree only; each review shows
//! only its own change; the Codex one is committed and merged (the base branch has the file);
//! the Claude one's worktree is deleted after a confirm that named its uncommitted file.
//! Then the review again in the dark look. Screenshots in `target/test-artifacts/worktrees/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentdesk_tests::e2e::{
    add_claude_profile, app_with_engine, artifacts_dir, bounded, prepare_codex_workspace, AppEnv,
    AppSession, BoxError, Desktop, Prerequisites, APPROVAL_CARD,
};
use agentdesk_tests::{fake_messages, fake_responses, real};

const TEST: &str = "worktrees";
const STREAM: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_in_worktrees_run_at_once_then_merge_and_delete() {
    let Some((_turn, pre, codex)) = app_with_engine(TEST, "CODEX_BIN", "worktrees E2E").await
    else {
        return;
    };
    let Some(claude) = real::engine_bin("CLAUDE_BIN", "worktrees E2E") else {
        return;
    };
    bounded(Duration::from_secs(420), scenario(pre, codex, claude)).await;
}

fn git(dir: &Path, args: &[&str]) -> Result<String, BoxError> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The workspace: a repository on `main` with one commit, a default Codex profile and a
/// Claude profile, both on the fake models — as a user who set them up would have it.
async fn prepare(
    env: &AppEnv,
    codex: PathBuf,
    claude: PathBuf,
    responses: &fake_responses::FakeResponses,
    messages: &fake_messages::FakeMessages,
) -> Result<PathBuf, BoxError> {
    let ws = prepare_codex_workspace(env, codex.clone(), responses.base_url(), |_| {}).await?;
    let work = ws.work.clone();
    git(&work, &["checkout", "-q", "-b", "main"])?;
    git(&work, &["config", "user.name", "Test"])?;
    git(&work, &["config", "user.email", "test@example.com"])?;
    git(&work, &["config", "commit.gpgsign", "false"])?;
    git(&work, &["add", "-A"])?;
    git(&work, &["commit", "-q", "-m", "first"])?;
    add_claude_profile(env, &ws, (codex, claude), &messages.base_url(), |_| {}).await?;
    ws.desk.close().await;
    Ok(std::fs::canonicalize(work)?)
}

/// "New session in a worktree" → "Start session in a worktree"; the message box.
async fn new_worktree_session(
    app: &AppSession,
    artifacts: &Path,
    shot: &str,
) -> Result<(), BoxError> {
    app.button("New session in a worktree")
        .await?
        .click()
        .await?;
    let start = app.button("Start session in a worktree").await;
    app.screenshot(&artifacts.join(shot)).await?;
    start?.click().await?;
    let message = app.find("textarea[aria-label=Message]").await;
    app.on_error(artifacts, message).await?;
    app.find(".session-header .branch-tag").await?;
    Ok(())
}

/// The review tab's text once its file list shows `path`.
async fn review_showing(app: &AppSession, path: &str) -> Result<String, BoxError> {
    app.find_xpath("//*[@role='tab' and normalize-space(.)='Review changes']")
        .await?
        .click()
        .await?;
    app.wait_for_text_containing("[aria-label='Review changes']", path, STREAM)
        .await
}

async fn scenario(pre: Prerequisites, codex: PathBuf, claude: PathBuf) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let responses = fake_responses::FakeResponses::start().await?;
    let messages = fake_messages::FakeMessages::start().await?;
    let work = prepare(&env, codex, claude, &responses, &messages).await?;
    responses.push(fake_responses::Reply::exec_command(
        "call_wt",
        "echo codex > codex.txt",
    ));
    responses.push(fake_responses::Reply::text(&["Wrote codex.txt."]));
    messages.push(fake_messages::Reply::bash(
        "toolu_wt",
        "echo claude > claude.txt",
    ));
    messages.push(fake_messages::Reply::text(&["Wrote claude.txt."]));

    let app = desktop.launch(&env, "first-run", &artifacts).await?;
    app.collect_js_errors().await?;
    app.find("[data-testid=workspace-item]").await?;

    // Codex, in its worktree: it asks before writing, and waits there.
    new_worktree_session(&app, &artifacts, "00-worktree-choice.png").await?;
    app.send_message("Write codex.txt").await?;
    let card = app.xpath_text(APPROVAL_CARD).await;
    app.on_error(&artifacts, card).await?;

    // Meanwhile Claude, in another worktree of the same repository.
    app.button("Profiles for demo").await?.click().await?;
    app.find_xpath(
        "//button[contains(@class,'profile-item') and contains(., 'claude (fake model)')]",
    )
    .await?
    .click()
    .await?;
    app.button("Set as default").await?.click().await?;
    new_worktree_session(&app, &artifacts, "01-second-choice.png").await?;
    app.send_message("Write claude.txt").await?;
    let card = app.xpath_text(APPROVAL_CARD).await;
    app.on_error(&artifacts, card).await?;
    let statuses = app.script_strings(
        "return [...document.querySelectorAll('[data-testid=session-item] .activity-dot')].map(() => 'running')",
    );
    let running = statuses.await?;
    assert_eq!(running.len(), 2, "both sessions run at once");
    app.screenshot(&artifacts.join("02-two-at-once.png"))
        .await?;
    app.click_retrying("Approve once").await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;

    // Back to Codex: approve; it finishes too.
    app.find_xpath("//*[@data-testid='session-item' and contains(., 'Write codex.txt')]")
        .await?
        .click()
        .await?;
    app.click_retrying("Approve once").await?;
    app.run_ends(&artifacts, "Completed", STREAM).await?;
    assert!(!work.join("codex.txt").exists() && !work.join("claude.txt").exists());

    // Each review shows only its own file.
    let review = review_showing(&app, "codex.txt").await?;
    assert!(!review.contains("claude.txt"), "{review}");
    app.wait_for_text_containing("[data-testid=session-branch]", "1 file changed", STREAM)
        .await?;
    app.screenshot(&artifacts.join("03-review-codex-light.png"))
        .await?;
    app.button("Commit").await?.click().await?;
    app.wait_for_text_containing(
        "[aria-label='Review changes']",
        "Uncommitted changes (0)",
        STREAM,
    )
    .await?;
    app.quit().await?;

    // The rest in the dark look, after a restart: the committed change and its diff, the
    // merge, then the other session's worktree deleted.
    env.extra.push(("GTK_THEME".into(), "Adwaita:dark".into()));
    let app = desktop.launch(&env, "second-run", &artifacts).await?;
    app.find_xpath("//*[@data-testid='session-item' and contains(., 'Write codex.txt')]")
        .await?
        .click()
        .await?;
    review_showing(&app, "Committed changes (1)").await?;
    app.find_xpath("//button[normalize-space(.)='codex.txt']")
        .await?
        .click()
        .await?;
    app.wait_for_text_containing(".worktree-review .file-diff", "codex", STREAM)
        .await?;
    app.screenshot(&artifacts.join("04-committed-dark.png"))
        .await?;
    app.button("Merge into main").await?.click().await?;
    app.wait_for_text_containing(
        "[aria-label='Review changes'] [role=status]",
        "Merged 1 commit into main",
        STREAM,
    )
    .await?;
    assert_eq!(std::fs::read_to_string(work.join("codex.txt"))?, "codex\n");
    assert_eq!(
        git(&work, &["log", "-1", "--format=%s", "main"])?,
        "Write codex.txt"
    );
    app.screenshot(&artifacts.join("05-merged-dark.png"))
        .await?;

    app.find_xpath("//*[@data-testid='session-item' and contains(., 'Write claude.txt')]")
        .await?
        .click()
        .await?;
    let review = review_showing(&app, "claude.txt").await?;
    assert!(!review.contains("codex.txt"), "{review}");
    let branch = app.css_text(".session-header .branch-tag").await?;
    let branch = branch.trim_start_matches("branch ").to_owned();
    assert!(
        branch.starts_with("agentdesk/write-claude-txt-"),
        "named after the title: {branch}"
    );
    app.button("Delete worktree").await?.click().await?;
    let dialog = app.css_text("[role=alertdialog]").await?;
    assert!(
        dialog.contains("claude.txt"),
        "the confirm names the file: {dialog}"
    );
    app.screenshot(&artifacts.join("06-delete-confirm-dark.png"))
        .await?;
    app.find_xpath("//*[@role='alertdialog']//button[normalize-space(.)='Delete worktree']")
        .await?
        .click()
        .await?;
    // The conversation stays, without its worktree (no Review tab, no branch).
    let deadline = std::time::Instant::now() + STREAM;
    loop {
        let tabs = app
            .script_strings(
                "return [...document.querySelectorAll('[role=tab]')].map(t => t.textContent)",
            )
            .await?;
        if tabs.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the review tab stayed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.wait_for_timeline("Wrote claude.txt.", STREAM).await?;
    assert_eq!(git(&work, &["branch", "--list", &branch])?, "", "{branch}");
    assert_eq!(
        git(&work, &["worktree", "list"])?.lines().count(),
        2,
        "main and codex's"
    );
    app.screenshot(&artifacts.join("07-deleted-dark.png"))
        .await?;
    app.quit().await?;
    env.passed();
    Ok(())
}
