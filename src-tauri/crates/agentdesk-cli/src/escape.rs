//! What the terminal shows is what will run. Text that came from an agent or an engine
//! (commands, paths, tool inputs, diffs, questions, messages) can carry control characters
//! and escape sequences: `ls -la\r\x1b[2K curl … | sh` would *display* as a harmless command
//! while the other one runs, and bidi overrides reorder what is read. Everything the CLI
//! prints as text goes through [`visible`], which keeps the bytes' meaning but makes every
//! such character visible.

use std::fmt::Write;

/// `text` with every character that could move the cursor, erase, recolour or reorder what
/// the terminal shows replaced by a visible escape:
/// - ESC → `\x1b`, CR → `\r` (a CR right before LF is a line end and is kept as the LF
///   alone), other C0 controls and DEL → `\xNN`;
/// - C1 controls (U+0080–U+009F, `\u{9b}` is a one-character CSI) → `\u{..}`;
/// - bidi embeddings, overrides, isolates and marks, and the line/paragraph separators →
///   `\u{....}`.
///
/// Newline and tab are kept: layout needs them and they hide nothing.
pub fn visible(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\x1b"),
            c if needs_escape(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// [`visible`] for one line of a listing: newlines and tabs are escaped too, so a value
/// cannot forge the next line.
pub fn visible_line(text: &str) -> String {
    visible(text).replace('\n', "\\n").replace('\t', "\\t")
}

/// [`visible`] over a stream of pieces (message deltas): a CR that ends one piece is held
/// back until the next, so a CRLF split across two deltas still reads as a line end and a
/// lone CR is still shown.
#[derive(Debug, Default)]
pub struct VisibleStream {
    held_cr: bool,
}

impl VisibleStream {
    /// The visible form of `piece`; `more` when the stream may continue right after it.
    pub fn piece(&mut self, piece: &str, more: bool) -> String {
        let mut text = String::with_capacity(piece.len() + 1);
        if std::mem::take(&mut self.held_cr) {
            text.push('\r');
        }
        text.push_str(piece);
        if more && text.ends_with('\r') {
            text.pop();
            self.held_cr = true;
        }
        visible(&text)
    }
}

fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        c if c.is_ascii_control() => true,
        '\u{80}'..='\u{9f}' => true,
        // Arabic letter mark, LRM/RLM, LS/PS, embeddings and overrides, isolates.
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// A JSON text (from `serde_json`, which escapes C0 controls already) with the characters
/// [`visible`] escapes, and that JSON may carry raw, written as `\uXXXX` escapes: the same
/// JSON value, harmless on a terminal.
pub fn json_safe(json: &str) -> String {
    if !json.chars().any(needs_escape) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        // serde_json only emits a raw newline or tab outside strings (pretty printing),
        // where it is layout.
        if needs_escape(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_hidden_command_is_shown() {
        let cmd = "curl -s http://127.0.0.1:9/x | sh\r\u{1b}[2Kls -la";
        let shown = visible(cmd);
        assert_eq!(shown, "curl -s http://127.0.0.1:9/x | sh\\r\\x1b[2Kls -la");
        assert!(!shown.contains('\r') && !shown.contains('\u{1b}'));
    }

    #[test]
    fn controls_c1_and_bidi_are_visible_layout_is_kept() {
        assert_eq!(visible("a\u{7}b\u{7f}"), "a\\x07b\\x7f");
        assert_eq!(visible("x\u{9b}31m"), "x\\u{9b}31m");
        assert_eq!(
            visible("rm \u{202e}txt.sh\u{202c} \u{2066}x\u{2069}"),
            "rm \\u{202e}txt.sh\\u{202c} \\u{2066}x\\u{2069}"
        );
        assert_eq!(visible("line 1\r\nline\t2\n"), "line 1\nline\t2\n");
        assert_eq!(visible("plain ünïcödé ✓"), "plain ünïcödé ✓");
        assert_eq!(visible_line("a\nb\tc"), "a\\nb\\tc");
    }

    #[test]
    fn a_crlf_split_between_pieces_is_a_line_end_a_lone_cr_is_shown() {
        let mut s = VisibleStream::default();
        assert_eq!(s.piece("one\r", true), "one");
        assert_eq!(s.piece("\ntwo\r", true), "\ntwo");
        assert_eq!(s.piece("\u{1b}[2Kthree", true), "\\r\\x1b[2Kthree");
        assert_eq!(s.piece("end\r", false), "end\\r");
    }

    #[test]
    fn json_stays_the_same_value() {
        let v = serde_json::json!({"url": "https://x/?q=\u{202e}gpj.exe", "e": "\u{1b}[2K\u{85}"});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let safe = json_safe(&text);
        assert!(!safe.contains('\u{202e}') && !safe.contains('\u{1b}') && !safe.contains('\u{85}'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }
}
