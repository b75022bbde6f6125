//! The set-up most core tests start from: a `Desk` on a fresh data dir with one workspace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::Workspace;

use crate::Desk;

/// The temporary folders behind a test desk: kept alive as long as it is used.
pub(crate) struct Dirs {
    /// The workspace's folder.
    pub folder: tempfile::TempDir,
    /// The data dir.
    pub data: tempfile::TempDir,
}

pub(crate) async fn desk_with_workspace() -> (Desk, Workspace, Dirs) {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let desk = Desk::open(data.path()).await.unwrap();
    let ws = desk
        .add_workspace(folder.path().to_str().unwrap(), None)
        .await
        .unwrap();
    (desk, ws, Dirs { folder, data })
}
