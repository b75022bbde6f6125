//! Windows `.cmd` shims (what npm, pnpm and yarn install for a package's `bin`), read instead
//! of run.
//!
//! Running a shim means running `cmd.exe`, which re-parses the whole command line: a shim path
//! with a space breaks at the first quoted argument (codex's `-c model="…"` always has
//! quotes), `%VAR%`, `& | < > ^` and newlines in an argument (a system prompt) are
//! interpreted, and the line is capped at 8,191 characters. So the shim is parsed for what it
//! would run — `node <script>` with the shim's own `node.exe` when there is one, or the
//! package's native executable — and that is spawned directly, with ordinary
//! `CreateProcess` quoting (32,767 characters). The parsing is platform-neutral and tested
//! on every OS with recorded shims (`fixtures/shims/`); using it is `cfg(windows)`
//! ([`crate::discovery::Executable::new`]).
//!
//! Formats read (all end in `"<target>" … %*`, which is also what npm's own `read-cmd-shim`
//! matches):
//! - npm ≥ 7 (cmd-shim 4+): `SET "_prog=%dp0%\node.exe"` / `SET "_prog=node"`, then
//!   `endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\…\cli.js" %*`;
//! - npm 6 and yarn 1 (cmd-shim 2–3): `"%~dp0\node.exe"  "%~dp0\…\cli.js" %*` / `node  "%~dp0\…" %*`;
//! - pnpm (@zkochan/cmd-shim): the same with `@SET "NODE_PATH=…"`, an absolute target on
//!   another drive, or an absolute `node` (`nodeExecPath`);
//! - a native target (a package `bin` that is an `.exe`): `"%dp0%\…\claude.exe"   %*`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What a shim runs, as written in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShimTarget {
    /// The interpreter's name (`node`); `None` when the shim runs the target itself.
    pub interpreter: Option<String>,
    /// An absolute interpreter the shim names (pnpm's `nodeExecPath`).
    pub interpreter_path: Option<PathBuf>,
    /// Interpreter flags from the script's shebang (`--preserve-symlinks`).
    pub interpreter_args: Vec<String>,
    /// The script or executable, resolved against the shim's folder.
    pub target: PathBuf,
    /// Arguments the shim puts before the user's (pnpm's `progArgs`).
    pub target_args: Vec<String>,
    /// `NODE_PATH` the shim sets (pnpm).
    pub node_path: Option<String>,
}

/// How to start what a shim would have started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShimLaunch {
    pub program: PathBuf,
    /// Before the engine's own arguments (`<script>` for node).
    pub prefix_args: Vec<OsString>,
    /// Variables the shim (or the package's launcher script we skip) would have set.
    pub env: Vec<(OsString, OsString)>,
    /// Folders to put first on the child's `PATH`: the shim's, then the interpreter's.
    pub path_first: Vec<PathBuf>,
}

/// Read a shim's text. `None` when it does not look like one of the known formats.
pub fn parse_cmd_shim(text: &str, shim_dir: &Path) -> Option<ShimTarget> {
    let mut prog_values: Vec<String> = Vec::new();
    let mut node_path = None;
    let mut command = None;
    for raw in text.lines() {
        let line = raw.trim().trim_start_matches('@').trim();
        let lower = line.to_ascii_lowercase();
        if let Some(rest) = strip_set(line, &lower, "_prog=") {
            prog_values.push(rest);
        } else if node_path.is_none() {
            if let Some(rest) = strip_set(line, &lower, "node_path=") {
                // The ELSE branch appends `;%NODE_PATH%`: the first assignment is the value.
                node_path = Some(rest);
            }
        }
        if command.is_none() && line.ends_with("%*") {
            command = Some(line.to_owned());
        }
    }
    let command = command?;
    // npm ≥ 7: the command follows the last `&` of `endLocal & goto … & "%_prog%" …`.
    let tokens = tokenize(&command);
    let start = tokens
        .iter()
        .rposition(|t| t.text == "&" && !t.quoted)
        .map_or(0, |i| i + 1);
    let tokens = &tokens[start..];
    let (last, tokens) = tokens.split_last()?;
    if last.text != "%*" {
        return None;
    }
    let (first, rest) = tokens.split_first()?;
    if is_relative_to_shim(&first.text) && rest.is_empty() {
        // A native target: the shim runs it directly.
        return Some(ShimTarget {
            interpreter: None,
            interpreter_path: None,
            interpreter_args: Vec::new(),
            target: resolve(&first.text, shim_dir)?,
            target_args: Vec::new(),
            node_path,
        });
    }
    let (interpreter, interpreter_path) = interpreter_of(&first.text, &prog_values)?;
    let target_at = rest
        .iter()
        .position(|t| t.quoted && (is_relative_to_shim(&t.text) || is_absolute(&t.text)))?;
    let texts = |ts: &[Token]| ts.iter().map(|t| t.text.clone()).collect::<Vec<_>>();
    Some(ShimTarget {
        interpreter: Some(interpreter),
        interpreter_path,
        interpreter_args: texts(&rest[..target_at]),
        target: resolve(&rest[target_at].text, shim_dir)?,
        target_args: texts(&rest[target_at + 1..]),
        node_path,
    })
}

