//! Attachments: files copied into `<data dir>/attachments/<sha256>` (content-addressed, so
//! the same bytes are stored once), typed by sniffing their bytes (never the extension),
//! with a size limit per kind checked from the metadata before anything is read.
//!
//! The folder is private to the user (0700) and so is every blob (0600): attachments are
//! often screenshots and logs nobody else should read. A symbolic link is refused before
//! anything is read, naming where it points: a link dropped into the chat could otherwise
//! import `~/.ssh/id_rsa` under an innocent name. Only regular files are imported, judged on
//! the open descriptor, never kernel files (`/proc/self/environ`, anything under `/sys` or
//! `/dev`); and the window names a file only by the token a drop or the picker issued
//! ([`AttachmentGrants`]), never by a path.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentdesk_protocol::ids::RunId;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Attachment, AttachmentKind};
use agentdesk_store::{now_ms, Blob};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{CoreError, Desk, Result};

const MIB: u64 = 1024 * 1024;

/// The blobs' folder inside the data folder.
pub(crate) const DIR_NAME: &str = "attachments";

/// How long a blob imported but not yet sent with a message is safe from collection.
const IMPORT_GRACE_MS: i64 = 24 * 60 * 60 * 1000;

/// What the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    Png,
    Jpeg,
    Gif,
    Webp,
    Pdf,
    Text,
    Binary,
}

impl Sniffed {
    pub fn mime(self) -> &'static str {
        match self {
            Sniffed::Png => "image/png",
            Sniffed::Jpeg => "image/jpeg",
            Sniffed::Gif => "image/gif",
            Sniffed::Webp => "image/webp",
            Sniffed::Pdf => "application/pdf",
            Sniffed::Text => "text/plain",
            Sniffed::Binary => "application/octet-stream",
        }
    }

    pub fn kind(self) -> AttachmentKind {
        match self {
            Sniffed::Png | Sniffed::Jpeg | Sniffed::Gif | Sniffed::Webp => AttachmentKind::Image,
            _ => AttachmentKind::File,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Sniffed::Png | Sniffed::Jpeg | Sniffed::Gif | Sniffed::Webp => "images",
            Sniffed::Pdf => "PDF files",
            Sniffed::Text => "text files",
            Sniffed::Binary => "other files",
        }
    }
}

/// Bytes read to sniff the type.
const SNIFF_LEN: usize = 8192;

/// The type of a file from its first bytes.
pub fn sniff(head: &[u8]) -> Sniffed {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Sniffed::Png
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Sniffed::Jpeg
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Sniffed::Gif
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Sniffed::Webp
    } else if head.starts_with(b"%PDF-") {
        Sniffed::Pdf
    } else if looks_like_text(head) {
        Sniffed::Text
    } else {
        Sniffed::Binary
    }
}

fn looks_like_text(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // The head may end in the middle of a character.
        Err(e) => e.error_len().is_none() && head.len() - e.valid_up_to() < 4,
    }
}

/// Size limits per kind, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentLimits {
    pub image: u64,
    pub pdf: u64,
    pub text: u64,
    pub binary: u64,
}

impl Default for AttachmentLimits {
    /// Images as the model APIs take them; text an agent can still read in one go.
    fn default() -> Self {
        AttachmentLimits {
            image: 20 * MIB,
            pdf: 32 * MIB,
            text: 10 * MIB,
            binary: 100 * MIB,
        }
    }
}

impl AttachmentLimits {
    fn of(&self, s: Sniffed) -> u64 {
        match s {
            Sniffed::Png | Sniffed::Jpeg | Sniffed::Gif | Sniffed::Webp => self.image,
            Sniffed::Pdf => self.pdf,
            Sniffed::Text => self.text,
            Sniffed::Binary => self.binary,
        }
    }

    fn largest(&self) -> u64 {
        self.image.max(self.pdf).max(self.text).max(self.binary)
    }
}

