//! Workspaces: folders the user works in.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::ui::Workspace;

use crate::{CoreError, Desk, Result};

impl Desk {
    pub async fn list_workspaces(&self) -> Result<Vec<Workspace>> {
        Ok(self.store.list_workspaces().await?)
    }

    /// Add a folder as a workspace. The path must exist and be a directory; it is stored in
    /// canonical form so the same folder cannot be added twice under two spellings — on
    /// Windows the plain one (`C:\work`, not `\\?\C:\work`: it becomes the engines' cwd,
    /// which `cmd.exe` refuses in the verbatim form).
    ///
    /// `[user@]host[:port]:/path` or `ssh://[user@]host[:port]/path` is a folder on an SSH
    /// host: checked there (reachable, the folder exists) and resolved there.
    pub async fn add_workspace(&self, path: &str, name: Option<&str>) -> Result<Workspace> {
        if let Some(loc) = SshLocation::parse_any(path) {
            let loc = loc.map_err(CoreError::InvalidInput)?;
            return self.add_remote_workspace(loc, name).await;
        }
        let path = validate_folder(path)?;
        let path_str = path
            .to_str()
            .ok_or_else(|| {
                CoreError::InvalidInput(format!("the path {} is not valid UTF-8", path.display()))
            })?
            .to_string();
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => n.to_string(),
            None => default_name(&path),
        };
        let ws = Workspace {
            id: WorkspaceId::new(),
            name,
            path: path_str,
            host: None,
            created_at: agentdesk_store::now_ms(),
        };
        self.store.insert_workspace(&ws).await?;
        tracing::info!(id = %ws.id, path = %ws.path, "workspace added");
        Ok(ws)
    }

    pub async fn remove_workspace(&self, id: &WorkspaceId) -> Result<()> {
        self.store.delete_workspace(id).await?;
        tracing::info!(%id, "workspace removed");
        Ok(())
    }
}

fn validate_folder(raw: &str) -> Result<PathBuf> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(CoreError::InvalidInput("enter the path of a folder".into()));
    }
    let expanded = expand_home(trimmed);
    if !expanded.is_absolute() {
        return Err(CoreError::InvalidInput(format!(
            "{trimmed} is not an absolute path; enter the full path of the folder"
        )));
    }
    let meta = std::fs::metadata(&expanded).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CoreError::InvalidInput(format!("{trimmed} does not exist"))
        } else {
            CoreError::InvalidInput(format!("cannot read {trimmed}: {e}"))
        }
    })?;
    if !meta.is_dir() {
        return Err(CoreError::InvalidInput(format!(
            "{trimmed} is not a folder"
        )));
    }
    let path = agentdesk_store::canonical::canonicalize(&expanded)
        .map_err(|e| CoreError::InvalidInput(format!("cannot resolve {trimmed}: {e}")))?;
    refuse_too_wide(&path, trimmed)?;
    Ok(path)
}

/// The file-system root or the home folder is no project: "inside the workspace" would then
/// cover every file the user has (keys, shell start-up files), so it is refused.
fn refuse_too_wide(path: &Path, shown: &str) -> Result<()> {
    if path.parent().is_none() {
        return Err(CoreError::InvalidInput(format!(
            "{shown} is the root of the file system; choose a project folder (an agent working there could read and change every file)"
        )));
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .and_then(|h| agentdesk_store::canonical::canonicalize(h).ok());
    if home.as_deref() == Some(path) {
        return Err(CoreError::InvalidInput(format!(
            "{shown} is your home folder; choose a project folder inside it (an agent working there could read your keys and change your shell settings)"
        )));
    }
    Ok(())
}

fn expand_home(p: &str) -> PathBuf {
    if let Some(rest) = p
        .strip_prefix("~/")
        .or(if p == "~" { Some("") } else { None })
    {
        if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
            return PathBuf::from(home).join(rest);
        }
    }
    PathBuf::from(p)
}

fn default_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use agentdesk_protocol::ui::ErrorCode;

    use crate::Desk;

    #[tokio::test]
    async fn add_list_remove() {
        let data = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        let desk = Desk::open(data.path()).await.unwrap();
        let w = desk
            .add_workspace(folder.path().to_str().unwrap(), None)
            .await
            .unwrap();
        let canonical = agentdesk_store::canonical::canonicalize(folder.path()).unwrap();
        assert_eq!(w.path, canonical.to_str().unwrap());
        assert_eq!(w.name, canonical.file_name().unwrap().to_str().unwrap());
        assert_eq!(desk.list_workspaces().await.unwrap(), vec![w.clone()]);

        // The same folder spelled differently is still the same folder.
        let spelled = format!("{}/./", folder.path().display());
        let err = desk
            .add_workspace(&spelled, Some("again"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Conflict);

        desk.remove_workspace(&w.id).await.unwrap();
        assert!(desk.list_workspaces().await.unwrap().is_empty());
        assert_eq!(
            desk.remove_workspace(&w.id).await.unwrap_err().code(),
            ErrorCode::NotFound
        );
    }

    #[tokio::test]
    async fn rejects_bad_paths_with_clear_messages() {
        let data = tempfile::tempdir().unwrap();
        let desk = Desk::open(data.path()).await.unwrap();
        let file = data.path().join("plain.txt");
        std::fs::write(&file, "x").unwrap();
        let cases = [
            (String::new(), "enter the path"),
            ("relative/dir".to_string(), "not an absolute path"),
            (
                data.path().join("missing").display().to_string(),
                "does not exist",
            ),
            (file.display().to_string(), "is not a folder"),
        ];
        for (input, expected) in cases {
            let err = desk.add_workspace(&input, None).await.unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{input}");
            assert!(err.to_string().contains(expected), "{input}: {err}");
        }
        assert!(desk.list_workspaces().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn refuses_the_root_and_the_home_folder() {
        let data = tempfile::tempdir().unwrap();
        let desk = Desk::open(data.path()).await.unwrap();
        // `/`, or `C:\` on Windows (where `/` is not an absolute path). Resolved first: on
        // macOS `/tmp` and `/var` are symlinks into `/private`, so `/tmp/..` is `/private`.
        let tmp = agentdesk_store::canonical::canonicalize(std::env::temp_dir()).unwrap();
        let root = tmp.ancestors().last().unwrap();
        let err = desk
            .add_workspace(root.to_str().unwrap(), None)
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(err.to_string().contains("root of the file system"), "{err}");
        // Spelled another way (`/tmp/..`, `C:\Users\..`), it is still the root.
        let top = tmp.ancestors().find(|a| a.parent() == Some(root)).unwrap();
        let spelled = top.join("..");
        let err = desk
            .add_workspace(spelled.to_str().unwrap(), None)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("root of the file system"), "{err}");
        if let Some(home) = std::env::var_os("HOME").filter(|h| std::path::Path::new(h).is_dir()) {
            let home = home.to_str().unwrap().to_string();
            for spelled in [home.as_str(), "~", "~/"] {
                let err = desk.add_workspace(spelled, None).await.unwrap_err();
                assert_eq!(err.code(), ErrorCode::InvalidInput, "{spelled}");
                assert!(err.to_string().contains("home folder"), "{spelled}: {err}");
            }
        }
        assert!(desk.list_workspaces().await.unwrap().is_empty());
        // A folder inside home is fine.
        let inside = tempfile::tempdir().unwrap();
        desk.add_workspace(inside.path().to_str().unwrap(), None)
            .await
            .unwrap();
    }
}
