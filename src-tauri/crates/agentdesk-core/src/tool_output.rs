//! A command's output in the timeline, bounded: up to [`KEEP_WHOLE`] it is kept as it came;
//! past that the timeline keeps its head and its tail (with how much is not shown between
//! them) and the whole output goes to a file the user can open (the recorder writes what
//! [`ToolOutputs::take_spills`] hands it). Memory, the database row and what the window is
//! sent stay bounded however much a command prints; nothing is lost.
//!
//! Pure: the reducer owns one [`ToolOutputs`]; no I/O here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agentdesk_protocol::ids::SessionId;

/// Where a session's whole tool outputs are: `<data>/outputs/<session>` (removed with it).
pub fn session_dir(data_dir: &Path, session: &SessionId) -> PathBuf {
    data_dir.join("outputs").join(session.to_string())
}

/// The file of one item's whole output in its session's folder (item ids hold the engine's
/// ids: any characters, so the name is a hash of it).
pub fn file_name(item_id: &str) -> String {
    format!("{}.log", agentdesk_engine::ssh::short_hash(item_id))
}

/// Output kept whole in the timeline, in bytes.
pub const KEEP_WHOLE: usize = 512 * 1024;
/// Past that: the first and the last this many bytes are shown.
pub const HEAD: usize = 128 * 1024;
pub const TAIL: usize = 128 * 1024;
/// While it streams past the limit, the shown text is rebuilt once per this many new bytes
/// (rebuilding it on every delta would copy the head and tail each time).
const REFRESH_EVERY: u64 = 32 * 1024;

/// What the whole-output file of an item gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spill {
    /// The file holds this from now on (the output so far, or a completed one).
    Replace(String),
    /// This follows what the file holds.
    Append(String),
}

/// One output past the limit.
#[derive(Debug)]
struct Long {
    head: String,
    tail: String,
    total: u64,
    /// `total` when the shown text was last rebuilt.
    shown_at: u64,
}

/// The outputs of one run's tool items past the limit, by item key, and the file writes
/// they owe.
#[derive(Debug, Default)]
pub struct ToolOutputs {
    long: HashMap<String, Long>,
    spills: Vec<(String, Spill)>,
}

impl ToolOutputs {
    /// `delta` was printed by item `key`, whose shown output is `shown` (changed in place).
    /// Returns the whole output's size when `shown` is cut, `None` while it is whole.
    pub fn append(&mut self, key: &str, shown: &mut String, delta: &str) -> Option<u64> {
        if let Some(long) = self.long.get_mut(key) {
            self.spills
                .push((key.to_owned(), Spill::Append(delta.to_owned())));
            long.total += delta.len() as u64;
            long.tail.push_str(delta);
            trim_front(&mut long.tail, TAIL);
            if long.total - long.shown_at >= REFRESH_EVERY {
                long.shown_at = long.total;
                *shown = render(long);
            }
            return Some(long.total);
        }
        if shown.len() + delta.len() <= KEEP_WHOLE {
            // The common case: appended where it is.
            shown.push_str(delta);
            return None;
        }
        let mut whole = std::mem::take(shown);
        whole.push_str(delta);
        Some(self.cut(key, whole, shown))
    }

    /// The engine gave the item's whole output (at its end): `shown` becomes it, or its cut.
    pub fn complete(&mut self, key: &str, shown: &mut String, full: &str) -> Option<u64> {
        if full.len() <= KEEP_WHOLE {
            // Whole: nothing to keep apart (a file written while it streamed stays).
            if let Some(long) = self.long.get_mut(key) {
                if full.len() as u64 >= long.total {
                    self.long.remove(key);
                }
            }
            full.clone_into(shown);
            return None;
        }
        Some(self.cut(key, full.to_owned(), shown))
    }

    /// The item ended without giving its whole output: `shown` brought up to date when it
    /// is cut (its whole size returned), left alone otherwise.
    pub fn finish(&mut self, key: &str, shown: &mut String) -> Option<u64> {
        let long = self.long.get_mut(key)?;
        long.shown_at = long.total;
        *shown = render(long);
        Some(long.total)
    }

