//! Remote workspaces: the folder is on another machine and the engines run there over SSH;
//! the queue, rules, notifications and the database stay here.
//!
//! One connection per host ([`SshLink`], opened on first use and again after it dropped),
//! one engine per engine kind and host (a Codex app-server there is resident like a local
//! one). Attached files are copied to a private folder on the host for the run and removed
//! after it; images travel inline in the message (every engine takes them so).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentdesk_engine::ssh::{self, RemoteHost, SshLink};
use agentdesk_engine::AgentEngine;
use agentdesk_protocol::ids::WorkspaceId;
use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Engine, EngineHealth, ErrorCode, IpcError, RemoteFolders, Workspace};

use crate::engines::{descriptor, engine_program};
use crate::{CoreError, Desk, Result};

/// Folders listed at most by the browser.
const MAX_FOLDERS: usize = 2000;
/// Bound on a check or a listing (the connection is up by then).
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(20);
/// Bound on a login check there (an engine start plus one request).
const LOGIN_TIMEOUT: Duration = Duration::from_secs(45);

/// The hosts this process talks to.
#[derive(Debug, Default)]
pub(crate) struct Hosts {
    /// Open connections by `[user@]host[:port]`.
    links: tokio::sync::Mutex<HashMap<String, Arc<SshLink>>>,
    /// Engines by kind, host and whether they get the user's agent forwarded.
    engines: std::sync::Mutex<HashMap<(Engine, String, bool), AgentEngine>>,
}

/// A remote folder as checked on its host.
struct CheckedFolder {
    /// Resolved there (`pwd -P`).
    path: String,
    home: String,
}

impl Desk {
    /// Where this app's control sockets are: its data directory when the socket path fits
    /// the 104-byte limit (ssh adds 17 bytes for a temporary name), else a private folder
    /// in the temporary directory named after the data directory.
    fn ssh_sockets(&self) -> PathBuf {
        let dir = self.data_dir.join("ssh");
        if dir.as_os_str().len() + 1 + 16 + 17 < 100 {
            return dir;
        }
        std::env::temp_dir().join(format!(
            "agentdesk-{}",
            ssh::short_hash(&self.data_dir.to_string_lossy())
        ))
    }

    /// The connection to `loc`'s host, opened (again) when it is not up.
    pub(crate) async fn ssh_link(&self, loc: &SshLocation) -> Result<Arc<SshLink>> {
        let key = loc.host_label();
        let mut links = self.hosts.links.lock().await;
        if let Some(link) = links.get(&key) {
            if link.is_up() {
                return Ok(Arc::clone(link));
            }
            if let Some(why) = link.down_reason() {
                tracing::info!(host = %key, reason = %why, "ssh connection was down; connecting again");
            }
        }
        let link = Arc::new(SshLink::open(RemoteHost::new(loc, &self.ssh_sockets())).await?);
        links.insert(key, Arc::clone(&link));
        Ok(link)
    }

    /// Close every connection (app exit, after the engines stopped): their masters stop.
    pub(crate) async fn close_ssh_links(&self) {
        let links: Vec<_> = self.hosts.links.lock().await.drain().collect();
        for (host, link) in links {
            match Arc::try_unwrap(link) {
                Ok(link) => link.close().await,
                Err(_) => {
                    tracing::debug!(%host, "ssh connection still in use; it stops with its last user")
                }
            }
        }
    }

    /// The engine `engine` on `loc`'s host (its connection up).
    pub(crate) async fn remote_engine(
        &self,
        engine: Engine,
        loc: &SshLocation,
        forward_agent: bool,
    ) -> Result<AgentEngine> {
        let link = self.ssh_link(loc).await?;
        let key = (engine, loc.host_label(), forward_agent);
        if let Some(e) = lock(&self.hosts.engines).get(&key) {
            return Ok(e.clone());
        }
        // The program there is checked before each run (`check_remote_program`): what is
        // installed on a host can change under a long-lived app.
        // Its memory is the host's to bound: the limit applies to local engines only.
        let created = descriptor(engine)
            .create(None, &agentdesk_engine::EngineSettings::default())
            .on_host(link.host.clone().forwarding_agent(forward_agent));
        lock(&self.runs.engines.created).push(created.clone());
        lock(&self.hosts.engines).insert(key, created.clone());
        Ok(created)
    }