fn human(bytes: u64) -> String {
    if bytes >= 1024 * MIB {
        format!("{:.1} GB", bytes as f64 / (1024.0 * MIB as f64))
    } else if bytes >= MIB {
        format!("{:.1} MB", bytes as f64 / MIB as f64)
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}

/// `ENOSPC` on Linux and macOS.
const ENOSPC: i32 = 28;

fn io(what: String) -> impl FnOnce(std::io::Error) -> CoreError {
    move |source| {
        // Said in words, like a full disk under the database: the OS text is cryptic.
        let what = if source.raw_os_error() == Some(ENOSPC) {
            format!("{what}: the disk is full; free some space and try again")
        } else {
            what
        };
        CoreError::Io { what, source }
    }
}

/// Copy `src` into `dir/<sha256>` (blocking). The file is opened without following a link
/// and without blocking (a FIFO swapped in after a check would otherwise hang the import while
/// it holds the attachments lock), then everything is checked on the *open descriptor*: a
/// regular file, not on a kernel pseudo-filesystem (`/proc`, `/sys`, `/dev`), and its size
/// (a 2 GB file is refused without reading it) against the sniffed kind's limit. The copy
/// stops if the file grows past the limit while it is read.
pub fn store_blob(dir: &Path, src: &Path, limits: &AttachmentLimits) -> Result<Blob> {
    let name = src.display().to_string();
    // Before opening: a link is named with its target, and a device or FIFO is never opened
    // at all (opening some devices has effects of its own).
    refuse_special(src)?;
    let mut file = open_no_follow(src)
        .map_err(|e| CoreError::Attachment(format!("cannot open {name}: {e}")))?;
    // The checks that count: on what was actually opened, not on what the path named a
    // moment ago.
    let meta = file
        .metadata()
        .map_err(|e| CoreError::Attachment(format!("cannot read {name}: {e}")))?;
    if !meta.is_file() {
        return Err(CoreError::Attachment(format!(
            "{name} is not a file (only regular files can be attached)"
        )));
    }
    refuse_kernel_files(&file, src)?;
    let largest = limits.largest();
    if meta.len() > largest {
        return Err(CoreError::Attachment(format!(
            "{name} is {}; attachments can be at most {}",
            human(meta.len()),
            human(largest)
        )));
    }
    let mut head = vec![0u8; SNIFF_LEN];
    let mut filled = 0;
    while filled < head.len() {
        let n = file
            .read(&mut head[filled..])
            .map_err(io(format!("reading {name}")))?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    head.truncate(filled);
    let sniffed = sniff(&head);
    let limit = limits.of(sniffed);
    if meta.len() > limit {
        return Err(CoreError::Attachment(format!(
            "{name} is {}; {} can be at most {}",
            human(meta.len()),
            sniffed.noun(),
            human(limit)
        )));
    }
    agentdesk_store::private::create_dir(dir).map_err(io(format!("creating {}", dir.display())))?;
    let tmp = dir.join(format!(".import-{}", uuid::Uuid::now_v7()));
    let result = copy_hashing(&mut file, &head, &tmp, limit, &name, sniffed);
    let (sha, size) = match result {
        Ok(v) => v,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    let dest = dir.join(&sha);
    if dest.exists() {
        // Same bytes already stored: keep the one copy.
        let _ = std::fs::remove_file(&tmp);
    } else {
        std::fs::rename(&tmp, &dest).map_err(io(format!("storing {name}")))?;
    }
    Ok(Blob {
        sha256: sha,
        mime: sniffed.mime().to_string(),
        kind: sniffed.kind(),
        size: i64::try_from(size).unwrap_or(i64::MAX),
        created_at: now_ms(),
    })
}

/// A symbolic link is not imported: the message names the link and where it points, so the
/// user can attach the target itself if that is what they meant. Anything else that is not a
/// regular file (a folder, a FIFO, a device, a socket) is refused before it is opened.
fn refuse_special(src: &Path) -> Result<()> {
    let name = src.display();
    let meta = std::fs::symlink_metadata(src)
        .map_err(|e| CoreError::Attachment(format!("cannot read {name}: {e}")))?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(src)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "an unreadable target".into());
        return Err(CoreError::Attachment(format!(
            "{name} is a symbolic link to {target}; it was not attached. Attach {target} itself if that is the file you mean"
        )));
    }
    if !meta.is_file() {
        return Err(CoreError::Attachment(format!(
            "{name} is not a file (only regular files can be attached)"
        )));
    }
    Ok(())
}

/// Open for reading without following a link swapped in after the check above, and without
/// blocking: opening a FIFO for reading waits for a writer, forever if none comes.
/// `O_NONBLOCK` changes nothing for the reads of a regular file, the only kind kept.
fn open_no_follow(src: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(src)
}

/// Folders whose "files" are the kernel's or the machine's, never a user's document:
/// `/proc/self/environ` is a regular file of size 0 that holds the app's environment.
const KERNEL_DIRS: [&str; 3] = ["/proc", "/sys", "/dev"];

fn under_kernel_dir(path: &Path) -> bool {
    KERNEL_DIRS.iter().any(|d| path.starts_with(d))
}

/// Refuse a descriptor that lives on a kernel pseudo-filesystem or under `/proc`, `/sys` or
/// `/dev`, judged from the descriptor itself (its filesystem type and the path the kernel
/// says it has), so no link, bind path or rename can dress one up as a document.
fn refuse_kernel_files(file: &std::fs::File, src: &Path) -> Result<()> {
    let name = src.display();
    let refused = || {
        CoreError::Attachment(format!(
            "{name} is a system file (under /proc, /sys or /dev); it cannot be attached"
        ))
    };
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: `statfs` is plain old data, zeroed is a valid value; `fd` is open for the
        // whole call (borrowed from `file`).
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(fd, &mut st) } == 0 {
            #[allow(clippy::unnecessary_cast)] // `f_type`'s type differs between targets
            let magic = (st.f_type as u64) & 0xffff_ffff;
            if PSEUDO_FS_MAGIC.contains(&magic) {
                return Err(refused());
            }
        }
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{fd}")) {
            if under_kernel_dir(&real) {
                return Err(refused());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        if let Ok(real) = std::fs::canonicalize(src) {
            if under_kernel_dir(&real) {
                return Err(refused());
            }
        }
    }
    Ok(())
}

