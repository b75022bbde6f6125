//! Merging consecutive streamed pieces of one item before they leave a run loop.
//!
//! The run loops hold the events of one read of the engine's stdout and pass them through
//! here before sending: a run of text deltas of one item becomes one delta with the text
//! concatenated (likewise reasoning deltas and a tool's streamed output). Every consumer
//! appends these pieces, so the result is the same text with fewer events. Nothing else is
//! touched and the order of everything is kept.

use agentdesk_protocol::events::AgentEvent;
use tokio::sync::mpsc::UnboundedSender;

use crate::limits::DiagnosticBudget;

/// Send what a run loop collected: deltas merged, diagnostics within the budget, in order.
/// (Nobody listening is no error: the run's owner dropped it and is stopping it.)
pub(crate) fn send_out(
    out: &mut Vec<AgentEvent>,
    budget: &mut DiagnosticBudget,
    events: &UnboundedSender<AgentEvent>,
) {
    coalesce_deltas(out);
    budget.apply(out);
    for ev in out.drain(..) {
        let _ = events.send(ev);
    }
}

/// [`send_out`] for the end of a run: everything but the terminal event, which is handed
/// back to go out after the engine is stopped ("run ended" then means nothing of it is
/// left running).
pub(crate) fn send_out_but_terminal(
    out: &mut Vec<AgentEvent>,
    budget: &mut DiagnosticBudget,
    events: &UnboundedSender<AgentEvent>,
) -> Option<AgentEvent> {
    // The budget sees the terminal event: that is when it adds the count of what it dropped.
    coalesce_deltas(out);
    budget.apply(out);
    let terminal = out
        .iter()
        .position(AgentEvent::is_terminal)
        .map(|i| out.remove(i));
    for ev in out.drain(..) {
        let _ = events.send(ev);
    }
    terminal
}

/// Merge, in place, each run of consecutive same-item deltas into its first event.
pub(crate) fn coalesce_deltas(out: &mut Vec<AgentEvent>) {
    if out.len() < 2 {
        return;
    }
    let mut merged: Vec<AgentEvent> = Vec::with_capacity(out.len());
    for ev in out.drain(..) {
        if let Some(last) = merged.last_mut() {
            if let Some(piece) = continuation(last, &ev) {
                piece.push_str(appended(&ev));
                continue;
            }
        }
        merged.push(ev);
    }
    *out = merged;
}

/// The growing text of `last` when `next` continues it (same kind, same item).
fn continuation<'a>(last: &'a mut AgentEvent, next: &AgentEvent) -> Option<&'a mut String> {
    match (last, next) {
        (
            AgentEvent::MessageDelta { item_id, text },
            AgentEvent::MessageDelta { item_id: next, .. },
        )
        | (
            AgentEvent::ReasoningDelta { item_id, text },
            AgentEvent::ReasoningDelta { item_id: next, .. },
        ) if item_id == next => Some(text),
        (
            AgentEvent::ToolUpdated {
                item_id,
                kind,
                output,
            },
            AgentEvent::ToolUpdated {
                item_id: next,
                kind: next_kind,
                ..
            },
        ) if item_id == next && kind == next_kind => Some(output),
        _ => None,
    }
}

/// What a delta event appends.
fn appended(ev: &AgentEvent) -> &str {
    match ev {
        AgentEvent::MessageDelta { text, .. } | AgentEvent::ReasoningDelta { text, .. } => text,
        AgentEvent::ToolUpdated { output, .. } => output,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use agentdesk_protocol::events::{DiagnosticSource, ToolKind};

    use super::*;

    fn msg(item: &str, text: &str) -> AgentEvent {
        AgentEvent::MessageDelta {
            item_id: item.into(),
            text: text.into(),
        }
    }

    fn reasoning(item: &str, text: &str) -> AgentEvent {
        AgentEvent::ReasoningDelta {
            item_id: item.into(),
            text: text.into(),
        }
    }

    fn output(item: &str, text: &str) -> AgentEvent {
        AgentEvent::ToolUpdated {
            item_id: item.into(),
            kind: ToolKind::Command,
            output: text.into(),
        }
    }

    #[test]
    fn runs_of_one_item_merge_and_everything_else_keeps_its_place() {
        let notice = AgentEvent::EngineDiagnostic {
            source: DiagnosticSource::Notice,
            message: "n".into(),
            raw: None,
        };
        let mut out = vec![
            msg("a", "He"),
            msg("a", "llo"),
            msg("a", " you"),
            msg("b", "other"),
            msg("a", "!"),
            notice.clone(),
            msg("a", "?"),
            reasoning("r", "thi"),
            reasoning("r", "nk"),
            msg("r", "same id, other kind"),
            output("t", "line 1\n"),
            output("t", "line 2\n"),
        ];
        coalesce_deltas(&mut out);
        assert_eq!(
            out,
            vec![
                msg("a", "Hello you"),
                msg("b", "other"),
                msg("a", "!"),
                notice,
                msg("a", "?"),
                reasoning("r", "think"),
                msg("r", "same id, other kind"),
                output("t", "line 1\nline 2\n"),
            ]
        );
    }

    #[test]
    fn nothing_to_merge_is_left_as_is() {
        let mut out = vec![msg("a", "x")];
        coalesce_deltas(&mut out);
        assert_eq!(out, vec![msg("a", "x")]);
        let mut empty = Vec::new();
        coalesce_deltas(&mut empty);
        assert!(empty.is_empty());
    }
}
