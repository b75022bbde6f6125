//! Which approvals a profile decides by itself. No clock; the only I/O is reading where paths
//! really point (symlinks) for "inside the workspace".
//!
//! Order (first that speaks wins): denied tools → the profile's deny rules → its allow
//! rules → "always for this session" grants → allowed tools → read-only tools reading inside
//! the workspace or the profile's extra folders → the permission mode. Questions are never
//! auto-decided.
//!
//! Nothing here is widened beyond what the user saw: a grant covers the exact command, the
//! exact files or the exact tool input it was given for; an allow rule never matches a
//! compound command (`git status; curl …|sh`); path checks follow symlinks.
//!
//! A deny rule is not dodged by how a command is written: it matches the program every
//! simple command of the line runs, through assignments, wrappers, quoting, folders and
//! nested shells (`true && env FOO=1 bash -c 'nice /usr/bin/cu""rl x'`); and a line whose
//! programs cannot be told from its text (`eval`, `$(…)`, `$CMD`, `python -c`...) is asked,
//! never approved, while the profile has a deny rule for commands. Command prefixes apply
//! to shell commands only (Codex's command executions, Claude's `Bash`), never to a tool
//! that happens to have a `command` field.

mod interpreters;
pub mod paths;
mod programs;
mod shell;
mod wrappers;

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
    /// Where paths are resolved: here, or on a remote workspace's host (a link there could
    /// lead out of the folder; see `paths::PathSpace`).
    pub space: paths::PathSpace,
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
            space: paths::PathSpace::Local,
        }
    }

    /// Where writes may be auto-approved: the workspace, unless it is `/` or the home folder.
    fn write_roots(&self) -> Vec<PathBuf> {
        self.space.root(&self.workspace_root).into_iter().collect()
    }

    /// Where reads may be auto-approved: the workspace and the extra folders (none of them
    /// `/` or the home folder).
    fn read_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.write_roots();
        roots.extend(self.extra_dirs.iter().filter_map(|d| self.space.root(d)));
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
        // Only a shell command is granted by its text: another tool's `command` field is one
        // input among others (`host`, `sudo`), granted with all of them below.
        if let Some(c) = req
            .command
            .as_ref()
            .filter(|_| kind == ApprovalKindName::Command)
        {
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
            let resolved: Option<Vec<PathBuf>> = files
                .iter()
                .map(|f| policy.space.resolve(f, base))
                .collect();
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
        let root = policy
            .space
            .resolve(&policy.workspace_root.to_string_lossy(), Path::new("/"));
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

/// A deny prefix matches any simple command anywhere in the line, and any program one of
/// them runs (through wrappers and nested shells), by text (no word boundary) and with the
/// program's folder, case and `.exe` ignored: a deny is never narrowed.
fn deny_prefix_matches(prefix: &str, raw: &str, line: &CommandLine) -> bool {
    let pre = shell::normalise_whitespace(prefix);
    if pre.is_empty() {
        return false;
    }
    // The prefix as words, its program compared like the line's.
    let words = shell::read(prefix)
        .plain
        .map(|c| c.words)
        .filter(|w| !w.is_empty());
    let bare_prefix = words.as_deref().map(bare);
    shell::normalise_whitespace(raw).starts_with(&pre)
        || line.all.iter().any(|c| {
            c.words.join(" ").starts_with(&pre)
                || bare_prefix
                    .as_ref()
                    .is_some_and(|p| bare(&c.words).starts_with(p.as_str()))
        })
}

/// A command's words with its program as `program_name` gives it.
fn bare(words: &[String]) -> String {
    match words.split_first() {
        Some((first, rest)) => std::iter::once(programs::program_name(first))
            .chain(rest.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        None => String::new(),
    }
}

/// Whether `rule` is about requests like `req`, before looking at its command. A command
/// prefix is about shell commands only: an MCP tool's `command` field is not a shell line
/// (`mcp__ssh__exec {command: "git status", host: "prod", sudo: true}`).
fn rule_applies(rule: &ApprovalRule, kind: ApprovalKindName, req: &ApprovalRequest) -> bool {
    let any = rule.kind.is_some() || rule.tool.is_some() || rule.command_prefix.is_some();
    let same_tool = rule
        .tool
        .as_ref()
        .is_none_or(|t| req.tool.as_deref() == Some(t.as_str()));
    let shell_only = rule.command_prefix.is_none() || kind == ApprovalKindName::Command;
    any && rule.kind.is_none_or(|k| k == kind) && same_tool && shell_only
}

fn rule_matches(
    rule: &ApprovalRule,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
    line: Option<&CommandLine>,
) -> bool {
    if !rule_applies(rule, kind, req) {
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

/// For a policy probing a host (`HostPaths::probe`): the paths deciding this request needs
/// that the host has not answered yet (none for a local policy). Evaluated without the
/// session's grants, which can only stop the rules earlier: what they need is a subset.
pub fn host_paths_wanted(
    policy: &ApprovalPolicy,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
) -> Vec<PathBuf> {
    let paths::PathSpace::Host(host) = &policy.space else {
        return Vec::new();
    };
    let keys = GrantKey::for_request(policy, kind, req);
    if keys.iter().any(|k| matches!(k, GrantKey::File { .. })) {
        // A covered request is described relative to the workspace.
        let _ = GrantKey::describe(&keys, policy);
    }
    let _ = evaluate(policy, kind, req, &HashSet::new());
    host.unanswered()
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
    // A deny wins over an allow, whatever their order: `env curl` must not pass as an
    // allowed `env` when `curl` is denied.
    let deny = |r: &&ApprovalRule| r.action == RuleAction::Deny;
    if let Some((i, _)) = policy
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| deny(r))
        .find(|(_, r)| rule_matches(r, kind, req, line.as_ref()))
    {
        return verdict(false, format!("profile rule {}", i + 1));
    }
    let approval = decide_unless_denied(policy, kind, req, grants, line.as_ref());
    // What the line runs cannot be read and a deny rule might have matched it: the user
    // decides (a denial by the mode stands; an approval from any source does not).
    let guarded = line.as_ref().is_some_and(|l| l.uncertain.is_some())
        && policy
            .rules
            .iter()
            .filter(deny)
            .any(|r| r.command_prefix.is_some() && rule_applies(r, kind, req));
    match approval {
        Some(v) if v.approve && guarded => None,
        other => other,
    }
}

/// `evaluate` once no deny rule matched.
fn decide_unless_denied(
    policy: &ApprovalPolicy,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
    grants: &HashSet<GrantKey>,
    line: Option<&CommandLine>,
) -> Option<Verdict> {
    let tool = req.tool.as_deref();
    if let Some((i, _)) = policy
        .rules
        .iter()
        .enumerate()
        .find(|(_, r)| r.action == RuleAction::Allow && rule_matches(r, kind, req, line))
    {
        return verdict(true, format!("profile rule {}", i + 1));
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
        let inside = read_paths(t, req).is_some_and(|ps| {
            policy
                .space
                .all_under(&ps, policy.base(req), &policy.read_roots())
        });
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
            policy
                .space
                .all_under(&paths, policy.base(req), &policy.write_roots())
                .then(|| Verdict {
                    approve: true,
                    reason: "write inside the workspace".into(),
                })
        }
        PermissionMode::Ask => None,
    }
}

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod tests;
