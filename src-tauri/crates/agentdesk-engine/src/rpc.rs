//! A bidirectional JSON-RPC 2.0 peer over a [`Transport`].
//!
//! - Outbound requests get integer ids and wait in a pending map, each with an optional
//!   timeout. When the stream closes or the child exits, every pending request fails with
//!   [`EngineError::ChildExited`] (exit status + stderr tail when an [`ExitWatch`] is given).
//! - Inbound messages are classified: responses complete pending requests; notifications,
//!   inbound requests and diagnostics go out, **in arrival order**, on one unbounded
//!   [`PeerEvents`] channel. One channel keeps ordering (codex announces a `fileChange` item
//!   before the approval request that refers to it). It is unbounded so the owner can `await`
//!   a request from inside its event loop without deadlocking the reader; the transport's
//!   bounded inbound channel still gives pipe backpressure upstream of it.
//! - Inbound requests first go through a [`RequestHandler`]: it forwards them as
//!   [`PeerEvent::Request`], handles them itself, or declines (answered -32601 at once).
//!   A forwarded [`InboundRequest`] can be held as long as needed (approvals wait for a human)
//!   and answered with [`InboundRequest::respond`]. If it is dropped unanswered it answers
//!   itself with -32603 "dropped without an answer": codex waits forever for unanswered
//!   requests, so "nobody will answer" must become an explicit error, never silence.
//!
//! `"jsonrpc":"2.0"` is accepted or absent on input (codex omits it) and sent or not per
//! [`RpcConfig::send_jsonrpc_field`].

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentdesk_protocol::codex::requests::Request;
use agentdesk_protocol::codex::ServerNotification;
use agentdesk_protocol::sync::lock;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::batched::Batched;
use crate::diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource};
use crate::error::EngineError;
use crate::process::{ChildExit, ExitWatch};
use crate::transport::{AbortOnDrop, Inbound, InboundRx, LineWriter, Transport};

/// JSON-RPC: the method does not exist / is not handled here.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: invalid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: internal error; used for requests dropped without an answer.
pub const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC id as the peer sent it (echoed back unchanged).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Int(i64),
    Str(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::Str(s) => f.write_str(s),
        }
    }
}

/// Peer settings.
#[derive(Debug, Clone)]
pub struct RpcConfig {
    /// Put `"jsonrpc":"2.0"` on outgoing messages.
    pub send_jsonrpc_field: bool,
    /// Timeout for [`RpcPeer::request`] (per-call override: [`RpcPeer::request_with_timeout`]).
    pub default_timeout: Option<Duration>,
    /// After the stream closes, how long to wait for the exit status (for the error message).
    pub close_grace: Duration,
    /// After the child exits while its stdout stays open (a grandchild holds it), how long to
    /// keep reading what is already in the pipe before failing pending requests.
    pub exit_drain: Duration,
}

impl Default for RpcConfig {
    fn default() -> Self {
        Self {
            send_jsonrpc_field: true,
            default_timeout: Some(Duration::from_secs(60)),
            close_grace: Duration::from_secs(1),
            exit_drain: Duration::from_millis(300),
        }
    }
}

impl RpcConfig {
    /// Codex app-server: it omits `jsonrpc` itself, so we do too (it accepts either).
    pub fn codex() -> Self {
        Self {
            send_jsonrpc_field: false,
            ..Self::default()
        }
    }
}

/// A notification from the peer.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    /// `Null` when absent.
    pub params: Value,
    /// Other top-level fields (codex: `emittedAtMs`), minus `jsonrpc`.
    pub extra: Map<String, Value>,
}

impl Notification {
    /// Deserialise the params into a typed struct.
    pub fn parse_params<T: DeserializeOwned>(&self) -> Result<T, EngineError> {
        T::deserialize(&self.params)
            .map_err(|e| EngineError::decode(format!("params of `{}`", self.method), e))
    }
}

