//! What one simple command runs, for deny rules: the program a shell would start, seen
//! through variable assignments (`FOO=1 curl`), wrappers (`env`, `nice`, `timeout`, `sudo`,
//! `xargs`...), quoting and folders (`/usr/bin/'cu'rl`), and the scripts of nested shells
//! (`bash -c '…'` anywhere in a line, `eval`, `trap`, `find -exec sh -c`...).
//!
//! What cannot be told from the text is "uncertain": a program named by a variable or a
//! pattern, `eval` and `source`, a shell or an interpreter reading code from a file, from
//! input or from an inline argument (`python -c`), a program `xargs` takes from its input,
//! options of a wrapper this reader does not know. None of this is a sandbox: a program can
//! still run another in ways no command line shows (a script, a copy under another name, a
//! build tool); the editor says so.

use super::shell::{self, SimpleCommand, MAX_DEPTH};

/// What a command's runner fills in from its input: `xargs`' and `find`'s placeholders
/// (`{}`), and whether arguments are appended from input (`xargs`).
#[derive(Debug, Clone, Default)]
pub struct Feed {
    placeholders: Vec<String>,
    appends: bool,
    /// The script is cmd's or PowerShell's: a backslash is a folder separator.
    windows: bool,
}

impl Feed {
    pub fn windows(&self) -> Feed {
        Feed {
            windows: true,
            ..self.clone()
        }
    }

    /// The same, for an sh script (a backslash escapes again).
    fn posix(&self) -> Feed {
        Feed {
            windows: false,
            ..self.clone()
        }
    }

    pub fn is_windows(&self) -> bool {
        self.windows
    }

    fn with(&self, placeholder: Option<&str>, appends: bool) -> Feed {
        let mut f = self.clone();
        f.placeholders.extend(placeholder.map(str::to_string));
        f.appends |= appends;
        f
    }

    fn fills(&self, text: &str) -> bool {
        self.placeholders
            .iter()
            .any(|p| !p.is_empty() && text.contains(p.as_str()))
    }
}

/// The commands a simple command runs beyond itself, and why it is uncertain if it is.
#[derive(Debug, Default)]
pub struct Expansion {
    pub layers: Vec<SimpleCommand>,
    pub uncertain: Option<&'static str>,
}

impl Expansion {
    pub fn unsure(&mut self, why: &'static str) {
        self.uncertain.get_or_insert(why);
    }

    fn layer(&mut self, words: &[String]) {
        self.layers.push(SimpleCommand {
            words: words.to_vec(),
            writes_file: false,
        });
    }

    /// A script some program runs (`bash -c`, `eval`, `trap`...): its commands join.
    fn script(&mut self, script: &str, depth: usize, feed: &Feed) {
        if feed.fills(script) {
            // `xargs -I{} sh -c 'echo {}'`: the input becomes code.
            self.unsure("a script that input is filled into");
        }
        if depth >= MAX_DEPTH {
            self.unsure("nesting too deep to read");
            return;
        }
        let inner = shell::read_at(script, depth + 1, feed);
        self.layers.extend(inner.all);
        if let Some(why) = inner.uncertain {
            self.unsure(why);
        }
    }
}

/// The program a word names, as deny rules compare it: without its folder (`/` or `\`),
/// lower case and without `.exe` (macOS and Windows find `CURL.EXE` as `curl`).
pub fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = base.to_ascii_lowercase();
    match lower.strip_suffix(".exe") {
        Some(stem) => stem.to_string(),
        None => lower,
    }
}

/// `NAME=value` before a command sets a variable for it.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why the program a word names cannot be told, if it cannot.
fn unreadable(program: &str, feed: &Feed) -> Option<&'static str> {
    if program.contains('$') {
        return Some("a program named by a variable or a substitution");
    }
    if program.contains(['*', '?', '[']) {
        return Some("a program named by a file-name pattern");
    }
    if program.contains('{') && (program.contains(',') || program.contains("..")) {
        return Some("a program named by a brace expansion");
    }
    if feed.fills(program) {
        return Some("a program filled in from input");
    }
    None
}

/// The commands `words` (one simple command as written) runs beyond itself.
pub fn expand(words: &[String], depth: usize, feed: &Feed) -> Expansion {
    let mut out = Expansion::default();
    expand_into(words, depth, feed, &mut out);
    out
}