    /// The file writes owed since the last call, in order.
    pub fn take_spills(&mut self) -> Vec<(String, Spill)> {
        std::mem::take(&mut self.spills)
    }

    /// Whether item `key`'s output is cut (its whole output is in a file).
    #[cfg(test)]
    fn is_cut(&self, key: &str) -> bool {
        self.long.contains_key(key)
    }

    /// Keep `whole` apart (its file gets it) and show its head and tail; its size.
    fn cut(&mut self, key: &str, whole: String, shown: &mut String) -> u64 {
        let head = whole[..floor_boundary(&whole, HEAD)].to_owned();
        let mut tail = whole[floor_boundary(&whole, whole.len().saturating_sub(TAIL))..].to_owned();
        trim_front(&mut tail, TAIL);
        let total = whole.len() as u64;
        let long = Long {
            head,
            tail,
            total,
            shown_at: total,
        };
        *shown = render(&long);
        self.long.insert(key.to_owned(), long);
        self.spills.push((key.to_owned(), Spill::Replace(whole)));
        total
    }
}

/// The head, a line saying what is not shown, the tail.
fn render(long: &Long) -> String {
    let hidden = long
        .total
        .saturating_sub((long.head.len() + long.tail.len()) as u64);
    format!(
        "{}\n\n[… {} not shown: the whole output ({}) is in a file — “Open full output” …]\n\n{}",
        long.head,
        bytes(hidden),
        bytes(long.total),
        long.tail
    )
}

fn bytes(n: u64) -> String {
    const KB: f64 = 1024.0;
    let n = n as f64;
    if n >= KB * KB {
        format!("{:.1} MB", n / KB / KB)
    } else {
        format!("{:.0} KB", (n / KB).ceil())
    }
}

/// Keep at most the last `max` bytes of `s`, cut at a character boundary.
fn trim_front(s: &mut String, max: usize) {
    if s.len() > max {
        let start = ceil_boundary(s, s.len() - max);
        s.drain(..start);
    }
}

/// The largest character boundary at or before `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest character boundary at or after `i`.
fn ceil_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file's content after the spills: what the command printed.
    fn file(spills: &[(String, Spill)]) -> String {
        let mut f = String::new();
        for (_, s) in spills {
            match s {
                Spill::Replace(t) => f = t.clone(),
                Spill::Append(t) => f.push_str(t),
            }
        }
        f
    }

    #[test]
    fn a_short_output_is_kept_whole_and_a_long_one_cut_with_all_of_it_in_the_file() {
        let mut outs = ToolOutputs::default();
        let mut shown = String::new();
        let mut printed = String::new();
        let mut total = None;
        let mut spills = Vec::new();
        for i in 0..200_000 {
            // Multi-byte characters: every cut must land on a boundary.
            let line = format!("line {i} — ünïcödé\n");
            printed.push_str(&line);
            total = outs.append("k", &mut shown, &line);
            spills.extend(outs.take_spills());
            if printed.len() <= KEEP_WHOLE {
                assert_eq!(shown, printed);
                assert_eq!(total, None);
            }
        }
        assert!(printed.len() > 4 * 1024 * 1024);
        assert_eq!(total, Some(printed.len() as u64));
        assert!(shown.len() < HEAD + TAIL + 200, "{}", shown.len());
        assert!(shown.starts_with("line 0 — ünïcödé\nline 1 "));
        assert!(shown.contains("not shown: the whole output ("));
        assert_eq!(file(&spills), printed, "the file holds every byte");
        assert!(outs.is_cut("k"));

        // The completed output replaces it: the tail is then exactly the end.
        let done = outs.complete("k", &mut shown, &printed);
        assert!(shown.ends_with("line 199999 — ünïcödé\n"));
        assert_eq!(done, Some(printed.len() as u64));
        assert_eq!(file(&outs.take_spills()), printed);

        let mut other = ToolOutputs::default();
        let mut small = String::new();
        let total = other.complete("s", &mut small, "ok\n");
        assert_eq!((small.as_str(), total), ("ok\n", None));
        assert!(other.take_spills().is_empty());
    }
}