    /// Refuse a run whose engine is missing or too old on the host, with what to run there.
    pub(crate) async fn check_remote_program(
        &self,
        engine: Engine,
        loc: &SshLocation,
    ) -> Result<()> {
        // An ACP agent's command is the profile's own (not the engine's first program, a
        // preset): the launch on the host says when it is missing.
        let Some(program) =
            engine_program(engine).filter(|_| !descriptor(engine).command_from_profile())
        else {
            return Ok(());
        };
        let link = self.ssh_link(loc).await?;
        let (path, version) = link.host.probe_version(program.name).await?;
        program
            .check_version(Path::new(&path), &version)
            .map_err(|e| CoreError::Engine(remote_hint(e, loc)))
    }

    /// The engine a workspace's runs use, checked where they run it: found and of a
    /// supported version here, or on the workspace's host.
    pub async fn check_engine_for(&self, ws: &Workspace, engine: Engine) -> Result<()> {
        match ws.remote() {
            Some(loc) => self.check_remote_program(engine, &loc).await,
            None => self.check_engine(engine).await.map(|_| ()),
        }
    }

    /// `loc` with its folder as the host resolves it (links followed); refused when the
    /// host cannot be reached or the folder is not there.
    pub async fn resolve_remote_folder(&self, loc: &SshLocation) -> Result<SshLocation> {
        let checked = self.check_remote_folder(loc).await?;
        Ok(loc.with_path(checked.path))
    }

    /// Check a folder on a host: it answers, the folder is there; resolved there.
    async fn check_remote_folder(&self, loc: &SshLocation) -> Result<CheckedFolder> {
        let link = self.ssh_link(loc).await?;
        let out = link
            .host
            .run_script(
                &ssh::in_folder(
                    r#"[ -r . ] || { printf 'the folder %s on %s cannot be read\n' "$1" "$(uname -n)" >&2; exit 97; }
pwd -P
printf '%s\n' "$HOME""#,
                ),
                &[&loc.path],
                None,
                SCRIPT_TIMEOUT,
            )
            .await?;
        let mut lines = out.lines();
        let path = lines.next().unwrap_or_default().to_owned();
        let home = lines.next().unwrap_or_default().to_owned();
        if !path.starts_with('/') {
            return Err(CoreError::Internal(format!(
                "{} answered {out:?} for the folder {}",
                loc.host_label(),
                loc.path
            )));
        }
        Ok(CheckedFolder { path, home })
    }

