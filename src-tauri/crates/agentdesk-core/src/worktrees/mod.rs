//! Sessions in their own git worktree, so several agents work in one repository without
//! editing the same files: made with a session (`git worktree add` on a new branch, in the
//! data folder, never inside the repository), reviewed (`review`), committed, merged back
//! into the branch it left (`merge`) and removed.
//!
//! The session row keeps the worktree's folder, branch and base; git keeps everything else.
//! A worktree the user deleted outside the app is reported as missing, to be recreated from
//! its branch (which git keeps) or forgotten.

mod git;
mod merge;
mod parse;
mod review;

use std::path::{Path, PathBuf};

use agentdesk_protocol::ids::{SessionId, WorkspaceId};
use agentdesk_protocol::ui::{NewWorktree, Session, WorkspaceGit, WorktreeRemoved, WorktreeStatus};

use crate::{CoreError, Desk, Result};
pub(crate) use git::Git;
pub use git::MIN_VERSION;

/// Settings key of a workspace's "Isolate new sessions in worktrees".
fn isolate_key(workspace_id: &WorkspaceId) -> String {
    format!("worktrees.isolate.{workspace_id}")
}

/// Branches are `agentdesk/<title>-<id>`; the title part is cut to this many characters.
const BRANCH_TITLE_CHARS: usize = 32;

/// A session's worktree as the operations need it.
pub(crate) struct Tree {
    pub git: Git,
    /// The worktree's top folder.
    pub root: PathBuf,
    /// The repository's main working tree (the workspace's): where `worktree add`, `prune`
    /// and `branch -D` run, and which is there when the worktree is gone.
    pub top: PathBuf,
    pub branch: String,
    pub base: String,
}

impl Desk {
    /// Whether the workspace can have sessions in worktrees, its branches, and its setting.
    pub async fn workspace_git(&self, workspace_id: &WorkspaceId) -> Result<WorkspaceGit> {
        let ws = self.store.get_workspace(workspace_id).await?;
        let isolate_new_sessions = self
            .store
            .get_setting::<bool>(&isolate_key(workspace_id))
            .await?
            .unwrap_or(false);
        let answer = |unavailable: String| WorkspaceGit {
            unavailable: Some(unavailable),
            isolate_new_sessions,
            ..WorkspaceGit::default()
        };
        if let Some(host) = &ws.host {
            return Ok(answer(format!(
                "worktrees are not available for a workspace on {host} yet"
            )));
        }
        let git = match Git::checked().await {
            Ok(g) => g,
            Err(e) => return Ok(answer(e.to_string())),
        };
        let dir = Path::new(&ws.path);
        let top = match repository_root(&git, dir).await {
            Ok(t) => t,
            Err(e) => return Ok(answer(e.to_string())),
        };
        let current_branch = current_branch(&git, &top).await?;
        let listed = git
            .text(
                &top,
                &["for-each-ref", "--format=%(refname:short)", "refs/heads/"],
            )
            .await?;
        let mut branches: Vec<String> = listed.lines().map(str::to_owned).collect();
        if let Some(cur) = &current_branch {
            branches.retain(|b| b != cur);
            branches.insert(0, cur.clone());
        }
        let status = git
            .run(
                &top,
                &["status", "--porcelain=v2", "-z", "--untracked-files=no"],
            )
            .await?;
        let uncommitted = parse::status_v2(&status)
            .into_iter()
            .map(|f| f.path)
            .collect();
        Ok(WorkspaceGit {
            unavailable: None,
            current_branch,
            branches,
            uncommitted,
            isolate_new_sessions,
        })
    }

    /// The workspace setting "Isolate new sessions in worktrees".
    pub async fn set_isolate_sessions(&self, workspace_id: &WorkspaceId, on: bool) -> Result<()> {
        self.store.get_workspace(workspace_id).await?;
        Ok(self
            .store
            .set_setting(&isolate_key(workspace_id), &on)
            .await?)
    }

