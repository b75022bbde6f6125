//! Worktrees against real git repositories in temporary folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use agentdesk_protocol::ui::{ErrorCode, FileState, Session, Workspace};

use crate::test_desk::{desk_with_workspace, Dirs};
use crate::{CoreError, Desk, NewSession};
use agentdesk_protocol::ui::NewWorktree as InWorktree;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A desk whose workspace is a repository on `main` with two committed files.
async fn repo() -> (Desk, Workspace, Dirs) {
    let (desk, ws, dirs) = desk_with_workspace().await;
    let dir = dirs.folder.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    write(dir, "README.md", "hello\n");
    write(dir, "src/lib.rs", "fn a() {}\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "first"]);
    (desk, ws, dirs)
}

async fn in_worktree(desk: &Desk, ws: &Workspace, title: &str) -> Session {
    desk.create_session(&NewSession {
        engine: Some(agentdesk_protocol::ui::Engine::Codex),
        title: Some(title.into()),
        worktree: Some(InWorktree::default()),
        ..NewSession::new(ws.id.clone())
    })
    .await
    .unwrap()
}

fn root(s: &Session) -> &Path {
    Path::new(s.worktree.as_deref().unwrap())
}

#[tokio::test]
async fn a_session_gets_its_own_branch_and_folder_outside_the_repository() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "Fix the login bug").await;
    let branch = s.branch.clone().unwrap();
    assert!(
        branch.starts_with("agentdesk/fix-the-login-bug-"),
        "{branch}"
    );
    assert_eq!(s.base_branch.as_deref(), Some("main"));
    assert!(root(&s).starts_with(dirs.data.path().join("worktrees")));
    assert!(root(&s).join("src/lib.rs").is_file());
    assert_eq!(git(root(&s), &["branch", "--show-current"]), branch);
    // Stored, and the engine runs there.
    let stored = desk.get_session(&s.id).await.unwrap();
    assert_eq!(stored, s);
    let ws_path = ws.path.clone();
    assert_eq!(desk.run_folder(&s, &ws_path).await.unwrap(), root(&s));
    // A second session of the same workspace has another.
    let t = in_worktree(&desk, &ws, "Fix the login bug").await;
    assert_ne!(t.worktree, s.worktree);
    assert_ne!(t.branch, s.branch);
    let info = desk.workspace_git(&ws.id).await.unwrap();
    assert_eq!(info.unavailable, None);
    assert_eq!(info.current_branch.as_deref(), Some("main"));
    assert_eq!(info.branches[0], "main");
    assert!(info.branches.contains(&branch));
}

#[tokio::test]
async fn not_a_repository_or_a_detached_head_is_refused_and_leaves_no_session() {
    let (desk, ws, dirs) = desk_with_workspace().await;
    let err = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Claude),
            worktree: Some(InWorktree::default()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("not a git repository"), "{err}");
    assert!(desk.list_sessions(&ws.id, true).await.unwrap().is_empty());
    let info = desk.workspace_git(&ws.id).await.unwrap();
    assert!(info.unavailable.unwrap().contains("not a git repository"));
    drop(dirs);

    let (desk, ws, dirs) = repo().await;
    git(dirs.folder.path(), &["checkout", "-q", "--detach"]);
    let err = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Codex),
            worktree: Some(InWorktree::default()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("detached HEAD"), "{err}");
    let picked = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Codex),
            worktree: Some(InWorktree {
                base: Some("main".into()),
                name_hint: Some("Add a test".into()),
            }),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    assert!(picked.branch.unwrap().starts_with("agentdesk/add-a-test-"));
    let nope = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Codex),
            worktree: Some(InWorktree {
                base: Some("nope".into()),
                name_hint: None,
            }),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap_err();
    assert!(nope.to_string().contains("no branch \"nope\""), "{nope}");
    assert_eq!(desk.list_sessions(&ws.id, true).await.unwrap().len(), 1);
}