#[derive(Debug)]
struct Responder {
    writer: LineWriter,
    jsonrpc: bool,
}

/// A request from the peer that must be answered exactly once.
///
/// Answer with [`respond`](Self::respond), [`respond_error`](Self::respond_error) or
/// [`decline`](Self::decline). Dropping it unanswered sends error -32603 (see module docs).
/// Answering after the connection closed returns [`EngineError::Closed`], which callers
/// can usually ignore.
#[derive(Debug)]
pub struct InboundRequest {
    pub id: RequestId,
    pub method: String,
    /// `Null` when absent.
    pub params: Value,
    responder: Option<Responder>,
}

impl InboundRequest {
    /// Deserialise the params into a typed struct.
    pub fn parse_params<T: DeserializeOwned>(&self) -> Result<T, EngineError> {
        T::deserialize(&self.params)
            .map_err(|e| EngineError::decode(format!("params of `{}`", self.method), e))
    }

    /// Answer with a result.
    pub fn respond(mut self, result: Value) -> Result<(), EngineError> {
        self.send(Ok(result))
    }

    /// Answer with a typed result.
    pub fn respond_json<T: Serialize>(self, result: &T) -> Result<(), EngineError> {
        let value = serde_json::to_value(result).map_err(|source| EngineError::Encode {
            context: format!("result of `{}`", self.method),
            source,
        })?;
        self.respond(value)
    }

    /// Answer with a JSON-RPC error.
    pub fn respond_error(
        mut self,
        code: i64,
        message: impl Into<String>,
    ) -> Result<(), EngineError> {
        self.send(Err(ErrorObject {
            code,
            message: message.into(),
            data: None,
        }))
    }

    /// Answer -32601: we do not handle this method.
    pub fn decline(self) -> Result<(), EngineError> {
        let message = format!("method not found: {}", self.method);
        self.respond_error(METHOD_NOT_FOUND, message)
    }

    fn send(&mut self, outcome: Result<Value, ErrorObject>) -> Result<(), EngineError> {
        let Some(responder) = self.responder.take() else {
            return Err(EngineError::Closed("request already answered".to_owned()));
        };
        let (result, error) = match outcome {
            Ok(result) => (Some(result), None),
            Err(error) => (None, Some(error)),
        };
        responder.writer.send_json(&ResponseEnvelope {
            jsonrpc: responder.jsonrpc.then_some(JSONRPC_VERSION),
            id: Some(&self.id),
            result,
            error,
        })
    }
}

impl Drop for InboundRequest {
    fn drop(&mut self) {
        if self.responder.is_some() {
            tracing::debug!(method = %self.method, id = %self.id, "inbound request dropped unanswered");
            let _ = self.send(Err(ErrorObject {
                code: INTERNAL_ERROR,
                message: format!(
                    "request `{}` was dropped by the host without an answer",
                    self.method
                ),
                data: None,
            }));
        }
    }
}

const JSONRPC_VERSION: &str = "2.0";

/// A request or notification we send: `{"jsonrpc"?, "id"?, "method", "params"?}`.
#[derive(Serialize)]
struct RequestEnvelope<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    jsonrpc: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<i64>,
    method: &'a str,
    #[serde(skip_serializing_if = "Value::is_null")]
    params: Value,
}

/// Our answer to a request of the peer: exactly one of `result` / `error`; `id` is `null`
/// when the peer's id could not be read.
#[derive(Serialize)]
struct ResponseEnvelope<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    jsonrpc: Option<&'static str>,
    id: Option<&'a RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ErrorObject {
    code: i64,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// What the handler did with an inbound request.
#[derive(Debug)]
pub enum Dispatch {
    /// Deliver it as [`PeerEvent::Request`] (in order with notifications).
    Forward(InboundRequest),
    /// The handler answered it or keeps it.
    Handled,
    /// Not ours: answer -32601 now.
    Decline(InboundRequest),
}

