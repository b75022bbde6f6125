//! The log folder stays bounded (issue 26): the app writes a daily file
//! (`agentdesk.log.YYYY-MM-DD`), and every start — before the app opens today's file — prunes
//! the folder to the newest files that fit in a count, a total size and an age.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The daily files' name prefix (the shell's appender writes `<prefix>.<date>`).
pub const LOG_FILE_PREFIX: &str = "agentdesk.log";

/// What the log folder keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimits {
    pub max_files: usize,
    pub max_bytes: u64,
    pub max_age: Duration,
}

impl Default for LogLimits {
    /// Two weeks of days, 64 MiB in all, nothing older than 30 days.
    fn default() -> Self {
        LogLimits {
            max_files: 14,
            max_bytes: 64 * 1024 * 1024,
            max_age: Duration::from_secs(30 * 24 * 3600),
        }
    }
}

/// Remove the log files of `dir` beyond `limits`, oldest first; the files removed.
pub fn prune_logs(dir: &Path, limits: LogLimits, now: SystemTime) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, SystemTime, u64)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(LOG_FILE_PREFIX))
        .filter_map(|e| {
            let meta = e.metadata().ok().filter(std::fs::Metadata::is_file)?;
            Some((e.path(), meta.modified().ok()?, meta.len()))
        })
        .collect();
    // Newest first (by time, then by name: the dated names sort by day).
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    let mut kept_bytes = 0u64;
    let mut removed = Vec::new();
    for (i, (path, modified, len)) in files.into_iter().enumerate() {
        let age = now.duration_since(modified).unwrap_or_default();
        let keep = i < limits.max_files
            && kept_bytes.saturating_add(len) <= limits.max_bytes
            && age <= limits.max_age;
        if keep {
            kept_bytes = kept_bytes.saturating_add(len);
        } else if std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn log(dir: &Path, day: u32, bytes: usize, age_days: u64, now: SystemTime) {
        let path = dir.join(format!("{LOG_FILE_PREFIX}.2026-11-{day:02}"));
        std::fs::write(&path, vec![b'x'; bytes]).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(now - Duration::from_secs(age_days * 24 * 3600))
            .unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn the_folder_keeps_the_newest_files_within_count_size_and_age() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let limits = LogLimits {
            max_files: 3,
            max_bytes: 250,
            max_age: Duration::from_secs(10 * 24 * 3600),
        };
        for day in 1..=5 {
            log(dir.path(), day, 100, u64::from(30 - day), now);
        }
        std::fs::write(dir.path().join("other.txt"), "kept").unwrap();
        // All are over 10 days old: none stays (other files are not the logs').
        let removed = prune_logs(dir.path(), limits, now);
        assert_eq!(removed.len(), 5, "{removed:?}");
        assert_eq!(names(dir.path()), ["other.txt"]);

        // Recent small files: the count decides.
        let dir = tempfile::tempdir().unwrap();
        for day in 1..=5 {
            log(dir.path(), day, 10, u64::from(6 - day), now);
        }
        prune_logs(dir.path(), limits, now);
        assert_eq!(
            names(dir.path()),
            [
                "agentdesk.log.2026-11-03",
                "agentdesk.log.2026-11-04",
                "agentdesk.log.2026-11-05"
            ]
        );
        // Recent large files: the size decides.
        let dir = tempfile::tempdir().unwrap();
        for day in 1..=3 {
            log(dir.path(), day, 120, u64::from(4 - day), now);
        }
        prune_logs(dir.path(), limits, now);
        assert_eq!(
            names(dir.path()),
            ["agentdesk.log.2026-11-02", "agentdesk.log.2026-11-03"]
        );
        assert!(prune_logs(&dir.path().join("missing"), limits, now).is_empty());
    }
}
