//! Profile validation, field by field. Every mistake is collected with the field it is about
//! (the spec's JSON key, plus the entry for lists and maps), so the window can show each
//! message next to its input and the CLI prints the first one — one set of rules for both.

use std::path::{Component, Path, PathBuf};

use agentdesk_protocol::ui::{ApprovalKindName, ProfileFieldError, ProfileSpec};

const MAX_NAME: usize = 64;
const MAX_MODEL: usize = 128;
/// A deadline longer than a day is a mistake, not a policy.
const MAX_TIMEOUT_SECS: u32 = 24 * 60 * 60;

/// A model id as the engines accept them: `gpt-5.1-codex`, `claude-sonnet-4-5`,
/// `openrouter/meta/llama-3:70b`... Letters, digits and `. _ - : / @ +`, no spaces.
fn valid_model(m: &str) -> bool {
    let mut chars = m.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    first_ok
        && m.len() <= MAX_MODEL
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-:/@+".contains(c))
}

/// POSIX-portable environment variable name.
pub fn valid_env_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `http(s)://host[:port][/path]` with a non-empty host and nothing a URL cannot hold.
fn check_base_url(url: &str) -> Result<(), String> {
    let bad = |why: &str| format!("the base URL {url:?} is malformed: {why}");
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| bad("it must start with http:// or https://"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("it contains spaces or control characters"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        let (h, p) = v6
            .split_once(']')
            .ok_or_else(|| bad("unclosed [ in the host"))?;
        (h, p.strip_prefix(':'))
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return Err(bad("it has no host"));
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_:".contains(c))
    {
        return Err(bad("the host has characters a host name cannot have"));
    }
    if let Some(p) = port {
        if p.parse::<u16>().ok().filter(|p| *p > 0).is_none() {
            return Err(bad("the port is not a number from 1 to 65535"));
        }
    }
    Ok(())
}

fn trimmed(o: &Option<String>) -> Option<String> {
    o.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The field errors found so far, in the order of the form.
#[derive(Default)]
struct Errors(Vec<ProfileFieldError>);

impl Errors {
    fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(ProfileFieldError {
            field: field.into(),
            message: message.into(),
        });
    }
}

/// Check a spec and return it normalised (trimmed, empty optional strings as `None`), or
/// every mistake with the field it is about.
pub fn validate_profile_fields(spec: &ProfileSpec) -> Result<ProfileSpec, Vec<ProfileFieldError>> {
    let mut s = spec.clone();
    let mut e = Errors::default();
    s.name = s.name.trim().to_string();
    if s.name.is_empty() {
        e.add("name", "give the profile a name");
    } else if s.name.chars().count() > MAX_NAME || s.name.chars().any(char::is_control) {
        e.add("name", format!(
            "the profile name {:?} is too long or has control characters (at most {MAX_NAME} characters)",
            s.name
        ));
    }
    s.model = trimmed(&s.model);
    if let Some(m) = s.model.as_ref().filter(|m| !valid_model(m)) {
        e.add("model", format!(
            "the model name {m:?} is not valid: use the engine's model id, e.g. gpt-5.1-codex or claude-sonnet-4-5 (letters, digits and . _ - : / @ +, no spaces)"
        ));
    }
    s.base_url = trimmed(&s.base_url);
    if let Some(Err(why)) = s.base_url.as_deref().map(check_base_url) {
        e.add("baseUrl", why);
    }
    s.api_key_env = trimmed(&s.api_key_env);
    if let Some(k) = s.api_key_env.as_ref().filter(|k| !valid_env_name(k)) {
        e.add("apiKeyEnv", format!(
            "{k:?} is not an environment variable name (letters, digits and _, not starting with a digit); give the variable's name, not the key"
        ));
    }
    s.system_prompt = s.system_prompt.filter(|p| !p.trim().is_empty());
    check_tools(&mut s, &mut e);
    for (i, d) in s.extra_dirs.iter_mut().enumerate() {
        *d = d.trim().to_string();
        if let Some(why) = extra_dir_problem(d) {
            e.add(format!("extraDirs.{i}"), why);
        }
    }
    check_env(&mut s, &mut e);
    check_approval_rules(&s, &mut e);
    if let Some(t) = s.approval_timeout_secs {
        if t == 0 || t > MAX_TIMEOUT_SECS {
            e.add(
                "approvalTimeoutSecs",
                format!("the approval timeout must be between 1 and {MAX_TIMEOUT_SECS} seconds"),
            );
        }
    }
    check_engine_options(&s, &mut e);
    check_mcp_servers(&mut s, &mut e);
    if e.0.is_empty() {
        Ok(s)
    } else {
        Err(e.0)
    }
}

/// MCP servers: a unique name the engines can put in a tool name, and exactly one of a
/// program or an http(s) URL; variables by name only.
fn check_mcp_servers(s: &mut ProfileSpec, e: &mut Errors) {
    if !s.mcp_servers.is_empty() && !crate::engines::descriptor(s.engine).takes_mcp_servers() {
        e.add(
            "mcpServers",
            "this engine gets no MCP servers from Agent Desk: configure them in the agent itself",
        );
    }
    let mut seen = std::collections::HashSet::new();
    for (i, m) in s.mcp_servers.iter_mut().enumerate() {
        let at = |f: &str| format!("mcpServers.{i}.{f}");
        m.name = m.name.trim().to_string();
        if m.name.is_empty()
            || m.name.len() > MAX_NAME
            || !m
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            e.add(at("name"), format!(
                "the MCP server name {:?} is not valid: letters, digits, _ and - (the engines name its tools after it)",
                m.name
            ));
        } else if !seen.insert(m.name.clone()) {
            e.add(
                at("name"),
                format!("two MCP servers are named {:?}", m.name),
            );
        }
        m.command = trimmed(&m.command);
        m.url = trimmed(&m.url);
        m.bearer_token_env = trimmed(&m.bearer_token_env);
        m.args.retain(|a| !a.is_empty());
        m.env_vars = m
            .env_vars
            .iter()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        match (&m.command, &m.url) {
            (None, None) => e.add(
                at("command"),
                "give the server's program (a stdio server) or its URL",
            ),
            (Some(_), Some(_)) => e.add(at("url"), "a server is a program or a URL, not both"),
            (Some(c), None) if c.chars().any(char::is_control) => {
                e.add(at("command"), "the program has control characters")
            }
            (None, Some(u)) => {
                if let Err(why) = check_base_url(u) {
                    e.add(at("url"), why.replacen("base URL", "MCP server URL", 1));
                }
            }
            _ => {}
        }
        if m.url.is_none() && m.bearer_token_env.is_some() {
            e.add(
                at("bearerTokenEnv"),
                "a token variable is for an HTTP server",
            );
        }
        if let Some(k) = m.bearer_token_env.as_ref().filter(|k| !valid_env_name(k)) {
            e.add(
                at("bearerTokenEnv"),
                format!(
                "{k:?} is not an environment variable name: give the variable's name, not the token"
            ),
            );
        }
        if let Some(k) = m.env_vars.iter().find(|k| !valid_env_name(k)) {
            e.add(at("envVars"), format!(
                "{k:?} is not an environment variable name: the server gets variables by name (set their values in the profile's environment)"
            ));
        }
        if m.url.is_some() && !m.env_vars.is_empty() {
            e.add(
                at("envVars"),
                "variables are for a program (a stdio server)",
            );
        }
    }
}

/// A rule must match something, and a command prefix only means something on commands.
fn check_approval_rules(s: &ProfileSpec, e: &mut Errors) {
    for (i, r) in s.approval_rules.iter().enumerate() {
        if r.kind.is_none() && r.tool.is_none() && r.command_prefix.is_none() {
            e.add(
                format!("approvalRules.{i}"),
                format!(
                    "approval rule {} matches nothing: give a kind, a tool or a command prefix",
                    i + 1
                ),
            );
        }
        // A command prefix is read only on shell requests (approval_rules), so with another
        // kind the rule would silently match nothing.
        if r.command_prefix.is_some() && r.kind.is_some_and(|k| k != ApprovalKindName::Command) {
            e.add(
                format!("approvalRules.{i}"),
                format!(
                    "approval rule {}: a command prefix applies to shell commands only; set its kind to Command",
                    i + 1
                ),
            );
        }
    }
}

/// The engine's own keys, checked by its descriptor: the adapters read a wrong type as
/// missing (stored profiles keep loading), so without this a typo such as `"maxTurns": "5"`
/// would be silently dropped.
fn check_engine_options(s: &ProfileSpec, e: &mut Errors) {
    for (field, message) in crate::engines::descriptor(s.engine).check_options(&s.engine_options) {
        let field = if field.is_empty() {
            "engineOptions".to_owned()
        } else {
            format!("engineOptions.{field}")
        };
        e.add(field, message);
    }
}

/// Why `dir` cannot be an extra folder, if it cannot: not absolute, or — read through its
/// symlinks and `..` — the file-system root, the home folder or a folder holding it. Claude
/// reads an extra folder without asking, so one of those would hand the agent every file of
/// the user's (keys, tokens, other projects) unasked and unrecorded.
pub fn extra_dir_problem(dir: &str) -> Option<String> {
    extra_dir_problem_with_home(dir, home_dir().as_deref())
}

/// [`extra_dir_problem`] with the home folder given (tests).
pub(crate) fn extra_dir_problem_with_home(dir: &str, home: Option<&Path>) -> Option<String> {
    let path = Path::new(dir);
    if !path.is_absolute() {
        return Some(format!(
            "the extra directory {dir:?} is not an absolute path; give the full path"
        ));
    }
    // Both readings of the path: the text with `..` applied, and the kernel's (symlinks
    // followed first). Either being too wide is enough.
    let homes: Vec<PathBuf> = home
        .into_iter()
        .flat_map(|h| [lexical(h), real(h)])
        .collect();
    for candidate in [lexical(path), real(path)] {
        if candidate.parent().is_none() {
            return Some(format!(
                "the extra directory {dir:?} is the root of the file system: the agent would read every file without asking; choose the folder it needs"
            ));
        }
        if homes.iter().any(|h| h.starts_with(&candidate)) {
            return Some(format!(
                "the extra directory {dir:?} is your home folder or holds it: the agent would read all your files (keys, tokens, other projects) without asking; choose the folder it needs"
            ));
        }
    }
    None
}

/// The user's home folder (`HOME`, else `USERPROFILE`), when set.
fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
}

