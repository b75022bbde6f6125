//! Engine child processes. Engine-neutral plumbing (transport, RPC peer, supervisor,
//! discovery) plus one adapter per engine that turns engine-native messages into the
//! canonical events of the timeline.
//!
//! What the rest of the app uses is the [`registry`] of engine descriptors and the run API
//! ([`AgentEngine`] → [`AgentRun`] { events, [`RunHandle`] }). The plumbing below (`process`,
//! `transport`, `rpc`) is private; the `internals` feature makes it public for the tests
//! crate and the benchmarks.
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
//!            Transport::new(reader, writer, &cfg) -> Transport { writer: LineWriter, inbound: InboundRx }
//!            Transport::with_decoder(reader, writer, &cfg, impl Decode<Item = T>) -> Transport<T>
//!            Inbound<T = Value>::{Message(T), Diagnostic(Diagnostic)}   (InboundRx::recv() None = EOF)
//!            -- decoded on the reader task, one channel hop per read (a batch); JsonLines = Value
//!            LineWriter (Clone, sync sends): send_json(&T), send_line(String), close(), is_closed()
//!            -- one writer task: lines never interleave. Usable without the RPC layer (Claude).
//! rpc        RpcConfig { send_jsonrpc_field, default_timeout (60 s), close_grace, exit_drain }; RpcConfig::codex()
//!            RpcPeer::start(transport, cfg, handler, exit: Option<ExitWatch>) -> (RpcPeer, PeerEvents)
//!            RpcPeer (Clone): request(method, Value) / request_with_timeout(.., Option<Duration>) /
//!                             request_typed::<P, R>(method, &P) / notify(method, Value) /
//!                             close() / closed().await -> Option<ChildExit> / is_closed()
//!            PeerEvents (one channel message per read of stdout; recv() one event at a time), in arrival order:
//!            PeerEvent::{Notification(Notification{method,params,extra}), Request(InboundRequest),
//!                        Diagnostic(Diagnostic), Closed{exit: Option<ChildExit>}}
//!            RequestHandler::dispatch(&mut self, InboundRequest) -> Dispatch::{Forward(req), Handled, Decline(req)}
//!            (closures FnMut(InboundRequest) -> Dispatch implement it); ForwardAll; ForwardMethods::new([..])
//!            InboundRequest { id: RequestId, method, params }: respond(Value) / respond_json(&T) /
//!            respond_error(code, msg) / decline() (-32601) / parse_params::<T>()
//!            -- Send, holdable for minutes; dropped unanswered => error -32603 is sent
//! process    ProcessSpec::new(program) | ProcessSpec::for_executable(&exe); .arg/.args/.cwd/.env/.env_remove/
//!            .stop_config(StopConfig{stdin_grace, term_grace, kill_wait})/.diagnostics(UnboundedSender<Diagnostic>)
//!            ProcessSpec::for_engine(&path) (= for_executable(&Executable::new(path, Override)));
//!            .path_first (the engine's folder first on the child's PATH)
//!            ChildProcess::spawn(spec)?  (own process group + PDEATHSIG on Linux + the orphan
//!            watchdog on Unix, kill-on-close Job Object on Windows; env built from the
//!            allow-list in child_env, BaseEnv::Allowlisted by default; CLAUDECODE always
//!            removed; PATH = the app's merged with the login shell's, see login_path)
//!            child.transport(&cfg)? -> Transport (the ladder closes stdin through its writer) | take_stdio()
//!            child.pid(), exit_watch() -> ExitWatch (get(), wait().await), try_exit(), stderr_tail(),
//!            stop().await -> Option<ChildExit>; Drop runs the ladder in the background
//!            ChildExit { status: ExitStatusInfo{code, signal}, stderr_tail }.to_error()
//! discovery  EngineProgram::{CODEX, CLAUDE}; Discovery::new(program).override_path(Option<PathBuf>)
//!            .path_var(..).search_dirs(..).find() -> Result<Executable, EngineError::NotFound>
//!            Executable { path, via: FoundVia, launch_program, launch_prefix_args, launch_env,
//!            path_first }  (Windows .cmd shim → `node <script>` or the native exe, see shim;
//!            never cmd /C)
//! login_path login_path() / effective_path() / warm_up(): the login shell's PATH, probed once
//!            per process (`$SHELL -i -l -c`, 5 s, never on Windows), merged for children and
//!            discovery when the process's PATH lacks its entries (a desktop launch)
//! shim       parse_cmd_shim(text, dir) -> ShimTarget; launch_for(shim, &target, PATH) -> ShimLaunch
//! watchdog   (Unix) the forked process that SIGKILLs registered engine groups when the app dies
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
//! vocab      InputPart::{Text, LocalImage}; ApprovalDecision { decision: UserDecision, updated_input,
//!            message, stop } (From<UserDecision>; allow_edited(v) / deny(msg) / deny_and_stop(msg));
//!            registry::descriptor(Engine::{Codex, Claude, Acp}).capabilities() -> EngineCapabilities { edited_input,
//!            deny_message, deny_and_stop, questions, cost, session_grants, resident_server,
//!            mid_run_settings } (agentdesk_protocol::capabilities, a ts-rs type);
//!            decision.check(kind)   -- a leaf: imports no adapter
//! engine     AgentEngine::{Codex(CodexEngine), Claude(ClaudeEngine), Acp(AcpEngine)}.start_run(NeutralRunRequest{cwd,
//!            resume_session_id, input: Vec<InputPart>, options: EngineOptions::{Codex{..}, Claude(..), Acp(..)}})
//!            -> AgentRun { session_id, resumed, pid, events: UnboundedReceiver<AgentEvent>, control: RunHandle }
//!            .capabilities()
//! control    RunHandle (Clone, one type for both engines): interrupt() / resolve_approval(id,
//!            impl Into<ApprovalDecision>) / answer_question(id, answers) / skip_question(id) /
//!            capabilities()  -- refuses what the engine cannot do (Unsupported) before the run sees it
//!            PendingRequests<T> (crate-private): the engine requests a run holds for the user;
//!            take_approval / take_question (the wrong kind is Unsupported in both engines),
//!            withdraw (cancelled), expire_all (expired, arrival order); crash_message
//! codex      CodexEngine::new(CodexEngineConfig).start_run(RunRequest) -> CodexRun (see codex/mod.rs);
//!            codex::RunControl = RunHandle
//! claude     ClaudeEngine::new(ClaudeEngineConfig{program, entrypoint, init_timeout, interrupt_grace, stop})
//!            .start_run(ClaudeRunRequest{cwd, profile: ClaudeProfile, resume_session_id, input}) -> ClaudeRun
//!            { session_id, resumed, version, account, pid } .next_event() / .control() -> claude::RunControl
//!            (Deref<Target = RunHandle>, plus set_permission_mode / set_model)
//!            .status(cwd, profile) -> ClaudeStatus { version, account, logged_in, initialize }
//!            ClaudeTranslator (pure: SdkMessage -> AgentEvent), planned_change/unified_diff (edit-tool diffs)
//! acp        AcpEngine::new(AcpEngineConfig{init_timeout, session_timeout, interrupt_grace, stop, limits, ..})
//!            .start_run(AcpRunRequest{cwd, profile: AcpProfile, resume_session_id, input}) -> AcpRun
//!            { session_id, resumed, pid, agent_info } .next_event() / .control() / .into_parts()
//!            AcpProfile { command, args, env, env_remove, model, permission_mode, extra_dirs, preset }
//!            ::from_options(&AcpOptions{preset, command, args}, command_path) (preset args + asking env)
//!            PresetSpec::of(AcpPreset::{Opencode, Gemini}) { program: EngineProgram (OPENCODE, GEMINI),
//!            default_args, ask_env, load_session, allow_always }; asks_before_acting(&AcpOptions)
//!            AcpTranslator (pure: SessionUpdate -> AgentEvent), choose_option (decision -> offered
//!            option by kind), workspace::Workspace (the fs/* boundary); wire types in
//!            agentdesk_protocol::acp (hand-written, forward compatible)
//! ```
//!
//! # How to add an engine
//!
//! Nothing outside this crate lists or matches on engines: the core, the store, the CLI, the
//! shell and the window learn them from [`registry`]. Adding an engine is:
//!
//! 1. **Its name**: a variant of [`Engine`] (`agentdesk_protocol::ui`, its stored and wire
//!    name) and its line in [`registry::descriptor`].
//! 2. **Adapter** (`src/<engine>/`): spawn the CLI with [`ProcessSpec`] (own process group,
//!    parent-death signal, the built environment: add the engine's variables to
//!    `child_env.rs`), talk over [`Transport`] (plus [`RpcPeer`] for JSON-RPC), and translate
//!    its messages into canonical `AgentEvent`s in a pure translator (unit-tested against
//!    recorded transcripts in `tests/fixtures/`).
//! 3. **Run task**: one task per run owning the translator and a
//!    `control::PendingRequests<YourHeldRequest>`; a channel implementing
//!    `control::CommandSink` delivers [`control::RunHandle`]'s commands (interrupt /
//!    resolve / answer) to it. Use [`RunLimits`] (`Watchdog`, `DiagnosticBudget`), end with
//!    exactly one terminal event, expire what is pending on every end, stop when the events
//!    receiver is dropped, and fail a crash with `control::crash_message`.
//! 4. **Descriptor** (`src/<engine>/descriptor.rs`, an [`EngineDescriptor`]): display name,
//!    [`EngineCapabilities`] (everything a caller must know — can it take an edited input?
//!    report cost? — is a field there, read by the core, the CLI, the window and
//!    [`RunHandle`]; a new capability is one field plus its value per descriptor), the
//!    programs discovery finds, login check and commands, the profile's typed options
//!    (checked key by key, warnings, the keys that route requests) and how a profile becomes
//!    the adapter's options.
//! 5. **Facade** (`engine.rs`): a variant of [`AgentEngine`] and of [`EngineOptions`] (the
//!    adapter's own typed per-run options) and the arm in `AgentEngine::start_run`.
//! 6. **An approval detail** (what the engine says about a request beyond the command, paths
//!    and reason) goes into `approval.requested.detail`; the core reads only what
//!    `ApprovalAsk::from_event` names.
//! 7. **Tests**: a scripted fake in `tests/src/bin/` for what the real CLI will not do on
//!    demand, the real binary in the conformance suite (`tests/tests/conformance.rs` runs
//!    the same scenarios on every engine).
//!
//! Every constructor that starts tasks (`Transport::new`, `RpcPeer::start`, `ChildProcess::spawn`)
//! must run inside a tokio runtime.