/// Decides, synchronously on the reader task, what happens to each inbound request.
/// Must not block. Closures `FnMut(InboundRequest) -> Dispatch` implement it.
pub trait RequestHandler: Send + 'static {
    fn dispatch(&mut self, request: InboundRequest) -> Dispatch;
}

impl<F> RequestHandler for F
where
    F: FnMut(InboundRequest) -> Dispatch + Send + 'static,
{
    fn dispatch(&mut self, request: InboundRequest) -> Dispatch {
        self(request)
    }
}

/// Forward every inbound request (the owner must answer or drop each).
#[derive(Debug, Clone, Copy, Default)]
pub struct ForwardAll;

impl RequestHandler for ForwardAll {
    fn dispatch(&mut self, request: InboundRequest) -> Dispatch {
        Dispatch::Forward(request)
    }
}

/// Forward the listed methods, decline everything else with -32601.
#[derive(Debug, Clone, Default)]
pub struct ForwardMethods {
    methods: HashSet<String>,
}

impl ForwardMethods {
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(methods: I) -> Self {
        Self {
            methods: methods.into_iter().map(Into::into).collect(),
        }
    }
}

impl RequestHandler for ForwardMethods {
    fn dispatch(&mut self, request: InboundRequest) -> Dispatch {
        if self.methods.contains(&request.method) {
            Dispatch::Forward(request)
        } else {
            Dispatch::Decline(request)
        }
    }
}

/// What the RPC reader takes from its transport: any JSON value, or a notification the
/// transport's decoder already typed (codex's streamed deltas, see `codex::wire`).
#[derive(Debug, Clone, PartialEq)]
// The big variant is the hot one (a delta per line): boxing it would add an allocation per
// line to save a few hundred bytes of a short-lived batch.
#[allow(clippy::large_enum_variant)]
pub enum RpcLine {
    Json(Value),
    Notification(ServerNotification),
}

impl From<Value> for RpcLine {
    fn from(value: Value) -> Self {
        Self::Json(value)
    }
}

/// Everything the peer delivers to its owner, in arrival order.
#[derive(Debug)]
pub enum PeerEvent {
    Notification(Notification),
    /// A notification decoded straight into its type on the reader task (the hot path);
    /// the same facts as [`ServerNotification::from_parts`] of the generic form.
    Typed(ServerNotification),
    Request(InboundRequest),
    Diagnostic(Diagnostic),
    /// Last event: the stream closed or the child exited; pending requests have failed.
    Closed {
        exit: Option<ChildExit>,
    },
}

/// The owner's end of the event stream: events one at a time, in arrival order. The reader
/// sends what one transport batch (one read of the engine's stdout) produced as one message.
pub type PeerEvents = Batched<PeerEvent, mpsc::UnboundedReceiver<Vec<PeerEvent>>>;

struct Pending {
    method: String,
    tx: oneshot::Sender<Result<Value, EngineError>>,
}

#[derive(Default)]
struct State {
    pending: HashMap<i64, Pending>,
    /// `Some` once closed; the inner option is the exit, when known.
    closed: Option<Option<ChildExit>>,
}

struct Shared {
    next_id: AtomicI64,
    state: Mutex<State>,
    closed_tx: watch::Sender<bool>,
}

fn exit_error(exit: Option<&ChildExit>) -> EngineError {
    match exit {
        Some(exit) => exit.to_error(),
        None => EngineError::ChildExited {
            status: None,
            stderr_tail: String::new(),
        },
    }
}

struct PeerInner {
    shared: Arc<Shared>,
    writer: LineWriter,
    config: RpcConfig,
    _task: AbortOnDrop,
}

/// Handle to a running peer. Clones share the connection; when the last clone is dropped the
/// read loop stops (held [`InboundRequest`]s can still answer while the writer lives).
#[derive(Clone)]
pub struct RpcPeer {
    inner: Arc<PeerInner>,
}

impl std::fmt::Debug for RpcPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcPeer")
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

