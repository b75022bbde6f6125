//! The TypeScript bindings in `ui/src/generated/` are generated from the Rust types here and
//! committed. This test fails when they are stale (or when a stray file is left there).
//! Regenerate with: `UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test bindings`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentdesk_protocol::{acp, approval_detail, capabilities, engine_options, events, ui};
use ts_rs::{Config, TS};

fn generated_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/generated")
}

fn render<T: TS + 'static>(cfg: &Config, out: &mut BTreeMap<String, String>) {
    let name = T::ident(cfg);
    let body = T::export_to_string(cfg).expect("ts-rs export");
    out.insert(format!("{name}.ts"), body);
}

/// Every type the UI sees. Add new UI-facing types here.
fn expected() -> BTreeMap<String, String> {
    let cfg = Config::new();
    let mut out = BTreeMap::new();
    render::<ui::Workspace>(&cfg, &mut out);
    render::<ui::IpcError>(&cfg, &mut out);
    render::<ui::ErrorCode>(&cfg, &mut out);
    render::<ui::AppInfo>(&cfg, &mut out);
    // Sessions, runs, timeline, approvals, profiles, attachments, usage, search (issue 5).
    render::<ui::Engine>(&cfg, &mut out);
    render::<ui::PermissionMode>(&cfg, &mut out);
    render::<ui::RuleAction>(&cfg, &mut out);
    render::<ui::ApprovalRule>(&cfg, &mut out);
    render::<ui::ProfileSpec>(&cfg, &mut out);
    render::<ui::Profile>(&cfg, &mut out);
    render::<ui::ProfileFieldError>(&cfg, &mut out);
    render::<ui::ProfileError>(&cfg, &mut out);
    render::<ui::ApprovalKindName>(&cfg, &mut out);
    render::<ui::ApprovalState>(&cfg, &mut out);
    render::<ui::DecidedBy>(&cfg, &mut out);
    render::<ui::ApprovalRequest>(&cfg, &mut out);
    render::<ui::ApprovalDecisionDetail>(&cfg, &mut out);
    render::<ui::Approval>(&cfg, &mut out);
    render::<ui::ApprovalChange>(&cfg, &mut out);
    render::<ui::SessionOrigin>(&cfg, &mut out);
    render::<ui::Session>(&cfg, &mut out);
    render::<ui::FolderCount>(&cfg, &mut out);
    render::<ui::SourceReport>(&cfg, &mut out);
    render::<ui::ImportReport>(&cfg, &mut out);
    render::<ui::ImportProgress>(&cfg, &mut out);
    render::<ui::HistorySettings>(&cfg, &mut out);
    render::<ui::HistorySourceInfo>(&cfg, &mut out);
    render::<ui::HistoryStatus>(&cfg, &mut out);
    // Sessions in git worktrees, their review and merge (issue 23).
    render::<ui::WorkspaceGit>(&cfg, &mut out);
    render::<ui::RemoteFolders>(&cfg, &mut out);
    render::<ui::FileState>(&cfg, &mut out);
    render::<ui::ChangedFile>(&cfg, &mut out);
    render::<ui::WorktreeCommit>(&cfg, &mut out);
    render::<ui::WorktreeStatus>(&cfg, &mut out);
    render::<ui::FileDiff>(&cfg, &mut out);
    render::<ui::MergeOutcome>(&cfg, &mut out);
    render::<ui::NewWorktree>(&cfg, &mut out);
    render::<ui::WorktreeRemoved>(&cfg, &mut out);
    render::<ui::RunStatus>(&cfg, &mut out);
    render::<ui::Run>(&cfg, &mut out);
    render::<ui::ItemStatus>(&cfg, &mut out);
    render::<ui::AttachmentRef>(&cfg, &mut out);
    render::<ui::NoticeLevel>(&cfg, &mut out);
    render::<ui::ItemBody>(&cfg, &mut out);
    render::<ui::TimelineItem>(&cfg, &mut out);
    render::<ui::TimelinePage>(&cfg, &mut out);
    render::<ui::AttachmentKind>(&cfg, &mut out);
    render::<ui::Attachment>(&cfg, &mut out);
    render::<ui::TokenUsage>(&cfg, &mut out);
    render::<ui::Usage>(&cfg, &mut out);
    render::<ui::SnippetPart>(&cfg, &mut out);
    render::<ui::SearchHit>(&cfg, &mut out);
    render::<ui::SessionFootprint>(&cfg, &mut out);
    render::<ui::ExportFormat>(&cfg, &mut out);
    // The window's live session stream (issue 12).
    render::<ui::LiveBatch>(&cfg, &mut out);
    render::<ui::LiveOp>(&cfg, &mut out);
    render::<ui::SessionActivity>(&cfg, &mut out);
    // Settings, engine health, first run (issue 13).
    render::<ui::EngineHealth>(&cfg, &mut out);
    // The engine registry and the engines' typed profile options (issue 21).
    render::<ui::EngineInfo>(&cfg, &mut out);
    render::<ui::EngineProgramInfo>(&cfg, &mut out);
    render::<engine_options::CodexOptions>(&cfg, &mut out);
    render::<engine_options::ClaudeOptions>(&cfg, &mut out);
    render::<acp::options::AcpOptions>(&cfg, &mut out);
    render::<acp::options::AcpPreset>(&cfg, &mut out);
    render::<ui::Theme>(&cfg, &mut out);
    render::<ui::SendKey>(&cfg, &mut out);
    render::<ui::UiSettings>(&cfg, &mut out);
    render::<ui::NotifyWhen>(&cfg, &mut out);
    render::<ui::NotificationPrefs>(&cfg, &mut out);
    render::<ui::DataInfo>(&cfg, &mut out);
    render::<ui::CompactReport>(&cfg, &mut out);
    render::<ui::EngineLimits>(&cfg, &mut out);
    // Canonical event types the DTOs above refer to.
    render::<events::ToolKind>(&cfg, &mut out);
    render::<events::FileChangeKind>(&cfg, &mut out);
    render::<events::ApprovalFile>(&cfg, &mut out);
    render::<events::Question>(&cfg, &mut out);
    render::<events::QuestionOption>(&cfg, &mut out);
    render::<events::DiagnosticSource>(&cfg, &mut out);
    render::<events::UserDecision>(&cfg, &mut out);
    // The composer's commands (issue 24).
    render::<ui::SlashCommand>(&cfg, &mut out);
    render::<ui::CommandCatalog>(&cfg, &mut out);
    // The engines' models (issue 24).
    render::<ui::ModelInfo>(&cfg, &mut out);
    render::<ui::ModelCatalog>(&cfg, &mut out);
    // The engines' accounts (issue 24).
    render::<ui::LoginKind>(&cfg, &mut out);
    render::<ui::EngineAccount>(&cfg, &mut out);
    render::<ui::LoginRequest>(&cfg, &mut out);
    render::<ui::LoginStart>(&cfg, &mut out);
    // MCP servers (issue 24).
    render::<ui::McpServer>(&cfg, &mut out);
    render::<ui::McpState>(&cfg, &mut out);
    render::<ui::McpTool>(&cfg, &mut out);
    render::<ui::McpServerStatus>(&cfg, &mut out);
    render::<ui::McpReport>(&cfg, &mut out);
    // The account's rate limits (issue 24).
    render::<agentdesk_protocol::rate_limits::RateLimitWindow>(&cfg, &mut out);
    render::<agentdesk_protocol::rate_limits::RateLimits>(&cfg, &mut out);
    render::<agentdesk_protocol::rate_limits::EngineRateLimits>(&cfg, &mut out);
    // The agent's plan (issue 24).
    render::<agentdesk_protocol::plan::Plan>(&cfg, &mut out);
    render::<agentdesk_protocol::plan::PlanEntry>(&cfg, &mut out);
    render::<agentdesk_protocol::plan::PlanStatus>(&cfg, &mut out);
    // An approval's engine detail, one variant per engine request (issue 8).
    render::<approval_detail::ApprovalDetail>(&cfg, &mut out);
    render::<approval_detail::ClaudeToolDetail>(&cfg, &mut out);
    render::<approval_detail::CodexCommandDetail>(&cfg, &mut out);
    render::<approval_detail::CodexFileChangeDetail>(&cfg, &mut out);
    render::<approval_detail::CodexPermissionsDetail>(&cfg, &mut out);
    render::<approval_detail::CodexElicitationDetail>(&cfg, &mut out);
    render::<agentdesk_protocol::acp::AcpToolCallDetail>(&cfg, &mut out);
    render::<capabilities::EngineCapabilities>(&cfg, &mut out);
    out
}

#[test]
fn typescript_bindings_are_fresh() {
    let dir = generated_dir();
    let expected = expected();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ts") {
                std::fs::remove_file(path).unwrap();
            }
        }
        for (file, body) in &expected {
            std::fs::write(dir.join(file), body).unwrap();
        }
        return;
    }
    let mut stale = Vec::new();
    for (file, body) in &expected {
        match std::fs::read_to_string(dir.join(file)) {
            Ok(on_disk) if on_disk.replace("\r\n", "\n") == *body => {}
            Ok(_) => stale.push(format!("{file} differs")),
            Err(_) => stale.push(format!("{file} is missing")),
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".ts") && !expected.contains_key(&name) {
            stale.push(format!("{name} is not generated from any Rust type"));
        }
    }
    assert!(
        stale.is_empty(),
        "ui/src/generated is stale: {stale:?}\nrun: UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test bindings"
    );
}