    /// Make the worktree of a session about to be created: a new branch from the base, in
    /// `<data dir>/worktrees/<workspace>/<session>`. Returns (folder, branch, base). Nothing
    /// is left behind when it fails (folder, branch and git's record removed).
    pub(crate) async fn add_worktree(
        &self,
        workspace_path: &str,
        session_id: &SessionId,
        title: &str,
        want: &NewWorktree,
    ) -> Result<(String, String, String)> {
        let git = Git::checked().await?;
        let top = repository_root(&git, Path::new(workspace_path)).await?;
        let base = match &want.base {
            Some(b) => b.trim().to_owned(),
            None => current_branch(&git, &top).await?.ok_or_else(|| {
                CoreError::InvalidInput(format!(
                    "{} is on a detached HEAD: pick the base branch the worktree starts from",
                    top.display()
                ))
            })?,
        };
        if !branch_exists(&git, &top, &base).await? {
            return Err(CoreError::InvalidInput(format!(
                "there is no branch {base:?} in {}",
                top.display()
            )));
        }
        let branch = free_branch_name(&git, &top, title, session_id).await?;
        let folder = self.worktree_folder(workspace_path, session_id);
        if let Some(parent) = folder.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| CoreError::Io {
                    what: format!("cannot create {}", parent.display()),
                    source: e,
                })?;
        }
        let folder_s = folder.display().to_string();
        let added = git
            .run(
                &top,
                &[
                    "worktree", "add", "--quiet", "-b", &branch, &folder_s, &base,
                ],
            )
            .await;
        if let Err(e) = added {
            undo_add(&git, &top, &folder, &branch).await;
            return Err(e);
        }
        if top.join(".gitmodules").is_file() {
            // Submodules are per worktree: check them out from where the repository's own
            // point (a failure leaves them empty there, which the agent can see and fix).
            let init = git
                .output(&folder, &["submodule", "update", "--init", "--recursive"])
                .await?;
            if !init.ok() {
                tracing::warn!(folder = %folder_s, stderr = %init.stderr, "submodules not checked out in the worktree");
            }
        }
        tracing::info!(%session_id, branch = %branch, base = %base, folder = %folder_s, "worktree added");
        Ok((folder_s, branch, base))
    }

    /// A worktree made before its session had a title (the window's "New session in a
    /// worktree") is on `agentdesk/session-<id>`: once the first message names the session,
    /// the branch takes the name too (`agentdesk/<title>-<id>`). Best effort: a failure
    /// leaves the first name.
    pub(crate) async fn name_branch_after_title(&self, session_id: &SessionId) {
        let renamed = async {
            let session = self.store.get_session(session_id).await?;
            let (Some(path), Some(branch), Some(base)) =
                (&session.worktree, &session.branch, &session.base_branch)
            else {
                return Ok(());
            };
            if session.title.is_empty() || *branch != untitled_branch(&session.id) {
                return Ok(());
            }
            let tree = self.tree(&session).await?;
            let name = free_branch_name(&tree.git, &tree.top, &session.title, &session.id).await?;
            tree.git
                .run(&tree.top, &["branch", "-m", branch, &name])
                .await?;
            self.store
                .set_session_worktree(session_id, Some((path, &name, base)))
                .await?;
            Ok::<_, CoreError>(())
        };
        if let Err(e) = renamed.await {
            tracing::warn!(%session_id, error = %e, "worktree branch not renamed after the title");
        }
    }

    /// Take back the worktree made for a session that was then not stored.
    pub(crate) async fn undo_worktree(&self, workspace_path: &str, session: &Session) {
        let (Some(folder), Some(branch)) = (&session.worktree, &session.branch) else {
            return;
        };
        let Ok(git) = Git::checked().await else {
            return;
        };
        if let Ok(top) = repository_root(&git, Path::new(workspace_path)).await {
            undo_add(&git, &top, Path::new(folder), branch).await;
        }
    }

    /// `<data dir>/worktrees/<workspace folder's name>-<hash>/<session>`: outside the
    /// repository (its own status and the engines' file searches never see it), one folder
    /// per workspace so two repositories' sessions never meet.
    fn worktree_folder(&self, workspace_path: &str, session_id: &SessionId) -> PathBuf {
        let name = Path::new(workspace_path)
            .file_name()
            .map(|n| slug(&n.to_string_lossy(), 24))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "workspace".into());
        let hash = short_hash(workspace_path);
        self.data_dir
            .join("worktrees")
            .join(format!("{name}-{hash}"))
            .join(session_id.as_str())
    }

    /// The folder a session's engine runs in: its worktree (at the workspace's place inside
    /// the repository), else the workspace. A worktree deleted outside the app is an error
    /// that says what to do.
    pub(crate) async fn run_folder(
        &self,
        session: &Session,
        workspace_path: &str,
    ) -> Result<PathBuf> {
        let Some(root) = &session.worktree else {
            return Ok(PathBuf::from(workspace_path));
        };
        let root = PathBuf::from(root);
        if !root.is_dir() {
            return Err(missing(session, &root));
        }
        let inside = repository_prefix(Path::new(workspace_path));
        Ok(root.join(inside))
    }

    /// The session's worktree, or why there is none.
    pub(crate) async fn tree(&self, session: &Session) -> Result<Tree> {
        let (Some(root), Some(branch), Some(base)) =
            (&session.worktree, &session.branch, &session.base_branch)
        else {
            return Err(CoreError::InvalidInput(format!(
                "the session {:?} does not run in a worktree",
                session.title
            )));
        };
        let git = Git::checked().await?;
        let ws = self.store.get_workspace(&session.workspace_id).await?;
        let top = repository_root(&git, Path::new(&ws.path)).await?;
        Ok(Tree {
            git,
            top,
            root: PathBuf::from(root),
            branch: branch.clone(),
            base: base.clone(),
        })
    }

    /// The session's worktree for an operation on its files: an error saying what to do
    /// when the folder was deleted outside the app.
    pub(crate) async fn present_tree(&self, session_id: &SessionId) -> Result<Tree> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        if !tree.root.is_dir() {
            return Err(missing(&session, &tree.root));
        }
        Ok(tree)
    }

    /// Refused while one of the session's runs is going on.
    pub(crate) async fn refuse_if_running(&self, session_id: &SessionId, what: &str) -> Result<()> {
        if self.has_active_run(session_id).await? {
            return Err(CoreError::InvalidInput(format!(
                "this session has a run in progress: interrupt it or let it finish before {what}"
            )));
        }
        Ok(())
    }

    /// Remove the session's worktree (the conversation stays; later runs use the workspace
    /// folder). Refused while a run is active, and — unless `force` — while it holds
    /// uncommitted changes or commits the base does not have, naming them. The branch goes
    /// too when the base has all its commits; otherwise it is kept.
    pub async fn remove_worktree(
        &self,
        session_id: &SessionId,
        force: bool,
    ) -> Result<WorktreeRemoved> {
        let session = self.store.get_session(session_id).await?;
        self.refuse_if_running(session_id, "removing its worktree")
            .await?;
        let tree = self.tree(&session).await?;
        let status = review::status_of(session_id, &tree).await?;
        if !force && !status.is_clean() {
            return Err(CoreError::InvalidInput(unsaved_work(&status)));
        }
        self.remove_tree(session_id, &tree, &status).await
    }

    /// Remove a worktree whose status was read (and found clean, or forced): its folder,
    /// git's record, the branch unless it has commits the base lacks, the session's link.
    async fn remove_tree(
        &self,
        session_id: &SessionId,
        tree: &Tree,
        status: &WorktreeStatus,
    ) -> Result<WorktreeRemoved> {
        let top = &tree.top;
        if !status.missing {
            let root = tree.root.display().to_string();
            tree.git
                .run(top, &["worktree", "remove", "--force", &root])
                .await?;
        }
        tree.git.run(top, &["worktree", "prune"]).await?;
        let kept_branch = if status.commits.is_empty() {
            tree.git.run(top, &["branch", "-D", &tree.branch]).await?;
            None
        } else {
            Some(tree.branch.clone())
        };
        self.store.set_session_worktree(session_id, None).await?;
        tracing::info!(%session_id, branch = %tree.branch, kept = kept_branch.is_some(), "worktree removed");
        Ok(WorktreeRemoved {
            session: self.store.get_session(session_id).await?,
            kept_branch,
        })
    }

    /// A worktree deleted outside the app, made again from its branch (what was committed
    /// comes back; uncommitted changes went with the folder).
    pub async fn recreate_worktree(&self, session_id: &SessionId) -> Result<WorktreeStatus> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        if !tree.root.is_dir() {
            let top = &tree.top;
            tree.git.run(top, &["worktree", "prune"]).await?;
            let root = tree.root.display().to_string();
            tree.git
                .run(top, &["worktree", "add", "--quiet", &root, &tree.branch])
                .await?;
        }
        review::status_of(session_id, &tree).await
    }

    /// Stop tracking a worktree deleted outside the app: the session goes on in the
    /// workspace folder; its branch is kept.
    pub async fn forget_worktree(&self, session_id: &SessionId) -> Result<Session> {
        let session = self.store.get_session(session_id).await?;
        let tree = self.tree(&session).await?;
        if tree.root.is_dir() {
            return Err(CoreError::InvalidInput(format!(
                "the worktree {} is still there: remove it instead",
                tree.root.display()
            )));
        }
        tree.git.run(&tree.top, &["worktree", "prune"]).await?;
        self.store.set_session_worktree(session_id, None).await?;
        Ok(self.store.get_session(session_id).await?)
    }

    /// A session about to be deleted: its worktree goes with it when nothing would be lost;
    /// otherwise the deletion is refused, naming what would be.
    pub(crate) async fn remove_worktree_of_deleted(&self, session: &Session) -> Result<()> {
        if session.worktree.is_none() {
            return Ok(());
        }
        let tree = self.tree(session).await?;
        let status = review::status_of(&session.id, &tree).await?;
        if !status.is_clean() {
            return Err(CoreError::InvalidInput(format!(
                "{} Remove the worktree first (or merge it), then delete the session.",
                unsaved_work(&status)
            )));
        }
        self.remove_tree(&session.id, &tree, &status)
            .await
            .map(|_| ())
    }
}

