//! Programs that run another program or a script: where, in their arguments, the program
//! they run starts (`nice -n 5 curl`, `timeout -s KILL 10 curl`, `sudo -u x curl`), or
//! which argument is a script (`bash -lc '…'`, `su -c '…'`, `watch '…'`).
//!
//! Each is read by its own options; an option not in its list is uncertain (it might take a
//! value, and then the program would be another word), and the next word is still taken as
//! the program so a deny rule can match it.

use super::programs::Expansion;

/// What a wrapper runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Inner {
    /// The program starting at this word (the end of the words: none given).
    Command(usize),
    /// A script in sh's language.
    Script(String),
    /// A script in another language (fish, csh): read as sh for deny rules, but uncertain.
    Foreign(String),
    /// A cmd or PowerShell script: read as sh with backslashes as characters.
    Windows(String),
    /// Nothing: it only reports (`command -v`, `chrt -p`).
    Nothing,
    /// A shell reading commands from a file or from input.
    Stdin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Options, then `operands` words, then the program.
    Plain,
    Env,
    Command,
    Sudo,
    /// sh, bash, zsh...: `-c` then the script is the first operand.
    Shell,
    Fish,
    Csh,
    Cmd,
    PowerShell,
    Su,
    Script,
    Watch,
    Flock,
    Chroot,
    /// `ssh HOST COMMAND…`: the words after the host are a command line for a shell there.
    Ssh,
    /// `chrt`, `taskset`, `ionice`: `-p` works on a running process, no program.
    PidMode,
}

pub struct Wrapper {
    names: &'static [&'static str],
    kind: Kind,
    /// Short options that take a value (attached or the next word).
    short_args: &'static str,
    short_flags: &'static str,
    long_args: &'static [&'static str],
    long_flags: &'static [&'static str],
    /// Words between the options and the program (timeout's duration, taskset's mask).
    operands: usize,
}

const fn w(
    names: &'static [&'static str],
    kind: Kind,
    short_args: &'static str,
    short_flags: &'static str,
    long_args: &'static [&'static str],
    long_flags: &'static [&'static str],
    operands: usize,
) -> Wrapper {
    Wrapper {
        names,
        kind,
        short_args,
        short_flags,
        long_args,
        long_flags,
        operands,
    }
}

const HELP: &[&str] = &["help", "version"];