/// The value of `SET "NAME=value"` / `SET NAME=value` when `lower` (the line, lowercased)
/// sets `name` (given lowercased, with its `=`).
fn strip_set(line: &str, lower: &str, name: &str) -> Option<String> {
    let rest = lower.strip_prefix("set ")?.trim_start();
    let quoted = rest.starts_with('"');
    let body = rest.trim_start_matches('"');
    if !body.starts_with(name) {
        return None;
    }
    // Same offsets in `line` (lowercasing ASCII keeps byte positions).
    let offset = line.len() - body.len() + name.len();
    let value = &line[offset..];
    let value = if quoted {
        value.trim_end().trim_end_matches('"')
    } else {
        value.trim_end()
    };
    Some(value.to_owned())
}

/// `(name, absolute path)` of the program token: `%_prog%` (named by the SET lines: the bare
/// name in the ELSE branch), `%~dp0\node.exe`, `node`, or an absolute `…\node.exe`.
fn interpreter_of(token: &str, prog_values: &[String]) -> Option<(String, Option<PathBuf>)> {
    let chosen = if token.eq_ignore_ascii_case("%_prog%") {
        // `%dp0%\node.exe` (IF EXIST) and `node` (ELSE): the name is the same, the folder is
        // checked by the resolver anyway.
        prog_values
            .iter()
            .find(|v| !is_relative_to_shim(v))
            .or_else(|| prog_values.first())?
            .clone()
    } else {
        token.to_owned()
    };
    let name = file_stem(&chosen)?;
    let absolute = (is_absolute(&chosen) && !is_relative_to_shim(&chosen))
        .then(|| PathBuf::from(chosen.clone()));
    Some((name, absolute))
}

fn file_stem(path: &str) -> Option<String> {
    let file = path.rsplit(['\\', '/']).next()?;
    let stem = match file.rsplit_once('.') {
        Some((stem, ext)) if ext.eq_ignore_ascii_case("exe") => stem,
        _ => file,
    };
    (!stem.is_empty()).then(|| stem.to_owned())
}

const SHIM_DIR_PREFIXES: &[&str] = &["%dp0%", "%~dp0"];

/// What follows the shim-folder variable (`%dp0%`, `%~dp0`, any case) at `text`'s start.
/// `get` and not a byte slice: a path that starts with a non-ASCII letter must not panic.
fn after_shim_dir(text: &str) -> Option<&str> {
    SHIM_DIR_PREFIXES.iter().find_map(|p| {
        text.get(..p.len())
            .filter(|head| head.eq_ignore_ascii_case(p))
            .map(|_| &text[p.len()..])
    })
}

fn is_relative_to_shim(text: &str) -> bool {
    after_shim_dir(text).is_some()
}

/// `C:\…`, `C:/…` or `\\server\…`.
fn is_absolute(text: &str) -> bool {
    let b = text.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || text.starts_with("\\\\")
}

/// A target relative to the shim (`%dp0%\node_modules\…`) joined component by component, so
/// it is the same path on the test machine as on Windows; an absolute one as written.
fn resolve(text: &str, shim_dir: &Path) -> Option<PathBuf> {
    if let Some(rest) = after_shim_dir(text) {
        let mut path = shim_dir.to_path_buf();
        for part in rest.split(['\\', '/']) {
            match part {
                "" | "." => {}
                ".." => {
                    path.pop();
                }
                part => path.push(part),
            }
        }
        return Some(path);
    }
    is_absolute(text).then(|| PathBuf::from(text))
}

#[derive(Debug)]
struct Token {
    text: String,
    quoted: bool,
}

/// Split a batch line on blanks, keeping `"…"` together (quotes removed).
fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut text = String::new();
        let mut quoted = false;
        let mut in_quotes = false;
        while let Some(&c) = chars.peek() {
            if c == '"' {
                quoted = true;
                in_quotes = !in_quotes;
            } else if c.is_whitespace() && !in_quotes {
                break;
            } else {
                text.push(c);
            }
            chars.next();
        }
        tokens.push(Token { text, quoted });
    }
    tokens
}

