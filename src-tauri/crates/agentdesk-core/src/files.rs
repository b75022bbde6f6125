//! `@`-mentions (issue 24): the files of a session's folder (its worktree when it has one),
//! listed as git sees them (`.gitignore`, `.git/info/exclude` and the global excludes
//! respected, hidden files left out) and fuzzy-matched as editors' file pickers do; and the
//! mentions a message makes, read back from its text (`@path`, `@"path with spaces"`).
//!
//! A folder's list is kept a few seconds, so typing a name walks the tree once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentdesk_protocol::ids::SessionId;
use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::sync::lock;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

use crate::{CoreError, Desk, Result};

/// Files listed at most (a monorepo's picker still answers; the rest is not offered).
const MAX_FILES: usize = 200_000;
/// How long a folder's list is reused.
const FRESH: Duration = Duration::from_secs(5);
/// Answers at most.
pub const MAX_MATCHES: usize = 50;

/// A folder's files and when they were listed.
type Listed = (Instant, Arc<Vec<String>>);

/// The recent lists, by folder.
#[derive(Debug, Default)]
pub(crate) struct FileLists {
    lists: Mutex<HashMap<PathBuf, Listed>>,
}

impl Desk {
    /// The files of `session_id`'s folder best matching `query` (all of them, shortest
    /// paths first, for an empty one), as paths relative to it with `/` separators.
    pub async fn find_files(&self, session_id: &SessionId, query: &str) -> Result<Vec<String>> {
        let files = match self.session_place(session_id).await? {
            SessionPlace::Host(loc) => self.remote_file_list(&loc).await?,
            SessionPlace::Here(folder) => self.file_list(&folder).await?,
        };
        let query = query.to_owned();
        tokio::task::spawn_blocking(move || best_matches(&files, &query, MAX_MATCHES))
            .await
            .map_err(|e| CoreError::Internal(format!("the file search stopped: {e}")))
    }

    /// Where a session's agent works: its worktree or its workspace's folder here, or the
    /// folder on its workspace's host.
    pub(crate) async fn session_place(&self, session_id: &SessionId) -> Result<SessionPlace> {
        let session = self.store.get_session(session_id).await?;
        let workspace = self.store.get_workspace(&session.workspace_id).await?;
        Ok(match workspace.remote() {
            Some(loc) => SessionPlace::Host(loc),
            None => SessionPlace::Here(self.run_folder(&session, &workspace.path).await?),
        })
    }

    /// The files of a folder on a host (git's view when it is a repository, else every
    /// file but `.git`'s), listed there.
    async fn remote_file_list(&self, loc: &SshLocation) -> Result<Arc<Vec<String>>> {
        self.recent_list(PathBuf::from(loc.url()), async {
            let out = self
                .ssh_link(loc)
                .await?
                .host
                .run_script(
                    &agentdesk_engine::ssh::in_folder(
                        r#"{ git ls-files -co --exclude-standard 2>/dev/null || find . -type f ! -path '*/.git/*' | sed 's|^\./||'; } | head -n "$2""#,
                    ),
                    &[&loc.path, &MAX_FILES.to_string()],
                    None,
                    std::time::Duration::from_secs(30),
                )
                .await?;
            Ok(out.lines().map(str::to_owned).collect())
        })
        .await
    }

    async fn file_list(&self, folder: &Path) -> Result<Arc<Vec<String>>> {
        let root = folder.to_path_buf();
        self.recent_list(folder.to_path_buf(), async move {
            tokio::task::spawn_blocking(move || walk(&root))
                .await
                .map_err(|e| CoreError::Internal(format!("the file listing stopped: {e}")))
        })
        .await
    }

    /// The list kept for `key` while it is fresh, else the one `list` makes (kept).
    async fn recent_list(
        &self,
        key: PathBuf,
        list: impl std::future::Future<Output = Result<Vec<String>>>,
    ) -> Result<Arc<Vec<String>>> {
        if let Some((at, list)) = lock(&self.files.lists).get(&key) {
            if at.elapsed() < FRESH {
                return Ok(list.clone());
            }
        }
        let list = Arc::new(list.await?);
        let mut lists = lock(&self.files.lists);
        lists.retain(|_, (at, _)| at.elapsed() < FRESH);
        lists.insert(key, (Instant::now(), list.clone()));
        Ok(list)
    }
}