#[rustfmt::skip]
const WRAPPERS: &[Wrapper] = &[
    w(&["env"], Kind::Env, "uCSa", "i0v", &["unset", "chdir", "split-string", "argv0"],
      &["ignore-environment", "null", "debug", "block-signal", "default-signal", "ignore-signal",
        "list-signal-handling", "help", "version"], 0),
    w(&["command"], Kind::Command, "", "pvV", &[], &[], 0),
    w(&["builtin", "nohup", "unbuffer", "nocache", "catchsegv", "busybox", "torsocks"],
      Kind::Plain, "", "", &[], HELP, 0),
    w(&["exec"], Kind::Plain, "a", "cl", &[], &[], 0),
    w(&["nice"], Kind::Plain, "n", "", &["adjustment"], HELP, 0),
    w(&["timeout"], Kind::Plain, "ks", "fvp", &["kill-after", "signal"],
      &["foreground", "preserve-status", "verbose", "help", "version"], 1),
    w(&["stdbuf"], Kind::Plain, "ioe", "", &["input", "output", "error"], HELP, 0),
    w(&["time"], Kind::Plain, "fo", "pvaq", &["format", "output"],
      &["portability", "verbose", "append", "quiet", "help", "version"], 0),
    w(&["setsid"], Kind::Plain, "", "cfw", &[], &["ctty", "fork", "wait", "help", "version"], 0),
    w(&["ionice"], Kind::PidMode, "cnpPu", "thV", &["class", "classdata", "pid", "pgid", "uid"],
      &["ignore", "help", "version"], 0),
    w(&["chrt"], Kind::PidMode, "TPD", "abdfiormpvRhV",
      &["sched-runtime", "sched-period", "sched-deadline"],
      &["all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "max",
        "pid", "verbose", "help", "version"], 1),
    w(&["taskset"], Kind::PidMode, "", "acphV", &[], &["all-tasks", "cpu-list", "pid", "help", "version"], 1),
    w(&["sudo"], Kind::Sudo, "CDghprtTUu", "AbEHiKklnPSsVvNBe",
      &["user", "group", "host", "prompt", "role", "type", "command-timeout", "other-user",
        "close-from", "chdir", "chroot"],
      &["askpass", "background", "preserve-env", "set-home", "login", "remove-timestamp",
        "reset-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell",
        "version", "validate", "edit", "bell", "help"], 0),
    w(&["doas"], Kind::Sudo, "auC", "Lns", &[], &[], 0),
    w(&["pkexec"], Kind::Plain, "", "", &["user"], &["disable-internal-agent", "keep-cwd", "help", "version"], 0),
    w(&["caffeinate"], Kind::Plain, "tw", "dimsu", &[], &[], 0),
    w(&["fakeroot"], Kind::Plain, "lsi", "u", &["lib", "faked"], &["unknown-is-real", "help", "version"], 0),
    w(&["proxychains", "proxychains4"], Kind::Plain, "f", "q", &[], &[], 0),
    w(&["strace"], Kind::Plain, "abeEIoOpPsSuUX", "cCdDfFhiknqrtTvVwxyYzZ", &[],
      &["follow-forks", "output-separately", "summary-only", "help", "version"], 0),
    w(&["chroot"], Kind::Chroot, "", "", &["userspec", "groups"], &["skip-chdir", "help", "version"], 1),
    w(&["flock"], Kind::Flock, "wEc", "sexunoFhV", &["timeout", "wait", "conflict-exit-code", "command"],
      &["shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose", "help", "version"], 1),
    w(&["watch"], Kind::Watch, "nq", "dtbegcxpwrhv", &["interval", "equexit"],
      &["differences", "no-title", "beep", "errexit", "chgexit", "color", "no-color", "exec",
        "precise", "no-wrap", "no-linewrap", "no-rerun", "help", "version"], 0),
    w(&["su", "runuser"], Kind::Su, "cgGswu", "lmpPf",
      &["command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user"],
      &["login", "preserve-environment", "pty", "fast", "help", "version"], 0),
    w(&["script"], Kind::Script, "cEIOBTo", "aefqmt",
      &["command", "echo", "log-in", "log-out", "log-io", "log-timing", "output-limit", "logging-format"],
      &["append", "return", "flush", "force", "quiet", "help", "version"], 0),
    w(&["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "ash", "yash", "posh",
        "rbash", "lksh", "oksh", "loksh"],
      Kind::Shell, "oO", "abcefhiklmnprstuvxBCDEHPT", &["rcfile", "init-file"],
      &["login", "noprofile", "norc", "posix", "restricted", "verbose", "version", "help",
        "debugger", "dump-strings", "dump-po-strings", "noediting", "pretty-print", "emulate"], 0),
    w(&["fish"], Kind::Fish, "cCdofp", "ilnNPvh",
      &["command", "init-command", "debug", "debug-output", "features", "profile"],
      &["interactive", "login", "no-execute", "no-config", "private", "print-rusage-self",
        "help", "version"], 0),
    w(&["csh", "tcsh"], Kind::Csh, "", "bcdefFimnqstvVxX", &[], HELP, 0),
    w(&["ssh"], Kind::Ssh, "BbcDEeFIiJLlmOoPpQRSWw", "46AaCfGgKkMNnqsTtVvXxYy", &[], &[], 1),
    w(&["cmd"], Kind::Cmd, "", "", &[], &[], 0),
    w(&["powershell", "pwsh", "powershell_ise"], Kind::PowerShell, "", "", &[], &[], 0),
];

/// The wrapper a program name (see `programs::program_name`) is, if any.
pub fn find(name: &str) -> Option<&'static Wrapper> {
    WRAPPERS.iter().find(|w| w.names.contains(&name))
}

/// The options read: each short option's letter or long option's name, with its value.
struct Options {
    /// The first word after the options.
    next: usize,
    seen: Vec<(String, Option<String>)>,
}

impl Options {
    fn has(&self, names: &[&str]) -> bool {
        self.seen.iter().any(|(n, _)| names.contains(&n.as_str()))
    }