fn expand_into(words: &[String], depth: usize, feed: &Feed, out: &mut Expansion) {
    if depth >= MAX_DEPTH {
        out.unsure("nesting too deep to read");
        return;
    }
    // A wrapper handed a reserved word (`nice { curl; }`) fails to run it, but what follows
    // is read as the program anyway: a deny is never narrowed by a syntax error.
    let set = words
        .iter()
        .take_while(|w| is_assignment(w) || (shell::RESERVED.contains(&w.as_str()) && *w != "time"))
        .count();
    let words = &words[set..];
    let Some(program) = words.first() else {
        if feed.appends {
            out.unsure("a program read from input");
        }
        return;
    };
    if set > 0 {
        out.layer(words);
    }
    if let Some(why) = unreadable(program, feed) {
        out.unsure(why);
        return;
    }
    let name = program_name(program);
    let next = depth + 1;
    if let Some(w) = super::wrappers::find(&name) {
        match super::wrappers::inner(w, words, out) {
            super::wrappers::Inner::Command(i) => run_next(&words[i..], next, feed, out),
            super::wrappers::Inner::Script(s) => out.script(&s, next, &feed.posix()),
            super::wrappers::Inner::Windows(s) => out.script(&s, next, &feed.windows()),
            super::wrappers::Inner::Foreign(s) => {
                out.unsure("a script in another shell's language");
                out.script(&s, next, feed);
            }
            super::wrappers::Inner::Nothing => {}
            super::wrappers::Inner::Stdin => out.unsure("a shell reading commands from input"),
        }
        return;
    }
    expand_by_name(&name, words, next, feed, out);
}

/// Whatever a runner starts next: a layer of its own, then what that one runs (at `next`).
fn run_next(inner: &[String], next: usize, feed: &Feed, out: &mut Expansion) {
    if inner.is_empty() {
        if feed.appends {
            out.unsure("a program read from input");
        }
        return;
    }
    out.layer(inner);
    expand_into(inner, next, feed, out);
}

/// What the builtin or runner `name` (not a wrapper) runs beyond itself; other programs go
/// to the interpreters' check.
fn expand_by_name(name: &str, words: &[String], next: usize, feed: &Feed, out: &mut Expansion) {
    match name {
        "eval" => {
            out.unsure("eval, which runs text as a command");
            out.script(&words[1..].join(" "), next, feed);
        }
        "source" | "." => out.unsure("a script read from a file"),
        "alias" | "enable" | "hash" => out.unsure("a command that changes what a name runs"),
        "trap" => {
            // `trap [--] ACTION SIGNAL…`; `-` resets, `-p` and `-l` only print.
            let skip = 1 + usize::from(words.get(1).is_some_and(|w| w == "--"));
            if let Some(action) = words.get(skip).filter(|a| !a.starts_with('-')) {
                out.script(action, next, feed);
            }
        }
        "xargs" => match xargs(words) {
            Some((i, placeholder)) => {
                let inner = &words[i..];
                if !inner.is_empty() {
                    run_next(inner, next, &feed.with(placeholder.as_deref(), true), out);
                }
            }
            None => out.unsure("xargs with options this reader does not know"),
        },
        "find" => {
            let fed = feed.with(Some("{}"), false);
            for inner in find_exec(words) {
                if inner.is_empty() {
                    continue;
                }
                run_next(inner, next, &fed, out);
            }
        }
        "parallel" => {
            out.unsure("GNU parallel, which fills input into a command");
            let end = words
                .iter()
                .position(|w| w.starts_with(":::"))
                .unwrap_or(words.len());
            out.script(&words[1..end].join(" "), next, feed);
        }
        _ => super::interpreters::check(name, words, out),
    }
}

/// Where `xargs`' command starts, and its placeholder (`-I R`, `-i`, `-J R`,
/// `--replace`); `None` for an option this reader does not know.
fn xargs(words: &[String]) -> Option<(usize, Option<String>)> {
    const FLAGS: &str = "0oprtx";
    const ARGS: &str = "adEILnPsJRS";
    const LONG_FLAGS: &[&str] = &[
        "null",
        "open-tty",
        "interactive",
        "no-run-if-empty",
        "verbose",
        "exit",
        "show-limits",
    ];
    const LONG_ARGS: &[&str] = &[
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
    ];
    let mut placeholder = None;
    let mut i = 1;
    while let Some(w) = words.get(i) {
        i += 1;
        if w == "--" {
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match name {
                "replace" => placeholder = Some(value.unwrap_or("{}").to_string()),
                "eof" | "max-lines" => {}
                n if LONG_FLAGS.contains(&n) => {}
                n if LONG_ARGS.contains(&n) => {
                    if value.is_none() {
                        i += 1;
                    }
                }
                _ => return None,
            }
            continue;
        }
        let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) else {
            i -= 1;
            break;
        };
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if FLAGS.contains(c) {
                continue;
            }
            if ARGS.contains(c) {
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i - 1).cloned().unwrap_or_default()
                } else {
                    rest.to_string()
                };
                if c == 'I' || c == 'J' {
                    placeholder = Some(value);
                }
                break;
            }
            // Options whose value, if any, is attached: `-i[R]`, `-e[EOF]`, `-l[N]`.
            match c {
                'i' => placeholder = Some(if rest.is_empty() { "{}" } else { rest }.to_string()),
                'e' | 'l' => {}
                _ => return None,
            }
            break;
        }
    }
    Some((i.min(words.len()), placeholder))
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` (up to `;` or `+`).
fn find_exec(words: &[String]) -> Vec<&[String]> {
    let mut found = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i].as_str();
        i += 1;
        if matches!(w, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i;
            while i < words.len() && words[i] != ";" && words[i] != "+" {
                i += 1;
            }
            found.push(&words[start..i]);
            i += 1;
        }
    }
    found
}
