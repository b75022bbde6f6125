//! `run --worktree` and `agentdesk-cli worktree …` with the real engines: each session's
//! agent writes in its own worktree, never in the workspace folder; status, commit, merge
//! (a conflict exits 1 and changes nothing), remove (refused naming the unsaved file).
//! Then what git itself can do wrong: not a repository, too old, a write failing mid-checkout.

use std::path::Path;

use super::*;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The workspace as a repository on `main` with one commit; git never looks above the
/// test's folder (it lives inside the project's own checkout).
fn make_repo(env: &mut Env) {
    env.vars
        .push(("GIT_CEILING_DIRECTORIES".into(), s(&env.root)));
    let _ = std::fs::remove_dir_all(env.work.join(".git"));
    let w = &env.work;
    let run = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(w)
            .args(args)
            .env("GIT_CEILING_DIRECTORIES", &env.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["init", "-q", "-b", "main"]);
    run(&["config", "user.name", "Test"]);
    run(&["config", "user.email", "test@example.com"]);
    run(&["config", "commit.gpgsign", "false"]);
    std::fs::write(w.join("README.md"), "hello\n").unwrap();
    run(&["add", "-A"]);
    run(&["commit", "-q", "-m", "first"]);
}

async fn in_worktree(engine: &str) {
    let Some((mut env, fake)) = engine_env(engine, "wt").await else {
        return;
    };
    make_repo(&mut env);
    let ws = env.ws();
    let file = format!("from_{engine}.txt");
    fake.push_command(&format!("echo hi > {file}"));
    fake.push_text(&["Written."]);
    let out = env
        .call(&[
            "run",
            "--workspace",
            &ws,
            "--worktree",
            "--approve",
            "accept",
            "--json",
            "Write the file",
        ])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let id = session_of(&out);

    let listed: Value = serde_json::from_str(&env.ok(&["sessions", "--json"]).await).unwrap();
    let row = &listed[0];
    assert_eq!(row["id"], id.as_str());
    let worktree = row["worktree"].as_str().expect("no worktree").to_owned();
    let branch = row["branch"].as_str().expect("no branch").to_owned();
    assert!(branch.starts_with("agentdesk/write-the-file-"), "{branch}");
    assert!(
        Path::new(&worktree).join(&file).is_file(),
        "the agent wrote elsewhere"
    );
    assert!(
        !env.work.join(&file).exists(),
        "the agent wrote in the workspace folder"
    );

    let status: Value =
        serde_json::from_str(&env.ok(&["worktree", "status", &id, "--json"]).await).unwrap();
    assert_eq!(status["uncommitted"][0]["path"], file.as_str());
    assert_eq!(status["uncommitted"][0]["state"], "added");
    assert_eq!(status["base"], "main");
    let text = env.ok(&["worktree", "status", &id]).await;
    assert!(text.contains(&format!("added        {file}  +1")), "{text}");

    // Removal names what it would lose.
    let out = env.call(&["worktree", "remove", &id]).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains(&file), "{}", stderr(&out));

    env.ok(&["worktree", "commit", &id]).await;
    assert_eq!(
        git(&env.work, &["log", "-1", "--format=%s", &branch]),
        "Write the file"
    );

    if engine == "codex" {
        // The base wrote the same file meanwhile: exit 1 naming it, nothing changed.
        std::fs::write(env.work.join(&file), "base\n").unwrap();
        git(&env.work, &["add", "-A"]);
        git(&env.work, &["commit", "-q", "-m", "base"]);
        let before = git(&env.work, &["rev-parse", "main"]);
        let out = env.call(&["worktree", "merge", &id]).await;
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(&file) && stderr(&out).contains("[merge_conflict]"));
        assert_eq!(git(&env.work, &["rev-parse", "main"]), before);
        assert_eq!(git(&env.work, &["status", "--porcelain"]), "");
        let out = env.call(&["worktree", "remove", &id, "--force"]).await;
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("is kept"));
        git(&env.work, &["rev-parse", "--verify", &branch]);
    } else {
        let merged = env.ok(&["worktree", "merge", &id]).await;
        assert!(
            merged.contains("merged 1 commit(s) into main (fast-forward)"),
            "{merged}"
        );
        assert_eq!(
            std::fs::read_to_string(env.work.join(&file)).unwrap(),
            "hi\n"
        );
        env.ok(&["worktree", "remove", &id]).await;
        assert_eq!(git(&env.work, &["branch", "--list", &branch]), "");
    }
    assert!(!Path::new(&worktree).exists());
    // The conversation stays, without a worktree.
    let listed: Value = serde_json::from_str(&env.ok(&["sessions", "--json"]).await).unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(listed[0]["worktree"].is_null());
}

