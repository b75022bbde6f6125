//! Remote workspaces: what the window shows while choosing a folder on an SSH host.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The folders inside one folder of a host ("Add remote workspace…"'s browser).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoteFolders {
    /// `[user@]host[:port]`.
    pub host: String,
    /// The folder listed, resolved on the host (the home folder when none was given).
    pub path: String,
    /// Its parent (`None` at `/`).
    pub parent: Option<String>,
    /// The names of the folders in it (hidden ones too), sorted; links are left out.
    pub folders: Vec<String>,
    /// Only the first folders are listed.
    pub truncated: bool,
    /// The folder is in a git repository (on the host's `git`).
    pub repository: bool,
}
