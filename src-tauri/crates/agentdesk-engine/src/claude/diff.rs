//! File changes of Claude's edit tools, computed from the tool input and the file on disk
//! (the CLI tells us only the input): `Write{file_path, content}`, `Edit{file_path,
//! old_string, new_string, replace_all}`, `MultiEdit{file_path, edits[]}`. Computed when the
//! tool starts, i.e. before it ran, so the approval card shows the diff that would apply.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_protocol::events::FileChangeKind;
use base64::Engine as _;
use serde_json::Value;
use similar::{Algorithm, TextDiff};

/// Unchanged lines shown around each change.
const CONTEXT: usize = 3;
/// Past this the diff stops looking for the smallest edit script (it stays correct).
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// A change a file tool is about to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedChange {
    pub path: String,
    pub kind: FileChangeKind,
    pub diff: String,
}

/// The file a file tool (Write/Edit/MultiEdit) with `input` would change, resolved against
/// `cwd`; `None` for other tools or an input without `file_path`.
pub fn target_path(tool: &str, input: &Value, cwd: &Path) -> Option<PathBuf> {
    if !matches!(tool, "Write" | "Edit" | "MultiEdit") {
        return None;
    }
    let raw = input.get("file_path").and_then(Value::as_str)?;
    Some(if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        cwd.join(raw)
    })
}

/// The change `tool` (Write/Edit/MultiEdit) with `input` would make, relative paths resolved
/// against `cwd`. `None` for other tools or an input without `file_path`. Reads the file:
/// on an async thread use [`planned_change_async`].
pub fn planned_change(tool: &str, input: &Value, cwd: &Path) -> Option<PlannedChange> {
    let path = target_path(tool, input, cwd)?;
    let before = std::fs::read_to_string(&path).ok();
    planned_change_from(tool, input, &path, before)
}

/// [`planned_change`], reading the file with tokio's fs (off the async threads).
pub async fn planned_change_async(tool: &str, input: &Value, cwd: &Path) -> Option<PlannedChange> {
    let path = target_path(tool, input, cwd)?;
    let before = read_before(&path).await;
    planned_change_from(tool, input, &path, before)
}

/// The file's content before the change (`None`: it does not exist or cannot be read).
pub async fn read_before(path: &Path) -> Option<String> {
    tokio::fs::read_to_string(path).await.ok()
}

/// The change, given the file's content `before` (`None` = no such file). Pure.
pub fn planned_change_from(
    tool: &str,
    input: &Value,
    path: &Path,
    before: Option<String>,
) -> Option<PlannedChange> {
    let old = before.clone().unwrap_or_default();
    let new = match tool {
        "Write" => input.get("content").and_then(Value::as_str)?.to_owned(),
        "Edit" => apply_edit(&old, input),
        "MultiEdit" => input
            .get("edits")
            .and_then(Value::as_array)?
            .iter()
            .fold(old.clone(), |text, edit| apply_edit(&text, edit)),
        _ => return None,
    };
    let kind = if before.is_some() {
        FileChangeKind::Update
    } else {
        FileChangeKind::Add
    };
    let display = path.display().to_string();
    Some(PlannedChange {
        diff: unified_diff(before.is_some().then_some(old.as_str()), &new, &display),
        path: display,
        kind,
    })
}

fn apply_edit(text: &str, edit: &Value) -> String {
    let old = edit.get("old_string").and_then(Value::as_str).unwrap_or("");
    let new = edit.get("new_string").and_then(Value::as_str).unwrap_or("");
    if old.is_empty() {
        // Claude uses an empty old_string to create a file's content.
        return format!("{text}{new}");
    }
    if edit.get("replace_all").and_then(Value::as_bool) == Some(true) {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    }
}

