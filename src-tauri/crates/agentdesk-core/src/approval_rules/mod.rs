//! Which approvals a profile decides by itself. No clock; the only I/O is reading where paths
//! really point (symlinks) for "inside the workspace".
//!
//! Order (first that speaks wins): denied tools → the profile's rules → "always for this
//! session" grants → allowed tools → read-only tools reading inside the workspace or the
//! profile's extra folders → the permission mode. Questions are never auto-decided.
//!
//! Nothing here is widened beyond what the user saw: a grant covers the exact command, the
//! exact files or the exact tool input it was given for; an allow rule never matches a
//! compound command (`git status; curl …|sh`); path checks follow symlinks.

mod paths;
mod shell;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use agentdesk_protocol::approval_detail::ApprovalDetail;
use agentdesk_protocol::ui::{
    ApprovalKindName, ApprovalRequest, ApprovalRule, PermissionMode, ProfileSpec, RuleAction,
};
use serde_json::Value;

use shell::CommandLine;

/// Tools that only read: approved without asking when what they read is inside the workspace
/// or the profile's extra folders; asked otherwise.
pub const READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead"];

/// Claude's file-writing tools; their target path is `input.file_path` / `notebook_path`.
const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// A profile's approval settings, snapshotted when a run starts.
#[derive(Debug, Clone, Default)]
pub struct ApprovalPolicy {
    pub permission_mode: PermissionMode,
    /// The workspace folder (canonical): "writes inside the workspace" are under it.
    pub workspace_root: PathBuf,
    /// Folders the agent may also read without asking (the profile's extra dirs).
    pub extra_dirs: Vec<PathBuf>,
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
            extra_dirs: spec.extra_dirs.iter().map(PathBuf::from).collect(),
            allowed_tools: spec.allowed_tools.clone(),
            denied_tools: spec.denied_tools.clone(),
            rules: spec.approval_rules.clone(),
            timeout_secs: spec.approval_timeout_secs,
        }
    }

    /// Where writes may be auto-approved: the workspace, unless it is `/` or the home folder.
    fn write_roots(&self) -> Vec<PathBuf> {
        paths::root(&self.workspace_root).into_iter().collect()
    }

    /// Where reads may be auto-approved: the workspace and the extra folders (none of them
    /// `/` or the home folder).
    fn read_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.write_roots();
        roots.extend(self.extra_dirs.iter().filter_map(|d| paths::root(d)));
        roots
    }

    /// Relative paths in a request are taken from the request's folder, else the run's.
    fn base<'a>(&'a self, req: &'a ApprovalRequest) -> &'a Path {
        req.cwd
            .as_deref()
            .filter(|c| Path::new(c).is_absolute())
            .map_or(self.workspace_root.as_path(), Path::new)
    }
}

/// One thing an "always for this session" choice covers. A request is covered when every key
/// it yields was granted: the same command line, the same files, the same tool input.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GrantKey {
    /// One exact command line (only whitespace between words normalised).
    Command {
        tool: Option<String>,
        command: String,
    },
    /// One file, by where it really is, changed by one tool.
    File { tool: Option<String>, path: PathBuf },
    /// Any other request: the tool with exactly this input.
    Exact {
        kind: ApprovalKindName,
        tool: Option<String>,
        input: String,
    },
}

