//! The window's live view of one open session: what the shell sends on the session's
//! `tauri::ipc::Channel`, and the decisions the window sends back.
//!
//! A batch is sent at most once per frame (~16 ms) and only while the session is open in a
//! window. The first batch of a subscription is a [`LiveOp::Reset`]; after that, ops apply in
//! order. Streaming text travels as [`LiveOp::Append`] (only what is new), everything else as
//! whole items, so a long answer is never re-sent per delta.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Approval, Run, TimelineItem};
use crate::ids::SessionId;

/// One frame's worth of changes for one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LiveBatch {
    pub session_id: SessionId,
    /// Counts batches of this subscription from 1: a gap means a bug, not a lag (lags are
    /// answered with a `reset`).
    #[ts(type = "number")]
    pub seq: u64,
    pub ops: Vec<LiveOp>,
}

/// One change to the session view, applied in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum LiveOp {
    /// Replace the whole view: the newest page of the timeline (older pages through
    /// `load_timeline` with `before`), every run, and the session's pending approvals.
    /// Sent first, and again whenever the live stream could not keep up.
    Reset {
        items: Vec<TimelineItem>,
        #[ts(type = "number | null")]
        before: Option<i64>,
        runs: Vec<Run>,
        approvals: Vec<Approval>,
    },
    /// Insert an item, or replace the one with the same id.
    Upsert { item: TimelineItem },
    /// Append text to an item already sent (an agent message or reasoning while it streams).
    Append {
        #[serde(rename = "itemId")]
        item_id: String,
        text: String,
    },
    /// A run was queued, started or ended.
    Run { run: Run },
    /// An approval or question of this session was asked or decided.
    Approval { approval: Approval },
}

/// What the sidebar shows for a session besides its name: sent on the app-wide activity
/// channel whenever a run starts or ends or an approval is asked or decided (never per delta).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionActivity {
    pub session_id: SessionId,
    /// A run is running now.
    pub running: bool,
    /// Messages waiting behind the running one.
    pub queued: u32,
    /// Approvals and questions waiting for the user.
    pub waiting: u32,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn append_op_is_tagged_and_camel_cased() {
        let op = LiveOp::Append {
            item_id: "r:1".into(),
            text: "hi".into(),
        };
        let v = serde_json::to_value(&op).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"op": "append", "itemId": "r:1", "text": "hi"})
        );
    }
}