/// A unified diff (`--- a/… +++ b/…`, one hunk per changed region with [`CONTEXT`] lines
/// around it), by `similar` (Myers: memory linear in the files, so no size cap). `old = None`
/// means the file does not exist yet.
pub fn unified_diff(old: Option<&str>, new: &str, path: &str) -> String {
    if old == Some(new) {
        return String::new();
    }
    // git style for relative paths; absolute ones keep their single leading slash.
    let sep = if path.starts_with('/') { "" } else { "/" };
    let from = match old {
        Some(_) => format!("a{sep}{path}"),
        None => "/dev/null".to_owned(),
    };
    let to = format!("b{sep}{path}");
    TextDiff::configure()
        .algorithm(Algorithm::Myers)
        // A pathological pair still gets a correct (if less minimal) diff in bounded time.
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old.unwrap_or(""), new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&from, &to)
        .to_string()
}

/// Standard base64 with padding (images for the prompt).
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }

    #[test]
    fn write_of_a_new_file_is_an_add_against_dev_null() {
        let dir = tempfile::tempdir().unwrap();
        let c = planned_change(
            "Write",
            &json!({"file_path": "new.txt", "content": "a\nb\n"}),
            dir.path(),
        )
        .unwrap();
        assert_eq!(c.kind, FileChangeKind::Add);
        assert!(c.path.ends_with("new.txt"));
        assert!(c.diff.starts_with("--- /dev/null\n"), "{}", c.diff);
        assert!(c.diff.contains("@@ -0,0 +1,2 @@\n+a\n+b\n"), "{}", c.diff);
    }

    #[test]
    fn edit_and_multiedit_diff_against_the_file_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.txt");
        let text: String = (1..=10).map(|i| format!("line{i}\n")).collect();
        std::fs::write(&f, &text).unwrap();
        let c = planned_change(
            "Edit",
            &json!({"file_path": f, "old_string": "line5", "new_string": "five"}),
            dir.path(),
        )
        .unwrap();
        assert_eq!(c.kind, FileChangeKind::Update);
        assert!(
            c.diff
                .contains("@@ -2,7 +2,7 @@\n line2\n line3\n line4\n-line5\n+five\n line6\n"),
            "{}",
            c.diff
        );
        let c = planned_change(
            "MultiEdit",
            &json!({"file_path": f, "edits": [
                {"old_string": "line1\n", "new_string": ""},
                {"old_string": "line", "new_string": "L", "replace_all": true}]}),
            dir.path(),
        )
        .unwrap();
        assert!(c.diff.contains("-line1\n-line2\n"), "{}", c.diff);
        assert!(c.diff.contains("+L2\n"), "{}", c.diff);
        assert!(planned_change("Bash", &json!({"command": "ls"}), dir.path()).is_none());
    }

    #[test]
    fn distant_changes_are_separate_hunks_with_context() {
        let old: String = (1..=100).map(|i| format!("line{i}\n")).collect();
        let new = old
            .replace("line2\n", "two\n")
            .replace("line90\n", "ninety\n");
        let d = unified_diff(Some(&old), &new, "f.txt");
        assert!(d.starts_with("--- a/f.txt\n+++ b/f.txt\n"), "{d}");
        assert_eq!(d.matches("\n@@ ").count(), 2, "{d}");
        assert!(
            d.contains("@@ -1,5 +1,5 @@\n line1\n-line2\n+two\n line3\n"),
            "{d}"
        );
        assert!(d.contains("@@ -87,7 +87,7 @@\n"), "{d}");
        assert!(!d.contains("line50"), "unchanged middle shown: {d}");
    }

    #[test]
    fn a_big_file_with_scattered_edits_is_diffed_line_by_line() {
        // 3,000 × 3,000 lines would have been 9 M cells: over the old cap, shown whole.
        let old: String = (0..3000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..3000)
            .map(|i| match i % 10 {
                0 => format!("changed {i}\n"),
                _ => format!("line {i}\n"),
            })
            .collect();
        let d = unified_diff(Some(&old), &new, "/abs/big.txt");
        assert!(
            d.starts_with("--- a/abs/big.txt\n+++ b/abs/big.txt\n"),
            "{d}"
        );
        let removed = d
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"));
        assert_eq!(removed.count(), 300);
    }
}
