//! The user's Codex custom prompts: Markdown files in `$CODEX_HOME/prompts/` (else
//! `~/.codex/prompts/`), each offered by the composer's `/` as `prompts:<name>`, as the Codex
//! TUI does. The app-server (0.169) has no method listing them, so they are read here.
//! Picking one puts its text in the message box (its `$ARGUMENTS` / `$1`… placeholders left
//! for the user to fill); an optional front matter gives its `description` and
//! `argument-hint`.

use std::path::{Path, PathBuf};

use agentdesk_protocol::ui::SlashCommand;

/// Bounds on what is read: a prompt is a page of text, not a file to load whole.
const MAX_PROMPTS: usize = 200;
const MAX_PROMPT_BYTES: u64 = 64 * 1024;

/// The prompts folder of `home` (the profile's or the settings' Codex home), else of the
/// user's `~/.codex`.
pub(super) fn folder(home: Option<PathBuf>) -> Option<PathBuf> {
    let home = home.or_else(|| {
        std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".codex"))
    })?;
    Some(home.join("prompts"))
}

/// The custom prompts in `dir`, by name; none when there is no such folder. A file that
/// cannot be read (or is too large, or not UTF-8) is left out.
pub(super) fn list(dir: &Path) -> Vec<SlashCommand> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<SlashCommand> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".md")?.to_owned();
            let meta = std::fs::metadata(&path).ok()?;
            if !meta.is_file() || meta.len() > MAX_PROMPT_BYTES || name.is_empty() {
                return None;
            }
            let text = std::fs::read_to_string(&path).ok()?;
            Some(command(&name, &text))
        })
        .take(MAX_PROMPTS)
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn command(name: &str, text: &str) -> SlashCommand {
    let (front, body) = front_matter(text);
    let field = |key: &str| {
        front.iter().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
        })
    };
    let body = body.trim();
    let description = field("description")
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| {
            let first = body.lines().next().unwrap_or("").trim();
            let mut d: String = first.chars().take(80).collect();
            if first.chars().count() > 80 {
                d.push('…');
            }
            d
        });
    SlashCommand {
        name: format!("prompts:{name}"),
        description,
        argument_hint: field("argument-hint").filter(|h| !h.is_empty()),
        insert: format!("{body}\n"),
    }
}

/// `(front matter lines, body)`: the front matter is a `---` line, `key: value` lines, and a
/// closing `---`; a file without one is all body.
fn front_matter(text: &str) -> (Vec<&str>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (Vec::new(), text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = rest[..offset].lines().collect();
            return (front, &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (Vec::new(), text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn prompts_are_listed_with_their_front_matter_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(
            p.join("review.md"),
            "---\ndescription: \"Review the diff\"\nargument-hint: [FILE]\n---\nReview $1 for bugs.\n",
        )
        .unwrap();
        std::fs::write(
            p.join("plain.md"),
            "Explain this code in plain words.\nMore.\n",
        )
        .unwrap();
        std::fs::write(p.join("notes.txt"), "not a prompt").unwrap();
        std::fs::write(p.join("huge.md"), "x".repeat(70 * 1024)).unwrap();
        std::fs::create_dir(p.join("dir.md")).unwrap();
        let listed = list(p);
        let names: Vec<&str> = listed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["prompts:plain", "prompts:review"]);
        assert_eq!(listed[1].description, "Review the diff");
        assert_eq!(listed[1].argument_hint.as_deref(), Some("[FILE]"));
        assert_eq!(listed[1].insert, "Review $1 for bugs.\n");
        assert_eq!(listed[0].description, "Explain this code in plain words.");
        assert_eq!(
            listed[0].insert,
            "Explain this code in plain words.\nMore.\n"
        );
        assert!(list(&p.join("missing")).is_empty());
    }

    #[test]
    fn an_unclosed_front_matter_is_body() {
        let c = command("x", "---\ndescription: d\nno end");
        assert_eq!(c.insert, "---\ndescription: d\nno end\n");
    }
}
