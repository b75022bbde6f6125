//! A profile's MCP servers as its engine reports them (the profile editor's "Check MCP
//! servers", `profile mcp list`): the engine is started with the profile in the workspace's
//! folder, asked, and stopped.

use std::time::Duration;

use agentdesk_protocol::ids::{ProfileId, WorkspaceId};
use agentdesk_protocol::ui::McpReport;

use crate::engines::descriptor;
use crate::{Desk, Result};

/// Bound on one report: an engine start, the servers' own starts, one or a few requests.
const STATUS_TIMEOUT: Duration = Duration::from_secs(60);

impl Desk {
    pub async fn mcp_status(
        &self,
        workspace_id: &WorkspaceId,
        profile_id: &ProfileId,
    ) -> Result<McpReport> {
        let workspace = self.store.get_workspace(workspace_id).await?;
        let spec = self.store.get_profile(profile_id).await?.spec;
        let d = descriptor(spec.engine);
        let unavailable = |why: String| McpReport {
            servers: agentdesk_engine::mcp::report(&spec.mcp_servers, Vec::new())
                .into_iter()
                .filter(|s| s.state == agentdesk_protocol::ui::McpState::Disabled)
                .collect(),
            unavailable: Some(why),
        };
        if !d.takes_mcp_servers() {
            return Ok(unavailable(format!(
                "{} gets no MCP servers from Agent Desk: configure them in the agent itself.",
                d.display_name()
            )));
        }
        if !spec.mcp_servers.iter().any(|s| s.enabled) {
            return Ok(McpReport {
                servers: agentdesk_engine::mcp::report(&spec.mcp_servers, Vec::new()),
                unavailable: None,
            });
        }
        let exe = match self.locate_engine(spec.engine).await {
            Ok(exe) => exe.path,
            Err(e) => return Ok(unavailable(e.to_ipc().message)),
        };
        let settings = self.engine_settings().await.unwrap_or_default();
        let folder = std::path::PathBuf::from(&workspace.path);
        let asked = d.mcp_status(&exe, &folder, &spec, &settings);
        Ok(match tokio::time::timeout(STATUS_TIMEOUT, asked).await {
            Ok(Ok(Some(reported))) => McpReport {
                servers: agentdesk_engine::mcp::report(&spec.mcp_servers, reported),
                unavailable: None,
            },
            Ok(Ok(None)) => unavailable(format!(
                "{} does not report its MCP servers.",
                d.display_name()
            )),
            Ok(Err(e)) => unavailable(format!(
                "{} could not be asked about its MCP servers: {e}",
                d.display_name()
            )),
            Err(_) => unavailable(format!(
                "{} did not report its MCP servers within {} s",
                d.display_name(),
                STATUS_TIMEOUT.as_secs()
            )),
        })
    }
}
