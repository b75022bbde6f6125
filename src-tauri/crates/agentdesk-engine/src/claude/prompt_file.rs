//! The profile's system-prompt addition, handed to `claude` as a file
//! (`--append-system-prompt-file`), never as a command-line value.
//!
//! Why a file (issue 20 item 3): Windows caps a whole command line at 32,767 characters, and
//! anything that passes through a shell or a batch shim there reads `%VAR%`, `&`, `|`, `^`
//! and newlines in it; a prompt is the one long, free-form text a run passes. A file has
//! neither problem on any system, and keeps the prompt out of `ps` for other users too.
//!
//! The file is the run's: created private (`create_new`, 0600 on Unix, an unguessable name
//! in the temp folder), read by the CLI when it starts, removed when the run's session is
//! dropped.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A prompt written for one run; removing it is this value's drop.
#[derive(Debug)]
pub(crate) struct PromptFile {
    path: PathBuf,
}

impl PromptFile {
    /// Write `prompt` to a new private file under `dir`.
    pub fn create_in(dir: &Path, prompt: &str) -> std::io::Result<PromptFile> {
        let path = dir.join(format!(
            "agentdesk-claude-prompt-{}.txt",
            uuid::Uuid::new_v4().simple()
        ));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        let written = options
            .open(&path)
            .and_then(|mut f| f.write_all(prompt.as_bytes()).and_then(|()| f.flush()));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            return Err(std::io::Error::new(
                e.kind(),
                format!("cannot write the system prompt to {}: {e}", path.display()),
            ));
        }
        Ok(PromptFile { path })
    }

    /// The CLI arguments that hand the file over.
    pub fn args(&self) -> [String; 1] {
        [format!(
            "--append-system-prompt-file={}",
            self.path.display()
        )]
    }

    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PromptFile {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(path = %self.path.display(), error = %e, "cannot remove a run's prompt file");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_prompt_is_a_private_file_that_goes_with_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let prompt = "line 1 %PATH% & | ^\n\"quoted\" ".repeat(2_000);
        let file = PromptFile::create_in(dir.path(), &prompt).unwrap();
        let path = file.path().to_path_buf();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), prompt);
        assert_eq!(
            file.args(),
            [format!("--append-system-prompt-file={}", path.display())]
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        drop(file);
        assert!(!path.exists());
    }
}