    fn value(&self, names: &[&str]) -> Option<&str> {
        self.seen
            .iter()
            .rev()
            .find(|(n, _)| names.contains(&n.as_str()))
            .and_then(|(_, v)| v.as_deref())
    }
}

fn options(w: &Wrapper, words: &[String], out: &mut Expansion) -> Options {
    let mut seen = Vec::new();
    let mut i = 1;
    let take = |i: &mut usize| {
        *i += 1;
        words.get(*i - 1).cloned()
    };
    while let Some(word) = words.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--").filter(|l| !l.is_empty()) {
            i += 1;
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let value = if w.long_args.contains(&name) && value.is_none() {
                take(&mut i)
            } else {
                if !w.long_args.contains(&name) && !w.long_flags.contains(&name) {
                    out.unsure("an option of a wrapper this reader does not know");
                }
                value
            };
            seen.push((name.to_string(), value));
            continue;
        }
        let signed = if w.kind == Kind::Shell {
            // `bash +o pipefail`, `set +x` style.
            word.strip_prefix('-').or_else(|| word.strip_prefix('+'))
        } else {
            word.strip_prefix('-')
        };
        let Some(cluster) = signed.filter(|c| !c.is_empty()) else {
            break;
        };
        i += 1;
        if w.names.contains(&"nice") && cluster.chars().all(|c| c.is_ascii_digit() || c == '-') {
            // `nice -10 cmd`.
            continue;
        }
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if w.short_args.contains(c) {
                let value = if rest.is_empty() {
                    take(&mut i)
                } else {
                    Some(rest.to_string())
                };
                seen.push((c.to_string(), value));
                break;
            }
            if !w.short_flags.contains(c) {
                out.unsure("an option of a wrapper this reader does not know");
            }
            seen.push((c.to_string(), None));
        }
    }
    Options {
        next: i.min(words.len()),
        seen,
    }
}

/// What the wrapper `w` in `words` (its own name first) runs.
pub fn inner(w: &Wrapper, words: &[String], out: &mut Expansion) -> Inner {
    match w.kind {
        Kind::Cmd => return cmd(words, out),
        Kind::PowerShell => return powershell(words, out),
        _ => {}
    }
    let o = options(w, words, out);
    let after = |n: usize| Inner::Command((o.next + n).min(words.len()));
    let rest = || words[o.next..].join(" ");
    let has_program = o.next + w.operands < words.len();
    match w.kind {
        Kind::Plain => after(w.operands),
        Kind::Env => {
            if let Some(split) = o.value(&["S", "split-string"]) {
                // `env -S 'curl -s' x`: the string is split into words, with escapes and
                // variables of its own.
                out.unsure("env -S, which splits a string into a command");
                return Inner::Script(format!("{split} {}", rest()));
            }
            // `env - cmd`: a lone `-` is `-i`.
            let skip = usize::from(words.get(o.next).is_some_and(|w| w == "-"));
            after(skip)
        }
        Kind::Command if o.has(&["v", "V"]) => Inner::Nothing,
        Kind::Command => after(0),
        Kind::Sudo if !has_program && o.has(&["s", "i", "shell", "login"]) => Inner::Stdin,
        Kind::Sudo => after(0),
        Kind::PidMode if o.has(&["p", "P", "u", "pid", "pgid", "uid", "m", "max"]) => {
            Inner::Nothing
        }
        Kind::PidMode => after(w.operands),
        Kind::Shell | Kind::Csh => shell_inner(w, &o, words),
        Kind::Fish => match o.value(&["c", "command"]) {
            Some(script) => Inner::Foreign(script.to_string()),
            None if o.has(&["v", "h", "version", "help"]) => Inner::Nothing,
            None => Inner::Stdin,
        },
        Kind::Su | Kind::Script => su_inner(w, &o, words),
        Kind::Watch if o.has(&["x", "exec"]) => after(0),
        // watch runs its words with `sh -c`.
        Kind::Watch => Inner::Script(rest()),
        Kind::Flock => match o.value(&["c", "command"]) {
            Some(script) => Inner::Script(script.to_string()),
            None if words
                .get(o.next)
                .is_some_and(|f| f.chars().all(|c| c.is_ascii_digit())) =>
            {
                Inner::Nothing
            }
            None => after(1),
        },
        Kind::Ssh if o.has(&["N", "V"]) => Inner::Nothing,
        Kind::Ssh if !has_program => Inner::Stdin,
        Kind::Ssh => Inner::Script(words[o.next + 1..].join(" ")),
        Kind::Chroot if !has_program => Inner::Stdin,
        Kind::Chroot => after(1),
        Kind::Cmd | Kind::PowerShell => Inner::Nothing,
    }
}

