//! One ACP agent process and its session set-up: spawn, `initialize`, `session/load` (the
//! replayed history dropped) or `session/new`, the model, and the prompt's content blocks.

use std::path::Path;
use std::time::Duration;

use agentdesk_protocol::acp::{
    ClientCapabilities, ContentBlock, FileSystemCapability, Implementation, InitializeRequest,
    InitializeResponse, LoadSessionRequest, NewSessionRequest, NewSessionResponse, SessionSetup,
    SetSessionConfigOptionRequest, SetSessionModelRequest, PROTOCOL_VERSION,
};
use base64::Engine as _;
use serde_json::Value;
use tokio::sync::mpsc;

use super::options::AcpProfile;
use super::AcpEngineConfig;
use crate::diagnostic::Diagnostic;
use crate::error::EngineError;
use crate::process::{ChildProcess, ProcessSpec};
use crate::rpc::{ForwardMethods, PeerEvent, PeerEvents, RpcConfig, RpcPeer};
use crate::transport::TransportConfig;
use crate::vocab::{Engine, InputPart};

/// The agent → client requests the run answers; anything else (`terminal/*`, which we do not
/// advertise) is declined with -32601.
pub(crate) const HANDLED_REQUESTS: [&str; 3] = [
    "session/request_permission",
    "fs/read_text_file",
    "fs/write_text_file",
];

/// A running agent and its connection.
pub(crate) struct Agent {
    pub child: ChildProcess,
    pub peer: RpcPeer,
    pub events: PeerEvents,
    pub stderr: mpsc::UnboundedReceiver<Diagnostic>,
    /// Requests and diagnostics that arrived during the set-up, for the run task.
    pub backlog: Vec<PeerEvent>,
    pub init: InitializeResponse,
}

/// The session a run prompts in.
pub(crate) struct Opened {
    pub session_id: String,
    pub resumed: bool,
    pub setup: SessionSetup,
    /// For the timeline (a failed load, an ignored model).
    pub notices: Vec<String>,
}

impl Agent {
    pub fn spawn(
        config: &AcpEngineConfig,
        cwd: &Path,
        profile: &AcpProfile,
    ) -> Result<Self, EngineError> {
        let (tx, stderr) = mpsc::unbounded_channel();
        let mut spec = ProcessSpec::for_engine(&profile.command)
            .args(&profile.args)
            .cwd(cwd)
            .stop_config(config.stop)
            .diagnostics(tx);
        for key in &profile.env_remove {
            spec = spec.env_remove(key);
        }
        let parent = crate::ssh::desktop_env(config.remote.as_ref());
        spec.remote.clone_from(&config.remote);
        spec.memory_limit = config.limits.memory_limit;
        let inherited = crate::child_env::engine_env(
            Engine::Acp,
            &parent,
            &profile.env,
            &[],
            &profile.env_remove,
        );
        let own = profile
            .spawn_env()
            .into_iter()
            .chain(profile.env.iter().cloned());
        for (key, value) in inherited.into_iter().chain(own) {
            spec = spec.env(key, value);
        }
        let mut child = ChildProcess::spawn(spec)?;
        let transport = child.transport(&TransportConfig::default())?;
        let handler = ForwardMethods::new(HANDLED_REQUESTS);
        let (peer, events) = RpcPeer::start(
            transport,
            RpcConfig::default(),
            handler,
            Some(child.exit_watch()),
        );
        Ok(Self {
            child,
            peer,
            events,
            stderr,
            backlog: Vec::new(),
            init: InitializeResponse::default(),
        })
    }

