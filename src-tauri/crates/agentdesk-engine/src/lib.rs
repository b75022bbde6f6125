//! Engine child processes. Engine-neutral plumbing (transport, RPC peer, supervisor,
//! discovery) plus one adapter per engine that turns engine-native messages into the
//! canonical events of the timeline.
//!
//! # Engine-neutral API (what the adapters build on)
//!
//! ```text
//! error      EngineError { Transport, Encode, Decode, Server{method,code,message,data}, Timeout,
//!            ChildExited{status: Option<ExitStatusInfo>, stderr_tail}, NotFound{program,hint,searched},
//!            Spawn, VersionProbe, Closed, … }  -- one enum for the crate; is_fatal()
//! diagnostic Diagnostic { source: DiagnosticSource, kind: DiagnosticKind, detail, excerpt }
//!            -- stderr lines, oversized/non-UTF-8/non-JSON stdout lines, unknown messages,
//!               responses to expired requests. Values, never errors.
//! limits     RunLimits { inactivity_timeout (600 s; None/zero = off), max_diagnostics (100) }
//!            -- per run, in both run loops: a silent engine is stopped (run.failed, code
//!               `engine_silent`; a pending approval/question pauses the clock); engine
//!               diagnostics over the budget are counted, the count reported before the end.
//! transport  TransportConfig { max_line_bytes (DEFAULT_MAX_LINE_BYTES = 32 MiB), inbound_capacity }
//!            Transport::new(reader, writer, &cfg) -> Transport { writer: LineWriter, inbound: mpsc::Receiver<Inbound> }
//!            Inbound::{Message(serde_json::Value), Diagnostic(Diagnostic)}   (channel end = EOF)
//!            LineWriter (Clone, sync sends): send_json(&T), send_line(String), close(), is_closed()
//!            -- one writer task: lines never interleave. Usable without the RPC layer (Claude).
//! rpc        RpcConfig { send_jsonrpc_field, default_timeout (60 s), close_grace, exit_drain }; RpcConfig::codex()
//!            RpcPeer::start(transport, cfg, handler, exit: Option<ExitWatch>) -> (RpcPeer, PeerEvents)
//!            RpcPeer (Clone): request(method, Value) / request_with_timeout(.., Option<Duration>) /
//!                             request_typed::<P, R>(method, &P) / notify(method, Value) /
//!                             close() / closed().await -> Option<ChildExit> / is_closed()
//!            PeerEvents = mpsc::UnboundedReceiver<PeerEvent>, in arrival order:
//!            PeerEvent::{Notification(Notification{method,params,extra}), Request(InboundRequest),
//!                        Diagnostic(Diagnostic), Closed{exit: Option<ChildExit>}}
//!            RequestHandler::dispatch(&mut self, InboundRequest) -> Dispatch::{Forward(req), Handled, Decline(req)}
//!            (closures FnMut(InboundRequest) -> Dispatch implement it); ForwardAll; ForwardMethods::new([..])
//!            InboundRequest { id: RequestId, method, params }: respond(Value) / respond_json(&T) /
//!            respond_error(code, msg) / decline() (-32601) / parse_params::<T>()
//!            -- Send, holdable for minutes; dropped unanswered => error -32603 is sent
//! process    ProcessSpec::new(program) | ProcessSpec::for_executable(&exe); .arg/.args/.cwd/.env/.env_remove/
//!            .stop_config(StopConfig{stdin_grace, term_grace, kill_wait})/.diagnostics(UnboundedSender<Diagnostic>)
//!            ChildProcess::spawn(spec)?  (own process group; PDEATHSIG on Linux; env built from the
//!            allow-list in child_env, BaseEnv::Allowlisted by default; CLAUDECODE always removed)
//!            child.transport(&cfg)? -> Transport (the ladder closes stdin through its writer) | take_stdio()
//!            child.pid(), exit_watch() -> ExitWatch (get(), wait().await), try_exit(), stderr_tail(),
//!            stop().await -> Option<ChildExit>; Drop runs the ladder in the background
//!            ChildExit { status: ExitStatusInfo{code, signal}, stderr_tail }.to_error()
//! discovery  EngineProgram::{CODEX, CLAUDE}; Discovery::new(program).override_path(Option<PathBuf>)
//!            .path_var(..).search_dirs(..).find() -> Result<Executable, EngineError::NotFound>
//!            Executable { path, via: FoundVia, launch_program, launch_prefix_args }  (.cmd → cmd /C)
//!            probe_version(&exe, timeout).await -> EngineVersion { raw, major, minor, patch }
//!            default_install_dirs(&HostDirs::from_env())
//! ```
//!
//! Typical use (Codex):
//! ```ignore
//! let exe = Discovery::new(EngineProgram::CODEX).override_path(settings_path).find()?;
//! let version = probe_version(&exe, Duration::from_secs(5)).await?;
//! let mut child = ChildProcess::spawn(ProcessSpec::for_executable(&exe).arg("app-server").cwd(dir))?;
//! let transport = child.transport(&TransportConfig::default())?;
//! let handler = ForwardMethods::new(["item/commandExecution/requestApproval", "item/fileChange/requestApproval"]);
//! let (peer, mut events) = RpcPeer::start(transport, RpcConfig::codex(), handler, Some(child.exit_watch()));
//! let init = peer.request("initialize", json!({...})).await?;
//! peer.notify("initialized", Value::Null)?;
//! while let Some(ev) = events.recv().await { /* Notification | Request (hold, respond later) | Diagnostic | Closed */ }
//! child.stop().await; // or just drop `child`
//! ```
//!
//! # Adapters and the engine-neutral interface
//!
//! ```text
//! engine     AgentEngine::{Codex(CodexEngine), Claude(ClaudeEngine)}.start_run(NeutralRunRequest{cwd,
//!            resume_session_id, input: Vec<InputPart::{Text, LocalImage}>, options: EngineOptions::{Codex{..}, Claude(..)}})
//!            -> AgentRun { session_id, resumed, events: UnboundedReceiver<AgentEvent>, control: RunHandle }
//!            RunHandle (Clone): interrupt() / resolve_approval(id, impl Into<ApprovalDecision>) / answer_question(id, answers)
//!            ApprovalDecision { decision: UserDecision, updated_input, message, stop }  (From<UserDecision>;
//!            allow_edited(v) / deny(msg) / deny_and_stop(msg))
//! codex      CodexEngine::new(CodexEngineConfig).start_run(RunRequest) -> CodexRun (see codex/mod.rs)
//! claude     ClaudeEngine::new(ClaudeEngineConfig{program, entrypoint, init_timeout, interrupt_grace, stop})
//!            .start_run(ClaudeRunRequest{cwd, profile: ClaudeProfile, resume_session_id, input}) -> ClaudeRun
//!            { session_id, resumed, version, account, pid } .next_event() / .control() -> claude::RunControl
//!            .status(cwd, profile) -> ClaudeStatus { version, account, logged_in, initialize }
//!            ClaudeTranslator (pure: SdkMessage -> AgentEvent), planned_change/unified_diff (edit-tool diffs)
//! ```
//!
//! Every constructor that starts tasks (`Transport::new`, `RpcPeer::start`, `ChildProcess::spawn`)
//! must run inside a tokio runtime.

pub mod child_env;
pub mod claude;
pub mod codex;
pub mod diagnostic;
pub mod discovery;
pub mod engine;
pub mod error;
pub mod limits;
pub mod process;
pub mod redact;
pub mod rpc;
pub mod transport;

pub use diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource};
pub use discovery::{probe_version, Discovery, EngineProgram, EngineVersion, Executable, FoundVia};
pub use engine::{
    AgentEngine, AgentRun, ApprovalDecision, EngineKind, EngineOptions, InputPart,
    NeutralRunRequest, RunHandle,
};
pub use error::EngineError;
pub use limits::RunLimits;
pub use process::{
    BaseEnv, ChildExit, ChildProcess, ExitStatusInfo, ExitWatch, ProcessSpec, StopConfig,
};
pub use rpc::{
    Dispatch, ForwardAll, ForwardMethods, InboundRequest, Notification, PeerEvent, PeerEvents,
    RequestHandler, RequestId, RpcConfig, RpcPeer,
};
pub use transport::{AbortOnDrop, Inbound, LineWriter, Transport, TransportConfig};