#[tokio::test]
async fn codex_runs_in_its_worktree() {
    in_worktree("codex").await;
}

#[tokio::test]
async fn claude_runs_in_its_worktree() {
    in_worktree("claude").await;
}

/// A git that answers `--version` with `version`, or that cannot write more than 4 KiB
/// per file (as a full disk would stop a checkout half way), in front of the real one.
fn fake_git(env: &Env, body: &str) -> String {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let path = env.root.join("git-wrapper");
    let script = format!("#!/bin/sh\nREAL='{}'\n{body}\n", real.trim());
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    s(&path)
}

#[tokio::test]
async fn git_problems_leave_no_session_behind() {
    let Some((mut env, _fake)) = engine_env("codex", "wt-bad").await else {
        return;
    };
    // Not a repository.
    env.vars
        .push(("GIT_CEILING_DIRECTORIES".into(), s(&env.root)));
    let _ = std::fs::remove_dir_all(env.work.join(".git"));
    let ws = env.ws();
    let run = ["run", "--workspace", &ws, "--worktree", "Hello"];
    let out = env.call(&run).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not a git repository"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.ok(&["sessions", "--json"]).await.trim(), "[]");

    make_repo(&mut env);
    // Too old.
    let old = fake_git(
        &env,
        "[ \"$3\" = --version ] && { echo 'git version 2.30.2'; exit 0; }\nexec \"$REAL\" \"$@\"",
    );
    env.vars.push(("AGENTDESK_GIT".into(), old));
    let out = env.call(&run).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("git 2.30.2") && stderr(&out).contains("2.38"),
        "{}",
        stderr(&out)
    );
    env.vars.pop();

    // Pointed at nothing.
    env.vars
        .push(("AGENTDESK_GIT".into(), s(&env.root.join("no-git"))));
    let out = env.call(&run).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a file"), "{}", stderr(&out));
    env.vars.pop();
    assert_eq!(env.ok(&["sessions", "--json"]).await.trim(), "[]");

    // A checkout that fails half way: a file over the limit in the repository.
    std::fs::write(env.work.join("big.bin"), vec![b'x'; 64 * 1024]).unwrap();
    git(&env.work, &["add", "-A"]);
    git(&env.work, &["commit", "-q", "-m", "big"]);
    let limited = fake_git(
        &env,
        "if [ \"$3\" = worktree ] && [ \"$4\" = add ]; then trap '' XFSZ; ulimit -f 16; fi\nexec \"$REAL\" \"$@\"",
    );
    env.vars.push(("AGENTDESK_GIT".into(), limited));
    let out = env.call(&run).await;
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("worktree"), "{}", stderr(&out));
    assert_eq!(env.ok(&["sessions", "--json"]).await.trim(), "[]");
    let worktrees = env.root.join("data/worktrees");
    let left: Vec<_> = std::fs::read_dir(&worktrees)
        .map(|d| {
            d.flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "half-made worktree left: {left:?}");
    assert_eq!(git(&env.work, &["branch", "--list", "agentdesk/*"]), "");
    assert_eq!(git(&env.work, &["worktree", "list"]).lines().count(), 1);
}