/// Linux `statfs.f_type` of the kernel's pseudo-filesystems (linux/magic.h): proc, sysfs,
/// debugfs, tracefs, securityfs, cgroup, cgroup2, bpf, devpts, configfs, efivarfs, pstore.
#[cfg(target_os = "linux")]
const PSEUDO_FS_MAGIC: [u64; 12] = [
    0x9fa0,
    0x6265_6572,
    0x6462_6720,
    0x7472_6163,
    0x7363_6673,
    0x0027_e0eb,
    0x6367_7270,
    0xcafe_4a11,
    0x1cd1,
    0x6265_6570,
    0xde5e_81e4,
    0x6165_676c,
];

/// Make every file of the attachment folder private (blobs stored by builds that did not).
pub(crate) fn tighten_dir(dir: &Path) -> std::io::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    agentdesk_store::private::create_dir(dir)?;
    for entry in std::fs::read_dir(dir)? {
        agentdesk_store::private::tighten_file(&entry?.path())?;
    }
    Ok(())
}

fn copy_hashing(
    file: &mut std::fs::File,
    head: &[u8],
    tmp: &Path,
    limit: u64,
    name: &str,
    sniffed: Sniffed,
) -> Result<(String, u64)> {
    let mut out = agentdesk_store::private::create_new_file(tmp)
        .map_err(io(format!("creating {}", tmp.display())))?;
    let mut hasher = Sha256::new();
    hasher.update(head);
    out.write_all(head).map_err(io(format!("copying {name}")))?;
    let mut size = head.len() as u64;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(io(format!("reading {name}")))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > limit {
            return Err(CoreError::Attachment(format!(
                "{name} grew past {} while it was copied; {} can be at most that",
                human(limit),
                sniffed.noun()
            )));
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(io(format!("copying {name}")))?;
    }
    out.sync_all().map_err(io(format!("copying {name}")))?;
    let sha: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((sha, size))
}

/// How long a file offered by a drop or the picker can be imported, and how many offers are
/// kept at most (the oldest go first): the composer imports at once, so both are generous.
const OFFER_TTL: Duration = Duration::from_secs(10 * 60);
const MAX_OFFERS: usize = 256;

/// Files the user handed to the app through the OS (dropped on the window, chosen in the
/// native picker), known to the page only by an opaque, single-use token. The page never
/// names a path: a compromised page (the webview renders what agents write) can import only
/// what the user offered, once, not `~/.ssh/id_rsa` or `/proc/self/environ`.
pub struct AttachmentGrants {
    offers: Mutex<HashMap<String, Offer>>,
    ttl: Duration,
}

struct Offer {
    path: PathBuf,
    at: Instant,
}

/// What the page learns about an offered file: enough to show it, never where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferedFile {
    pub token: String,
    pub name: String,
    /// The size when offered, if it is a file (only shown; the import checks it again).
    pub size: Option<u64>,
}

impl Default for AttachmentGrants {
    fn default() -> Self {
        AttachmentGrants::with_ttl(OFFER_TTL)
    }
}

impl AttachmentGrants {
    pub fn with_ttl(ttl: Duration) -> Self {
        AttachmentGrants {
            offers: Mutex::new(HashMap::new()),
            ttl,
        }
    }