/// The error of a run or operation on a worktree that is gone.
fn missing(session: &Session, root: &Path) -> CoreError {
    CoreError::InvalidInput(format!(
        "this session's worktree {} was deleted outside Agent Desk: recreate it from its branch {} or forget it",
        root.display(),
        session.branch.as_deref().unwrap_or("?")
    ))
}

/// The first ten files' paths, then how many more: "a.rs, b.rs and 3 more".
pub(crate) fn file_names(files: &[agentdesk_protocol::ui::ChangedFile]) -> String {
    const SHOWN: usize = 10;
    let names: Vec<&str> = files.iter().take(SHOWN).map(|f| f.path.as_str()).collect();
    match files.len().saturating_sub(SHOWN) {
        0 => names.join(", "),
        more => format!("{} and {more} more", names.join(", ")),
    }
}

/// What removing the worktree would lose, named.
fn unsaved_work(status: &WorktreeStatus) -> String {
    let mut parts = Vec::new();
    if !status.uncommitted.is_empty() {
        parts.push(format!(
            "uncommitted changes to {}",
            file_names(&status.uncommitted)
        ));
    }
    if !status.commits.is_empty() {
        let names: Vec<String> = status
            .commits
            .iter()
            .take(5)
            .map(|c| format!("{} {}", &c.sha[..c.sha.len().min(7)], c.summary))
            .collect();
        parts.push(format!(
            "{} commit(s) not in {}: {}",
            status.commits.len(),
            status.base,
            names.join("; ")
        ));
    }
    format!(
        "the worktree of branch {} holds {} (use --force / confirm to delete anyway).",
        status.branch,
        parts.join(", and ")
    )
}

