//! The folders an ACP agent may read and write through `fs/read_text_file` and
//! `fs/write_text_file` without asking: the run's workspace and the profile's extra folders,
//! compared by where a path *really* points. Like the core's approval rules
//! (`agentdesk-core/src/approval_rules/paths.rs`), a path is walked component by component,
//! every existing prefix canonicalised (symlinks followed) and the part that does not exist
//! yet appended as written; a `..` whose meaning depends on who resolves it, a dangling
//! symlink or anything else that cannot be told counts as outside (then the user is asked).

use std::path::{Path, PathBuf};

use agentdesk_protocol::events::FileChangeKind;

use crate::claude::unified_diff;

/// The resolved roots of one run.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    cwd: PathBuf,
    roots: Vec<PathBuf>,
}

impl Workspace {
    /// `cwd` and `extra` resolved; a folder that cannot be resolved is left out (paths under
    /// it then ask).
    pub fn new(cwd: &Path, extra: &[PathBuf]) -> Self {
        let roots = std::iter::once(cwd)
            .chain(extra.iter().map(PathBuf::as_path))
            .filter_map(|d| resolve(d, Path::new("/")))
            .collect();
        Self {
            cwd: cwd.to_path_buf(),
            roots,
        }
    }

    /// Where `path` really points when that lies inside a root; `None` when it is outside
    /// or cannot be told.
    pub fn inside(&self, path: &str) -> Option<PathBuf> {
        let real = resolve(Path::new(path), &self.cwd)?;
        self.roots
            .iter()
            .any(|r| real.starts_with(r))
            .then_some(real)
    }
}

pub use crate::real_path::resolve;

/// `fs/read_text_file`'s answer: the text from 1-based `line`, at most `limit` lines.
pub fn slice_lines(text: &str, line: Option<u32>, limit: Option<u32>) -> String {
    if line.is_none() && limit.is_none() {
        return text.to_owned();
    }
    let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
    let take = limit.map_or(usize::MAX, |l| l as usize);
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

/// Read a text file for the agent. A missing file reads as empty: Gemini CLI cannot create a
/// file when the read before the write fails (it checks `instanceof Error` on the error).
pub async fn read_text(
    real: &Path,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, String> {
    match tokio::fs::read(real).await {
        Ok(bytes) => String::from_utf8(bytes)
            .map(|t| slice_lines(&t, line, limit))
            .map_err(|_| format!("{} is not a UTF-8 text file", real.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("cannot read {}: {e}", real.display())),
    }
}

/// Write a text file for the agent, creating its missing parent folders.
pub async fn write_text(real: &Path, content: &str) -> Result<(), String> {
    if let Some(parent) = real.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    tokio::fs::write(real, content)
        .await
        .map_err(|e| format!("cannot write {}: {e}", real.display()))
}

/// The change a write would make, for an approval card: (kind, unified diff).
pub async fn planned_write(path: &Path, content: &str) -> (FileChangeKind, String) {
    let before = tokio::fs::read_to_string(path).await.ok();
    let kind = if before.is_some() {
        FileChangeKind::Update
    } else {
        FileChangeKind::Add
    };
    let shown = path.to_string_lossy();
    (kind, unified_diff(before.as_deref(), content, &shown))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn inside_means_really_inside() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        let extra = tmp.path().join("extra");
        let outside = tmp.path().join("outside");
        for d in [&ws, &extra, &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        let w = Workspace::new(&ws, std::slice::from_ref(&extra));
        let p = |rel: &Path| rel.to_string_lossy().into_owned();
        assert!(w.inside(&p(&ws.join("new/dir/file.txt"))).is_some());
        assert!(w.inside("relative.txt").is_some());
        assert!(w.inside(&p(&extra.join("a.txt"))).is_some());
        assert!(w.inside(&p(&outside.join("a.txt"))).is_none());
        assert!(w.inside(&p(&ws.join("../outside/a.txt"))).is_none());
        assert!(w.inside("~/a.txt").is_none());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, ws.join("link")).unwrap();
            assert!(w.inside(&p(&ws.join("link/a.txt"))).is_none());
            std::os::unix::fs::symlink(outside.join("missing"), ws.join("dangling")).unwrap();
            assert!(w.inside(&p(&ws.join("dangling"))).is_none());
        }
    }

    #[test]
    fn line_and_limit_are_honoured() {
        let t = "a\nb\nc\nd";
        assert_eq!(slice_lines(t, None, None), t);
        assert_eq!(slice_lines(t, Some(2), Some(2)), "b\nc\n");
        assert_eq!(slice_lines(t, Some(3), None), "c\nd");
        assert_eq!(slice_lines(t, None, Some(1)), "a\n");
        assert_eq!(slice_lines(t, Some(9), None), "");
    }

    #[tokio::test]
    async fn missing_files_read_empty_and_writes_create_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("a/b/c.txt");
        assert_eq!(read_text(&f, None, None).await.unwrap(), "");
        write_text(&f, "hi\n").await.unwrap();
        assert_eq!(read_text(&f, None, None).await.unwrap(), "hi\n");
        let (kind, diff) = planned_write(&f, "hello\n").await;
        assert_eq!(kind, FileChangeKind::Update);
        assert!(diff.contains("+hello"), "{diff}");
    }
}