    /// Add a folder of an SSH host as a workspace (see [`Desk::add_workspace`]).
    pub(crate) async fn add_remote_workspace(
        &self,
        loc: SshLocation,
        name: Option<&str>,
    ) -> Result<Workspace> {
        let checked = self.check_remote_folder(&loc).await?;
        let shown = loc.to_string();
        if checked.path == "/" {
            return Err(CoreError::InvalidInput(format!(
                "{shown} is the root of the host's file system; choose a project folder (an agent working there could read and change every file)"
            )));
        }
        if !checked.home.is_empty() && checked.path == checked.home.trim_end_matches('/') {
            return Err(CoreError::InvalidInput(format!(
                "{shown} is your home folder on {}; choose a project folder inside it (an agent working there could read your keys and change your shell settings)",
                loc.host
            )));
        }
        let resolved = loc.with_path(checked.path);
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => n.to_owned(),
            None => resolved
                .path
                .rsplit('/')
                .find(|c| !c.is_empty())
                .unwrap_or("/")
                .to_owned(),
        };
        let ws = Workspace {
            id: WorkspaceId::new(),
            name,
            path: resolved.path.clone(),
            host: Some(resolved.host_label()),
            created_at: agentdesk_store::now_ms(),
        };
        self.store.insert_workspace(&ws).await?;
        tracing::info!(id = %ws.id, host = %resolved.host_label(), path = %ws.path, "remote workspace added");
        Ok(ws)
    }

    /// The folders in `path` on `host` (the home folder there when `None`).
    pub async fn list_remote_folders(
        &self,
        host: &str,
        path: Option<&str>,
    ) -> Result<RemoteFolders> {
        let loc = host_location(host, path.unwrap_or("/"))?;
        let link = self.ssh_link(&loc).await?;
        let out = link
            .host
            .run_script(
                &format!(
                    "[ -n \"$1\" ] || set -- \"$HOME\"\n{}",
                    ssh::in_folder(
                        r#"pwd -P
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then echo git; else echo plain; fi
for d in * .[!.]* ..?*; do
  if [ -d "$d" ] && [ ! -L "$d" ]; then printf '%s\n' "$d"; fi
done
exit 0"#
                    )
                ),
                &[path.unwrap_or("")],
                None,
                SCRIPT_TIMEOUT,
            )
            .await?;
        let mut lines = out.lines();
        let here = lines.next().unwrap_or("/").to_owned();
        let repository = lines.next() == Some("git");
        let mut folders: Vec<String> = lines.map(str::to_owned).collect();
        folders.sort_by_key(|f| f.to_lowercase());
        let truncated = folders.len() > MAX_FOLDERS;
        folders.truncate(MAX_FOLDERS);
        let parent = (here != "/").then(|| match here.rfind('/') {
            Some(0) | None => "/".to_owned(),
            Some(i) => here[..i].to_owned(),
        });
        Ok(RemoteFolders {
            host: loc.host_label(),
            path: here,
            parent,
            folders,
            truncated,
            repository,
        })
    }

    /// Codex and Claude Code on `host`, as `doctor` shows the local ones: found on the
    /// login shell's `PATH`, version, logged in (`check_login` starts each once there, in
    /// `folder` or the home folder), and what to run there when something is missing.
    pub async fn remote_engines_health(
        &self,
        host: &str,
        folder: Option<&str>,
        check_login: bool,
    ) -> Result<Vec<EngineHealth>> {
        let loc = host_location(host, folder.unwrap_or("/"))?;
        self.ssh_link(&loc).await?;
        let mut out = Vec::new();
        for engine in [Engine::Codex, Engine::Claude] {
            out.push(
                self.remote_health(engine, &loc, folder, check_login)
                    .await?,
            );
        }
        Ok(out)
    }

    async fn remote_health(
        &self,
        engine: Engine,
        loc: &SshLocation,
        folder: Option<&str>,
        check_login: bool,
    ) -> Result<EngineHealth> {
        let Some(program) = engine_program(engine) else {
            return Err(CoreError::Internal(format!(
                "no program for {}",
                engine.as_str()
            )));
        };
        let on_host = |cmd: &str| format!("ssh -t {} {cmd}", ssh_target(loc));
        let d = descriptor(engine);
        let mut health = EngineHealth {
            engine,
            program: program.name.to_owned(),
            display_name: program.display_name.to_owned(),
            path: None,
            found_via: Some("remote".to_owned()),
            override_path: None,
            version: None,
            logged_in: None,
            login_checkable: d.login_checkable(),
            problem: None,
            fix_commands: Vec::new(),
        };
        let link = self.ssh_link(loc).await?;
        let (path, version) = match link.host.probe_version(program.name).await {
            Ok(found) => found,
            Err(e) => {
                let missing = matches!(&e, agentdesk_engine::EngineError::NotFound { .. });
                health.problem = Some(CoreError::from(e).to_ipc());
                if missing {
                    health.fix_commands = vec![on_host(program.install_command)];
                }
                return Ok(health);
            }
        };
        health.path = Some(path.clone());
        health.version = Some(version.raw.clone());
        if let Err(e) = program.check_version(Path::new(&path), &version) {
            // The run is refused as the host's problem; here it is the version's.
            health.problem = Some(IpcError {
                code: ErrorCode::EngineVersionUnsupported,
                message: remote_hint(e, loc).to_string(),
            });
            health.fix_commands = vec![on_host(program.install_supported_command)];
            return Ok(health);
        }
        if check_login {
            let cwd = folder.map_or_else(|| PathBuf::from("."), PathBuf::from);
            let engine_there = self.remote_engine(engine, loc, false).await?;
            match tokio::time::timeout(LOGIN_TIMEOUT, engine_there.logged_in(&cwd)).await {
                Ok(Ok(logged_in)) => {
                    health.logged_in = logged_in;
                    if logged_in == Some(false) {
                        // Commands typed inside the engine (`/login`) stay as they are.
                        health.fix_commands = d
                            .login_commands()
                            .iter()
                            .map(|c| {
                                if c.starts_with('/') {
                                    c.to_string()
                                } else {
                                    on_host(c)
                                }
                            })
                            .collect();
                    }
                }
                Ok(Err(e)) => {
                    let message = format!("login check failed: {e}");
                    health.problem = Some(IpcError {
                        code: CoreError::from(e).code(),
                        message,
                    })
                }
                Err(_) => {
                    health.problem = Some(IpcError {
                        code: ErrorCode::TimedOut,
                        message: "login check timed out".to_owned(),
                    })
                }
            }
        }
        Ok(health)
    }

    /// Copy the run's attached files to a private folder on the host; the folder goes when
    /// the returned guard does (after the run).
    pub(crate) async fn upload_to_host(
        &self,
        loc: &SshLocation,
        files: &[(String, PathBuf)],
    ) -> Result<Option<RemoteUpload>> {
        if files.is_empty() {
            return Ok(None);
        }
        let link = self.ssh_link(loc).await?;
        let dir = link
            .host
            .run_script(
                r#"umask 077; mktemp -d "${TMPDIR:-/tmp}/agentdesk-XXXXXXXX""#,
                &[],
                None,
                SCRIPT_TIMEOUT,
            )
            .await?
            .trim()
            .to_owned();
        if !dir.starts_with('/') || !dir.contains("/agentdesk-") {
            return Err(CoreError::Internal(format!(
                "{} gave no temporary folder ({dir:?})",
                loc.host_label()
            )));
        }
        let guard = RemoteUpload {
            host: link.host.clone(),
            dir: dir.clone(),
            files: Vec::new(),
        };
        let mut guard = guard;
        for (i, (name, local)) in files.iter().enumerate() {
            // A folder per file keeps the names as the user gave them, even two alike.
            let size = tokio::fs::metadata(local)
                .await
                .map(|m| m.len())
                .unwrap_or(0);
            let timeout = SCRIPT_TIMEOUT + Duration::from_secs(size / (1024 * 1024));
            let remote = link
                .host
                .run_script(
                    r#"umask 077; mkdir -p -- "$1/$2" && cat > "$1/$2/$3" && [ "$(wc -c < "$1/$2/$3" | tr -d ' ')" = "$4" ] || { echo "the copy on the host is incomplete" >&2; exit 1; }
printf '%s\n' "$1/$2/$3""#,
                    &[&dir, &i.to_string(), name, &size.to_string()],
                    Some(local),
                    timeout,
                )
                .await?;
            guard.files.push(remote.trim().to_owned());
        }
        Ok(Some(guard))
    }
}