    /// The agent's name for messages ("opencode stopped unexpectedly").
    pub fn name(&self) -> String {
        self.init
            .agent_info
            .as_ref()
            .map(|i| i.title.clone().unwrap_or_else(|| i.name.clone()))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "The ACP agent".to_owned())
    }

    /// `initialize`: we read and write text files for the agent; no terminal.
    pub async fn initialize(&mut self, config: &AcpEngineConfig) -> Result<(), EngineError> {
        let req = InitializeRequest {
            protocol_version: PROTOCOL_VERSION,
            client_capabilities: ClientCapabilities {
                fs: FileSystemCapability {
                    read_text_file: true,
                    write_text_file: true,
                },
                terminal: false,
            },
            client_info: Some(Implementation {
                name: config.client_name.clone(),
                title: Some("Agent Desk".to_owned()),
                version: config.client_version.clone(),
            }),
        };
        self.init = self
            .request("initialize", &req, config.init_timeout)
            .await?;
        Ok(())
    }

    async fn request<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<R, EngineError> {
        let params = serde_json::to_value(params).map_err(|source| EngineError::Encode {
            context: format!("params of `{method}`"),
            source,
        })?;
        let result = self
            .peer
            .request_with_timeout(method, params, Some(timeout))
            .await?;
        serde_json::from_value(result)
            .map_err(|e| EngineError::decode(format!("result of `{method}`"), e))
    }

    /// The session to prompt in: the previous one loaded when the agent can (its replayed
    /// history dropped: the timeline has it already), else a new one, with a notice saying
    /// why the history is not there.
    pub async fn open_session(
        &mut self,
        config: &AcpEngineConfig,
        cwd: &Path,
        profile: &AcpProfile,
        resume: Option<&str>,
    ) -> Result<Opened, EngineError> {
        let cwd_text = cwd.to_string_lossy().into_owned();
        let mut notices = Vec::new();
        if let Some(id) = resume {
            let name = self.name();
            if !self.init.agent_capabilities.load_session || !profile.load_allowed() {
                notices.push(format!(
                    "{name} cannot load earlier sessions; continuing in a new session without the history of {id}."
                ));
            } else {
                let req = LoadSessionRequest {
                    session_id: id.to_owned(),
                    cwd: cwd_text.clone(),
                    mcp_servers: Vec::new(),
                };
                let loaded = self
                    .request::<_, Option<SessionSetup>>(
                        "session/load",
                        &req,
                        config.session_timeout,
                    )
                    .await;
                self.drop_replay().await;
                match loaded {
                    Ok(setup) => {
                        return Ok(Opened {
                            session_id: id.to_owned(),
                            resumed: true,
                            setup: setup.unwrap_or_default(),
                            notices,
                        })
                    }
                    Err(e) if !e.is_fatal() => notices.push(format!(
                        "Could not load the session {id} ({}); continuing in a new session without its history.",
                        describe(&e)
                    )),
                    Err(e) => return Err(e),
                }
            }
        }
        let req = NewSessionRequest {
            cwd: cwd_text,
            mcp_servers: Vec::new(),
        };
        let created: NewSessionResponse = self
            .request("session/new", &req, config.session_timeout)
            .await?;
        Ok(Opened {
            session_id: created.session_id,
            resumed: false,
            setup: created.setup,
            notices,
        })
    }

    /// Drop the history `session/load` replayed. Everything the agent sent before its answer
    /// is queued by the time the answer arrives (the peer hands events over first), so what
    /// is ready now is the replay (plus harmless updates right after it): `session/update`s
    /// are dropped, anything else is kept for the run task.
    async fn drop_replay(&mut self) {
        loop {
            let ev = tokio::select! {
                biased;
                ev = self.events.recv() => ev,
                () = std::future::ready(()) => None,
            };
            match ev {
                Some(PeerEvent::Notification(n)) if n.method == "session/update" => {}
                Some(other) => self.backlog.push(other),
                None => return,
            }
        }
    }

    /// Switch to `model` when the agent offers it: a `model` config option
    /// (`session/set_config_option`, opencode) or its model list (`session/set_model`, Gemini
    /// CLI). Returns the model the session runs (when known) and notices.
    pub async fn choose_model(
        &self,
        config: &AcpEngineConfig,
        session_id: &str,
        setup: &SessionSetup,
        model: Option<&str>,
    ) -> (Option<String>, Vec<String>) {
        let option = setup
            .config_options
            .iter()
            .flatten()
            .find(|o| o.category.as_deref() == Some("model") || o.id == "model");
        let current = option
            .and_then(|o| o.current_value.as_str().map(str::to_owned))
            .or_else(|| {
                setup
                    .models
                    .as_ref()
                    .and_then(|m| m.current_model_id.clone())
            });
        let Some(model) = model.filter(|m| current.as_deref() != Some(*m)) else {
            return (current, Vec::new());
        };
        let offered_option = option.filter(|o| o.options.iter().any(|v| v.value == model));
        let offered_model = setup
            .models
            .as_ref()
            .is_some_and(|m| m.available_models.iter().any(|i| i.model_id == model));
        let result = if let Some(o) = offered_option {
            let req = SetSessionConfigOptionRequest {
                session_id: session_id.to_owned(),
                config_id: o.id.clone(),
                value: Value::String(model.to_owned()),
            };
            self.request::<_, Value>("session/set_config_option", &req, config.session_timeout)
                .await
        } else if offered_model {
            let req = SetSessionModelRequest {
                session_id: session_id.to_owned(),
                model_id: model.to_owned(),
            };
            self.request::<_, Value>("session/set_model", &req, config.session_timeout)
                .await
        } else {
            let notice = format!(
                "{} does not offer the model `{model}`; it runs its own default{}.",
                self.name(),
                current
                    .as_deref()
                    .map(|c| format!(" (`{c}`)"))
                    .unwrap_or_default()
            );
            return (current, vec![notice]);
        };
        match result {
            Ok(_) => (Some(model.to_owned()), Vec::new()),
            Err(e) => (
                current,
                vec![format!(
                    "Could not switch {} to the model `{model}` ({e}).",
                    self.name()
                )],
            ),
        }
    }
}

/// An error in a sentence: a JSON-RPC error with the agent's `data.details` (Gemini CLI
/// says what went wrong only there).
pub(crate) fn describe(e: &EngineError) -> String {
    match e {
        EngineError::Server { message, data, .. } => {
            match data
                .as_ref()
                .and_then(|d| d.get("details"))
                .and_then(Value::as_str)
            {
                Some(details) => format!("{message}: {}", details.trim()),
                None => message.clone(),
            }
        }
        e => e.to_string(),
    }
}

/// The prompt's content blocks; images are read (tokio's fs) and sent inline as base64.
pub(crate) async fn prompt_blocks(input: &[InputPart]) -> Result<Vec<ContentBlock>, EngineError> {
    let mut blocks = Vec::with_capacity(input.len());
    for part in input {
        blocks.push(match part {
            InputPart::Text(t) => ContentBlock::text(t.clone()),
            InputPart::FileMention { name, path } => {
                ContentBlock::text(crate::mentions::inline(name, path).await)
            }
            InputPart::LocalImage(path) => {
                let bytes = tokio::fs::read(path).await.map_err(|e| {
                    EngineError::transport(format!("reading image {}", path.display()), e)
                })?;
                ContentBlock::Image {
                    data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                    mime_type: crate::mentions::image_media_type(path).to_owned(),
                    uri: None,
                }
            }
        });
    }
    Ok(blocks)
}