impl GrantKey {
    /// What granting `req` for the session covers; empty when it cannot be granted (a
    /// question, a file whose location cannot be told).
    pub fn for_request(
        policy: &ApprovalPolicy,
        kind: ApprovalKindName,
        req: &ApprovalRequest,
    ) -> Vec<GrantKey> {
        let tool = req.tool.clone();
        if kind == ApprovalKindName::Question {
            return Vec::new();
        }
        if let Some(c) = &req.command {
            let command = shell::normalise_whitespace(c);
            if command.is_empty() {
                return Vec::new();
            }
            return vec![GrantKey::Command { tool, command }];
        }
        let is_write = kind == ApprovalKindName::FileChange
            || req
                .tool
                .as_deref()
                .is_some_and(|t| WRITE_TOOLS.contains(&t));
        if is_write {
            // No visible path (a Codex change whose item was not seen): nothing to grant,
            // rather than a grant that would match every such change.
            let files = written_paths(kind, req).unwrap_or_default();
            let base = policy.base(req);
            let resolved: Option<Vec<PathBuf>> =
                files.iter().map(|f| paths::resolve(f, base)).collect();
            return match resolved {
                Some(ps) if !ps.is_empty() => ps
                    .into_iter()
                    .map(|path| GrantKey::File {
                        tool: tool.clone(),
                        path,
                    })
                    .collect(),
                _ => Vec::new(),
            };
        }
        // Claude's tools carry their input; Codex's other requests their detail and reason.
        let input = match req.detail.as_deref().and_then(ApprovalDetail::tool_input) {
            Some(i) => i.to_string(),
            None => {
                // An unwritable detail grants nothing rather than a key shared by all of them.
                let Ok(detail) = serde_json::to_string(&req.detail) else {
                    return Vec::new();
                };
                format!("{detail}\u{0}{}", req.reason.as_deref().unwrap_or_default())
            }
        };
        vec![GrantKey::Exact { kind, tool, input }]
    }

