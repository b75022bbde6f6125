//! A small reader of shell command lines: enough of POSIX sh / bash to tell one plain command
//! from anything compound, and to list every simple command inside, with every program each
//! one runs through wrappers and nested shells (deny rules look at each; see `programs`).
//!
//! It never runs anything, and when unsure it says "compound": an allow rule or a prefix only
//! ever approves one plain command the user could read in full. Redirections stay part of a
//! simple command; an output redirection to a file is noted, since it writes. What cannot be
//! told from the text (a substitution's output, unbalanced quotes...) makes the line
//! "uncertain": with a deny rule in the profile such a line is asked, never approved.

/// One simple command: its words after quote removal, without its redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    pub words: Vec<String>,
    /// An output redirection to a file (not `/dev/null`, not another descriptor).
    pub writes_file: bool,
}

use super::programs;

/// What a command line is made of.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandLine {
    /// The one command that runs, when the line is exactly one plain command (after
    /// unwrapping `bash -lc '<script>'`). `None` for anything compound or unreadable.
    pub plain: Option<SimpleCommand>,
    /// Every simple command found anywhere: in lists, pipelines, substitutions, subshells
    /// and wrapped scripts, and for each, the command every wrapper it goes through runs
    /// (`env FOO=1 nice curl x` gives `curl x` too). Deny rules match any of them.
    pub all: Vec<SimpleCommand>,
    /// Why what the line runs cannot be told from its text, when it cannot (`eval`, a
    /// substitution, a program named by a variable, unbalanced quotes...).
    pub uncertain: Option<&'static str>,
}

/// Reserved words that open or close compound commands; at the start of a command they make
/// the line compound, and are skipped so a deny rule still sees the command behind them.
pub(super) const RESERVED: &[&str] = &[
    "{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
    "case", "esac", "select", "function", "time", "coproc", "[[", "]]",
];

/// Shells whose `-c '<script>'` form is unwrapped for an allow rule (Codex sends
/// `/bin/bash -lc '…'`).
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// Nesting deeper than this is not read further (and counts as compound and uncertain).
pub(super) const MAX_DEPTH: usize = 32;

/// Read a command line.
pub fn read(line: &str) -> CommandLine {
    let sh = read_at(line, 0, &programs::Feed::default());
    if !looks_windows(line) {
        return sh;
    }
    // `C:\tools\curl.exe x`: for sh, `\` escapes the next letter; for cmd and PowerShell it
    // is a folder separator. Both readings count: a deny matching either denies, either
    // one's uncertainty is asked, and an allow needs both to see the same one command.
    let win = read_at(line, 0, &programs::Feed::default().windows());
    let plain = sh.plain.filter(|p| win.plain.as_ref() == Some(p));
    let mut all = sh.all;
    all.extend(win.all);
    CommandLine {
        plain,
        all,
        uncertain: sh.uncertain.or(win.uncertain),
    }
}

/// A line naming a Windows path or program (`C:\…`, `….exe`).
fn looks_windows(line: &str) -> bool {
    line.contains(":\\") || line.to_ascii_lowercase().contains(".exe")
}

/// Read a script found at nesting `depth` (a `bash -c` script, `eval`'s words...); `feed`
/// says what the script's runner fills in from input (xargs' and find's placeholders).
pub(super) fn read_at(line: &str, depth: usize, feed: &programs::Feed) -> CommandLine {
    let r = parse(line, depth, feed.is_windows());
    let mut uncertain = r.uncertain;
    let mut all = Vec::new();
    for cmd in &r.commands {
        all.push(cmd.clone());
        let e = programs::expand(&cmd.words, depth, feed);
        all.extend(e.layers);
        uncertain = uncertain.or(e.uncertain);
    }
    let plain = match r.commands.as_slice() {
        [one] if !r.compound => plain_of(one, depth, feed.is_windows()),
        _ => None,
    };
    CommandLine {
        plain,
        all,
        uncertain,
    }
}

/// The reader's pass over one line: its simple commands as written. `windows`: a backslash
/// is a character (cmd, PowerShell), not an escape.
fn parse(line: &str, depth: usize, windows: bool) -> Reader {
    let mut r = Reader {
        chars: line.trim().chars().collect(),
        pos: 0,
        commands: Vec::new(),
        compound: false,
        uncertain: None,
        depth,
        windows,
    };
    r.sequence(None);
    r
}