#[tokio::test]
async fn review_tells_uncommitted_from_committed_and_names_binary_files() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "work").await;
    let wt = root(&s);
    write(wt, "src/new.rs", "a\nb\nc\n");
    git(wt, &["add", "-A"]);
    git(wt, &["commit", "-q", "-m", "add new.rs"]);
    write(wt, "README.md", "hello\nworld\n");
    std::fs::remove_file(wt.join("src/lib.rs")).unwrap();
    std::fs::write(wt.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 0, 1, 2]).unwrap();
    write(wt, "notes/todo.txt", "one\ntwo");
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert!(!st.missing);
    let by = |list: &[agentdesk_protocol::ui::ChangedFile], p: &str| {
        list.iter()
            .find(|f| f.path == p)
            .cloned()
            .unwrap_or_else(|| panic!("{p} in {list:?}"))
    };
    assert_eq!(st.committed.len(), 1, "{:?}", st.committed);
    let new = by(&st.committed, "src/new.rs");
    assert_eq!(
        (new.state, new.added, new.removed),
        (FileState::Added, Some(3), Some(0))
    );
    assert_eq!(st.uncommitted.len(), 4, "{:?}", st.uncommitted);
    let readme = by(&st.uncommitted, "README.md");
    assert_eq!(
        (readme.state, readme.added, readme.removed),
        (FileState::Modified, Some(1), Some(0))
    );
    assert_eq!(by(&st.uncommitted, "src/lib.rs").state, FileState::Deleted);
    let logo = by(&st.uncommitted, "logo.png");
    assert!(logo.binary && logo.added.is_none(), "{logo:?}");
    assert_eq!(by(&st.uncommitted, "notes/todo.txt").added, Some(2));
    assert_eq!(st.commits.len(), 1);
    assert_eq!(st.commits[0].summary, "add new.rs");
    assert_eq!(st.behind, 0);

    let d = desk
        .worktree_diff(&s.id, "README.md", None, false)
        .await
        .unwrap();
    assert!(d.diff.contains("+world") && !d.binary, "{}", d.diff);
    let d = desk
        .worktree_diff(&s.id, "notes/todo.txt", None, false)
        .await
        .unwrap();
    assert!(d.diff.contains("+one"), "{}", d.diff);
    let d = desk
        .worktree_diff(&s.id, "logo.png", None, false)
        .await
        .unwrap();
    assert!(d.binary && d.diff.is_empty());
    let d = desk
        .worktree_diff(&s.id, "src/new.rs", None, true)
        .await
        .unwrap();
    assert!(d.committed && d.diff.contains("+b"), "{}", d.diff);
}

#[tokio::test]
async fn commit_selected_files_then_discard_the_rest() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "Write things").await;
    let wt = root(&s);
    write(wt, "a.txt", "a\n");
    write(wt, "b.txt", "b\n");
    write(wt, "README.md", "changed\n");
    let err = desk.worktree_commit(&s.id, "  ", &[]).await.unwrap_err();
    assert!(err.to_string().contains("commit message"));
    let st = desk
        .worktree_commit(&s.id, "Write things", &["a.txt".into()])
        .await
        .unwrap();
    let names: Vec<_> = st.uncommitted.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(names, ["README.md", "b.txt"]);
    assert_eq!(st.commits.len(), 1);
    assert_eq!(st.committed[0].path, "a.txt");
    let st = desk.worktree_discard(&s.id, "README.md").await.unwrap();
    assert_eq!(
        std::fs::read_to_string(wt.join("README.md")).unwrap(),
        "hello\n"
    );
    let st2 = desk.worktree_discard(&s.id, "b.txt").await.unwrap();
    assert!(!wt.join("b.txt").exists());
    assert_eq!(st.uncommitted.len(), 1);
    assert!(st2.uncommitted.is_empty());
    let err = desk.worktree_discard(&s.id, "b.txt").await.unwrap_err();
    assert!(err.to_string().contains("no uncommitted change"));
}