/// `.` and `..` applied to the text (`..` at the root stays at the root, as the kernel does).
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where the path really is: each existing prefix with its symlinks resolved, the part that
/// does not exist (yet) appended as written, `..` there applied to the text.
fn real(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut exists = true;
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => {
                out.push(other.as_os_str());
                if exists {
                    match std::fs::canonicalize(&out) {
                        Ok(r) => out = r,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    out
}

fn check_tools(s: &mut ProfileSpec, e: &mut Errors) {
    for (field, list) in [
        ("allowedTools", &mut s.allowed_tools),
        ("deniedTools", &mut s.denied_tools),
    ] {
        *list = list.iter().map(|t| t.trim().to_string()).collect();
        if list.iter().any(String::is_empty) {
            e.add(field, "a tool name is empty");
        }
    }
    if let Some(t) = s
        .allowed_tools
        .iter()
        .find(|t| !t.is_empty() && s.denied_tools.contains(t))
    {
        e.add(
            "deniedTools",
            format!("the tool {t:?} is both allowed and denied"),
        );
    }
}

fn check_env(s: &mut ProfileSpec, e: &mut Errors) {
    for (k, v) in &s.env {
        if !valid_env_name(k) {
            e.add(format!("env.{k}"), format!(
                "{k:?} is not a valid environment variable name (letters, digits and _, not starting with a digit)"
            ));
        } else if v.contains('\0') {
            e.add(
                format!("env.{k}"),
                format!("the value of {k} contains a NUL byte"),
            );
        }
    }
    let mut secrets: Vec<String> = s.secret_env.iter().map(|n| n.trim().to_string()).collect();
    secrets.sort();
    secrets.dedup();
    for n in secrets.iter().filter(|n| !s.env.contains_key(n.as_str())) {
        e.add(
            format!("env.{n}"),
            format!("the secret variable {n:?} has no value: give it as NAME=VALUE"),
        );
    }
    s.secret_env = secrets;
}
