//! One resident `codex app-server` per [`ServerKey`] (in practice: per CODEX_HOME), shared by
//! all sessions and multiplexed by threadId. Started lazily; after a crash the next use starts
//! it again, waiting an exponential backoff first so a crash loop cannot spin.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use agentdesk_protocol::codex::requests::Initialize;
use agentdesk_protocol::codex::{
    method, AccountLoginCompletedNotification, ClientInfo, InitializeCapabilities,
    InitializeParams, ServerNotification, ServerRequest, TokenUsageBreakdown,
};
use agentdesk_protocol::sync::lock;
use tokio::sync::mpsc;

use super::options::ServerKey;
use super::wire::CodexLines;
use super::CodexEngineConfig;
use crate::diagnostic::{Diagnostic, DiagnosticSource};
use crate::error::EngineError;
use crate::process::{ChildExit, ChildProcess, ProcessSpec};
use crate::rpc::{InboundRequest, PeerEvent, PeerEvents, RpcConfig, RpcPeer};
use crate::transport::TransportConfig;

/// What the connection pump hands to a run.
#[derive(Debug)]
pub(crate) enum RunMsg {
    Notification(ServerNotification),
    Request(ServerRequest, InboundRequest),
    /// A stderr line or an unreadable stdout line of the app-server.
    Diagnostic(Diagnostic),
    /// The app-server is gone; every pending request of the run has failed.
    ServerDied(Option<ChildExit>),
    Control(crate::control::Command),
}

pub(crate) type Route = mpsc::UnboundedSender<RunMsg>;

struct Conn {
    peer: RpcPeer,
    /// Owned here so dropping the connection runs the stop ladder.
    child: ChildProcess,
    generation: u64,
}

#[derive(Default)]
struct ConnState {
    conn: Option<Conn>,
    generation: u64,
    /// Consecutive crashes (reset once a turn completes): drives the backoff.
    crashes: u32,
    last_crash: Option<Instant>,
}

pub(crate) struct Server {
    key: ServerKey,
    config: Arc<CodexEngineConfig>,
    /// Async: starting is serialised so two sessions never spawn two processes.
    state: tokio::sync::Mutex<ConnState>,
    routes: Mutex<HashMap<String, Route>>,
    /// Latest token totals per thread, the baseline for the next run's usage.
    totals: Mutex<HashMap<String, TokenUsageBreakdown>>,
    /// MCP servers that failed to start for a thread no run listened to yet.
    mcp_failures: Mutex<HashMap<String, Vec<String>>>,
    /// Login flows ending (`account/login/completed`), for whoever started one.
    logins: tokio::sync::broadcast::Sender<AccountLoginCompletedNotification>,
    pid: Mutex<Option<u32>>,
}

impl Server {
    /// Route a notification to the run of its thread.
    fn on_notification(&self, parsed: ServerNotification) {
        if let ServerNotification::ThreadTokenUsageUpdated(u) = &parsed {
            lock(&self.totals).insert(u.thread_id.clone(), u.token_usage.total);
        }
        if let ServerNotification::AccountLoginCompleted(n) = &parsed {
            let _ = self.logins.send(n.clone());
            return;
        }
        // The account's limits concern every run on this app-server.
        if let ServerNotification::AccountRateLimitsUpdated(_) = &parsed {
            self.broadcast(|| RunMsg::Notification(parsed.clone()));
            return;
        }
        // A profile's MCP server failing while the thread is opened, before its run listens:
        // kept for that run to report when it starts.
        if let ServerNotification::McpServerStartupStatusUpdated(m) = &parsed {
            if let (Some(thread), None) = (m.thread_id.as_deref(), self.route(parsed.thread_id())) {
                if let Some(text) = super::translate::mcp_failure(m) {
                    lock(&self.mcp_failures)
                        .entry(thread.to_owned())
                        .or_default()
                        .push(text);
                }
                return;
            }
        }
        // A sub-agent spawned by a run: its thread is routed to that run from now on.
        if let Some(children) = spawned_threads(&parsed) {
            if let Some(route) = self.route(parsed.thread_id()) {
                let mut routes = lock(&self.routes);
                for child in children {
                    routes.entry(child).or_insert_with(|| route.clone());
                }
            }
        }
        match self.route(parsed.thread_id()) {
            Some(route) => {
                let _ = route.send(RunMsg::Notification(parsed));
            }
            None => {
                tracing::trace!(method = %parsed.method(), "codex notification without a run")
            }
        }
    }

    pub(crate) fn new(key: ServerKey, config: Arc<CodexEngineConfig>) -> Arc<Self> {
        Arc::new(Self {
            key,
            config,
            state: tokio::sync::Mutex::new(ConnState::default()),
            routes: Mutex::new(HashMap::new()),
            totals: Mutex::new(HashMap::new()),
            mcp_failures: Mutex::new(HashMap::new()),
            logins: tokio::sync::broadcast::channel(8).0,
            pid: Mutex::new(None),
        })
    }

