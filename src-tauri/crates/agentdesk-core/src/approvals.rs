//! The durable approval queue.
//!
//! An approval is a row in the store plus, while it is pending, a [`Responder`] held in
//! memory by approval id: the engine's request, answered on the connection that asked. The
//! record ([`Approval`]: the row, and the copy held with the responder while pending) is the
//! approval's only state: timeline items name it by id, the window draws its card from the
//! queue's changes ([`ApprovalChange`], relayed by the live view), the CLI and notifications
//! read the same record. Every transition out of `pending` first *takes* the responder out
//! of the in-memory map (so two deciders in this process cannot both proceed), then does a
//! compare-and-set on `state = 'pending'` in the store (so a decision for anything no longer
//! pending — decided, expired by a restart, cancelled — is refused, never replayed), and only
//! then answers the engine. "No answer" ends as `expired`, `cancelled` or `timed_out`, never
//! as `denied`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use agentdesk_engine::ApprovalDecision;
use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::events::{AgentEvent, ApprovalKind, Question, UserDecision};
use agentdesk_protocol::ids::{ApprovalId, RunId, SessionId};
use agentdesk_protocol::ui::{
    Approval, ApprovalChange, ApprovalDecisionDetail, ApprovalKindName, ApprovalRequest,
    ApprovalState, DecidedBy,
};
use agentdesk_store::{now_ms, ApprovalEnd, Store, StoreError};
use serde_json::Value;
use tokio::sync::{broadcast, watch};

use crate::approval_rules::{evaluate, ApprovalPolicy, GrantKey, Verdict};
use crate::{CoreError, Result};

/// What goes back to the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalAnswer {
    /// The decision, whole (edited input, deny-and-stop, the message shown to the agent with
    /// a deny): it reaches the engine adapter as the user made it.
    Decision(ApprovalDecision),
    /// A question's answers, by question id.
    Answers(BTreeMap<String, Vec<String>>),
}

/// The engine's held request. Answered at most once; dropped unanswered when the approval
/// expires or is cancelled (the adapter then tells the engine the request is gone).
pub trait Responder: Send + 'static {
    fn respond(self: Box<Self>, answer: ApprovalAnswer);
}

impl<F: FnOnce(ApprovalAnswer) + Send + 'static> Responder for F {
    fn respond(self: Box<Self>, answer: ApprovalAnswer) {
        (*self)(answer)
    }
}

/// An engine's request, as the run orchestration hands it to the queue.
#[derive(Debug, Clone)]
pub struct ApprovalAsk {
    pub session_id: SessionId,
    pub run_id: RunId,
    /// The engine item (tool call) it belongs to.
    pub item_id: Option<String>,
    pub engine_request_id: String,
    pub kind: ApprovalKindName,
    pub request: ApprovalRequest,
    pub suggestions: Value,
}