/// The repository's top folder for a workspace folder, or why it is not in one.
async fn repository_root(git: &Git, dir: &Path) -> Result<PathBuf> {
    let out = git.output(dir, &["rev-parse", "--show-toplevel"]).await?;
    if !out.ok() {
        return Err(CoreError::InvalidInput(
            if out.stderr.contains("not a git repository") {
                format!(
                    "{} is not a git repository (run `git init` there to use worktrees)",
                    dir.display()
                )
            } else {
                format!(
                    "{} cannot be read as a git repository: {}",
                    dir.display(),
                    out.stderr
                )
            },
        ));
    }
    let top = out.text();
    if top.is_empty() {
        return Err(CoreError::InvalidInput(format!(
            "{} is inside a bare repository or a .git folder",
            dir.display()
        )));
    }
    Ok(PathBuf::from(top))
}

/// Where the workspace folder sits inside its repository (`""` at the top): a workspace
/// that is a subfolder of a repository runs there in the worktree too.
fn repository_prefix(workspace: &Path) -> PathBuf {
    for dir in workspace.ancestors() {
        if dir.join(".git").exists() {
            return workspace
                .strip_prefix(dir)
                .map(Path::to_path_buf)
                .unwrap_or_default();
        }
    }
    PathBuf::new()
}