pub mod acp;
pub mod batched;
pub mod child_env;
pub mod claude;
mod coalesce;
pub mod codex;
pub mod control;
pub mod diagnostic;
pub mod discovery;
pub mod engine;
pub mod error;
pub mod history;
pub mod limits;
pub mod login_path;
pub mod mcp;
pub mod mentions;
#[cfg(feature = "internals")]
pub mod process;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)] // parts only the tests crate uses (with `internals`)
mod process;
pub mod profile_options;
pub mod real_path;
pub mod redact;
pub mod registry;
#[cfg(feature = "internals")]
pub mod rpc;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)] // parts only the tests crate uses (with `internals`)
mod rpc;
pub mod settings;
pub mod shim;
pub mod ssh;
#[cfg(feature = "internals")]
pub mod transport;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)] // parts only the tests crate uses (with `internals`)
mod transport;
pub mod vocab;
#[cfg(unix)]
pub mod watchdog;

pub use control::RunHandle;
pub use diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource};
pub use discovery::{probe_version, Discovery, EngineProgram, EngineVersion, Executable, FoundVia};
pub use engine::{AgentEngine, AgentRun, EngineOptions, NeutralRunRequest};
pub use error::EngineError;
pub use limits::RunLimits;
// The plumbing (process, transport, RPC peer) is the adapters' business: public only with
// the `internals` feature, for the tests crate and this crate's benchmarks.
#[cfg(feature = "internals")]
pub use process::{
    BaseEnv, ChildExit, ChildProcess, ExitStatusInfo, ExitWatch, ProcessSpec, StopConfig,
};
pub use registry::{EngineDescriptor, EngineSettings, ProgramSettings};
#[cfg(feature = "internals")]
pub use rpc::{
    Dispatch, ForwardAll, ForwardMethods, InboundRequest, Notification, PeerEvent, PeerEvents,
    RequestHandler, RequestId, RpcConfig, RpcLine, RpcPeer,
};
#[cfg(feature = "internals")]
pub use transport::{
    AbortOnDrop, Decode, Inbound, InboundRx, JsonLines, LineWriter, Transport, TransportConfig,
};
pub use vocab::{ApprovalDecision, Engine, EngineCapabilities, InputPart};