impl ApprovalAsk {
    /// From an `approval.requested` or `question.asked` event; `None` for other events.
    /// The tool name, when the adapter knows it, comes from the typed detail.
    pub fn from_event(
        session_id: &SessionId,
        run_id: &RunId,
        ev: &AgentEvent,
    ) -> Option<ApprovalAsk> {
        let (engine_request_id, kind, item_id, request, suggestions) = match ev {
            AgentEvent::ApprovalRequested {
                request_id,
                kind,
                item_id,
                command,
                cwd,
                files,
                reason,
                detail,
                subagent,
            } => {
                let kind = match kind {
                    ApprovalKind::Command => ApprovalKindName::Command,
                    ApprovalKind::FileChange => ApprovalKindName::FileChange,
                    ApprovalKind::Permission => ApprovalKindName::Permission,
                    ApprovalKind::Tool => ApprovalKindName::Tool,
                };
                let tool = detail
                    .as_deref()
                    .and_then(ApprovalDetail::tool_name)
                    .map(str::to_string);
                let suggestions = detail.as_deref().map_or(
                    Value::Array(Vec::new()),
                    ApprovalDetail::permission_suggestions,
                );
                let req = ApprovalRequest {
                    tool,
                    command: command.clone(),
                    cwd: cwd.clone(),
                    files: files.clone(),
                    reason: reason.clone(),
                    questions: Vec::new(),
                    detail: detail.clone(),
                    subagent: subagent.clone(),
                };
                (request_id, kind, item_id, req, suggestions)
            }
            AgentEvent::QuestionAsked {
                request_id,
                item_id,
                questions,
            } => {
                let req = ApprovalRequest {
                    questions: questions.clone(),
                    ..Default::default()
                };
                (
                    request_id,
                    ApprovalKindName::Question,
                    item_id,
                    req,
                    Value::Array(Vec::new()),
                )
            }
            _ => return None,
        };
        Some(ApprovalAsk {
            session_id: session_id.clone(),
            run_id: run_id.clone(),
            item_id: item_id.clone(),
            engine_request_id: engine_request_id.clone(),
            kind,
            request,
            suggestions,
        })
    }
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Requested {
    /// Waits for the user (in the pending set, announced to subscribers).
    Pending(Approval),
    /// A rule decided and the engine was answered; the user never sees it as pending.
    AutoDecided(Approval),
}

impl Requested {
    pub fn approval(&self) -> &Approval {
        match self {
            Requested::Pending(a) | Requested::AutoDecided(a) => a,
        }
    }
}

struct Held {
    approval: Approval,
    responder: Box<dyn Responder>,
    deadline: Option<tokio::task::AbortHandle>,
    /// What "always for this session" on this request covers, worked out when it arrived
    /// (the same reading of its command and paths the rules made).
    grant: Vec<GrantKey>,
}

#[derive(Default)]
struct State {
    held: HashMap<ApprovalId, Held>,
    /// "Always for this session" choices, per session.
    grants: HashMap<SessionId, HashSet<GrantKey>>,
}

struct Inner {
    store: Store,
    state: Mutex<State>,
    pending_tx: watch::Sender<Vec<Approval>>,
    changes_tx: broadcast::Sender<ApprovalChange>,
}

/// The queue. Cheap to clone; one per process.
#[derive(Clone)]
pub struct ApprovalQueue {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ApprovalQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalQueue").finish_non_exhaustive()
    }
}

/// Subscribers that fall this far behind get a `Lagged` and should re-read the pending set.
const CHANGES_CAPACITY: usize = 256;

fn state_for(answer: &ApprovalAnswer) -> ApprovalState {
    match answer {
        ApprovalAnswer::Decision(d) => d.decision.into(),
        ApprovalAnswer::Answers(_) => ApprovalState::Answered,
    }
}

/// What the answer to a secret question is recorded as: the same mask whatever was answered
/// (and however many answers), so the record says nothing of the value, not even its length.
pub const SECRET_ANSWER_MASK: &str = "••••••";

/// `answers` as they may be kept: the answer to every question marked secret replaced by
/// [`SECRET_ANSWER_MASK`]. Only the engine ever gets the real value (from memory, on the
/// connection that asked); the store, the timeline and exports get this.
pub fn mask_secret_answers(
    questions: &[Question],
    answers: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    answers
        .iter()
        .map(|(id, given)| {
            let secret = questions.iter().any(|q| q.secret && q.id == *id);
            let kept = if secret {
                vec![SECRET_ANSWER_MASK.to_string()]
            } else {
                given.clone()
            };
            (id.clone(), kept)
        })
        .collect()
}

/// The decision's details as they are stored, secret answers masked (`questions`: what was
/// asked).
fn detail_for(answer: &ApprovalAnswer, questions: &[Question]) -> Option<ApprovalDecisionDetail> {
    match answer {
        ApprovalAnswer::Decision(d) => d.message.as_ref().map(|m| ApprovalDecisionDetail {
            message: Some(m.clone()),
            ..Default::default()
        }),
        ApprovalAnswer::Answers(a) => Some(ApprovalDecisionDetail {
            answers: Some(mask_secret_answers(questions, a)),
            ..Default::default()
        }),
    }
}

