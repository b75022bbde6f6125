//! Engine child processes. Engine-neutral plumbing (transport, RPC peer, supervisor,
//! discovery) plus one adapter per engine that turns engine-native messages into the
//! canonical events of the timeline.
//!
//! # Engine-neutral API (what the adapters build on)
//!
//! ```text
//! error      EngineError { Transport, Encode, Decode, Server{code,message,data}, Timeout,
//!            ChildExited{status: Option<ExitStatusInfo>, stderr_tail}, NotFound{..},
//!            Spawn{..}, VersionProbe{..}, Closed }                 -- one enum for the crate
//! diagnostic Diagnostic { source: DiagnosticSource, kind: DiagnosticKind, detail, excerpt }
//!            -- stderr lines, garbage/oversized/non-UTF-8 stdout lines, unknown messages
//! transport  TransportConfig { max_line_bytes (default 64 MiB), inbound_capacity }
//!            Transport::new(reader, writer, cfg) -> Transport { writer: LineWriter, inbound: mpsc::Receiver<Inbound> }
//!            Inbound::{Message(serde_json::Value), Diagnostic(Diagnostic)}   (channel end = EOF)
//!            LineWriter (Clone): send_json(&Value), send_line(String), close()   -- one writer task
//! rpc        RpcConfig { send_jsonrpc_field, default_timeout, close_grace }   RpcConfig::codex()
//!            RpcPeer::start(transport, cfg, handler, exit: Option<ExitWatch>) -> (RpcPeer, PeerEvents)
//!            RpcPeer (Clone): request(method, params) / request_with_timeout / request_typed /
//!                             notify(method, params) / closed() / is_closed()
//!            PeerEvent::{Notification(Notification), Request(InboundRequest), Diagnostic(Diagnostic),
//!                        Closed{exit: Option<ChildExit>}}
//!            RequestHandler (trait; closures FnMut(InboundRequest)->Dispatch implement it),
//!            Dispatch::{Forward(req), Handled, Decline(req)}; ForwardAll; ForwardMethods
//!            InboundRequest { method, id, params } .respond(result) / .respond_error(code,msg)
//!            -- dropped unanswered => answered with error -32603 (engine never waits forever)
//! process    ProcessSpec::new(program).args(..).cwd(..).env(k,v).env_remove(k).stop(StopConfig)
//!            ChildProcess::spawn(spec) -> ChildProcess (own process group, PDEATHSIG on Linux)
//!            child.transport(cfg) -> Transport      (stop ladder then closes stdin via the writer)
//!            child.pid(), child.exit_watch() -> ExitWatch, child.stderr_tail(), child.stop().await
//!            ChildExit { status: ExitStatusInfo{code, signal}, stderr_tail }; drop => stop ladder
//! discovery  EngineProgram::{CODEX, CLAUDE}; Discovery::new(program).override_path(..).search_dirs(..)
//!            .find() -> Result<Executable, EngineError::NotFound>; Executable { path, via, launcher }
//!            probe_version(&exe, timeout).await -> EngineVersion { raw, major, minor, patch }
//! ```
//!
//! Typical use (Codex):
//! ```ignore
//! let exe = Discovery::new(EngineProgram::CODEX).find()?;
//! let mut child = ChildProcess::spawn(ProcessSpec::for_executable(&exe).arg("app-server"))?;
//! let transport = child.transport(TransportConfig::default())?;
//! let (peer, mut events) = RpcPeer::start(transport, RpcConfig::codex(), ForwardAll, Some(child.exit_watch()));
//! let init = peer.request("initialize", json!({...})).await?;
//! while let Some(ev) = events.recv().await { ... }
//! ```

pub mod diagnostic;
pub mod discovery;
pub mod error;
pub mod process;
pub mod rpc;
pub mod transport;

pub use diagnostic::{Diagnostic, DiagnosticKind, DiagnosticSource};
pub use discovery::{Discovery, EngineProgram, EngineVersion, Executable};
pub use error::EngineError;
pub use process::{ChildExit, ChildProcess, ExitStatusInfo, ExitWatch, ProcessSpec, StopConfig};
pub use rpc::{
    Dispatch, ForwardAll, ForwardMethods, InboundRequest, Notification, PeerEvent, PeerEvents,
    RequestHandler, RequestId, RpcConfig, RpcPeer,
};
pub use transport::{Inbound, LineWriter, Transport, TransportConfig};