/// The one plain command `cmd` runs for an allow rule: itself, or the one plain command of
/// the script of `bash -lc '<script>'` (read again without expanding: each level once).
fn plain_of(cmd: &SimpleCommand, depth: usize, windows: bool) -> Option<SimpleCommand> {
    match wrapped_script(cmd) {
        Wrapped::No => Some(cmd.clone()),
        Wrapped::Script(script) if depth < MAX_DEPTH => {
            let r = parse(script, depth + 1, windows);
            match r.commands.as_slice() {
                [one] if !r.compound => plain_of(one, depth + 1, windows),
                _ => None,
            }
        }
        Wrapped::Script(_) | Wrapped::Odd => None,
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

/// Decode bash's `$'…'` escapes (`\n`, `\x63`, `\143`, `\u0063`, `\cA`...); an unknown
/// escape stays as written, as in bash.
fn ansi_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = it.next() else {
            out.push('\\');
            break;
        };
        let mut number = |radix: u32, max: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max {
                match it.peek() {
                    Some(d) if d.is_digit(radix) => {
                        digits.push(*d);
                        it.next();
                    }
                    _ => break,
                }
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            '0'..='7' => number(8, 3, Some(e)),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            'c' => it
                .next()
                .map(|x| char::from((x.to_ascii_uppercase() as u8) ^ 0x40)),
            _ => None,
        };
        match decoded {
            Some(d) => out.push(d),
            None => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
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
    uncertain: Option<&'static str>,
    depth: usize,
    windows: bool,
}

/// What opened a nested command list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nest {
    /// `$(…)` or `` `…` ``: its output becomes words of the line, which no reader can know.
    Substitution,
    /// `(…)`, `<(…)`, `>(…)`, `$((…))`: read like the rest of the line.
    Readable,
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

    fn unsure(&mut self, why: &'static str) {
        self.compound = true;
        self.uncertain.get_or_insert(why);
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
        let skipped: Vec<String> = cmd
            .words
            .iter()
            .take_while(|w| RESERVED.contains(&w.as_str()))
            .cloned()
            .collect();
        if !skipped.is_empty() {
            self.compound = true;
            cmd.words.drain(..skipped.len());
            let opened = |w: &str| skipped.iter().any(|s| s == w);
            if opened("for") || opened("select") || opened("case") {
                // `for NAME in WORDS`, `case WORD in`: names and words, no command (any
                // substitution among them was read on its own).
                cmd.words.clear();
            } else if opened("function") || opened("coproc") {
                // `function NAME { body`: the body's first command follows the name.
                let body = cmd
                    .words
                    .iter()
                    .skip(1)
                    .position(|w| !RESERVED.contains(&w.as_str()) && w != "()")
                    .map_or(cmd.words.len(), |p| p + 1);
                if cmd.words.get(1).is_some_and(|w| w == "{" || w == "()") {
                    cmd.words.drain(..body);
                }
            } else if skipped.last().is_some_and(|w| w == "time") {
                // The keyword `time` (`time -p cmd`), or the program `'time' -v cmd`: read
                // as the `time` wrapper either way, so its options are not taken for the
                // program.
                cmd.words.insert(0, "time".to_string());
            }
        }
        if !cmd.words.is_empty() || cmd.writes_file {
            self.commands.push(cmd);
        }
    }

    /// A nested command list (`$(…)`, `(…)`, `` `…` ``, `<(…)`): always compound; its
    /// commands join the list. The surrounding word gets a placeholder (a `$`: a program
    /// named by it is unknown).
    fn nested(&mut self, b: &mut Building, close: char, nest: Nest) {
        self.compound = true;
        if nest == Nest::Substitution {
            self.unsure("a command substitution, whose output becomes part of the command");
        }
        b.word().push_str("$(…)");
        if self.depth >= MAX_DEPTH {
            self.unsure("nesting too deep to read");
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
                    let defines = !b.cmd.words.is_empty();
                    self.nested(&mut b, ')', Nest::Readable);
                    // The subshell's placeholder is not a word of the outer command.
                    b.word = None;
                    if defines {
                        // `name() { body; }`: the body is commands of its own, not
                        // arguments of `name`.
                        self.end_command(&mut b);
                    }
                }
                ')' => {
                    // Unbalanced (or a `case` pattern): never plain.
                    self.compound = true;
                    self.end_command(&mut b);
                }
                '<' | '>' if self.peek() == Some('(') => {
                    self.pos += 1;
                    self.nested(&mut b, ')', Nest::Readable);
                }
                '<' | '>' => self.redirection(&mut b, c),
                '\\' if self.windows => b.word().push('\\'),
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
                '`' => self.nested(&mut b, '`', Nest::Substitution),
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
            self.unsure("unbalanced brackets or backquotes");
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

    /// `'…'`, or `$'…'` (backslash escapes, decoded: `$'\x63url'` is `curl`) when `ansi` is
    /// set.
    fn single_quoted(&mut self, b: &mut Building, ansi: bool) {
        let mut text = String::new();
        let mut closed = false;
        while let Some(c) = self.chars.get(self.pos).copied() {
            self.pos += 1;
            match c {
                '\'' => {
                    closed = true;
                    break;
                }
                '\\' if ansi => {
                    text.push('\\');
                    if let Some(n) = self.chars.get(self.pos).copied() {
                        self.pos += 1;
                        text.push(n);
                    }
                }
                c => text.push(c),
            }
        }
        if !closed {
            self.unsure("unbalanced quotes");
        }
        if ansi && text.contains('\\') {
            // Spelled in escapes: what runs is not what the card shows; never plain.
            self.compound = true;
            text = ansi_c(&text);
        }
        if text
            .chars()
            .any(|c| hides_text(c) && c != '\n' && c != '\t')
        {
            self.compound = true;
        }
        b.word().push_str(&text);
    }

    fn double_quoted(&mut self, b: &mut Building) {
        b.word();
        loop {
            let Some(c) = self.peek() else {
                self.unsure("unbalanced quotes");
                return;
            };
            self.pos += 1;
            match c {
                '"' => return,
                '\\' if self.windows => b.word().push('\\'),
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        self.pos += 1;
                        b.word().push(n);
                    }
                    _ => b.word().push('\\'),
                },
                '`' => self.nested(b, '`', Nest::Substitution),
                '$' if self.peek() == Some('(') => {
                    self.pos += 1;
                    let nest = self.arithmetic();
                    self.nested(b, ')', nest);
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

    /// After `$(`: `$((…))` is arithmetic (readable: any substitution inside is its own).
    fn arithmetic(&self) -> Nest {
        if self.peek() == Some('(') {
            Nest::Readable
        } else {
            Nest::Substitution
        }
    }

    fn dollar(&mut self, b: &mut Building) {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let nest = self.arithmetic();
                self.nested(b, ')', nest);
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