    pub(crate) fn key(&self) -> &ServerKey {
        &self.key
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        *lock(&self.pid)
    }

    pub(crate) fn totals(&self, thread_id: &str) -> Option<TokenUsageBreakdown> {
        lock(&self.totals).get(thread_id).copied()
    }

    /// Login completions from now on (subscribe before starting a login).
    pub(crate) fn logins(
        &self,
    ) -> tokio::sync::broadcast::Receiver<AccountLoginCompletedNotification> {
        self.logins.subscribe()
    }

    /// The MCP startup failures of `thread_id` no run has reported yet (taken).
    pub(crate) fn take_mcp_failures(&self, thread_id: &str) -> Vec<String> {
        lock(&self.mcp_failures)
            .remove(thread_id)
            .unwrap_or_default()
    }

    pub(crate) fn add_route(&self, thread_id: &str, route: Route) {
        lock(&self.routes).insert(thread_id.to_owned(), route);
    }

    /// Removes the route only if it is still `route` (a newer run may own the thread now).
    pub(crate) fn remove_route(&self, thread_id: &str, route: &Route) {
        let mut routes = lock(&self.routes);
        if routes.get(thread_id).is_some_and(|r| r.same_channel(route)) {
            routes.remove(thread_id);
        }
        // The threads of the sub-agents it spawned go with it.
        routes.retain(|_, r| !r.same_channel(route));
    }

    /// A turn completed: the process is healthy, forget past crashes.
    pub(crate) async fn note_healthy(&self) {
        self.state.lock().await.crashes = 0;
    }

    /// The live connection, starting the app-server if needed.
    pub(crate) async fn peer(self: &Arc<Self>) -> Result<RpcPeer, EngineError> {
        let mut state = self.state.lock().await;
        if let Some(conn) = &state.conn {
            if !conn.peer.is_closed() {
                return Ok(conn.peer.clone());
            }
        }
        // Drop a dead connection (reaps the child) before starting the next one.
        state.conn = None;
        if state.crashes > 0 {
            let exp = state.crashes.saturating_sub(1).min(16);
            let delay = self
                .config
                .restart_backoff_base
                .saturating_mul(1u32 << exp)
                .min(self.config.restart_backoff_max);
            let since = state.last_crash.map_or(delay, |t| t.elapsed());
            if since < delay {
                tokio::time::sleep(delay - since).await;
            }
        }
        match self.start().await {
            Ok((peer, child, events, diags)) => {
                state.generation += 1;
                let generation = state.generation;
                *lock(&self.pid) = child.pid();
                tokio::spawn(pump(Arc::clone(self), generation, events, diags));
                state.conn = Some(Conn {
                    peer: peer.clone(),
                    child,
                    generation,
                });
                Ok(peer)
            }
            Err(e) => {
                state.crashes += 1;
                state.last_crash = Some(Instant::now());
                Err(e)
            }
        }
    }

    async fn start(
        &self,
    ) -> Result<
        (
            RpcPeer,
            ChildProcess,
            PeerEvents,
            mpsc::UnboundedReceiver<Diagnostic>,
        ),
        EngineError,
    > {
        let (diag_tx, diag_rx) = mpsc::unbounded_channel();
        let mut spec = ProcessSpec::for_engine(&self.config.program)
            .args(self.key.args.iter().cloned())
            .stop_config(self.config.stop)
            .diagnostics(diag_tx);
        // Built environment (see child_env): the basics, codex's own variables, then ours.
        // A remote codex gets the profile's variables only, never this machine's.
        spec.remote.clone_from(&self.config.remote);
        spec.memory_limit = self.config.limits.memory_limit;
        let parent = crate::ssh::desktop_env(self.config.remote.as_ref());
        for (k, v) in self.key.inherited_env(&parent) {
            spec = spec.env(k, v);
        }
        if let Some(home) = &self.key.codex_home {
            spec = spec.env("CODEX_HOME", home);
        }
        for (k, v) in &self.key.env {
            spec = spec.env(k, v);
        }
        for k in &self.key.env_remove {
            spec = spec.env_remove(k);
        }
        let mut child = ChildProcess::spawn(spec)?;
        let transport = child.transport_with(&TransportConfig::default(), CodexLines)?;
        let rpc = RpcConfig {
            default_timeout: Some(self.config.request_timeout),
            ..RpcConfig::codex()
        };
        // Every server request is forwarded: routing (and -32601 for unknown methods) happens
        // in the pump, which knows the threads.
        let (peer, events) = RpcPeer::start(
            transport,
            rpc,
            crate::rpc::ForwardAll,
            Some(child.exit_watch()),
        );
        let params = InitializeParams {
            client_info: ClientInfo {
                name: self.config.client_name.clone(),
                title: Some("Agent Desk".to_owned()),
                version: self.config.client_version.clone(),
            },
            // Experimental API: needed for plan mode's `item/tool/requestUserInput`.
            capabilities: Some(InitializeCapabilities {
                experimental_api: true,
                request_attestation: None,
            }),
        };
        let init = peer.call::<Initialize>(&params).await;
        match init {
            Ok(init) => {
                tracing::info!(user_agent = %init.user_agent, home = ?init.codex_home, "codex app-server ready")
            }
            Err(e) => {
                let mut child = child;
                let exit = child.stop().await;
                return Err(match exit {
                    Some(exit) if e.is_fatal() => exit.to_error(),
                    _ => e,
                });
            }
        }
        peer.notify(method::INITIALIZED, serde_json::Value::Null)?;
        Ok((peer, child, events, diag_rx))
    }