#[tokio::test]
async fn merge_fast_forwards_the_checked_out_base_and_its_files() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "feature").await;
    write(root(&s), "feature.txt", "done\n");
    let err = desk.worktree_merge(&s.id).await.unwrap_err();
    assert!(err.to_string().contains("feature.txt"), "{err}");
    desk.worktree_commit(&s.id, "feature", &[]).await.unwrap();
    let out = desk.worktree_merge(&s.id).await.unwrap();
    assert!(out.fast_forward);
    assert_eq!(out.commits, 1);
    assert_eq!(out.base, "main");
    let ws_dir = dirs.folder.path();
    assert_eq!(git(ws_dir, &["rev-parse", "main"]), out.commit);
    assert!(
        ws_dir.join("feature.txt").is_file(),
        "the base's working tree follows"
    );
    assert_eq!(git(ws_dir, &["status", "--porcelain"]), "");
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert!(st.commits.is_empty() && st.is_clean());
}

#[tokio::test]
async fn merge_makes_a_merge_commit_when_the_base_moved() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "feature").await;
    write(root(&s), "feature.txt", "done\n");
    desk.worktree_commit(&s.id, "feature", &[]).await.unwrap();
    let ws_dir = dirs.folder.path();
    write(ws_dir, "other.txt", "base work\n");
    git(ws_dir, &["add", "-A"]);
    git(ws_dir, &["commit", "-q", "-m", "base moves"]);
    assert_eq!(desk.worktree_status(&s.id).await.unwrap().behind, 1);
    let out = desk.worktree_merge(&s.id).await.unwrap();
    assert!(!out.fast_forward);
    assert_eq!(
        git(ws_dir, &["rev-list", "--count", "--merges", "main"]),
        "1"
    );
    assert!(ws_dir.join("feature.txt").is_file() && ws_dir.join("other.txt").is_file());
}

#[tokio::test]
async fn merge_into_a_base_checked_out_nowhere_moves_only_the_ref() {
    let (desk, ws, dirs) = repo().await;
    let ws_dir = dirs.folder.path();
    git(ws_dir, &["branch", "release"]);
    let s = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Codex),
            worktree: Some(InWorktree {
                base: Some("release".into()),
                name_hint: None,
            }),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    write(root(&s), "fix.txt", "fix\n");
    desk.worktree_commit(&s.id, "fix", &[]).await.unwrap();
    let out = desk.worktree_merge(&s.id).await.unwrap();
    assert!(out.fast_forward);
    assert_eq!(git(ws_dir, &["rev-parse", "release"]), out.commit);
    assert!(
        !ws_dir.join("fix.txt").exists(),
        "main's working tree is not touched"
    );
}

#[tokio::test]
async fn a_conflict_names_the_files_and_changes_nothing() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "conflict").await;
    write(root(&s), "README.md", "theirs\n");
    desk.worktree_commit(&s.id, "theirs", &[]).await.unwrap();
    let ws_dir = dirs.folder.path();
    write(ws_dir, "README.md", "ours\n");
    git(ws_dir, &["commit", "-q", "-am", "ours"]);
    let main_before = git(ws_dir, &["rev-parse", "main"]);
    let branch_before = git(ws_dir, &["rev-parse", s.branch.as_deref().unwrap()]);
    let err = desk.worktree_merge(&s.id).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::MergeConflict);
    let CoreError::MergeConflict { files, base, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(files, &["README.md"]);
    assert_eq!(base, "main");
    assert_eq!(git(ws_dir, &["rev-parse", "main"]), main_before);
    assert_eq!(
        git(ws_dir, &["rev-parse", s.branch.as_deref().unwrap()]),
        branch_before
    );
    assert_eq!(git(ws_dir, &["status", "--porcelain"]), "");
    assert_eq!(
        std::fs::read_to_string(ws_dir.join("README.md")).unwrap(),
        "ours\n"
    );
    assert!(root(&s).is_dir());
}