    /// Offer files the OS handed over; one token each.
    pub fn offer(&self, paths: impl IntoIterator<Item = PathBuf>) -> Vec<OfferedFile> {
        let now = Instant::now();
        let mut offers = lock(&self.offers);
        offers.retain(|_, o| now.duration_since(o.at) < self.ttl);
        let offered: Vec<OfferedFile> = paths
            .into_iter()
            .map(|path| {
                let token = uuid::Uuid::new_v4().simple().to_string();
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string());
                let size = std::fs::symlink_metadata(&path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                offers.insert(token.clone(), Offer { path, at: now });
                OfferedFile { token, name, size }
            })
            .collect();
        while offers.len() > MAX_OFFERS {
            let oldest = offers
                .iter()
                .min_by_key(|(_, o)| o.at)
                .map(|(t, _)| t.clone());
            match oldest {
                Some(t) => offers.remove(&t),
                None => break,
            };
        }
        offered
    }

    /// The path behind a token, used up: a token imports once.
    pub fn take(&self, token: &str) -> Result<PathBuf> {
        let offer = lock(&self.offers).remove(token);
        match offer {
            Some(o) if o.at.elapsed() < self.ttl => Ok(o.path),
            _ => Err(CoreError::InvalidInput(
                "this file was not offered by a drop or the file picker, or the offer expired; drop or pick it again".into(),
            )),
        }
    }
}

impl Desk {
    /// Import a file the user offered (see [`AttachmentGrants`]).
    pub async fn import_offered(
        &self,
        grants: &AttachmentGrants,
        token: &str,
    ) -> Result<Attachment> {
        let path = grants.take(token)?;
        self.import_attachment(&path).await
    }

    /// Where blobs live.
    pub fn attachments_dir(&self) -> PathBuf {
        self.data_dir.join(DIR_NAME)
    }

    /// Copy a file into the attachment store (dedup by content) with the default limits.
    pub async fn import_attachment(&self, path: &Path) -> Result<Attachment> {
        self.import_attachment_with(path, AttachmentLimits::default())
            .await
    }

    pub async fn import_attachment_with(
        &self,
        path: &Path,
        limits: AttachmentLimits,
    ) -> Result<Attachment> {
        let _guard = self.attachments_lock.lock().await;
        let dir = self.attachments_dir();
        let src = path.to_path_buf();
        let blob = tokio::task::spawn_blocking(move || store_blob(&dir, &src, &limits))
            .await
            .map_err(|e| CoreError::Attachment(format!("the import stopped: {e}")))??;
        self.store.record_blob(&blob).await?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| blob.sha256.clone());
        Ok(Attachment {
            path: self
                .attachments_dir()
                .join(&blob.sha256)
                .display()
                .to_string(),
            sha256: blob.sha256,
            mime: blob.mime,
            kind: blob.kind,
            size: blob.size,
            name,
        })
    }

    /// The attachments of a run, in order, with the paths the engines are given.
    pub async fn run_attachments(&self, run_id: &RunId) -> Result<Vec<Attachment>> {
        let dir = self.attachments_dir();
        Ok(self
            .store
            .run_attachments(run_id)
            .await?
            .into_iter()
            .map(|a| Attachment {
                path: dir.join(&a.blob.sha256).display().to_string(),
                sha256: a.blob.sha256,
                mime: a.blob.mime,
                kind: a.blob.kind,
                size: a.blob.size,
                name: a.name,
            })
            .collect())
    }

    /// Delete blobs no run refers to (imported more than a day ago, so one waiting in the
    /// composer survives). Returns how many files were removed.
    pub async fn collect_attachments(&self) -> Result<usize> {
        let _guard = self.attachments_lock.lock().await;
        let before = now_ms().saturating_sub(IMPORT_GRACE_MS);
        self.collect_unreferenced(before).await
    }

    async fn collect_unreferenced(&self, imported_before: i64) -> Result<usize> {
        let shas = self.store.unreferenced_blobs(imported_before).await?;
        self.remove_blobs_if_unreferenced(&shas, imported_before)
            .await
    }

    /// Caller holds `attachments_lock`.
    pub(crate) async fn remove_blobs_if_unreferenced(
        &self,
        shas: &[String],
        imported_before: i64,
    ) -> Result<usize> {
        let mut removed = 0;
        for sha in shas {
            if self
                .store
                .forget_blob_if_unreferenced(sha, imported_before)
                .await?
            {
                match std::fs::remove_file(self.attachments_dir().join(sha)) {
                    Ok(()) => removed += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => tracing::warn!(%sha, error = %e, "cannot remove attachment file"),
                }
                // The typed names images are handed to the engines under (runs.rs).
                for ext in crate::engines::IMAGE_EXTENSIONS {
                    let _ =
                        std::fs::remove_file(self.attachments_dir().join(format!("{sha}.{ext}")));
                }
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
#[path = "attachments_tests.rs"]
mod tests;
