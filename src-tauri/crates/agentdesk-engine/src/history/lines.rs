//! Reading a history file's new lines from where the last read stopped, in bounded memory.
//!
//! Only complete lines are read: a last line without its newline is being written (or was
//! cut short) and is left for the next read, which starts at [`LineRead::read_to`]. A line
//! longer than the limit is skipped to its end without being held (counted), so a 2 GB
//! transcript, or one made of a single huge line, costs one buffer.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

/// Lines longer than this are skipped (a transcript line is a message; an image attachment
/// makes the longest real ones, a few MB).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// What one read covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineRead {
    /// The end of the last complete line read (where the next read starts).
    pub read_to: u64,
    /// Lines skipped for their length.
    pub too_long: u64,
}

/// Call `each(offset, line)` for every complete line from `from` on (`offset` is where the
/// line starts; the newline is not part of it). Stops early, at the start of the line, when
/// `each` returns `false`.
pub fn read_lines(
    path: &Path,
    from: u64,
    max_line: usize,
    mut each: impl FnMut(u64, &[u8]) -> bool,
) -> std::io::Result<LineRead> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut read = LineRead {
        read_to: from,
        too_long: 0,
    };
    let mut line: Vec<u8> = Vec::new();
    let mut overlong = false;
    let mut at = from;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            // End of file: what is in `line` has no newline yet; leave it for next time.
            return Ok(read);
        }
        let (piece, newline) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !overlong {
            if line.len() + piece.len() > max_line {
                overlong = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(piece);
            }
        }
        let used = piece.len() + usize::from(newline);
        reader.consume(used);
        at += used as u64;
        if !newline {
            continue;
        }
        let start = read.read_to;
        if overlong {
            read.too_long += 1;
        } else {
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            if !each(start, text) {
                return Ok(read);
            }
        }
        read.read_to = at;
        line.clear();
        overlong = false;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lines_of(content: &[u8], from: u64, max: usize) -> (Vec<(u64, String)>, LineRead) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, content).unwrap();
        let mut got = Vec::new();
        let r = read_lines(&p, from, max, |at, l| {
            got.push((at, String::from_utf8_lossy(l).into_owned()));
            true
        })
        .unwrap();
        (got, r)
    }

    #[test]
    fn a_last_line_without_its_newline_is_left_for_the_next_read() {
        let (got, r) = lines_of(b"a\nbb\r\nccc", 0, 100);
        assert_eq!(got, vec![(0, "a".into()), (2, "bb".into())]);
        assert_eq!(r.read_to, 6);
        let (got, r) = lines_of(b"a\nbb\r\nccc\n", r.read_to, 100);
        assert_eq!(got, vec![(6, "ccc".into())]);
        assert_eq!(r.read_to, 10);
    }

    #[test]
    fn an_overlong_line_is_skipped_and_counted() {
        let mut content = b"ok\n".to_vec();
        content.extend(std::iter::repeat_n(b'x', 1000));
        content.extend(b"\nafter\n");
        let (got, r) = lines_of(&content, 0, 100);
        assert_eq!(got, vec![(0, "ok".into()), (1004, "after".into())]);
        assert_eq!((r.too_long, r.read_to), (1, content.len() as u64));
    }

    #[test]
    fn stopping_early_resumes_at_the_line_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, b"1\n2\n3\n").unwrap();
        let r = read_lines(&p, 0, 10, |_, l| l != b"2").unwrap();
        assert_eq!(r.read_to, 2);
    }
}