/// Where a session's agent works (see [`Desk::session_place`]).
pub(crate) enum SessionPlace {
    Here(PathBuf),
    Host(SshLocation),
}

/// Every file under `root` git would show (ignored and hidden ones left out), relative.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        // A folder that is not a repository still has its .gitignore honoured.
        .require_git(false)
        .follow_links(false)
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(root) {
            out.push(slashed(rel));
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out
}

fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The `limit` best matches of `query` in `files` (nucleo's path scoring: matches at the
/// start of a file name count most; smart case).
pub(crate) fn best_matches(files: &[String], query: &str, limit: usize) -> Vec<String> {
    let query = query.trim();
    if query.is_empty() {
        let mut all: Vec<&String> = files.iter().collect();
        all.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        return all.into_iter().take(limit).cloned().collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut scored = pattern.match_list(files.iter(), &mut matcher);
    // Best first; equal scores: the shorter path.
    scored.sort_by(|(a, sa), (b, sb)| sb.cmp(sa).then_with(|| a.len().cmp(&b.len())));
    scored
        .into_iter()
        .take(limit)
        .map(|(f, _)| f.clone())
        .collect()
}

/// The files a message mentions: `@path` (up to the next whitespace) or `@"path"`, relative
/// to `folder`, that are files inside it (a mention never reaches outside the folder).
/// Each once, in the order mentioned.
pub(crate) fn mentioned_files(text: &str, folder: &Path) -> Vec<(String, PathBuf)> {
    let Ok(root) = std::fs::canonicalize(folder) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for name in mention_names(text) {
        let Ok(full) = std::fs::canonicalize(root.join(&name)) else {
            continue;
        };
        if full.starts_with(&root) && full.is_file() && !out.iter().any(|(_, p)| p == &full) {
            out.push((name, full));
        }
    }
    out
}

/// The names after `@` signs that start a word.
fn mention_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(at) = rest.find('@') {
        let before = rest[..at].chars().last().or(prev);
        let after = &rest[at + 1..];
        prev = Some('@');
        rest = after;
        // An address (`me@host`) is not a mention.
        if before.is_some_and(|c| !c.is_whitespace() && !"([{\"'`".contains(c)) {
            continue;
        }
        let name = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => quoted[..end].to_owned(),
                None => continue,
            }
        } else {
            let end = after
                .find(|c: char| c.is_whitespace() || ",;:!?)]}\"'`".contains(c))
                .unwrap_or(after.len());
            after[..end].trim_end_matches('.').to_owned()
        };
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_words_starting_with_an_at_sign() {
        assert_eq!(
            mention_names("see @src/main.rs, and @\"docs/a b.md\" or mail me@host.com (@x.txt)."),
            ["src/main.rs", "docs/a b.md", "x.txt"]
        );
        assert!(mention_names("no mention@here @").is_empty());
    }

    #[test]
    fn the_best_matches_come_first() {
        let files: Vec<String> = [
            "src/main.rs",
            "src/components/Composer.tsx",
            "docs/composer-notes.md",
            "README.md",
        ]
        .map(String::from)
        .to_vec();
        let found = best_matches(&files, "compo", 10);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(!found.contains(&"README.md".to_owned()));
        // Smart case: a capital asks for that case.
        assert_eq!(
            best_matches(&files, "Compo", 10),
            ["src/components/Composer.tsx"]
        );
        assert_eq!(best_matches(&files, "mainrs", 10), ["src/main.rs"]);
        assert_eq!(best_matches(&files, "", 2), ["README.md", "src/main.rs"]);
    }

    #[test]
    fn the_listing_respects_gitignore_and_mentions_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "x").unwrap();
        std::fs::write(root.join("target/out.bin"), "x").unwrap();
        std::fs::write(root.join("debug.log"), "x").unwrap();
        std::fs::write(root.join(".env"), "SECRET=1").unwrap();
        let mut files = walk(root);
        files.sort();
        assert_eq!(files, ["src/lib.rs"]);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.txt"), "x").unwrap();
        let escape = format!(
            "@../{}/x.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        );
        let found = mentioned_files(
            &format!("read @src/lib.rs {escape} @nope.rs @src/lib.rs"),
            root,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "src/lib.rs");
    }
}
