#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::{ErrorCode, ProfileSpec};

use super::*;
use crate::sessions::NewSession;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

#[test]
fn sniffs_from_bytes_not_names() {
    assert_eq!(sniff(PNG), Sniffed::Png);
    assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Sniffed::Jpeg);
    assert_eq!(sniff(b"GIF89a...."), Sniffed::Gif);
    assert_eq!(sniff(b"RIFF\x10\0\0\0WEBPVP8 "), Sniffed::Webp);
    assert_eq!(sniff(b"%PDF-1.7\n"), Sniffed::Pdf);
    assert_eq!(sniff("fn main() {} // é".as_bytes()), Sniffed::Text);
    // A multi-byte character cut by the end of the head is still text.
    assert_eq!(sniff(&"é".as_bytes()[..1]), Sniffed::Text);
    assert_eq!(sniff(b"\x7fELF\x02\x01\x01\0"), Sniffed::Binary);
    assert_eq!(Sniffed::Png.kind(), AttachmentKind::Image);
    assert_eq!(Sniffed::Pdf.kind(), AttachmentKind::File);
}

#[test]
fn limits_are_checked_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("attachments");
    // A sparse 2 GB file: refused from its metadata, so the test never reads 2 GB.
    let huge = dir.path().join("huge.bin");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(2 * 1024 * 1024 * 1024).unwrap();
    let err = store_blob(&store, &huge, &AttachmentLimits::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("is 2.0 GB; attachments can be at most 100.0 MB"),
        "{err}"
    );
    assert!(!store.exists(), "nothing was written");

    let limits = AttachmentLimits {
        image: 10,
        ..AttachmentLimits::default()
    };
    let img = dir.path().join("photo.txt");
    std::fs::write(&img, [PNG, &[0u8; 20]].concat()).unwrap();
    let err = store_blob(&store, &img, &limits).unwrap_err();
    assert!(err.to_string().contains("images can be at most"), "{err}");
    let err = store_blob(&store, dir.path(), &limits).unwrap_err();
    assert!(err.to_string().contains("is not a file"), "{err}");
    let err = store_blob(&store, &dir.path().join("missing"), &limits).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
}

#[tokio::test]
async fn content_addressed_dedup_and_removal_with_the_session() {
    let (desk, ws, dirs) = crate::test_desk::desk_with_workspace().await;
    let spec: ProfileSpec =
        serde_json::from_value(serde_json::json!({"name": "p", "engine": "codex"})).unwrap();
    desk.create_profile(&ws.id, &spec).await.unwrap();

    let a = dirs.folder.path().join("shot.dat");
    let b = dirs.folder.path().join("copy-of-shot.bin");
    let notes = dirs.folder.path().join("notes.md");
    std::fs::write(&a, [PNG, b"pixels"].concat()).unwrap();
    std::fs::copy(&a, &b).unwrap();
    std::fs::write(&notes, "# notes\n").unwrap();
    let ia = desk.import_attachment(&a).await.unwrap();
    let ib = desk.import_attachment(&b).await.unwrap();
    let inotes = desk.import_attachment(&notes).await.unwrap();
    assert_eq!(ia.sha256, ib.sha256, "same bytes, one blob");
    assert_eq!(
        (ia.mime.as_str(), ia.kind),
        ("image/png", AttachmentKind::Image)
    );
    assert_eq!(
        (ib.name.as_str(), inotes.mime.as_str()),
        ("copy-of-shot.bin", "text/plain")
    );
    assert_eq!(std::fs::read(&ia.path).unwrap(), std::fs::read(&a).unwrap());
    let files = || std::fs::read_dir(desk.attachments_dir()).unwrap().count();
    assert_eq!(files(), 2, "no temporary file left behind");

    let s1 = desk
        .create_session(&NewSession::new(ws.id.clone()))
        .await
        .unwrap();
    let s2 = desk
        .create_session(&NewSession::new(ws.id.clone()))
        .await
        .unwrap();
    let r1 = desk
        .create_run(
            &s1.id,
            "look",
            &[
                (ia.sha256.clone(), ia.name.clone()),
                (inotes.sha256.clone(), inotes.name.clone()),
            ],
        )
        .await
        .unwrap();
    desk.create_run(&s2.id, "again", &[(ib.sha256.clone(), ib.name.clone())])
        .await
        .unwrap();
    let listed = desk.run_attachments(&r1.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|a| &*a.name).collect::<Vec<_>>(),
        ["shot.dat", "notes.md"]
    );

    let active = desk.delete_session(&s1.id).await.unwrap_err();
    assert_eq!(
        active.code(),
        ErrorCode::InvalidInput,
        "a running run blocks deletion"
    );
    for r in desk
        .list_runs(&s1.id)
        .await
        .unwrap()
        .into_iter()
        .chain(desk.list_runs(&s2.id).await.unwrap())
    {
        desk.store
            .finish_run(
                &r.id,
                &agentdesk_store::RunEnd {
                    status: agentdesk_protocol::ui::RunStatus::Completed,
                    stop_reason: None,
                    error: None,
                    at: 1,
                },
            )
            .await
            .unwrap();
    }
    desk.delete_session(&s1.id).await.unwrap();
    // The image is still used by s2; the notes were only s1's.
    assert!(std::path::Path::new(&ia.path).exists());
    assert!(!std::path::Path::new(&inotes.path).exists());
    desk.delete_session(&s2.id).await.unwrap();
    assert_eq!(files(), 0);
    let gone = desk
        .create_run(
            &desk
                .create_session(&NewSession::new(ws.id.clone()))
                .await
                .unwrap()
                .id,
            "x",
            &[(ia.sha256.clone(), "x".into())],
        )
        .await
        .unwrap_err();
    assert_eq!(gone.code(), ErrorCode::NotFound);
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn blobs_are_private_and_loose_ones_are_tightened_at_open() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let desk = Desk::open(data.path()).await.unwrap();
    let src = folder.path().join("notes.md");
    std::fs::write(&src, "# notes\n").unwrap();
    std::fs::set_permissions(&src, std::fs::Permissions::from_mode(0o644)).unwrap();
    let a = desk.import_attachment(&src).await.unwrap();
    assert_eq!(mode(&desk.attachments_dir()), 0o700);
    assert_eq!(mode(std::path::Path::new(&a.path)), 0o600);

    // What an older build left readable, and a logs folder the shell created: tightened the
    // next time the data folder is opened.
    std::fs::set_permissions(&a.path, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(
        desk.attachments_dir(),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let logs = crate::paths::log_dir(data.path());
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::set_permissions(&logs, std::fs::Permissions::from_mode(0o755)).unwrap();
    desk.close().await;
    let desk = Desk::open(data.path()).await.unwrap();
    assert_eq!(mode(std::path::Path::new(&a.path)), 0o600);
    assert_eq!(mode(&desk.attachments_dir()), 0o700);
    assert_eq!(mode(&logs), 0o700);
    assert_eq!(mode(data.path()), 0o700);
    desk.close().await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_is_refused_naming_its_target() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let desk = Desk::open(data.path()).await.unwrap();
    let secret = folder.path().join("id_rsa");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    let link = folder.path().join("screenshot.png");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let err = desk.import_attachment(&link).await.unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&link.display().to_string()), "{msg}");
    assert!(msg.contains(&secret.display().to_string()), "{msg}");
    assert!(msg.contains("symbolic link"), "{msg}");
    let stored = std::fs::read_dir(desk.attachments_dir())
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0, "nothing was imported");
    desk.close().await;
}
