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

/// Kernel files are refused even though they look like small regular files:
/// `/proc/self/environ` is "0 bytes" and holds the app's whole environment.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn kernel_files_are_never_imported() {
    let data = tempfile::tempdir().unwrap();
    let desk = Desk::open(data.path()).await.unwrap();
    for path in ["/proc/self/environ", "/proc/self/status", "/dev/null"] {
        let err = desk
            .import_attachment(std::path::Path::new(path))
            .await
            .expect_err(path);
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{path}: {err}");
    }
    let msg = desk
        .import_attachment(std::path::Path::new("/proc/self/environ"))
        .await
        .unwrap_err()
        .to_string();
    assert!(msg.contains("system file"), "{msg}");
    if std::path::Path::new("/sys/kernel/uevent_seqnum").exists() {
        let err = desk
            .import_attachment(std::path::Path::new("/sys/kernel/uevent_seqnum"))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("system file"), "{err}");
    }
    let stored = std::fs::read_dir(desk.attachments_dir())
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0, "nothing was imported");
    desk.close().await;
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Swap two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`); false where unsupported.
#[cfg(unix)]
fn exchange(a: &std::path::Path, b: &std::path::Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::CString::new(a.as_os_str().as_bytes()).unwrap();
        let b = std::ffi::CString::new(b.as_os_str().as_bytes()).unwrap();
        // SAFETY: valid NUL-terminated paths, relative to nothing (absolute).
        unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            ) == 0
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        false
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.png");
    mkfifo(&fifo);
    let started = std::time::Instant::now();
    let err = store_blob(
        &dir.path().join("attachments"),
        &fifo,
        &AttachmentLimits::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("is not a file"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

/// A file swapped for a FIFO between the type check and the open: the import fails at once
/// (it never waits for a writer) and leaves the attachments lock free. A thread keeps
/// swapping the path between a regular file and a FIFO while imports run, so some imports
/// check one and open the other. The code before the fix hung here (its open blocks); the
/// runtime is shut down in the background so a hung import fails the test instead of
/// hanging it too.
#[cfg(unix)]
#[test]
fn a_fifo_swapped_in_after_the_check_fails_promptly_and_frees_the_lock() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let target = folder.path().join("notes.txt");
    std::fs::write(&target, "notes\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let dir = folder.path().to_path_buf();
        let target = target.clone();
        std::thread::spawn(move || {
            let fifo = dir.join("fifo.tmp");
            mkfifo(&fifo);
            // One atomic exchange per turn (a few microseconds): the path flips between the
            // file and the FIFO fast enough that many imports see both.
            while !stop.load(Ordering::Relaxed) {
                if !exchange(&fifo, &target) {
                    break;
                }
            }
            // Where the exchange is not supported: replace one with the other by renames.
            let file = dir.join("file.tmp");
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&file, "notes\n").unwrap();
                std::fs::rename(&file, &target).unwrap();
                let _ = std::fs::remove_file(&fifo);
                mkfifo(&fifo);
                std::fs::rename(&fifo, &target).unwrap();
            }
        })
    };
    let outcome = rt.block_on(async {
        let desk = Desk::open(data.path()).await.unwrap();
        let raced = tokio::time::timeout(Duration::from_secs(20), async {
            let started = Instant::now();
            let mut n = 0;
            while n < 300 && started.elapsed() < Duration::from_secs(3) {
                let _ = desk.import_attachment(&target).await;
                n += 1;
            }
            n
        })
        .await;
        stop.store(true, Ordering::Relaxed);
        let other = folder.path().join("other.md");
        std::fs::write(&other, "# other\n").unwrap();
        let after = tokio::time::timeout(Duration::from_secs(5), desk.import_attachment(&other))
            .await
            .map(|r| r.map(|a| a.name));
        (raced, after)
    });
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    // Never wait for a hung import's thread.
    rt.shutdown_background();
    let (raced, after) = outcome;
    assert!(raced.is_ok(), "an import hung on a FIFO swapped in");
    assert_eq!(
        after.expect("the attachments lock was still held").unwrap(),
        "other.md"
    );
}

#[test]
fn offered_files_import_once_by_token() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shot.png");
    std::fs::write(&file, PNG).unwrap();
    let grants = AttachmentGrants::default();
    let offered = grants.offer([file.clone(), dir.path().join("missing.txt")]);
    assert_eq!(offered.len(), 2);
    assert_eq!(offered[0].name, "shot.png");
    assert_eq!(offered[0].size, Some(PNG.len() as u64));
    assert_eq!(offered[1].size, None);
    assert_ne!(offered[0].token, offered[1].token);
    assert!(
        !offered[0].token.contains("shot"),
        "a token says nothing of the path"
    );
    assert_eq!(grants.take(&offered[0].token).unwrap(), file);
    let again = grants.take(&offered[0].token).unwrap_err();
    assert_eq!(again.code(), ErrorCode::InvalidInput);
    // A path is not a token.
    assert!(grants.take(&file.display().to_string()).is_err());
    assert!(grants.take("").is_err());

    let expired = AttachmentGrants::with_ttl(std::time::Duration::ZERO);
    let o = expired.offer([file.clone()]);
    assert!(expired.take(&o[0].token).is_err(), "an expired offer");
}

#[tokio::test]
async fn an_offered_token_imports_the_file_and_only_it() {
    let data = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let desk = Desk::open(data.path()).await.unwrap();
    let grants = AttachmentGrants::default();
    let file = folder.path().join("notes.md");
    std::fs::write(&file, "# notes\n").unwrap();
    let offered = grants.offer([file]);
    let a = desk
        .import_offered(&grants, &offered[0].token)
        .await
        .unwrap();
    assert_eq!(a.name, "notes.md");
    assert!(desk
        .import_offered(&grants, &offered[0].token)
        .await
        .is_err());
    assert!(desk
        .import_offered(&grants, "/proc/self/environ")
        .await
        .is_err());
    // Even offered (a drop of a kernel file), a kernel file is refused.
    #[cfg(target_os = "linux")]
    {
        let o = grants.offer([std::path::PathBuf::from("/proc/self/environ")]);
        let err = desk.import_offered(&grants, &o[0].token).await.unwrap_err();
        assert!(err.to_string().contains("system file"), "{err}");
    }
    desk.close().await;
}
