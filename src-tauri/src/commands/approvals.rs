//! Approval and question cards.

use agentdesk_core::ApprovalDecision;
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ipc::{AnswerQuestionArgs, DecideApprovalArgs, ListPendingApprovalsArgs};
use agentdesk_protocol::ui::DecidedBy;
use tauri::State;

use super::Reply;
use crate::state::AppState;

/// The card's decision, whole: `stop` (deny and end the run) goes with a deny only.
fn to_engine(decision: UserDecision, stop: bool, message: Option<String>) -> ApprovalDecision {
    let message = message.filter(|m| !m.trim().is_empty());
    match decision {
        UserDecision::Deny if stop => ApprovalDecision::deny_and_stop(
            message.unwrap_or_else(|| "The user denied this and stopped the run.".into()),
        ),
        UserDecision::Deny => ApprovalDecision {
            message,
            ..UserDecision::Deny.into()
        },
        approve => approve.into(),
    }
}

desk_commands! {
    /// Decide from a card; refused (`conflict`) when the request is no longer pending.
    fn decide_approval(desk, args: DecideApprovalArgs) {
        let DecideApprovalArgs { approval_id, decision, stop, message } = args;
        let decision = to_engine(decision, stop, message);
        desk.decide_approval(&approval_id, decision, DecidedBy::User).await?
    }

    fn answer_question(desk, args: AnswerQuestionArgs) {
        desk.answer_question(&args.approval_id, args.answers, DecidedBy::User).await?
    }
}

/// Every pending request across sessions (the Approvals view).
#[tauri::command]
pub fn list_pending_approvals(state: State<'_, AppState>) -> Reply<ListPendingApprovalsArgs> {
    Ok(state.desk()?.approvals().pending())
}