/// The launch for a parsed shim, or `None` when what it runs cannot be found (then the
/// caller spawns the shim itself, with Rust's batch-file escaping, never `cmd /C`).
/// `path_var` is the `PATH` searched for the interpreter.
pub fn launch_for(
    shim: &Path,
    target: &ShimTarget,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<ShimLaunch> {
    let shim_dir = shim.parent()?.to_path_buf();
    let mut env = Vec::new();
    if let Some(node_path) = &target.node_path {
        env.push((OsString::from("NODE_PATH"), OsString::from(node_path)));
    }
    let Some(interpreter) = &target.interpreter else {
        if !has_ext(&target.target, &["exe", "com"]) || !target.target.is_file() {
            return None;
        }
        return Some(ShimLaunch {
            program: target.target.clone(),
            prefix_args: target.target_args.iter().map(OsString::from).collect(),
            env,
            path_first: vec![shim_dir],
        });
    };
    // A shim around a batch file (`cmd /C x.bat`) would bring back everything this avoids.
    if interpreter.eq_ignore_ascii_case("cmd") {
        return None;
    }
    if interpreter.eq_ignore_ascii_case("node") {
        if let Some(native) = codex_native(&target.target) {
            env.extend(native.env);
            return Some(ShimLaunch {
                program: native.exe,
                prefix_args: target.target_args.iter().map(OsString::from).collect(),
                env,
                path_first: vec![shim_dir],
            });
        }
    }
    if !target.target.is_file() {
        return None;
    }
    let exe_name = format!("{interpreter}.exe");
    let program = Some(shim_dir.join(&exe_name))
        .filter(|p| p.is_file())
        .or_else(|| target.interpreter_path.clone().filter(|p| p.is_file()))
        .or_else(|| {
            path_var.and_then(|p| {
                std::env::split_paths(p)
                    .filter(|d| !d.as_os_str().is_empty())
                    .map(|d| d.join(&exe_name))
                    .find(|c| c.is_file())
            })
        })?;
    let mut path_first = vec![shim_dir];
    if let Some(dir) = program
        .parent()
        .filter(|d| !path_first.iter().any(|p| p == d))
    {
        path_first.push(dir.to_path_buf());
    }
    let prefix_args = target
        .interpreter_args
        .iter()
        .map(OsString::from)
        .chain([target.target.clone().into_os_string()])
        .chain(target.target_args.iter().map(OsString::from))
        .collect();
    Some(ShimLaunch {
        program,
        prefix_args,
        env,
        path_first,
    })
}

pub(crate) fn has_ext(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The native codex `@openai/codex`'s `bin/codex.js` would start, and the variables it
/// sets for it.
struct Native {
    exe: PathBuf,
    env: Vec<(OsString, OsString)>,
}

/// The Windows triples codex ships and the platform packages they live in.
const CODEX_WINDOWS: &[(&str, &str)] = &[
    ("x86_64-pc-windows-msvc", "codex-win32-x64"),
    ("aarch64-pc-windows-msvc", "codex-win32-arm64"),
];

/// For `…/node_modules/@openai/codex/bin/codex.js`: the package's native `codex.exe`, looked
/// up like `codex.js` does (the platform package next to it or nested, then the package's
/// own `vendor/`; older releases put it in `vendor/<triple>/codex/`). codex.js then sets
/// `CODEX_MANAGED_PACKAGE_ROOT` and `CODEX_MANAGED_BY_<manager>` (its update hints): so do we.
fn codex_native(script: &Path) -> Option<Native> {
    if script.file_name()? != "codex.js" {
        return None;
    }
    let bin = script.parent()?;
    let package = bin.parent()?;
    if bin.file_name()? != "bin" || package.file_name()? != "codex" {
        return None;
    }
    let scope = package.parent()?;
    if scope.file_name()? != "@openai" {
        return None;
    }
    let triple = if cfg!(target_arch = "aarch64") { 1 } else { 0 };
    let (triple, platform_package) = CODEX_WINDOWS[triple];
    let vendors = [
        scope.join(platform_package).join("vendor"),
        package
            .join("node_modules")
            .join("@openai")
            .join(platform_package)
            .join("vendor"),
        package.join("vendor"),
    ];
    let exe = vendors.iter().find_map(|vendor| {
        [
            vendor.join(triple).join("bin").join("codex.exe"),
            vendor.join(triple).join("codex").join("codex.exe"),
        ]
        .into_iter()
        .find(|p| p.is_file())
    })?;
    // pnpm keeps its packages under `node_modules/.pnpm/`; codex.js says "pnpm" for those.
    let manager = if package.components().any(|c| c.as_os_str() == ".pnpm") {
        "CODEX_MANAGED_BY_PNPM"
    } else {
        "CODEX_MANAGED_BY_NPM"
    };
    Some(Native {
        exe,
        env: vec![
            (
                OsString::from("CODEX_MANAGED_PACKAGE_ROOT"),
                package.as_os_str().to_owned(),
            ),
            (OsString::from(manager), OsString::from("1")),
        ],
    })
}

#[cfg(test)]
#[path = "shim_tests.rs"]
mod tests;
