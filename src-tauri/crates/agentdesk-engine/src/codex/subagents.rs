//! Codex sub-agents (`features.multi_agent`, codex 0.169): the model's `spawn_agent` call is a
//! `collabAgentToolCall` item (`tool: spawnAgent`) that completes as soon as the sub-agent's
//! thread exists (`receiverThreadIds`). That thread's notifications reach the run through the
//! server's routes (the child thread is routed to its parent's run): its items are nested
//! under the spawn call, which stays running until the child's turn completes (its last
//! message is the call's output). A run whose own turn completed while a sub-agent still
//! works waits for it, so nothing the sub-agent does is lost.

use std::collections::{HashMap, HashSet};

use agentdesk_protocol::codex::{CollabAgentToolCallItem, ServerNotification, TurnStatus};
use agentdesk_protocol::events::{AgentEvent, ToolStatus};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Child {
    /// The spawn call it is nested under.
    item_id: String,
    /// The sub-agent in words (the start of its task), for its approvals.
    name: String,
    last_message: Option<String>,
    turn_id: Option<String>,
    done: bool,
}

#[derive(Debug, Default)]
pub(super) struct SubAgents {
    /// By the sub-agent's thread id.
    children: HashMap<String, Child>,
    /// Items already announced as nested.
    nested: HashSet<String>,
}

/// A call's name and input for its card: a spawn is the sub-agent's card (its task as the
/// prompt, its first line as the description), the other tools name their verb.
pub(super) fn card(c: &CollabAgentToolCallItem) -> (String, Value) {
    let prompt = c.prompt.clone().unwrap_or_default();
    let description = first_line(&prompt);
    let name = match c.tool.as_str() {
        "spawnAgent" => "spawn_agent",
        "sendInput" => "send_input",
        "resumeAgent" => "resume_agent",
        "wait" => "wait_agent",
        "closeAgent" => "close_agent",
        other => other,
    };
    let input = json!({
        "description": description,
        "prompt": prompt,
        "subagent_type": c.model.as_deref().filter(|m| !m.is_empty()),
        "receiverThreadIds": c.receiver_thread_ids,
    });
    (name.to_owned(), input)
}

/// What a finished call says: the sub-agents' last messages (a `wait`), or their states.
pub(super) fn output(c: &CollabAgentToolCallItem) -> Option<String> {
    let lines: Vec<String> = c
        .agents_states
        .values()
        .map(|s| match &s.message {
            Some(m) => m.clone(),
            None => s.status.clone(),
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut cut: String = line.trim().chars().take(60).collect();
    if line.trim().chars().count() > 60 {
        cut.push('…');
    }
    cut
}

impl SubAgents {
    /// A spawn call completed: its sub-agents are known. True when the call stays open (a
    /// sub-agent works) instead of completing now.
    pub(super) fn spawned(&mut self, c: &CollabAgentToolCallItem) -> bool {
        if c.tool != "spawnAgent" || c.status == "failed" || c.receiver_thread_ids.is_empty() {
            return false;
        }
        let name = first_line(c.prompt.as_deref().unwrap_or(""));
        for thread in &c.receiver_thread_ids {
            self.children.entry(thread.clone()).or_insert(Child {
                item_id: c.id.clone(),
                name: name.clone(),
                last_message: None,
                turn_id: None,
                done: false,
            });
        }
        true
    }

    pub(super) fn is_child(&self, thread_id: &str) -> bool {
        self.children.contains_key(thread_id)
    }

    /// Whether a sub-agent of the run still works.
    pub(super) fn working(&self) -> bool {
        self.children.values().any(|c| !c.done)
    }

    /// The sub-agent of `thread_id` in words, for its approvals.
    pub(super) fn name(&self, thread_id: &str) -> Option<String> {
        self.children
            .get(thread_id)
            .map(|c| format!("codex sub-agent: {}", c.name))
    }

    /// The turns of the sub-agents still working (to interrupt them with the run).
    pub(super) fn working_turns(&self) -> Vec<(String, String)> {
        self.children
            .iter()
            .filter(|(_, c)| !c.done)
            .filter_map(|(t, c)| c.turn_id.clone().map(|turn| (t.clone(), turn)))
            .collect()
    }

    /// `item.parent` for a sub-agent's item, the first time it is seen.
    pub(super) fn nest(&mut self, thread_id: &str, item_id: &str, out: &mut Vec<AgentEvent>) {
        let Some(child) = self.children.get(thread_id) else {
            return;
        };
        if self.nested.insert(item_id.to_owned()) {
            out.push(AgentEvent::ItemParent {
                item_id: item_id.to_owned(),
                parent_item_id: child.item_id.clone(),
            });
        }
    }

    /// Bookkeeping of a sub-agent's notification; `Some((spawn call, status, last message))`
    /// when its turn ended.
    pub(super) fn on_notification(
        &mut self,
        thread_id: &str,
        n: &ServerNotification,
    ) -> Option<(String, ToolStatus, Option<String>)> {
        let child = self.children.get_mut(thread_id)?;
        match n {
            ServerNotification::TurnStarted(t) => {
                child.turn_id = Some(t.turn.id.clone());
                None
            }
            ServerNotification::ItemCompleted(i) => {
                if let agentdesk_protocol::codex::ThreadItem::AgentMessage(m) = &i.item {
                    child.last_message = Some(m.text.clone());
                }
                None
            }
            ServerNotification::TurnCompleted(c) if !child.done => {
                child.done = true;
                let status = match c.turn.status {
                    TurnStatus::Completed => ToolStatus::Completed,
                    TurnStatus::Interrupted => ToolStatus::Interrupted,
                    _ => ToolStatus::Failed,
                };
                let (call, last) = (child.item_id.clone(), child.last_message.clone());
                // The call completes with its last sub-agent (a spawn may start several).
                let others_work = self.children.values().any(|o| !o.done && o.item_id == call);
                (!others_work).then_some((call, status, last))
            }
            _ => None,
        }
    }
}

/// The item a notification is about, for nesting.
pub(super) fn item_of(n: &ServerNotification) -> Option<String> {
    Some(match n {
        ServerNotification::ItemStarted(i) => i.item.id()?.to_owned(),
        ServerNotification::ItemCompleted(i) => i.item.id()?.to_owned(),
        ServerNotification::AgentMessageDelta(d)
        | ServerNotification::CommandExecutionOutputDelta(d)
        | ServerNotification::FileChangeOutputDelta(d) => d.item_id.clone(),
        ServerNotification::ReasoningSummaryTextDelta(d) => d.item_id.clone(),
        ServerNotification::ReasoningTextDelta(d) => d.item_id.clone(),
        _ => return None,
    })
}
