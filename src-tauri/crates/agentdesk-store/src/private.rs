//! Files only their owner may read: the data folder (0700), the database and its companions,
//! attachment blobs (0600). Created that way, and tightened when an older build (or a umask)
//! left them readable by others. On other platforms than Unix the per-user folders already
//! keep other users out, so these are plain creates there.

use std::io;
use std::path::Path;

#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};

/// Mode of private folders.
pub const DIR_MODE: u32 = 0o700;
/// Mode of private files.
pub const FILE_MODE: u32 = 0o600;

/// Create `dir` (and missing parents) and make it private. Only the last component is made
/// private: parents may be shared folders the user chose.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        if !dir.exists() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(DIR_MODE)
                .create(dir)?;
        }
        tighten(dir, DIR_MODE)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Create `file` empty with mode 0600 if it does not exist; tighten it if it does.
pub fn create_file(file: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    match options.open(file) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => tighten_file(file),
        Err(e) => Err(e),
    }
}

/// Open `file` for writing, created with mode 0600 (truncating nothing: it must be new).
pub fn create_new_file(file: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options.open(file)
}

/// Make an existing file 0600 (nothing when it does not exist).
pub fn tighten_file(file: &Path) -> io::Result<()> {
    match tighten(file, FILE_MODE) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Remove group and other permissions when any are set (a chmod only when needed, so a
/// file that is already private on a read-only mount is not an error).
#[cfg(unix)]
fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        // Never follow a link to change the mode of whatever it points at.
        return Ok(());
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn tighten(path: &Path, _mode: u32) -> io::Result<()> {
    std::fs::symlink_metadata(path).map(|_| ())
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn creates_private_and_tightens_existing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);

        let f = dir.join("f");
        create_file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        create_file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        tighten_file(&dir.join("missing")).unwrap();
    }
}