    fn describe(keys: &[GrantKey], policy: &ApprovalPolicy) -> String {
        let root = paths::resolve(&policy.workspace_root.to_string_lossy(), Path::new("/"));
        let mut files = Vec::new();
        let mut parts = Vec::new();
        for k in keys {
            match k {
                GrantKey::Command { command, .. } => parts.push(format!("command `{command}`")),
                GrantKey::File { path, .. } => {
                    let shown = root
                        .as_ref()
                        .and_then(|r| path.strip_prefix(r).ok())
                        .filter(|p| !p.as_os_str().is_empty())
                        .unwrap_or(path);
                    files.push(format!("`{}`", shown.display()));
                }
                GrantKey::Exact { tool, .. } => parts.push(match tool {
                    Some(t) => format!("tool `{t}` with this exact input"),
                    None => "this exact request".to_string(),
                }),
            }
        }
        match files.len() {
            0 => {}
            1 => parts.push(format!("file {}", files[0])),
            _ => parts.push(format!("files {}", files.join(", "))),
        }
        parts.join("; ")
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

/// An allow prefix names one plain command: it matches a plain command (not compound, not
/// writing through a redirection) whose leading words are exactly the prefix's words.
fn allow_prefix_matches(prefix: &str, line: &CommandLine) -> bool {
    let Some(pre) = shell::read(prefix).plain.filter(|p| !p.words.is_empty()) else {
        return false;
    };
    line.plain.as_ref().is_some_and(|c| {
        !c.writes_file
            && c.words.len() >= pre.words.len()
            && c.words[..pre.words.len()] == pre.words[..]
    })
}

/// A deny prefix matches any simple command anywhere in the line, by text (no word
/// boundary) and with the program's folder ignored: a deny is never narrowed.
fn deny_prefix_matches(prefix: &str, raw: &str, line: &CommandLine) -> bool {
    let pre = shell::normalise_whitespace(prefix);
    if pre.is_empty() {
        return false;
    }
    shell::normalise_whitespace(raw).starts_with(&pre)
        || line.all.iter().any(|c| {
            let joined = c.words.join(" ");
            let bare = match c.words.split_first() {
                Some((first, rest)) => {
                    let name = first.rsplit('/').next().unwrap_or(first);
                    std::iter::once(name)
                        .chain(rest.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
                None => String::new(),
            };
            joined.starts_with(&pre) || bare.starts_with(&pre)
        })
}

fn rule_matches(
    rule: &ApprovalRule,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
    line: Option<&CommandLine>,
) -> bool {
    let any = rule.kind.is_some() || rule.tool.is_some() || rule.command_prefix.is_some();
    let same_tool = rule
        .tool
        .as_ref()
        .is_none_or(|t| req.tool.as_deref() == Some(t.as_str()));
    if !any || rule.kind.is_some_and(|k| k != kind) || !same_tool {
        return false;
    }
    let allow = rule.action == RuleAction::Allow;
    match (&rule.command_prefix, req.command.as_deref(), line) {
        (Some(p), Some(raw), Some(line)) => {
            if allow {
                allow_prefix_matches(p, line)
            } else {
                deny_prefix_matches(p, raw, line)
            }
        }
        (Some(_), _, _) => false,
        // Allowing commands of a kind or tool still means one plain command at a time.
        (None, _, Some(line)) => !allow || line.plain.is_some(),
        (None, _, None) => true,
    }
}

/// The tool's own input (Claude's tools); `null` when the engine sent none.
fn tool_input(req: &ApprovalRequest) -> &Value {
    static NULL: Value = Value::Null;
    req.detail
        .as_deref()
        .and_then(ApprovalDetail::tool_input)
        .unwrap_or(&NULL)
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
    let input = tool_input(req);
    ["file_path", "notebook_path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(|p| vec![p.to_string()])
}

/// The paths a read-only tool reads (a missing path is the current folder); `None` when that
/// cannot be told (a glob that climbs out with `..` after a wildcard).
fn read_paths(tool: &str, req: &ApprovalRequest) -> Option<Vec<String>> {
    let input = tool_input(req);
    let field = |k: &str| {
        input
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let path = match tool {
        "Read" => field("file_path").unwrap_or(".").to_string(),
        "NotebookRead" => field("notebook_path").unwrap_or(".").to_string(),
        "LS" | "Grep" => {
            // Grep's `glob` filters names under `path`; one that looks elsewhere is asked.
            if field("glob").is_some_and(|g| g.starts_with(['/', '~']) || g.contains("..")) {
                return None;
            }
            field("path").unwrap_or(".").to_string()
        }
        "Glob" => {
            let pattern = field("pattern").unwrap_or_default();
            if pattern.starts_with('~') {
                return None;
            }
            let reach = paths::glob_base(pattern)?;
            Path::new(field("path").unwrap_or("."))
                .join(reach)
                .to_string_lossy()
                .into_owned()
        }
        _ => return None,
    };
    Some(vec![path])
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
    let line = req.command.as_deref().map(shell::read);
    if let Some((i, r)) = policy
        .rules
        .iter()
        .enumerate()
        .find(|(_, r)| rule_matches(r, kind, req, line.as_ref()))
    {
        let approve = r.action == RuleAction::Allow;
        return verdict(approve, format!("profile rule {}", i + 1));
    }
    let keys = GrantKey::for_request(policy, kind, req);
    if !keys.is_empty() && keys.iter().all(|k| grants.contains(k)) {
        return verdict(
            true,
            format!(
                "approved for this session: {}",
                GrantKey::describe(&keys, policy)
            ),
        );
    }
    if let Some(t) = tool.filter(|t| policy.allowed_tools.iter().any(|a| a == t)) {
        return verdict(true, format!("the profile allows the tool {t}"));
    }
    if let Some(t) = tool.filter(|t| READ_ONLY_TOOLS.contains(t)) {
        let inside = read_paths(t, req)
            .is_some_and(|ps| paths::all_under(&ps, policy.base(req), &policy.read_roots()));
        if inside {
            return verdict(true, "read-only tool, inside the workspace");
        }
        // A read elsewhere (`/etc/passwd`, `~/.ssh`) is the user's call, even under a
        // read-only profile (it writes nothing); full-auto still approves everything.
        return match policy.permission_mode {
            PermissionMode::FullAuto => verdict(true, "full-auto profile"),
            _ => None,
        };
    }
    match policy.permission_mode {
        PermissionMode::FullAuto => verdict(true, "full-auto profile"),
        PermissionMode::ReadOnly => verdict(false, "read-only profile"),
        PermissionMode::AutoEdit => {
            let paths = written_paths(kind, req)?;
            paths::all_under(&paths, policy.base(req), &policy.write_roots()).then(|| Verdict {
                approve: true,
                reason: "write inside the workspace".into(),
            })
        }
        PermissionMode::Ask => None,
    }
}

#[cfg(test)]
mod tests;