/// Removes a pending entry if the request future is dropped or times out.
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: i64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.shared.state).pending.remove(&self.id);
    }
}

impl RpcPeer {
    /// Start the read loop. `exit` (from [`crate::ChildProcess::exit_watch`]) lets failures
    /// carry the exit status and stderr tail, and ends the session when the child dies even if
    /// a grandchild keeps stdout open. Must be called inside a tokio runtime.
    pub fn start<T: Into<RpcLine> + Send + 'static>(
        transport: Transport<T>,
        config: RpcConfig,
        handler: impl RequestHandler,
        exit: Option<ExitWatch>,
    ) -> (Self, PeerEvents) {
        let (writer, inbound, reader_guard) = transport.into_parts();
        let (events_tx, events) = mpsc::unbounded_channel();
        let events = Batched::new(events);
        let (closed_tx, _) = watch::channel(false);
        let shared = Arc::new(Shared {
            next_id: AtomicI64::new(0),
            state: Mutex::new(State::default()),
            closed_tx,
        });
        let reader = Reader {
            shared: Arc::clone(&shared),
            writer: writer.clone(),
            jsonrpc: config.send_jsonrpc_field,
            handler: Box::new(handler),
            events: events_tx,
            out: Vec::new(),
        };
        let task = tokio::spawn(reader.run(inbound, reader_guard, exit, config.clone()));
        let inner = PeerInner {
            shared,
            writer,
            config,
            _task: AbortOnDrop::new(task),
        };
        (
            Self {
                inner: Arc::new(inner),
            },
            events,
        )
    }

    /// Send a request and wait for its result, with the configured default timeout.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, EngineError> {
        self.request_with_timeout(method, params, self.inner.config.default_timeout)
            .await
    }

    /// A request of the codex method table: method, params and response all come from `R`.
    pub async fn call<R: Request>(&self, params: &R::Params) -> Result<R::Response, EngineError> {
        self.request_typed(R::METHOD, params).await
    }

    /// Send a request with typed params and result.
    pub async fn request_typed<P, R>(&self, method: &str, params: &P) -> Result<R, EngineError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let params = serde_json::to_value(params).map_err(|source| EngineError::Encode {
            context: format!("params of `{method}`"),
            source,
        })?;
        let result = self.request(method, params).await?;
        serde_json::from_value(result)
            .map_err(|e| EngineError::decode(format!("result of `{method}`"), e))
    }

    /// Send a request; `timeout: None` waits until answered or the connection closes.
    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, EngineError> {
        let shared = &*self.inner.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            // Checked under the same lock the close path takes: a request registered after the
            // close drained the map would otherwise wait forever.
            let mut state = lock(&shared.state);
            if let Some(exit) = &state.closed {
                return Err(exit_error(exit.as_ref()));
            }
            let method = method.to_owned();
            state.pending.insert(id, Pending { method, tx });
        }
        let _guard = PendingGuard { shared, id };
        let msg = self.envelope(Some(id), method, params);
        self.inner.writer.send_json(&msg)?;
        let answer = match timeout {
            Some(after) => match tokio::time::timeout(after, rx).await {
                Ok(answer) => answer,
                Err(_) => {
                    return Err(EngineError::Timeout {
                        what: format!("reply to `{method}`"),
                        after,
                    })
                }
            },
            None => rx.await,
        };
        answer.unwrap_or_else(|_| Err(EngineError::Closed("rpc peer stopped".to_owned())))
    }

    /// Send a notification (no answer expected).
    pub fn notify(&self, method: &str, params: Value) -> Result<(), EngineError> {
        if let Some(exit) = &lock(&self.inner.shared.state).closed {
            return Err(exit_error(exit.as_ref()));
        }
        self.inner
            .writer
            .send_json(&self.envelope(None, method, params))
    }

    /// The writer, for raw lines outside JSON-RPC (rarely needed).
    pub fn writer(&self) -> &LineWriter {
        &self.inner.writer
    }

    /// True once the stream closed (pending requests have failed).
    pub fn is_closed(&self) -> bool {
        lock(&self.inner.shared.state).closed.is_some()
    }

    /// Wait until the connection is closed; returns the child's exit when known.
    pub async fn closed(&self) -> Option<ChildExit> {
        let mut rx = self.inner.shared.closed_tx.subscribe();
        let _ = rx.wait_for(|closed| *closed).await;
        lock(&self.inner.shared.state).closed.clone().flatten()
    }

    /// Close our side: flush and close the writer (for a child: EOF on stdin).
    pub fn close(&self) {
        self.inner.writer.close();
    }

    fn envelope<'a>(&self, id: Option<i64>, method: &'a str, params: Value) -> RequestEnvelope<'a> {
        RequestEnvelope {
            jsonrpc: self
                .inner
                .config
                .send_jsonrpc_field
                .then_some(JSONRPC_VERSION),
            id,
            method,
            params,
        }
    }
}