async fn current_branch(git: &Git, top: &Path) -> Result<Option<String>> {
    let out = git
        .output(top, &["symbolic-ref", "--short", "-q", "HEAD"])
        .await?;
    Ok(out.ok().then(|| out.text()).filter(|b| !b.is_empty()))
}

async fn branch_exists(git: &Git, top: &Path, name: &str) -> Result<bool> {
    let out = git
        .output(
            top,
            &[
                "show-ref",
                "--verify",
                "--quiet",
                &format!("refs/heads/{name}"),
            ],
        )
        .await?;
    Ok(out.ok())
}

/// `agentdesk/<title>-<id>`, with `-2`, `-3`… when a branch of that name exists already.
async fn free_branch_name(git: &Git, top: &Path, title: &str, id: &SessionId) -> Result<String> {
    let title = slug(title, BRANCH_TITLE_CHARS);
    let short: String = id
        .as_str()
        .chars()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let stem = if title.is_empty() {
        format!("agentdesk/session-{short}")
    } else {
        format!("agentdesk/{title}-{short}")
    };
    for n in 1..100 {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        if !branch_exists(git, top, &name).await? {
            return Ok(name);
        }
    }
    Err(CoreError::InvalidInput(format!(
        "branches {stem} to {stem}-99 all exist"
    )))
}

/// The last 8 characters of a session id (uuid v7: the random end, not the time).
fn short_id(id: &SessionId) -> &str {
    let s = id.as_str();
    &s[s.len().saturating_sub(8)..]
}

/// The branch of a session made before it had a title.
fn untitled_branch(id: &SessionId) -> String {
    format!("agentdesk/session-{}", short_id(id))
}

/// Lower-case ASCII letters and digits joined by single dashes, at most `max` characters.
pub(crate) fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= max {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

fn short_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// Take back a worktree that failed half way (a full disk mid-checkout): git's record, the
/// folder and the branch made for it.
async fn undo_add(git: &Git, top: &Path, folder: &Path, branch: &str) {
    let folder_s = folder.display().to_string();
    let _ = git
        .output(top, &["worktree", "remove", "--force", &folder_s])
        .await;
    if folder.exists() {
        if let Err(e) = tokio::fs::remove_dir_all(folder).await {
            tracing::warn!(folder = %folder_s, error = %e, "half-made worktree not removed");
        }
    }
    let _ = git.output(top, &["worktree", "prune"]).await;
    let _ = git.output(top, &["branch", "-D", branch]).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_branch_safe() {
        assert_eq!(slug("Fix the login bug!", 32), "fix-the-login-bug");
        assert_eq!(slug("  ../héllo  wörld..", 32), "h-llo-w-rld");
        assert_eq!(slug("a".repeat(50).as_str(), 32).len(), 32);
        assert_eq!(slug("???", 32), "");
    }
}

#[cfg(test)]
mod worktree_tests;
