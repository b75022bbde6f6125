//! Which approvals a profile decides by itself. Pure: no I/O, no clock.
//!
//! Order (first that speaks wins): denied tools → the profile's rules → "always for this
//! session" grants → allowed tools → the permission mode. Questions are never auto-decided.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use agentdesk_protocol::ui::{
    ApprovalKindName, ApprovalRequest, ApprovalRule, PermissionMode, ProfileSpec, RuleAction,
};

/// Tools that only read: approved without asking in every mode.
pub const READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead"];

/// Claude's file-writing tools; their target path is `input.file_path` / `notebook_path`.
const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// A profile's approval settings, snapshotted when a run starts.
#[derive(Debug, Clone, Default)]
pub struct ApprovalPolicy {
    pub permission_mode: PermissionMode,
    /// The workspace folder (canonical): "writes inside the workspace" are under it.
    pub workspace_root: PathBuf,
    pub allowed_tools: Vec<String>,
    pub denied_tools: Vec<String>,
    pub rules: Vec<ApprovalRule>,
    /// Seconds before a pending approval is safely denied.
    pub timeout_secs: Option<u32>,
}

impl ApprovalPolicy {
    pub fn from_profile(spec: &ProfileSpec, workspace_root: &Path) -> Self {
        ApprovalPolicy {
            permission_mode: spec.permission_mode,
            workspace_root: workspace_root.to_path_buf(),
            allowed_tools: spec.allowed_tools.clone(),
            denied_tools: spec.denied_tools.clone(),
            rules: spec.approval_rules.clone(),
            timeout_secs: spec.approval_timeout_secs,
        }
    }
}

/// What an "always for this session" choice covers: the same tool (Claude), the same
/// command (Codex commands), any file change (Codex file changes), the same permission ask.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GrantKey {
    kind: ApprovalKindName,
    subject: String,
}

impl GrantKey {
    pub fn of(kind: ApprovalKindName, req: &ApprovalRequest) -> Option<GrantKey> {
        let subject = match kind {
            ApprovalKindName::Question => return None,
            ApprovalKindName::FileChange => req.tool.clone().unwrap_or_default(),
            ApprovalKindName::Command => req
                .tool
                .clone()
                .or_else(|| req.command.as_ref().map(|c| c.trim().to_string()))
                .unwrap_or_default(),
            ApprovalKindName::Tool | ApprovalKindName::Permission => req
                .tool
                .clone()
                .or_else(|| req.reason.clone())
                .unwrap_or_default(),
        };
        Some(GrantKey { kind, subject })
    }
}

/// An automatic decision and why, in words (stored with the approval).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub approve: bool,
    pub reason: String,
}

fn verdict(approve: bool, reason: impl Into<String>) -> Option<Verdict> {
    Some(Verdict {
        approve,
        reason: reason.into(),
    })
}

fn rule_matches(rule: &ApprovalRule, kind: ApprovalKindName, req: &ApprovalRequest) -> bool {
    let any = rule.kind.is_some() || rule.tool.is_some() || rule.command_prefix.is_some();
    any && rule.kind.is_none_or(|k| k == kind)
        && rule
            .tool
            .as_ref()
            .is_none_or(|t| req.tool.as_deref() == Some(t.as_str()))
        && rule.command_prefix.as_ref().is_none_or(|p| {
            req.command
                .as_deref()
                .is_some_and(|c| c.trim_start().starts_with(p.as_str()))
        })
}

/// Lexically normalise (no file system access: the file may not exist yet); `None` when
/// `..` climbs above the root.
fn normalise(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

fn inside(root: &Path, path: &str, cwd: Option<&str>) -> bool {
    let p = Path::new(path);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        Path::new(cwd.unwrap_or_default()).join(p)
    };
    match (normalise(&abs), normalise(root)) {
        (Some(a), Some(r)) => a.is_absolute() && !r.as_os_str().is_empty() && a.starts_with(r),
        _ => false,
    }
}

/// The paths a request writes, when it is a write we can see.
fn written_paths(kind: ApprovalKindName, req: &ApprovalRequest) -> Option<Vec<String>> {
    if kind == ApprovalKindName::FileChange && !req.files.is_empty() {
        return Some(req.files.iter().map(|f| f.path.clone()).collect());
    }
    let tool = req.tool.as_deref()?;
    if !WRITE_TOOLS.contains(&tool) {
        return None;
    }
    if !req.files.is_empty() {
        return Some(req.files.iter().map(|f| f.path.clone()).collect());
    }
    let input = req.detail.get("input").unwrap_or(&req.detail);
    ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(|v| v.as_str()))
        .map(|p| vec![p.to_string()])
}

