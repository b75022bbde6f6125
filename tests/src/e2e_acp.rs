//! The window E2E suites' ACP set-up: a workspace whose default profile runs the ACP agent
//! opencode (the `opencode` preset, its binary in the engine settings as a user would set it)
//! against the fake Chat Completions server, confined by [`crate::real::opencode_env`]; and
//! the check that no opencode process outlives a test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::e2e::{AppEnv, BoxError};
use crate::fake_chat::{FakeChat, FAKE_MODEL, FAKE_PROVIDER};

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
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let work = env.root.join("work");
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("README.md"), "demo repo\n")?;
    let oc = crate::real::opencode_env(&env.root.join("oc"), &fake.opencode_config())?;
    let desk = agentdesk_core::Desk::open(&env.data_dir).await?;
    desk.set_engine_settings(&agentdesk_core::EngineSettings::default().with_bin("opencode", bin))
        .await?;
    let ws = desk.add_workspace(&s(&work), Some("demo")).await?;
    let mut spec = ProfileSpec::new("opencode (fake model)", Engine::Acp);
    spec.env.extend(oc.env);
    spec.model = Some(format!("{FAKE_PROVIDER}/{FAKE_MODEL}"));
    spec.engine_options = serde_json::json!({"preset": "opencode"});
    let profile = desk.create_profile(&ws.id, &spec).await?;
    desk.set_default_profile(&profile.id).await?;
    Ok(AcpWorkspace {
        work: std::fs::canonicalize(&work)?,
        opencode_config: oc.root.join("opencode.json"),
        desk,
    })
}

/// Pids of live processes whose environment names `config` as `OPENCODE_CONFIG` (this test's
/// agent and anything it started); zombies do not count.
pub fn opencode_processes(config: &Path) -> Vec<u32> {
    let needle = format!("OPENCODE_CONFIG={}", config.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        if !zombie && environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Wait (bounded by `limit`) until no opencode process of `config` is left; the pids left
/// otherwise.
pub async fn wait_no_opencode(config: &Path, limit: Duration) -> Result<(), BoxError> {
    let deadline = Instant::now() + limit;
    loop {
        let left = opencode_processes(config);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("opencode processes left: {left:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
