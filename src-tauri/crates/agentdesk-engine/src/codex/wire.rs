//! Decoding the app-server's stdout lines, on the transport's reader task.
//!
//! A long answer is hundreds of thousands of delta notifications (`item/agentMessage/delta`,
//! reasoning text, command output). Those are decoded once, straight into their typed
//! notification through a small borrowed struct (unknown fields skipped without being built);
//! everything else, and any delta line that does not fit that shape exactly, stays a JSON
//! value for the RPC layer (responses, requests, other notifications, unknown methods). Both
//! paths give the same [`ServerNotification`], so the fast path never changes what a run shows.

use std::borrow::Cow;
use std::sync::LazyLock;

use agentdesk_protocol::codex::{
    AgentMessageDeltaNotification, ReasoningSummaryTextDeltaNotification,
    ReasoningTextDeltaNotification, ServerNotification,
};
use memchr::memmem;
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::rpc::RpcLine;
use crate::transport::Decode;

/// The transport decoder for `codex app-server` stdout.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexLines;

impl Decode for CodexLines {
    type Item = RpcLine;

    fn decode(&mut self, line: &str) -> Result<RpcLine, serde_json::Error> {
        if let Some(n) = fast_delta(line) {
            return Ok(RpcLine::Notification(n));
        }
        serde_json::from_str(line).map(RpcLine::Json)
    }
}

/// Longest line the fast path looks at: deltas are a few hundred bytes.
const FAST_MAX_BYTES: usize = 16 * 1024;

const AGENT_MESSAGE: &str = "item/agentMessage/delta";
const COMMAND_OUTPUT: &str = "item/commandExecution/outputDelta";
const REASONING_TEXT: &str = "item/reasoning/textDelta";
const REASONING_SUMMARY: &str = "item/reasoning/summaryTextDelta";

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    /// Present = a request, not a notification: the full path decides.
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(borrow)]
    thread_id: Cow<'a, str>,
    #[serde(borrow)]
    turn_id: Cow<'a, str>,
    #[serde(borrow)]
    item_id: Cow<'a, str>,
    #[serde(borrow)]
    delta: Cow<'a, str>,
    #[serde(default)]
    summary_index: i64,
    #[serde(default)]
    content_index: i64,
}

/// The typed notification of a delta line, or `None` for anything else.
fn fast_delta(line: &str) -> Option<ServerNotification> {
    // A cheap sieve before the typed parse: every delta line has a `"delta"` key (and the
    // methods end in `Delta` or `delta`); the method itself is checked after the parse.
    static SIEVE: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"elta\""));
    if line.len() > FAST_MAX_BYTES || SIEVE.find(line.as_bytes()).is_none() {
        return None;
    }
    let parsed: Line<'_> = serde_json::from_str(line).ok()?;
    if parsed.id.is_some()
        || ![
            AGENT_MESSAGE,
            COMMAND_OUTPUT,
            REASONING_TEXT,
            REASONING_SUMMARY,
        ]
        .contains(&&*parsed.method)
    {
        return None;
    }
    let p = parsed.params;
    let (thread_id, turn_id, item_id, delta) = (
        p.thread_id.into_owned(),
        p.turn_id.into_owned(),
        p.item_id.into_owned(),
        p.delta.into_owned(),
    );
    Some(match &*parsed.method {
        AGENT_MESSAGE | COMMAND_OUTPUT => {
            let n = AgentMessageDeltaNotification {
                thread_id,
                turn_id,
                item_id,
                delta,
            };
            if parsed.method == AGENT_MESSAGE {
                ServerNotification::AgentMessageDelta(n)
            } else {
                ServerNotification::CommandExecutionOutputDelta(n)
            }
        }
        REASONING_TEXT => ServerNotification::ReasoningTextDelta(ReasoningTextDeltaNotification {
            thread_id,
            turn_id,
            item_id,
            delta,
            content_index: p.content_index,
        }),
        REASONING_SUMMARY => {
            ServerNotification::ReasoningSummaryTextDelta(ReasoningSummaryTextDeltaNotification {
                thread_id,
                turn_id,
                item_id,
                delta,
                summary_index: p.summary_index,
            })
        }
        _ => return None,
    })
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
