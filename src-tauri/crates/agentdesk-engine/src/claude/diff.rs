//! File changes of Claude's edit tools, computed from the tool input and the file on disk
//! (the CLI tells us only the input): `Write{file_path, content}`, `Edit{file_path,
//! old_string, new_string, replace_all}`, `MultiEdit{file_path, edits[]}`. Computed when the
//! tool starts, i.e. before it ran, so the approval card shows the diff that would apply.

use std::path::{Path, PathBuf};

use agentdesk_protocol::events::FileChangeKind;
use serde_json::Value;

/// Files bigger than this are not diffed line by line (the change is shown as a whole).
const MAX_DIFF_CELLS: usize = 4_000_000;
const CONTEXT: usize = 3;

/// A change a file tool is about to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedChange {
    pub path: String,
    pub kind: FileChangeKind,
    pub diff: String,
}

/// The change `tool` (Write/Edit/MultiEdit) with `input` would make, relative paths resolved
/// against `cwd`. `None` for other tools or an input without `file_path`.
pub fn planned_change(tool: &str, input: &Value, cwd: &Path) -> Option<PlannedChange> {
    let raw = input.get("file_path").and_then(Value::as_str)?;
    let path = if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        cwd.join(raw)
    };
    let before = std::fs::read_to_string(&path).ok();
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

/// A unified diff (`--- a/… +++ b/…`, one hunk around the changed region). `old = None`
/// means the file does not exist yet.
pub fn unified_diff(old: Option<&str>, new: &str, path: &str) -> String {
    let a: Vec<&str> = old.map(|o| o.lines().collect()).unwrap_or_default();
    let b: Vec<&str> = new.lines().collect();
    if old == Some(new) {
        return String::new();
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut body: Vec<(char, &str)> = Vec::new();
    let ctx_start = prefix.saturating_sub(CONTEXT);
    body.extend(a[ctx_start..prefix].iter().map(|l| (' ', *l)));
    body.extend(middle(a_mid, b_mid));
    let ctx_end = (a.len() - suffix + CONTEXT).min(a.len());
    body.extend(a[a.len() - suffix..ctx_end].iter().map(|l| (' ', *l)));
    let a_count = body.iter().filter(|(t, _)| *t != '+').count();
    let b_count = body.iter().filter(|(t, _)| *t != '-').count();
    let start = |count: usize| if count == 0 { ctx_start } else { ctx_start + 1 };
    // git style for relative paths; absolute ones keep their single leading slash.
    let sep = if path.starts_with('/') { "" } else { "/" };
    let from = if old.is_some() {
        format!("a{sep}{path}")
    } else {
        "/dev/null".to_owned()
    };
    let mut out = format!(
        "--- {from}\n+++ b{sep}{path}\n@@ -{},{a_count} +{},{b_count} @@\n",
        start(a_count),
        start(b_count)
    );
    for (tag, line) in body {
        out.push(tag);
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The changed middle as -/+/space lines: an LCS when small enough, else all-out/all-in.
fn middle<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<(char, &'a str)> {
    if a.is_empty() || b.is_empty() || a.len().saturating_mul(b.len()) > MAX_DIFF_CELLS {
        let mut out: Vec<(char, &str)> = a.iter().map(|l| ('-', *l)).collect();
        out.extend(b.iter().map(|l| ('+', *l)));
        return out;
    }
    // lcs[i][j] = LCS length of a[i..] and b[j..].
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * (m + 1) + j] = if a[i] == b[j] {
                lcs[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1] {
            out.push(('-', a[i]));
            i += 1;
        } else {
            out.push(('+', b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|l| ('-', *l)));
    out.extend(b[j..].iter().map(|l| ('+', *l)));
    out
}

/// Standard base64 with padding (images for the prompt).
pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let idx = |shift: u32| char::from(T[((n >> shift) & 63) as usize]);
        out.push(idx(18));
        out.push(idx(12));
        out.push(if chunk.len() > 1 { idx(6) } else { '=' });
        out.push(if chunk.len() > 2 { idx(0) } else { '=' });
    }
    out
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
}