/// Decide without asking, or `None` to ask the user.
pub fn evaluate(
    policy: &ApprovalPolicy,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
    grants: &HashSet<GrantKey>,
) -> Option<Verdict> {
    if kind == ApprovalKindName::Question {
        return None;
    }
    let tool = req.tool.as_deref();
    if let Some(t) = tool.filter(|t| policy.denied_tools.iter().any(|d| d == t)) {
        return verdict(false, format!("the profile denies the tool {t}"));
    }
    if let Some((i, r)) = policy
        .rules
        .iter()
        .enumerate()
        .find(|(_, r)| rule_matches(r, kind, req))
    {
        let approve = r.action == RuleAction::Allow;
        return verdict(approve, format!("profile rule {}", i + 1));
    }
    if GrantKey::of(kind, req).is_some_and(|k| grants.contains(&k)) {
        return verdict(true, "allowed for this session");
    }
    if let Some(t) = tool.filter(|t| policy.allowed_tools.iter().any(|a| a == t)) {
        return verdict(true, format!("the profile allows the tool {t}"));
    }
    if tool.is_some_and(|t| READ_ONLY_TOOLS.contains(&t)) {
        return verdict(true, "read-only tool");
    }
    match policy.permission_mode {
        PermissionMode::FullAuto => verdict(true, "full-auto profile"),
        PermissionMode::ReadOnly => verdict(false, "read-only profile"),
        PermissionMode::AutoEdit => {
            let paths = written_paths(kind, req)?;
            let all_inside = !paths.is_empty()
                && paths
                    .iter()
                    .all(|p| inside(&policy.workspace_root, p, req.cwd.as_deref()));
            all_inside.then(|| Verdict {
                approve: true,
                reason: "write inside the workspace".into(),
            })
        }
        PermissionMode::Ask => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use agentdesk_protocol::events::{ApprovalFile, FileChangeKind};

    use super::*;

    fn policy(mode: PermissionMode) -> ApprovalPolicy {
        ApprovalPolicy {
            permission_mode: mode,
            workspace_root: "/work/repo".into(),
            ..Default::default()
        }
    }

    fn files(paths: &[&str]) -> ApprovalRequest {
        ApprovalRequest {
            files: paths
                .iter()
                .map(|p| ApprovalFile {
                    path: p.to_string(),
                    kind: FileChangeKind::Update,
                    diff: String::new(),
                })
                .collect(),
            cwd: Some("/work/repo/src".into()),
            ..Default::default()
        }
    }

    fn tool(name: &str) -> ApprovalRequest {
        ApprovalRequest {
            tool: Some(name.into()),
            ..Default::default()
        }
    }

    #[test]
    fn modes() {
        let none = HashSet::new();
        let fc = ApprovalKindName::FileChange;
        let ask = policy(PermissionMode::Ask);
        assert_eq!(evaluate(&ask, fc, &files(&["/work/repo/a"]), &none), None);
        assert!(
            evaluate(&ask, ApprovalKindName::Tool, &tool("Grep"), &none)
                .unwrap()
                .approve
        );
        let edit = policy(PermissionMode::AutoEdit);
        assert!(
            evaluate(&edit, fc, &files(&["/work/repo/a", "b.rs"]), &none)
                .unwrap()
                .approve
        );
        assert_eq!(
            evaluate(&edit, fc, &files(&["/work/repo/../x"]), &none),
            None
        );
        assert_eq!(
            evaluate(&edit, fc, &files(&["../../../etc/passwd"]), &none),
            None
        );
        assert_eq!(
            evaluate(&edit, fc, &files(&["/work/repository/a"]), &none),
            None
        );
        let mut write = tool("Write");
        write.detail = serde_json::json!({"input": {"file_path": "/work/repo/n.txt"}});
        assert!(
            evaluate(&edit, ApprovalKindName::Tool, &write, &none)
                .unwrap()
                .approve
        );
        let cmd = ApprovalRequest {
            command: Some("rm -rf /".into()),
            ..Default::default()
        };
        assert_eq!(
            evaluate(&edit, ApprovalKindName::Command, &cmd, &none),
            None
        );
        assert!(
            evaluate(
                &policy(PermissionMode::FullAuto),
                ApprovalKindName::Command,
                &cmd,
                &none
            )
            .unwrap()
            .approve
        );
        assert!(
            !evaluate(
                &policy(PermissionMode::ReadOnly),
                ApprovalKindName::Command,
                &cmd,
                &none
            )
            .unwrap()
            .approve
        );
        let q = ApprovalKindName::Question;
        assert_eq!(
            evaluate(&policy(PermissionMode::FullAuto), q, &cmd, &none),
            None
        );
    }

    #[test]
    fn lists_rules_and_grants() {
        let mut p = policy(PermissionMode::Ask);
        p.denied_tools = vec!["Read".into()];
        p.allowed_tools = vec!["Bash".into()];
        p.rules = vec![ApprovalRule {
            kind: Some(ApprovalKindName::Command),
            tool: None,
            command_prefix: Some("git status".into()),
            action: RuleAction::Allow,
        }];
        let none = HashSet::new();
        assert!(
            !evaluate(&p, ApprovalKindName::Tool, &tool("Read"), &none)
                .unwrap()
                .approve
        );
        assert!(
            evaluate(&p, ApprovalKindName::Command, &tool("Bash"), &none)
                .unwrap()
                .approve
        );
        let git = ApprovalRequest {
            command: Some("  git status --short".into()),
            ..Default::default()
        };
        let v = evaluate(&p, ApprovalKindName::Command, &git, &none).unwrap();
        assert_eq!(v.reason, "profile rule 1");
        let ls = ApprovalRequest {
            command: Some("ls".into()),
            ..Default::default()
        };
        assert_eq!(evaluate(&p, ApprovalKindName::Command, &ls, &none), None);
        let grants = HashSet::from([GrantKey::of(ApprovalKindName::Command, &ls).unwrap()]);
        assert!(
            evaluate(&p, ApprovalKindName::Command, &ls, &grants)
                .unwrap()
                .approve
        );
    }
}
