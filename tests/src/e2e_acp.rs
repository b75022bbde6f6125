//! The window E2E suites' ACP set-up: a workspace whose default profile runs the ACP agent
//! opencode (the `opencode` preset, its binary in the engine settings as a user would set it)
//! against the fake Chat Completions server, confined by [`crate::real::opencode_env`]; and
//! the check that no opencode process outlives a test.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::e2e::{
    demo_workspace, processes_with_env, wait_no_processes, AppEnv, AppSession, BoxError,
};
use crate::fake_chat::{FakeChat, Reply, FAKE_MODEL, FAKE_PROVIDER};

/// A workspace with a default ACP profile, the database still open so a suite can add what it
/// needs (notification settings) before closing it and starting the app.
pub struct AcpWorkspace {
    /// The workspace folder (canonical, as the app shows it).
    pub work: PathBuf,
    /// The agent's `OPENCODE_CONFIG` file: identifies this test's opencode processes.
    pub opencode_config: PathBuf,
    pub desk: agentdesk_core::Desk,
}

/// A workspace `demo` with a default profile "opencode (fake model)": engine `acp`, preset
/// `opencode` (found through the engine settings' `opencode` path, `bin`), asking before
/// edits and commands, its HOME, XDG dirs and config under `env.root/oc`, its only model the
/// fake at `fake`.
pub async fn prepare_acp_workspace(
    env: &AppEnv,
    bin: PathBuf,
    fake: &FakeChat,
) -> Result<AcpWorkspace, BoxError> {
    use agentdesk_protocol::ui::{Engine, ProfileSpec};
    let work = env.root.join("work");
    let oc = crate::real::opencode_env(&env.root.join("oc"), &fake.opencode_config())?;
    let mut spec = ProfileSpec::new("opencode (fake model)", Engine::Acp);
    spec.env.extend(oc.env);
    spec.model = Some(format!("{FAKE_PROVIDER}/{FAKE_MODEL}"));
    spec.engine_options = serde_json::json!({"preset": "opencode"});
    let (desk, _) = demo_workspace(env, &work, ("opencode", bin), &spec).await?;
    Ok(AcpWorkspace {
        work: std::fs::canonicalize(&work)?,
        opencode_config: oc.root.join("opencode.json"),
        desk,
    })
}

/// Pids of live processes whose environment names `config` as `OPENCODE_CONFIG` (this test's
/// agent and anything it started); zombies do not count.
pub fn opencode_processes(config: &Path) -> Vec<u32> {
    processes_with_env("OPENCODE_CONFIG", config)
}

/// Wait (bounded by `limit`) until no opencode process of `config` is left; the pids left
/// otherwise.
pub async fn wait_no_opencode(config: &Path, limit: Duration) -> Result<(), BoxError> {
    wait_no_processes("OPENCODE_CONFIG", config, limit).await
}

/// The model writes `content` to `file` with opencode's `write` tool (call `call_id`), then
/// answers `then`; the user sends "Create <file's name>".
pub async fn send_asking_to_write(
    app: &AppSession,
    fake: &FakeChat,
    (call_id, file, content): (&str, &Path, &str),
    then: &[&str],
) -> Result<(), BoxError> {
    fake.push(Reply::write(call_id, &file.to_string_lossy(), content));
    fake.push(Reply::text(then));
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    app.send_message(&format!("Create {name}")).await
}
