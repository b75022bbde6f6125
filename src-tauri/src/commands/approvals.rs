//! Approval and question cards.

use agentdesk_core::ApprovalDecision;
use agentdesk_protocol::events::UserDecision;
use agentdesk_protocol::ipc::{AnswerQuestionArgs, DecideApprovalArgs, ListPendingApprovalsArgs};
use agentdesk_protocol::ui::{CardDecision, DecidedBy};
use tauri::State;

use super::{Args, Reply};
use crate::state::AppState;

fn to_engine(choice: CardDecision, message: Option<String>) -> ApprovalDecision {
    let message = message.filter(|m| !m.trim().is_empty());
    match choice {
        CardDecision::ApproveOnce => UserDecision::ApproveOnce.into(),
        CardDecision::ApproveSession => UserDecision::ApproveForSession.into(),
        CardDecision::Deny => ApprovalDecision {
            message,
            ..UserDecision::Deny.into()
        },
        CardDecision::DenyAndStop => ApprovalDecision::deny_and_stop(
            message.unwrap_or_else(|| "The user denied this and stopped the run.".into()),
        ),
    }
}

/// Decide from a card; refused (`conflict`) when the request is no longer pending.
#[tauri::command]
pub async fn decide_approval(
    state: State<'_, AppState>,
    args: Args<DecideApprovalArgs>,
) -> Reply<DecideApprovalArgs> {
    let DecideApprovalArgs {
        approval_id,
        decision,
        message,
    } = args.args;
    Ok(state
        .desk()?
        .decide_approval(&approval_id, to_engine(decision, message), DecidedBy::User)
        .await?)
}

#[tauri::command]
pub async fn answer_question(
    state: State<'_, AppState>,
    args: Args<AnswerQuestionArgs>,
) -> Reply<AnswerQuestionArgs> {
    let AnswerQuestionArgs {
        approval_id,
        answers,
    } = args.args;
    Ok(state
        .desk()?
        .answer_question(&approval_id, answers, DecidedBy::User)
        .await?)
}

/// Every pending request across sessions (the Approvals view).
#[tauri::command]
pub fn list_pending_approvals(state: State<'_, AppState>) -> Reply<ListPendingApprovalsArgs> {
    Ok(state.desk()?.approvals().pending())
}
