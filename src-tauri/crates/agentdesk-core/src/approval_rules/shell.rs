//! A small reader of shell command lines: enough of POSIX sh / bash to tell one plain command
//! from anything compound, and to list every simple command inside (deny rules look at each).
//!
//! It never runs anything, and when unsure it says "compound": an allow rule or a prefix only
//! ever approves one plain command the user could read in full. Redirections stay part of a
//! simple command; an output redirection to a file is noted, since it writes.

/// One simple command: its words after quote removal, without its redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub words: Vec<String>,
    /// An output redirection to a file (not `/dev/null`, not another descriptor).
    pub writes_file: bool,
}

/// What a command line is made of.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandLine {
    /// The one command that runs, when the line is exactly one plain command (after
    /// unwrapping `bash -lc '<script>'`). `None` for anything compound or unreadable.
    pub plain: Option<SimpleCommand>,
    /// Every simple command found anywhere: in lists, pipelines, substitutions, subshells
    /// and wrapped scripts. Deny rules match any of them.
    pub all: Vec<SimpleCommand>,
}

/// Reserved words that open or close compound commands; at the start of a command they make
/// the line compound, and are skipped so a deny rule still sees the command behind them.
const RESERVED: &[&str] = &[
    "{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
    "case", "esac", "select", "function", "time", "coproc", "[[", "]]",
];

/// Shells whose `-c '<script>'` form is unwrapped (Codex sends `/bin/bash -lc '…'`).
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// Nesting deeper than this is not read further (and counts as compound).
const MAX_DEPTH: usize = 32;

/// Read a command line.
pub fn read(line: &str) -> CommandLine {
    read_at(line, 0)
}

fn read_at(line: &str, depth: usize) -> CommandLine {
    let mut r = Reader {
        chars: line.trim().chars().collect(),
        pos: 0,
        commands: Vec::new(),
        compound: false,
        depth,
    };
    r.sequence(None);
    let compound = r.compound || r.commands.len() != 1;
    let mut all = r.commands;
    let plain = if compound { None } else { all.first().cloned() };
    let Some(cmd) = plain else {
        return CommandLine { plain: None, all };
    };
    match wrapped_script(&cmd) {
        Wrapped::No => CommandLine {
            plain: Some(cmd),
            all,
        },
        Wrapped::Script(script) if depth < MAX_DEPTH => {
            let inner = read_at(script, depth + 1);
            all.extend(inner.all);
            CommandLine {
                plain: inner.plain,
                all,
            }
        }
        Wrapped::Script(_) | Wrapped::Odd => CommandLine { plain: None, all },
    }
}

enum Wrapped<'a> {
    No,
    Script(&'a str),
    /// A shell with `-c` but arguments we do not follow (positional parameters...).
    Odd,
}

/// `bash -lc '<script>'`, `/bin/sh -c '<script>'`, `bash -l -c '<script>'`.
fn wrapped_script(cmd: &SimpleCommand) -> Wrapped<'_> {
    let Some(first) = cmd.words.first() else {
        return Wrapped::No;
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    if !SHELLS.contains(&name) {
        return Wrapped::No;
    }
    let mut saw_c = false;
    let mut i = 1;
    while let Some(w) = cmd.words.get(i) {
        if matches!(w.as_str(), "--login" | "--noprofile" | "--norc") {
            i += 1;
            continue;
        }
        let Some(flags) = w.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'l' | 'c' | 'e' | 'x')) {
            return if saw_c || flags.contains('c') {
                Wrapped::Odd
            } else {
                Wrapped::No
            };
        }
        saw_c |= flags.contains('c');
        i += 1;
    }
    if !saw_c {
        return Wrapped::No;
    }
    match (cmd.words.get(i), cmd.words.len() == i + 1) {
        (Some(script), true) => Wrapped::Script(script),
        _ => Wrapped::Odd,
    }
}