impl ApprovalQueue {
    pub fn new(store: Store) -> ApprovalQueue {
        let (pending_tx, _) = watch::channel(Vec::new());
        let (changes_tx, _) = broadcast::channel(CHANGES_CAPACITY);
        ApprovalQueue {
            inner: Arc::new(Inner {
                store,
                state: Mutex::new(State::default()),
                pending_tx,
                changes_tx,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated (each critical
        // section is a single insert/remove), so a poisoned lock is still consistent.
        agentdesk_protocol::sync::lock(&self.inner.state)
    }

    /// The pending set, updated on every change (badge count, queue view).
    pub fn watch_pending(&self) -> watch::Receiver<Vec<Approval>> {
        self.inner.pending_tx.subscribe()
    }

    /// Every change of the pending set, one by one (notifications, cards).
    pub fn subscribe(&self) -> broadcast::Receiver<ApprovalChange> {
        self.inner.changes_tx.subscribe()
    }

    /// The approvals pending and answerable in this process, oldest first.
    pub fn pending(&self) -> Vec<Approval> {
        self.inner.pending_tx.borrow().clone()
    }

    fn publish(&self, state: &State, change: Option<ApprovalChange>) {
        let mut pending: Vec<Approval> = state.held.values().map(|h| h.approval.clone()).collect();
        pending.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        self.inner.pending_tx.send_replace(pending);
        if let Some(c) = change {
            // No subscriber is fine: nobody is looking.
            let _ = self.inner.changes_tx.send(c);
        }
    }

    /// Start-up: approvals a previous process left pending expire (their engines are gone).
    pub async fn recover(&self) -> Result<Vec<Approval>> {
        Ok(self
            .inner
            .store
            .expire_all_pending_approvals(now_ms())
            .await?)
    }

    /// Take in an engine's request: decide it by rule, or hold it for the user.
    pub async fn request(
        &self,
        ask: ApprovalAsk,
        policy: &ApprovalPolicy,
        responder: Box<dyn Responder>,
    ) -> Result<Requested> {
        let now = now_ms();
        let grant = GrantKey::for_request(policy, ask.kind, &ask.request);
        // A copy: evaluating reads the file system (symlinks), never under the lock.
        let grants = self
            .lock()
            .grants
            .get(&ask.session_id)
            .cloned()
            .unwrap_or_default();
        let verdict = evaluate(policy, ask.kind, &ask.request, &grants);
        let mut approval = Approval {
            id: ApprovalId::new(),
            session_id: ask.session_id,
            run_id: ask.run_id,
            item_id: ask.item_id,
            engine_request_id: ask.engine_request_id,
            kind: ask.kind,
            request: ask.request,
            suggestions: ask.suggestions,
            state: ApprovalState::Pending,
            decided_by: None,
            decision: None,
            created_at: now,
            deadline_at: None,
            decided_at: None,
        };
        if let Some(v) = verdict {
            return self.decide_by_rule(approval, &v, responder).await;
        }
        let timeout = policy
            .timeout_secs
            .map(|s| Duration::from_secs(u64::from(s)));
        approval.deadline_at = timeout.map(|t| now.saturating_add(t.as_millis() as i64));
        // Held before the row exists: a decision can only find the row once the responder
        // is there to take.
        self.lock().held.insert(
            approval.id.clone(),
            Held {
                approval: approval.clone(),
                responder,
                deadline: None,
                grant,
            },
        );
        if let Err(e) = self.inner.store.insert_approval(&approval).await {
            self.lock().held.remove(&approval.id);
            return Err(e.into());
        }
        let mut state = self.lock();
        if let Some(t) = timeout {
            let queue = self.clone();
            let id = approval.id.clone();
            let task = tokio::spawn(async move {
                tokio::time::sleep(t).await;
                if let Err(e) = queue.time_out(&id).await {
                    tracing::debug!(%id, error = %e, "deadline passed for an approval already ended");
                }
            });
            match state.held.get_mut(&approval.id) {
                Some(h) => h.deadline = Some(task.abort_handle()),
                None => task.abort(),
            }
        }
        self.publish(
            &state,
            Some(ApprovalChange::Added {
                approval: approval.clone(),
            }),
        );
        Ok(Requested::Pending(approval))
    }

    /// A profile rule decided at once: recorded decided, and the engine answered.
    async fn decide_by_rule(
        &self,
        mut approval: Approval,
        v: &Verdict,
        responder: Box<dyn Responder>,
    ) -> Result<Requested> {
        let decision = if v.approve {
            UserDecision::ApproveOnce
        } else {
            UserDecision::Deny
        };
        approval.state = decision.into();
        approval.decided_by = Some(DecidedBy::Rule);
        approval.decided_at = Some(approval.created_at);
        approval.decision = Some(ApprovalDecisionDetail {
            rule: Some(v.reason.clone()),
            message: (!v.approve).then(|| format!("Denied by the profile: {}", v.reason)),
            answers: None,
        });
        self.inner.store.insert_approval(&approval).await?;
        // Announced decided (never `Added`: nobody is asked, nothing is notified), so the
        // window has the record its item names.
        let _ = self.inner.changes_tx.send(ApprovalChange::Resolved {
            approval: approval.clone(),
        });
        responder.respond(ApprovalAnswer::Decision(ApprovalDecision {
            message: approval.decision.as_ref().and_then(|d| d.message.clone()),
            ..decision.into()
        }));
        Ok(Requested::AutoDecided(approval))
    }

    /// Take the held request out, then end the row; only then is the engine answered.
    async fn end(
        &self,
        id: &ApprovalId,
        end: ApprovalEnd<'_>,
        check: impl FnOnce(&Approval) -> Result<()>,
    ) -> Result<(Approval, Option<Box<dyn Responder>>, Vec<GrantKey>)> {
        // No await while the guard lives (the future must stay Send).
        let taken = {
            let mut state = self.lock();
            match state.held.get(id).map(|h| check(&h.approval)) {
                Some(Err(e)) => Err(e),
                Some(Ok(())) => Ok(state.held.remove(id)),
                None => Ok(None),
            }
        };
        let Some(held) = taken? else {
            return Err(self.not_held(id).await);
        };
        if let Some(d) = &held.deadline {
            d.abort();
        }
        match self.inner.store.end_approval(id, &end).await {
            Ok(approval) => {
                let state = self.lock();
                self.publish(
                    &state,
                    Some(ApprovalChange::Resolved {
                        approval: approval.clone(),
                    }),
                );
                Ok((approval, Some(held.responder), held.grant))
            }
            Err(e @ StoreError::ApprovalNotPending { .. }) => {
                // Another process ended it (a restart's recovery): the row is the truth, so
                // the engine's request is let go unanswered.
                let state = self.lock();
                self.publish(&state, None);
                Err(e.into())
            }
            Err(e) => {
                // The write failed: it is still pending; keep it answerable.
                self.lock().held.insert(id.clone(), held);
                Err(e.into())
            }
        }
    }

    async fn not_held(&self, id: &ApprovalId) -> CoreError {
        match self.inner.store.get_approval(id).await {
            Ok(a) if a.state != ApprovalState::Pending => StoreError::ApprovalNotPending {
                id: id.clone(),
                state: a.state,
            }
            .into(),
            Ok(_) => CoreError::InvalidInput(format!(
                "approval {id} is pending but its engine request is not held by this process (another Agent Desk process owns it); the decision was not applied"
            )),
            Err(e) => e.into(),
        }
    }

    /// The user's (or a notification button's) decision. Refused unless still pending.
    pub async fn decide(
        &self,
        id: &ApprovalId,
        answer: ApprovalAnswer,
        by: DecidedBy,
    ) -> Result<Approval> {
        if matches!(by, DecidedBy::Rule | DecidedBy::Deadline) {
            return Err(CoreError::InvalidInput(
                "rules and deadlines decide inside the queue, not through decide()".into(),
            ));
        }
        let new_state = state_for(&answer);
        // What was asked, to know which answers are secret. Read apart from `end` (which
        // takes the request out); a request not held here is refused by `end` anyway.
        let questions = self
            .lock()
            .held
            .get(id)
            .map(|h| h.approval.request.questions.clone())
            .unwrap_or_default();
        let detail = detail_for(&answer, &questions);
        let end = ApprovalEnd {
            state: new_state,
            decided_by: Some(by),
            decision: detail.as_ref(),
            at: now_ms(),
        };
        let (approval, responder, grant) = self
            .end(id, end, |a| {
                let is_question = a.kind == ApprovalKindName::Question;
                match (&answer, is_question) {
                    (ApprovalAnswer::Answers(_), false) => Err(CoreError::InvalidInput(format!(
                        "approval {id} is not a question; approve or deny it"
                    ))),
                    (ApprovalAnswer::Decision(d), true) if d.decision != UserDecision::Deny => {
                        Err(CoreError::InvalidInput(format!(
                            "approval {id} is a question; answer it (or deny to skip it)"
                        )))
                    }
                    _ => Ok(()),
                }
            })
            .await?;
        if new_state == ApprovalState::ApprovedSession && !grant.is_empty() {
            // Exactly what the user saw: this command line, these files, this input.
            self.lock()
                .grants
                .entry(approval.session_id.clone())
                .or_default()
                .extend(grant);
        }
        if let Some(r) = responder {
            r.respond(answer);
        }
        Ok(approval)
    }

    /// The deadline passed: a safe deny goes to the engine, recorded as `timed_out`.
    pub async fn time_out(&self, id: &ApprovalId) -> Result<Approval> {
        let end = ApprovalEnd {
            state: ApprovalState::TimedOut,
            decided_by: Some(DecidedBy::Deadline),
            decision: None,
            at: now_ms(),
        };
        // This usually runs *in* the deadline task: aborting that task here would cancel
        // the rest of this very call at its next await.
        if let Some(h) = self.lock().held.get_mut(id) {
            h.deadline = None;
        }
        let (approval, responder, _) = self.end(id, end, |_| Ok(())).await?;
        if let Some(r) = responder {
            r.respond(ApprovalAnswer::Decision(ApprovalDecision::deny(
                "No answer in time; denied for safety.",
            )));
        }
        Ok(approval)
    }

    /// The engine withdrew the request (or the user dismissed the run's request on purpose).
    pub async fn cancel(&self, id: &ApprovalId) -> Result<Approval> {
        self.withdraw(id, ApprovalState::Cancelled).await
    }

    /// The request went away without a decision: `cancelled` (withdrawn on purpose) or
    /// `expired` (the engine's side stopped waiting). Any other state is refused.
    pub async fn withdraw(&self, id: &ApprovalId, state: ApprovalState) -> Result<Approval> {
        if !matches!(state, ApprovalState::Cancelled | ApprovalState::Expired) {
            return Err(CoreError::InvalidInput(format!(
                "an approval is withdrawn as cancelled or expired, not {}",
                state.as_str()
            )));
        }
        let end = ApprovalEnd {
            state,
            decided_by: None,
            decision: None,
            at: now_ms(),
        };
        // Dropping the responder lets the engine's request go unanswered.
        let (approval, _dropped, _) = self.end(id, end, |_| Ok(())).await?;
        Ok(approval)
    }

    /// A run ended: its pending approvals become `expired` (engine exited, run failed) or
    /// `cancelled` (interrupted). Their requests are dropped, never answered.
    pub async fn end_run(&self, run_id: &RunId, state: ApprovalState) -> Result<Vec<Approval>> {
        let taken: Vec<Held> = {
            let mut st = self.lock();
            let ids: Vec<ApprovalId> = st
                .held
                .iter()
                .filter(|(_, h)| h.approval.run_id == *run_id)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| st.held.remove(id)).collect()
        };
        for h in &taken {
            if let Some(d) = &h.deadline {
                d.abort();
            }
        }
        let ended = match self
            .inner
            .store
            .end_run_approvals(run_id, state, now_ms())
            .await
        {
            Ok(ended) => ended,
            Err(e) => {
                let mut st = self.lock();
                for h in taken {
                    st.held.insert(h.approval.id.clone(), h);
                }
                return Err(e.into());
            }
        };
        drop(taken);
        let st = self.lock();
        self.publish(&st, None);
        for a in &ended {
            let _ = self.inner.changes_tx.send(ApprovalChange::Resolved {
                approval: a.clone(),
            });
        }
        Ok(ended)
    }

    /// Forget a session's "always" choices (the session was deleted).
    pub fn forget_session(&self, session_id: &SessionId) {
        self.lock().grants.remove(session_id);
    }
}

#[cfg(test)]
#[path = "approvals_tests.rs"]
mod tests;
