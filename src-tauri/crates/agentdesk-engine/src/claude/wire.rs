//! Decoding the CLI's stdout lines, on the transport's reader task.
//!
//! A long answer is hundreds of thousands of `stream_event` lines that each carry one text or
//! thinking delta. Those are decoded once, straight into a small borrowed struct (unknown
//! fields skipped without being built, only the delta's text allocated); everything else,
//! and any delta line that does not fit that shape exactly, takes the full path: JSON →
//! [`SdkMessage`] (tagged unions, unknown variants kept raw). Both paths give the translator
//! the same facts, so the fast path can never change what a run shows.

use std::borrow::Cow;
use std::sync::LazyLock;

use agentdesk_protocol::claude::SdkMessage;
use memchr::memmem;
use serde::Deserialize;
use serde_json::Value;

use crate::transport::Decode;

/// One decoded stdout line.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaudeLine {
    /// `stream_event` / `content_block_delta` with a `text_delta` (`thinking: false`) or a
    /// `thinking_delta` (`thinking: true`).
    Delta {
        index: u32,
        thinking: bool,
        text: String,
    },
    /// Any other line (boxed: the hot variant is the small one).
    Message(Box<SdkMessage>),
}

/// The transport decoder for `claude` stdout.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClaudeLines;

impl Decode for ClaudeLines {
    type Item = ClaudeLine;

    fn decode(&mut self, line: &str) -> Result<ClaudeLine, serde_json::Error> {
        if let Some(delta) = fast_delta(line) {
            return Ok(delta);
        }
        let value: Value = serde_json::from_str(line)?;
        Ok(ClaudeLine::Message(Box::new(SdkMessage::from_value(value))))
    }
}

/// Longest line the fast path looks at: deltas are a few hundred bytes; a megabyte assistant
/// message that happens to quote the tag should not be parsed twice.
const FAST_MAX_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(borrow)]
    event: Event<'a>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    index: u32,
    #[serde(borrow)]
    delta: Delta<'a>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
}

/// The delta of a text/thinking `content_block_delta` line, or `None` for anything else
/// (including a delta line of another shape: the full path decides about those).
fn fast_delta(line: &str) -> Option<ClaudeLine> {
    // Built once: a finder per line would cost more than the search.
    static SIEVE: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\"content_block_delta\""));
    if line.len() > FAST_MAX_BYTES || SIEVE.find(line.as_bytes()).is_none() {
        return None;
    }
    let parsed: Line<'_> = serde_json::from_str(line).ok()?;
    if parsed.kind != "stream_event" || parsed.event.kind != "content_block_delta" {
        return None;
    }
    let Delta {
        kind,
        text,
        thinking,
    } = parsed.event.delta;
    let (thinking, text) = match (kind, text, thinking) {
        ("text_delta", Some(text), _) => (false, text),
        ("thinking_delta", _, Some(thinking)) => (true, thinking),
        _ => return None,
    };
    Some(ClaudeLine::Delta {
        index: parsed.event.index,
        thinking,
        text: text.into_owned(),
    })
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