/// Files of one run on its host, removed when this is dropped.
#[derive(Debug)]
pub(crate) struct RemoteUpload {
    host: RemoteHost,
    dir: String,
    /// The files' paths there, in the order given.
    pub files: Vec<String>,
}

impl Drop for RemoteUpload {
    fn drop(&mut self) {
        let (host, dir) = (self.host.clone(), std::mem::take(&mut self.dir));
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(async move {
            let removed = host
                .run_script(
                    r#"case "$1" in */agentdesk-*) rm -rf -- "$1" ;; esac"#,
                    &[&dir],
                    None,
                    SCRIPT_TIMEOUT,
                )
                .await;
            if let Err(e) = removed {
                tracing::warn!(host = %host.label(), %dir, error = %e, "the run's files could not be removed from the host");
            }
        });
    }
}

/// `host` (`[user@]host[:port]`) with a folder.
fn host_location(host: &str, path: &str) -> Result<SshLocation> {
    let path = if path.starts_with('/') { path } else { "/" };
    SshLocation::parse_any(&format!("{}:{path}", host.trim()))
        .unwrap_or_else(|| Err(format!("{host} is not a host")))
        .map_err(CoreError::InvalidInput)
}

/// How the user reaches the host from a terminal: `[-p port] [user@]host`.
fn ssh_target(loc: &SshLocation) -> String {
    match loc.port {
        Some(p) => format!("-p {p} {}", loc.destination()),
        None => loc.destination(),
    }
}

/// An engine error with "on the host" advice: what to install is run there.
fn remote_hint(
    e: agentdesk_engine::EngineError,
    loc: &SshLocation,
) -> agentdesk_engine::EngineError {
    match e {
        agentdesk_engine::EngineError::UnsupportedVersion {
            engine,
            program,
            found,
            supported,
            install,
        } => agentdesk_engine::EngineError::Remote {
            host: loc.host_label(),
            reason: format!(
                "{engine} {found} ({}) is not supported: Agent Desk needs {supported} — on the host, {install}",
                program.display()
            ),
        },
        other => other,
    }
}

/// An attachment's name as a file name on the host: no folders, no hidden or empty name.
pub(crate) fn upload_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '\0') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.').trim();
    if cleaned.is_empty() {
        "attachment".to_owned()
    } else {
        cleaned.to_owned()
    }
}