/// `sh -c SCRIPT` (csh's, in a language of its own), or a shell reading commands from input.
fn shell_inner(w: &Wrapper, o: &Options, words: &[String]) -> Inner {
    if o.has(&["c"]) {
        let Some(script) = words.get(o.next) else {
            return Inner::Command(o.next.min(words.len()));
        };
        return if w.kind == Kind::Shell {
            Inner::Script(script.clone())
        } else {
            Inner::Foreign(script.clone())
        };
    }
    if o.has(&["version", "help"]) {
        Inner::Nothing
    } else {
        Inner::Stdin
    }
}

/// `su -c SCRIPT` (`script -c`), `runuser -u USER COMMAND`, or a shell reading commands from
/// input.
fn su_inner(w: &Wrapper, o: &Options, words: &[String]) -> Inner {
    if let Some(script) = o.value(&["c", "command", "session-command"]) {
        return Inner::Script(script.to_string());
    }
    if w.names.contains(&"runuser") && o.has(&["u", "user"]) {
        return Inner::Command(o.next.min(words.len()));
    }
    if o.has(&["version", "help"]) {
        Inner::Nothing
    } else {
        Inner::Stdin
    }
}

/// `cmd /c <command>` (or `/k`, `/r`): the rest of the line is the command, in cmd's own
/// syntax (`%VAR%`, `^` escapes), which this reader only approximates: uncertain.
fn cmd(words: &[String], out: &mut Expansion) -> Inner {
    let at = words.iter().skip(1).position(|w| {
        let w = w.to_ascii_lowercase();
        w == "/c" || w == "/k" || w == "/r"
    });
    match at {
        Some(p) => {
            out.unsure("a cmd.exe command line");
            Inner::Windows(words[p + 2..].join(" "))
        }
        None => Inner::Stdin,
    }
}

/// `powershell -NoProfile -Command '<script>'` (codex on Windows): the words after
/// `-Command` (any abbreviation) are the script; `-EncodedCommand` cannot be read.
fn powershell(words: &[String], out: &mut Expansion) -> Inner {
    /// Parameters that take a value (their value is not the script).
    const VALUED: &[&str] = &[
        "executionpolicy",
        "windowstyle",
        "inputformat",
        "outputformat",
        "workingdirectory",
        "configurationname",
        "version",
        "settingsfile",
        "custompipename",
    ];
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let lower = w.to_ascii_lowercase();
        let Some(param) = lower.strip_prefix('-').filter(|p| !p.is_empty()) else {
            // A bare word: Windows PowerShell reads it as the command.
            break;
        };
        i += 1;
        if "command".starts_with(param) {
            break;
        }
        if (param.starts_with('e') && "encodedcommand".starts_with(param)) || param == "ec" {
            out.unsure("an encoded PowerShell command");
            return Inner::Nothing;
        }
        if "file".starts_with(param) {
            return Inner::Stdin;
        }
        if VALUED
            .iter()
            .any(|v| v.starts_with(param) && param.len() > 1)
        {
            i += 1;
        }
    }
    match words.get(i..) {
        Some(rest) if !rest.is_empty() && rest != ["-"] => {
            let script = rest.join(" ");
            // Computed commands: variables, call operators, script blocks, invoking text.
            let lower = script.to_ascii_lowercase();
            let computes = script.contains(['$', '`', '&', '{', '@', '[', '('])
                || ["iex", "invoke-", "icm", "start-process", "saps", "start "]
                    .iter()
                    .any(|k| lower.contains(k));
            if computes {
                out.unsure("a PowerShell command that computes what it runs");
            }
            Inner::Windows(script)
        }
        _ => Inner::Stdin,
    }
}