/// Control characters and the invisible formatting ones (zero-width, bidi overrides): a
/// command holding one may display as something else than what runs.
fn hides_text(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Trim, and collapse runs of unquoted spaces and tabs into one space: two spellings of the
/// same command give the same grant, and nothing else is changed (quoted text, newlines).
pub fn normalise_whitespace(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut single, mut double, mut escaped, mut gap) = (false, false, false, false);
    for c in line.trim().chars() {
        let quoted = single || double || escaped;
        if !quoted && (c == ' ' || c == '\t') {
            gap = true;
            continue;
        }
        if gap {
            out.push(' ');
            gap = false;
        }
        out.push(c);
        if escaped {
            escaped = false;
        } else if c == '\\' && !single {
            escaped = true;
        } else if c == '\'' && !double {
            single = !single;
        } else if c == '"' && !single {
            double = !double;
        }
    }
    out
}

struct Reader {
    chars: Vec<char>,
    pos: usize,
    commands: Vec<SimpleCommand>,
    compound: bool,
    depth: usize,
}

/// The command being read in one sequence frame.
#[derive(Default)]
struct Building {
    cmd: SimpleCommand,
    word: Option<String>,
    /// The next word is the target of a redirection; `true` when it writes.
    redirect: Option<bool>,
}

impl Building {
    fn word(&mut self) -> &mut String {
        self.word.get_or_insert_with(String::new)
    }
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn end_word(&mut self, b: &mut Building) {
        let Some(w) = b.word.take() else { return };
        match b.redirect.take() {
            Some(writes) => {
                let harmless =
                    w == "/dev/null" || w == "-" || w.chars().all(|c| c.is_ascii_digit());
                if writes && !harmless {
                    b.cmd.writes_file = true;
                }
            }
            None => b.cmd.words.push(w),
        }
    }

    fn end_command(&mut self, b: &mut Building) {
        self.end_word(b);
        if b.redirect.take().is_some() {
            // A redirection with no target: a syntax error; never plain.
            self.compound = true;
        }
        let mut cmd = std::mem::take(&mut b.cmd);
        let skip = cmd
            .words
            .iter()
            .take_while(|w| RESERVED.contains(&w.as_str()))
            .count();
        if skip > 0 {
            self.compound = true;
            cmd.words.drain(..skip);
        }
        if !cmd.words.is_empty() || cmd.writes_file {
            self.commands.push(cmd);
        }
    }

    /// A nested command list (`$(…)`, `(…)`, `` `…` ``, `<(…)`): always compound; its
    /// commands join the list. The surrounding word gets a placeholder.
    fn nested(&mut self, b: &mut Building, close: char) {
        self.compound = true;
        b.word().push_str("$(…)");
        if self.depth >= MAX_DEPTH {
            self.pos = self.chars.len();
            return;
        }
        self.depth += 1;
        // The outer command is kept in `b`; the nested frame has its own.
        self.sequence(Some(close));
        self.depth -= 1;
    }