    /// Stops the app-server (stop ladder). Runs in flight see it die.
    pub(crate) async fn shutdown(&self) {
        let conn = self.state.lock().await.conn.take();
        if let Some(mut conn) = conn {
            conn.peer.close();
            let _ = conn.child.stop().await;
        }
    }

    fn route(&self, thread_id: Option<&str>) -> Option<Route> {
        lock(&self.routes).get(thread_id?).cloned()
    }

    fn broadcast(&self, make: impl Fn() -> RunMsg) {
        for route in lock(&self.routes).values() {
            let _ = route.send(make());
        }
    }

    async fn died(&self, generation: u64, exit: Option<ChildExit>) {
        {
            let mut state = self.state.lock().await;
            if state
                .conn
                .as_ref()
                .is_some_and(|c| c.generation == generation)
            {
                state.conn = None;
                *lock(&self.pid) = None;
                state.crashes += 1;
                state.last_crash = Some(Instant::now());
            }
        }
        let routes: Vec<Route> = lock(&self.routes).drain().map(|(_, r)| r).collect();
        for route in routes {
            let _ = route.send(RunMsg::ServerDied(exit.clone()));
        }
    }
}

/// Reads one connection's events and routes them to runs by threadId.
async fn pump(
    server: Arc<Server>,
    generation: u64,
    mut events: PeerEvents,
    mut diags: mpsc::UnboundedReceiver<Diagnostic>,
) {
    let mut diags_open = true;
    loop {
        let event = tokio::select! {
            ev = events.recv() => ev,
            d = diags.recv(), if diags_open => {
                match d {
                    Some(d) => server.broadcast(|| RunMsg::Diagnostic(d.clone())),
                    None => diags_open = false,
                }
                continue;
            }
        };
        match event {
            Some(PeerEvent::Notification(n)) => {
                server.on_notification(ServerNotification::from_parts(&n.method, &n.params));
            }
            Some(PeerEvent::Typed(parsed)) => server.on_notification(parsed),
            Some(PeerEvent::Request(req)) => {
                let parsed = ServerRequest::from_parts(&req.method, &req.params);
                if let ServerRequest::Unknown { method, error, .. } = &parsed {
                    tracing::warn!(%method, ?error, "declining unsupported codex server request");
                    let msg = format!("unsupported codex request `{method}` (declined)");
                    server.broadcast(|| {
                        RunMsg::Diagnostic(Diagnostic::new(
                            DiagnosticSource::Rpc,
                            crate::diagnostic::DiagnosticKind::UnknownMessage,
                            msg.clone(),
                        ))
                    });
                    let _ = req.decline();
                    continue;
                }
                match server.route(parsed.thread_id()) {
                    Some(route) => {
                        if let Err(mpsc::error::SendError(RunMsg::Request(_, req))) =
                            route.send(RunMsg::Request(parsed, req))
                        {
                            let _ = req.decline();
                        }
                    }
                    // No run to ask: refuse. Dropping would also answer (-32603), but say why.
                    None => {
                        let _ = req.respond_error(
                            crate::rpc::INVALID_REQUEST,
                            "no active run for this thread",
                        );
                    }
                }
            }
            Some(PeerEvent::Diagnostic(d)) => server.broadcast(|| RunMsg::Diagnostic(d.clone())),
            Some(PeerEvent::Closed { exit }) => {
                server.died(generation, exit).await;
                return;
            }
            None => {
                server.died(generation, None).await;
                return;
            }
        }
    }
}

/// Test hook: the configured backoff for `crashes` consecutive crashes.
#[cfg(test)]
pub(crate) fn backoff(
    base: std::time::Duration,
    max: std::time::Duration,
    crashes: u32,
) -> std::time::Duration {
    if crashes == 0 {
        return std::time::Duration::ZERO;
    }
    base.saturating_mul(1u32 << crashes.saturating_sub(1).min(16))
        .min(max)
}

/// The threads a `spawnAgent` call started, once codex names them.
fn spawned_threads(n: &ServerNotification) -> Option<Vec<String>> {
    use agentdesk_protocol::codex::ThreadItem;
    let item = match n {
        ServerNotification::ItemStarted(i) => &i.item,
        ServerNotification::ItemCompleted(i) => &i.item,
        _ => return None,
    };
    match item {
        ThreadItem::CollabAgentToolCall(c)
            if c.tool == "spawnAgent" && !c.receiver_thread_ids.is_empty() =>
        {
            Some(c.receiver_thread_ids.clone())
        }
        _ => None,
    }
}