#[tokio::test]
async fn removing_names_what_would_be_lost_and_keeps_the_conversation() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "remove me").await;
    let branch = s.branch.clone().unwrap();
    write(root(&s), "draft.txt", "draft\n");
    let err = desk.remove_worktree(&s.id, false).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("draft.txt"), "{err}");
    desk.worktree_commit(&s.id, "draft", &[]).await.unwrap();
    let err = desk.remove_worktree(&s.id, false).await.unwrap_err();
    assert!(
        err.to_string().contains("1 commit(s) not in main") && err.to_string().contains("draft"),
        "{err}"
    );
    // Deleting the session would lose it too: refused the same way.
    let err = desk.delete_session(&s.id).await.unwrap_err();
    assert!(err.to_string().contains("not in main"), "{err}");
    let removed = desk.remove_worktree(&s.id, true).await.unwrap();
    assert_eq!(removed.kept_branch.as_deref(), Some(branch.as_str()));
    assert!(!root(&s).exists());
    assert_eq!(removed.session.worktree, None);
    assert_eq!(removed.session.title, s.title);
    git(dirs.folder.path(), &["rev-parse", "--verify", &branch]);

    // A clean one goes with its branch, and deleting its session takes it along.
    let t = in_worktree(&desk, &ws, "clean").await;
    desk.delete_session(&t.id).await.unwrap();
    assert!(!root(&t).exists());
    let branches = git(
        dirs.folder.path(),
        &["branch", "--list", t.branch.as_deref().unwrap()],
    );
    assert_eq!(branches, "");
}

#[tokio::test]
async fn a_folder_deleted_outside_the_app_is_reported_then_recreated_or_forgotten() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "gone").await;
    write(root(&s), "kept.txt", "kept\n");
    desk.worktree_commit(&s.id, "kept", &[]).await.unwrap();
    std::fs::remove_dir_all(root(&s)).unwrap();
    let err = desk.run_folder(&s, &ws.path).await.unwrap_err();
    assert!(
        err.to_string().contains("deleted outside Agent Desk"),
        "{err}"
    );
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert!(st.missing);
    assert_eq!(st.commits.len(), 1, "the branch still has its commit");
    let st = desk.recreate_worktree(&s.id).await.unwrap();
    assert!(!st.missing);
    assert!(root(&s).join("kept.txt").is_file());

    std::fs::remove_dir_all(root(&s)).unwrap();
    let forgotten = desk.forget_worktree(&s.id).await.unwrap();
    assert_eq!(forgotten.worktree, None);
    assert_eq!(
        desk.run_folder(&forgotten, &ws.path).await.unwrap(),
        Path::new(&ws.path)
    );
}

#[tokio::test]
async fn a_held_index_lock_is_busy_not_a_failure() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "locked").await;
    write(root(&s), "x.txt", "x\n");
    let gitdir = git(root(&s), &["rev-parse", "--absolute-git-dir"]);
    std::fs::write(Path::new(&gitdir).join("index.lock"), "").unwrap();
    let err = desk.worktree_commit(&s.id, "x", &[]).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Busy, "{err}");
    assert!(err.to_string().contains("index.lock"), "{err}");
}

#[tokio::test]
async fn a_workspace_in_a_subfolder_runs_there_in_the_worktree() {
    let (desk, _ws, dirs) = repo().await;
    let sub = desk
        .add_workspace(dirs.folder.path().join("src").to_str().unwrap(), None)
        .await
        .unwrap();
    let s = in_worktree(&desk, &sub, "sub").await;
    let folder = desk.run_folder(&s, &sub.path).await.unwrap();
    assert_eq!(folder, root(&s).join("src"));
    assert!(folder.join("lib.rs").is_file());
}