    /// Read commands until `close` (consumed) or the end of the line.
    fn sequence(&mut self, close: Option<char>) {
        let mut b = Building::default();
        while let Some(c) = self.peek() {
            if Some(c) == close {
                self.pos += 1;
                self.end_command(&mut b);
                return;
            }
            self.pos += 1;
            match c {
                ' ' | '\t' => self.end_word(&mut b),
                '\n' | ';' | '|' => {
                    self.compound = true;
                    self.end_command(&mut b);
                }
                '&' if self.peek() == Some('>') => {
                    self.end_word(&mut b);
                    self.pos += 1;
                    if self.peek() == Some('>') {
                        self.pos += 1;
                    }
                    b.redirect = Some(true);
                }
                '&' => {
                    self.compound = true;
                    self.end_command(&mut b);
                }
                '(' => {
                    self.end_word(&mut b);
                    self.nested(&mut b, ')');
                    // The subshell's placeholder is not a word of the outer command.
                    b.word = None;
                }
                ')' => {
                    // Unbalanced (or a `case` pattern): never plain.
                    self.compound = true;
                    self.end_command(&mut b);
                }
                '<' | '>' if self.peek() == Some('(') => {
                    self.pos += 1;
                    self.nested(&mut b, ')');
                }
                '<' | '>' => self.redirection(&mut b, c),
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(n) => {
                        self.pos += 1;
                        b.word().push(n);
                    }
                    None => b.word().push('\\'),
                },
                '\'' => self.single_quoted(&mut b, false),
                '"' => self.double_quoted(&mut b),
                '`' => self.nested(&mut b, '`'),
                '$' => self.dollar(&mut b),
                c if hides_text(c) => {
                    // Carriage returns, escapes, bidi overrides...: what runs may not be
                    // what is shown.
                    self.compound = true;
                    b.word().push(c);
                }
                c => b.word().push(c),
            }
        }
        if close.is_some() {
            // Unbalanced `$(`, `(` or backquote.
            self.compound = true;
        }
        self.end_command(&mut b);
    }

    fn redirection(&mut self, b: &mut Building, c: char) {
        // `2>file`: the digits before the operator name a descriptor, not a word.
        if b.word
            .as_ref()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|d| d.is_ascii_digit()))
        {
            b.word = None;
        }
        self.end_word(b);
        let writes = match (c, self.peek()) {
            ('>', Some('>' | '|')) => {
                self.pos += 1;
                true
            }
            ('>', Some('&')) | ('<', Some('&')) => {
                // `>&2` duplicates a descriptor; `>&file` writes the file (checked on the
                // target word).
                self.pos += 1;
                c == '>'
            }
            ('>', _) => true,
            ('<', Some('<')) => {
                self.pos += 1;
                if self.peek() == Some('<') {
                    self.pos += 1;
                } else {
                    // A here-document: its body follows on the next lines, read as commands.
                    self.compound = true;
                    if self.peek() == Some('-') {
                        self.pos += 1;
                    }
                }
                false
            }
            ('<', Some('>')) => {
                self.pos += 1;
                true
            }
            _ => false,
        };
        b.redirect = Some(writes);
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    /// `'…'`, or `$'…'` (backslash escapes) when `ansi` is set.
    fn single_quoted(&mut self, b: &mut Building, ansi: bool) {
        let w = b.word.get_or_insert_with(String::new);
        loop {
            let Some(c) = self.chars.get(self.pos).copied() else {
                self.compound = true;
                return;
            };
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' if ansi => {
                    if let Some(n) = self.chars.get(self.pos).copied() {
                        self.pos += 1;
                        w.push('\\');
                        w.push(n);
                    }
                }
                c => {
                    if hides_text(c) && c != '\n' && c != '\t' {
                        self.compound = true;
                    }
                    w.push(c);
                }
            }
        }
    }

    fn double_quoted(&mut self, b: &mut Building) {
        b.word();
        loop {
            let Some(c) = self.peek() else {
                self.compound = true;
                return;
            };
            self.pos += 1;
            match c {
                '"' => return,
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        self.pos += 1;
                        b.word().push(n);
                    }
                    _ => b.word().push('\\'),
                },
                '`' => self.nested(b, '`'),
                '$' if self.peek() == Some('(') => {
                    self.pos += 1;
                    self.nested(b, ')');
                }
                '$' if self.peek() == Some('{') => {
                    self.compound = true;
                    b.word().push('$');
                }
                c => {
                    if hides_text(c) && c != '\n' && c != '\t' {
                        self.compound = true;
                    }
                    b.word().push(c);
                }
            }
        }
    }

    fn dollar(&mut self, b: &mut Building) {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.nested(b, ')');
            }
            Some('{') => {
                // `${x:-$(cmd)}` and friends: the braces stay word text, any substitution
                // inside is still read as one.
                self.compound = true;
                b.word().push('$');
            }
            Some('\'') => {
                self.pos += 1;
                self.single_quoted(b, true);
            }
            _ => b.word().push('$'),
        }
    }
}
