//! The agent's plan: one checklist, whichever engine keeps it (Codex's `update_plan` tool,
//! reported as `turn/plan/updated`; Claude's task tools `TaskCreate`/`TaskUpdate`/`TaskList`
//! and the older `TodoWrite`; an ACP agent's `plan` session update). Engines send either the
//! whole list (Codex, ACP, TodoWrite) or changes to entries they name by id (Claude's tasks);
//! the adapters turn both into the whole list, so the timeline item and the session header
//! only ever draw a [`Plan`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

stored_enum! {
    /// Where a step stands.
    pub enum PlanStatus {
        Pending,
        InProgress,
        Completed,
    }
}

impl PlanStatus {
    /// An engine's spelling of a status (`in_progress`, `inProgress`, `completed`, ...);
    /// `None` for one this build does not know (the adapter reports it as a diagnostic).
    pub fn from_wire(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" | "inProgress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntry {
    /// The engine's id for the step when it has one (Claude's task id): later changes name
    /// it, so a plan continued in the next run keeps it.
    #[serde(default)]
    pub id: Option<String>,
    pub step: String,
    /// What the agent says it is doing while the step is in progress ("Running the tests").
    #[serde(default)]
    pub active_form: Option<String>,
    pub status: PlanStatus,
}

/// The plan as last reported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Why the plan changed, when the engine says (Codex's `explanation`).
    #[serde(default)]
    pub explanation: Option<String>,
    pub entries: Vec<PlanEntry>,
}

impl Plan {
    /// The step being worked on: the first in progress, else the first pending one.
    pub fn current(&self) -> Option<&PlanEntry> {
        self.entries
            .iter()
            .find(|e| e.status == PlanStatus::InProgress)
            .or_else(|| {
                self.entries
                    .iter()
                    .find(|e| e.status == PlanStatus::Pending)
            })
    }

    /// Steps done, of all.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .entries
            .iter()
            .filter(|e| e.status == PlanStatus::Completed)
            .count();
        (done, self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: &str, status: PlanStatus) -> PlanEntry {
        PlanEntry {
            id: None,
            step: step.into(),
            active_form: None,
            status,
        }
    }

    #[test]
    fn wire_spellings_and_current_step() {
        assert_eq!(
            PlanStatus::from_wire("inProgress"),
            Some(PlanStatus::InProgress)
        );
        assert_eq!(
            PlanStatus::from_wire("in_progress"),
            Some(PlanStatus::InProgress)
        );
        assert_eq!(PlanStatus::from_wire("blocked"), None);
        let mut plan = Plan {
            explanation: None,
            entries: vec![
                entry("a", PlanStatus::Completed),
                entry("b", PlanStatus::Pending),
                entry("c", PlanStatus::InProgress),
            ],
        };
        assert_eq!(plan.current().map(|e| e.step.as_str()), Some("c"));
        assert_eq!(plan.progress(), (1, 3));
        plan.entries[2].status = PlanStatus::Completed;
        assert_eq!(plan.current().map(|e| e.step.as_str()), Some("b"));
        plan.entries[1].status = PlanStatus::Completed;
        assert_eq!(plan.current(), None);
        let v = serde_json::to_value(&plan.entries[0]).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": null, "step": "a", "activeForm": null, "status": "completed"})
        );
    }
}