#[tokio::test]
async fn a_session_made_before_its_title_names_its_branch_at_the_first_message() {
    let (desk, ws, dirs) = repo().await;
    let s = desk
        .create_session(&NewSession {
            engine: Some(agentdesk_protocol::ui::Engine::Codex),
            worktree: Some(InWorktree::default()),
            ..NewSession::new(ws.id.clone())
        })
        .await
        .unwrap();
    let first = s.branch.clone().unwrap();
    assert!(first.starts_with("agentdesk/session-"), "{first}");
    // A branch of the name it would take exists already: the next free one is taken.
    let taken = format!("agentdesk/fix-the-flaky-test-{}", &first[first.len() - 8..]);
    git(dirs.folder.path(), &["branch", &taken]);
    desk.create_run(&s.id, "Fix the flaky test", &[])
        .await
        .unwrap();
    desk.name_branch_after_title(&s.id).await;
    let named = desk.get_session(&s.id).await.unwrap().branch.unwrap();
    assert_eq!(named, format!("{taken}-2"));
    assert_eq!(git(root(&s), &["branch", "--show-current"]), named);
    assert_eq!(git(dirs.folder.path(), &["branch", "--list", &first]), "");
    // Named once: a later title change leaves it.
    desk.rename_session(&s.id, "Something else").await.unwrap();
    desk.name_branch_after_title(&s.id).await;
    assert_eq!(
        desk.get_session(&s.id).await.unwrap().branch.unwrap(),
        named
    );
}

#[tokio::test]
async fn submodules_are_checked_out_in_the_worktree_and_their_moves_named() {
    let (desk, ws, dirs) = repo().await;
    let lib = tempfile::tempdir().unwrap();
    git(lib.path(), &["init", "-q", "-b", "main"]);
    git(lib.path(), &["config", "user.name", "Test"]);
    git(lib.path(), &["config", "user.email", "test@example.com"]);
    write(lib.path(), "lib.txt", "v1\n");
    git(lib.path(), &["add", "-A"]);
    git(lib.path(), &["commit", "-q", "-m", "v1"]);
    let dir = dirs.folder.path();
    // A local submodule needs the file transport allowed (git >= 2.38.1 refuses it).
    git(
        dir,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.path().to_str().unwrap(),
            "vendor/lib",
        ],
    );
    git(dir, &["commit", "-q", "-m", "add lib"]);
    let s = in_worktree(&desk, &ws, "bump lib").await;
    let sub = root(&s).join("vendor/lib");
    // The clone in the worktree is refused (the file transport was allowed for the `add`
    // only): the worktree is made all the same, and its status names the submodule that
    // is not there.
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert_eq!(st.unready_submodules, ["vendor/lib"]);
    assert!(st.uncommitted.is_empty(), "{:?}", st.uncommitted);
    git(
        root(&s),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "update",
            "--init",
            "-q",
        ],
    );
    assert!(desk
        .worktree_status(&s.id)
        .await
        .unwrap()
        .unready_submodules
        .is_empty());
    assert_eq!(
        std::fs::read_to_string(sub.join("lib.txt")).unwrap(),
        "v1\n"
    );
    // The agent moves the submodule to a new commit: one entry, named a submodule.
    write(&sub, "lib.txt", "v2\n");
    git(
        &sub,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "-am",
            "v2",
        ],
    );
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert_eq!(st.uncommitted.len(), 1, "{:?}", st.uncommitted);
    assert!(st.uncommitted[0].submodule && !st.uncommitted[0].binary);
    assert_eq!(st.uncommitted[0].path, "vendor/lib");
    desk.worktree_commit(&s.id, "bump lib", &[]).await.unwrap();
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert!(
        st.committed
            .iter()
            .any(|f| f.path == "vendor/lib" && f.submodule),
        "{:?}",
        st.committed
    );
}

#[tokio::test]
async fn the_isolate_setting_is_kept_per_workspace() {
    let (desk, ws, _dirs) = repo().await;
    assert!(
        !desk
            .workspace_git(&ws.id)
            .await
            .unwrap()
            .isolate_new_sessions
    );
    desk.set_isolate_sessions(&ws.id, true).await.unwrap();
    let info = desk.workspace_git(&ws.id).await.unwrap();
    assert!(info.isolate_new_sessions);
    assert!(info.uncommitted.is_empty());
    write(Path::new(&ws.path), "README.md", "dirty\n");
    let info = desk.workspace_git(&ws.id).await.unwrap();
    assert_eq!(info.uncommitted, ["README.md"]);
}