struct Reader {
    shared: Arc<Shared>,
    writer: LineWriter,
    jsonrpc: bool,
    handler: Box<dyn RequestHandler>,
    events: mpsc::UnboundedSender<Vec<PeerEvent>>,
    /// Events of the transport batch being read, sent together (see [`PeerEvents`]).
    out: Vec<PeerEvent>,
}

async fn wait_exit(exit: &mut Option<ExitWatch>) -> Option<ChildExit> {
    match exit {
        Some(watch) => watch.wait().await,
        None => std::future::pending().await,
    }
}

impl Reader {
    async fn run<T: Into<RpcLine> + Send>(
        mut self,
        mut inbound: InboundRx<T>,
        reader_guard: AbortOnDrop,
        mut exit: Option<ExitWatch>,
        config: RpcConfig,
    ) {
        let mut exit_seen: Option<ChildExit> = None;
        let mut drain_deadline: Option<Instant> = None;
        loop {
            tokio::select! {
                biased;
                msg = inbound.recv() => {
                    match msg {
                        Some(Inbound::Message(line)) => match line.into() {
                            RpcLine::Json(value) => self.on_message(value),
                            RpcLine::Notification(n) => self.emit(PeerEvent::Typed(n)),
                        },
                        Some(Inbound::Diagnostic(diag)) => self.emit(PeerEvent::Diagnostic(diag)),
                        None => break,
                    }
                    // The rest of the read is already here: keep collecting; otherwise hand
                    // over what this read produced before waiting for the next one.
                    if !inbound.has_buffered() {
                        self.flush();
                    }
                }
                seen = wait_exit(&mut exit), if exit_seen.is_none() => match seen {
                    Some(seen) => {
                        exit_seen = Some(seen);
                        drain_deadline = Some(Instant::now() + config.exit_drain);
                    }
                    // The supervisor vanished without a status: stop watching it.
                    None => exit = None,
                },
                () = sleep_until_opt(drain_deadline) => break,
            }
        }
        drop(reader_guard);
        if exit_seen.is_none() {
            if let Some(watch) = exit.as_mut() {
                exit_seen = tokio::time::timeout(config.close_grace, watch.wait())
                    .await
                    .ok()
                    .flatten();
            }
        }
        let pending = {
            let mut state = lock(&self.shared.state);
            state.closed = Some(exit_seen.clone());
            std::mem::take(&mut state.pending)
        };
        for (_, p) in pending {
            tracing::debug!(method = %p.method, "failing pending request: connection closed");
            let _ = p.tx.send(Err(exit_error(exit_seen.as_ref())));
        }
        self.emit(PeerEvent::Closed { exit: exit_seen });
        self.flush();
        self.shared.closed_tx.send_replace(true);
    }

    fn emit(&mut self, event: PeerEvent) {
        self.out.push(event);
    }

    fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        // A gone receiver is fine; a dropped Request event answers itself with an error.
        let _ = self.events.send(std::mem::take(&mut self.out));
    }

    fn diag(&mut self, kind: DiagnosticKind, detail: String, value: &Value) {
        let raw = value.to_string();
        let diag =
            Diagnostic::new(DiagnosticSource::Rpc, kind, detail).with_excerpt(raw.as_bytes());
        self.emit(PeerEvent::Diagnostic(diag));
    }

    fn on_message(&mut self, value: Value) {
        let Value::Object(mut map) = value else {
            self.diag(
                DiagnosticKind::UnknownMessage,
                "message is not a JSON object".into(),
                &value,
            );
            return;
        };
        let method = match map.get("method") {
            Some(Value::String(m)) => Some(m.clone()),
            _ => None,
        };
        let id = map.get("id").filter(|id| !id.is_null()).cloned();
        match (method, id) {
            (Some(method), Some(id)) => self.on_request(method, id, map),
            (Some(method), None) => {
                let params = map.remove("params").unwrap_or(Value::Null);
                map.remove("method");
                map.remove("jsonrpc");
                map.remove("id");
                self.emit(PeerEvent::Notification(Notification {
                    method,
                    params,
                    extra: map,
                }));
            }
            (None, Some(id)) if map.contains_key("result") || map.contains_key("error") => {
                self.on_response(id, map);
            }
            _ => self.diag(
                DiagnosticKind::UnknownMessage,
                "JSON object is neither request, response nor notification".into(),
                &Value::Object(map),
            ),
        }
    }

    fn on_request(&mut self, method: String, id: Value, mut map: Map<String, Value>) {
        let Ok(id) = serde_json::from_value::<RequestId>(id.clone()) else {
            // An id we cannot echo faithfully: refuse per JSON-RPC (id null), keep a trace.
            self.diag(
                DiagnosticKind::UnknownMessage,
                format!("request `{method}` has an invalid id"),
                &id,
            );
            let _ = self.writer.send_json(&ResponseEnvelope {
                jsonrpc: self.jsonrpc.then_some(JSONRPC_VERSION),
                id: None,
                result: None,
                error: Some(ErrorObject {
                    code: INVALID_REQUEST,
                    message: "invalid id".into(),
                    data: None,
                }),
            });
            return;
        };
        let request = InboundRequest {
            id,
            method,
            params: map.remove("params").unwrap_or(Value::Null),
            responder: Some(Responder {
                writer: self.writer.clone(),
                jsonrpc: self.jsonrpc,
            }),
        };
        match self.handler.dispatch(request) {
            Dispatch::Forward(request) => self.emit(PeerEvent::Request(request)),
            Dispatch::Handled => {}
            Dispatch::Decline(request) => {
                let _ = request.decline();
            }
        }
    }

    fn on_response(&mut self, id: Value, mut map: Map<String, Value>) {
        // What came before the response is handed over before its caller wakes: whoever
        // awaited it then finds those events (e.g. the turn's first notifications) queued.
        self.flush();
        let pending = id
            .as_i64()
            .and_then(|id| lock(&self.shared.state).pending.remove(&id));
        let Some(pending) = pending else {
            let detail = format!("response to unknown or expired request id {id}");
            self.diag(
                DiagnosticKind::UnmatchedResponse,
                detail,
                &Value::Object(map),
            );
            return;
        };
        let outcome = match map.remove("error") {
            Some(error) if !error.is_null() => match serde_json::from_value::<ErrorObject>(error) {
                Ok(e) => Err(EngineError::Server {
                    method: pending.method,
                    code: e.code,
                    message: e.message,
                    data: e.data,
                }),
                Err(e) => Err(EngineError::decode(
                    format!("error object in reply to `{}`", pending.method),
                    e,
                )),
            },
            _ => Ok(map.remove("result").unwrap_or(Value::Null)),
        };
        let _ = pending.tx.send(outcome);
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[path = "rpc_tests.rs"]
mod tests;
