//! Attachments that arrive as bytes (an image pasted from the clipboard) and blobs read
//! back for thumbnails.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentdesk_protocol::ui::Attachment;

use crate::{CoreError, Desk, Result};

/// Largest paste taken; the import's own limits apply too.
const MAX_PASTE: usize = 100 * 1024 * 1024;

/// A file name that cannot climb out of a folder or hide: its last component, no control
/// characters, not empty.
fn safe_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = last
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .trim_start_matches('.')
        .to_string();
    if clean.is_empty() {
        "pasted".to_string()
    } else {
        clean
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

impl Desk {
    /// Import bytes the user pasted, under the name they came with.
    pub async fn import_attachment_bytes(&self, name: &str, bytes: &[u8]) -> Result<Attachment> {
        if bytes.is_empty() {
            return Err(CoreError::Attachment("the pasted data is empty".into()));
        }
        if bytes.len() > MAX_PASTE {
            return Err(CoreError::Attachment(format!(
                "the pasted data is {} MB; attachments can be at most {} MB",
                bytes.len() / (1024 * 1024),
                MAX_PASTE / (1024 * 1024)
            )));
        }
        let dir = self
            .data_dir()
            .join("tmp")
            .join(uuid::Uuid::now_v7().to_string());
        let path = dir.join(safe_name(name));
        let data = bytes.to_vec();
        let staged = path.clone();
        tokio::task::spawn_blocking(move || write_private(&staged, &data))
            .await
            .map_err(|e| CoreError::Internal(format!("writing the paste stopped: {e}")))?
            .map_err(|source| CoreError::Io {
                what: format!("cannot stage the pasted file in {}", dir.display()),
                source,
            })?;
        let imported = self.import_attachment(&path).await;
        let _ = tokio::fs::remove_dir_all(&dir).await;
        imported
    }

    /// The bytes of a stored attachment (thumbnails in the window).
    pub async fn read_attachment(&self, sha256: &str) -> Result<Vec<u8>> {
        if !is_sha256(sha256) {
            return Err(CoreError::InvalidInput(format!(
                "{sha256:?} is not an attachment id"
            )));
        }
        // Only what the store recorded as imported: not any file that happens to sit in the
        // folder under a hash-like name (a leftover, something planted there).
        self.store.get_blob(sha256).await?;
        let path: PathBuf = self.attachments_dir().join(sha256);
        tokio::fs::read(&path)
            .await
            .map_err(|source| CoreError::Io {
                what: format!("cannot read the attachment {}", path.display()),
                source,
            })
    }
}

fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(data)?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn pasted_names_cannot_escape_or_hide() {
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("a\\b\\shot.png"), "shot.png");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("x\u{1b}[2Ky.png"), "x[2Ky.png");
        assert_eq!(safe_name(""), "pasted");
        assert_eq!(safe_name(".."), "pasted");
    }

    #[tokio::test]
    async fn a_paste_is_imported_under_its_name_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Desk::open(dir.path()).await.unwrap();
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRsomething";
        let a = desk
            .import_attachment_bytes("clip/shot.png", png)
            .await
            .unwrap();
        assert_eq!(a.name, "shot.png");
        assert_eq!(a.mime, "image/png");
        assert_eq!(desk.read_attachment(&a.sha256).await.unwrap(), png);
        assert!(desk.read_attachment("../agentdesk.db").await.is_err());
        // A hash-named file the store never recorded is not served.
        let planted = "ab".repeat(32);
        std::fs::write(desk.attachments_dir().join(&planted), b"planted").unwrap();
        let err = desk.read_attachment(&planted).await.unwrap_err();
        assert_eq!(
            err.code(),
            agentdesk_protocol::ui::ErrorCode::NotFound,
            "{err}"
        );
        assert!(desk.import_attachment_bytes("x.png", b"").await.is_err());
        // Nothing staged is left behind.
        let tmp = dir.path().join("tmp");
        assert!(!tmp.exists() || std::fs::read_dir(&tmp).unwrap().next().is_none());
    }
}