#[tokio::test]
async fn renames_keep_their_old_name_uncommitted_and_committed() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "rename").await;
    git(root(&s), &["mv", "src/lib.rs", "src/core.rs"]);
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert_eq!(st.uncommitted.len(), 1, "{:?}", st.uncommitted);
    let f = &st.uncommitted[0];
    assert_eq!(
        (f.state, f.path.as_str()),
        (FileState::Renamed, "src/core.rs")
    );
    assert_eq!(f.old_path.as_deref(), Some("src/lib.rs"));
    let d = desk
        .worktree_diff(&s.id, "src/core.rs", Some("src/lib.rs"), false)
        .await
        .unwrap();
    assert!(d.diff.contains("rename from src/lib.rs"), "{}", d.diff);
    // Committing the new name takes the old one's removal with it.
    let st = desk
        .worktree_commit(&s.id, "rename", &["src/core.rs".into()])
        .await
        .unwrap();
    assert!(st.uncommitted.is_empty(), "{:?}", st.uncommitted);
    let f = &st.committed[0];
    assert_eq!(
        (f.state, f.old_path.as_deref()),
        (FileState::Renamed, Some("src/lib.rs"))
    );
    // A file named like an entry's start is still a file.
    write(root(&s), ":odd\tname.txt", "x\n");
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert_eq!(st.uncommitted[0].path, ":odd\tname.txt");
    desk.worktree_commit(&s.id, "odd", &[]).await.unwrap();
    let st = desk.worktree_status(&s.id).await.unwrap();
    assert!(
        st.committed
            .iter()
            .any(|f| f.path == ":odd\tname.txt" && f.added == Some(1)),
        "{:?}",
        st.committed
    );
}

#[tokio::test]
async fn a_merge_that_would_overwrite_uncommitted_work_in_the_base_changes_nothing() {
    let (desk, ws, dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "touch readme").await;
    write(root(&s), "README.md", "from the session\n");
    desk.worktree_commit(&s.id, "readme", &[]).await.unwrap();
    let ws_dir = dirs.folder.path();
    // The user's own edit in the workspace folder, not committed.
    write(ws_dir, "README.md", "my local edit\n");
    let before = git(ws_dir, &["rev-parse", "main"]);
    let err = desk.worktree_merge(&s.id).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::GitFailed, "{err}");
    assert!(err.to_string().contains("README.md"), "{err}");
    assert_eq!(git(ws_dir, &["rev-parse", "main"]), before);
    assert_eq!(
        std::fs::read_to_string(ws_dir.join("README.md")).unwrap(),
        "my local edit\n"
    );
    assert!(!ws_dir.join(".git/MERGE_HEAD").exists());
    // An unrelated local edit is kept through a merge.
    git(ws_dir, &["checkout", "--", "README.md"]);
    write(ws_dir, "src/lib.rs", "fn mine() {}\n");
    let out = desk.worktree_merge(&s.id).await.unwrap();
    assert!(out.fast_forward);
    assert_eq!(
        std::fs::read_to_string(ws_dir.join("README.md")).unwrap(),
        "from the session\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws_dir.join("src/lib.rs")).unwrap(),
        "fn mine() {}\n"
    );
}

#[tokio::test]
async fn a_worktree_is_not_removed_while_its_session_runs() {
    let (desk, ws, _dirs) = repo().await;
    let s = in_worktree(&desk, &ws, "busy").await;
    // A run recorded as going on (the CLI's, or the app's): removal waits for its end.
    let run = desk.create_run(&s.id, "Keep going", &[]).await.unwrap();
    assert_eq!(run.status, agentdesk_protocol::ui::RunStatus::Running);
    let err = desk.remove_worktree(&s.id, true).await.unwrap_err();
    assert!(err.to_string().contains("run in progress"), "{err}");
    assert!(root(&s).is_dir());
    // Once it ended (here: interrupted, as a restart finds it), the worktree can go.
    desk.recover().await.unwrap();
    desk.remove_worktree(&s.id, true).await.unwrap();
    assert!(!root(&s).exists());
}
