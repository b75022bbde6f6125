//! Interpreters of other languages. Their code can start any program (`os.system`,
//! backquotes, `system()`), and no reader of shell lines can tell which.
//!
//! The judgment: code given on the command line (`python -c`, `perl -e`, `node -e`, an awk
//! program that calls `system` or pipes to a command) or read from input (`python3 -`,
//! `… | python3`, a here-document) is uncertain, so with a deny rule in the profile it is
//! asked, never approved. A script file (`python3 tool.py`) or a module (`python -m venv`)
//! is not: it is the project's code, the same as `make` or `cargo test` running it, and
//! asking about every one would teach users to approve without reading. This is where a
//! deny rule stops being a wall: rules are not a sandbox.

use super::programs::Expansion;

struct Interpreter {
    names: fn(&str) -> bool,
    /// Short options whose presence means code on the command line.
    inline: &'static str,
    inline_long: &'static [&'static str],
    /// Short options taking a value, attached or the next word.
    valued: &'static str,
    /// Short options whose value, if any, is attached (the rest of the word).
    attached: &'static str,
    /// Short options after which the program is not read from a file or input (`-m mod`).
    module: &'static str,
}

fn one_of(names: &'static [&'static str]) -> impl Fn(&str) -> bool {
    move |n| names.contains(&n)
}

fn python(n: &str) -> bool {
    ["python", "pypy", "py"].iter().any(|p| {
        n.strip_prefix(p)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    })
}

fn perl(n: &str) -> bool {
    n == "perl"
        || n.strip_prefix("perl")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn ruby(n: &str) -> bool {
    one_of(&["ruby", "irb", "jruby"])(n)
}

fn node(n: &str) -> bool {
    one_of(&["node", "nodejs", "bun"])(n)
}

fn php(n: &str) -> bool {
    n == "php"
        || n.strip_prefix("php")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn lua(n: &str) -> bool {
    n.starts_with("lua")
}

fn others(n: &str) -> bool {
    one_of(&[
        "rscript",
        "r",
        "osascript",
        "expect",
        "tclsh",
        "wish",
        "jshell",
        "ghci",
        "guile",
    ])(n)
}

const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        names: python,
        inline: "c",
        inline_long: &[],
        valued: "WXQ",
        attached: "",
        module: "m",
    },
    Interpreter {
        names: perl,
        inline: "eE",
        inline_long: &[],
        valued: "I",
        attached: "MmxilD0dC",
        module: "",
    },
    Interpreter {
        names: ruby,
        inline: "e",
        inline_long: &[],
        valued: "IrCEF",
        attached: "x0WKT",
        module: "",
    },
    Interpreter {
        names: node,
        inline: "epi",
        inline_long: &["eval", "print", "interactive"],
        valued: "rC",
        attached: "",
        module: "",
    },
    Interpreter {
        names: php,
        inline: "rBREa",
        inline_long: &[
            "run",
            "process-begin",
            "process-code",
            "process-end",
            "interactive",
        ],
        valued: "cdzt",
        attached: "",
        module: "",
    },
    Interpreter {
        names: lua,
        inline: "ei",
        inline_long: &[],
        valued: "l",
        attached: "",
        module: "",
    },
    Interpreter {
        names: others,
        inline: "ec",
        inline_long: &["eval"],
        valued: "lsf",
        attached: "",
        module: "",
    },
];

const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

/// Mark `words` (an interpreter named `name`, see `programs::program_name`) uncertain
/// when its code is inline or read from input; anything else is left alone.
pub fn check(name: &str, words: &[String], out: &mut Expansion) {
    if AWKS.contains(&name) {
        awk(words, out);
        return;
    }
    if name == "deno" {
        if words.get(1).is_none_or(|s| s == "eval" || s == "repl") {
            out.unsure("code given inline or read from input");
        }
        return;
    }
    let Some(it) = INTERPRETERS.iter().find(|i| (i.names)(name)) else {
        return;
    };
    let inline = || "code given inline or read from input";
    let mut i = 1;
    while let Some(w) = words.get(i) {
        i += 1;
        if w == "-" {
            out.unsure(inline());
            return;
        }
        if w == "--" {
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let long = long.split_once('=').map_or(long, |(n, _)| n);
            if it.inline_long.contains(&long) {
                out.unsure(inline());
                return;
            }
            if long == "version" || long == "help" {
                return;
            }
            continue;
        }
        let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) else {
            // A script file.
            return;
        };
        for (at, c) in cluster.char_indices() {
            if it.inline.contains(c) {
                out.unsure(inline());
                return;
            }
            if it.module.contains(c) || (cluster.len() == 1 && "vVh".contains(c)) {
                return;
            }
            if it.valued.contains(c) {
                if at + c.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
            if it.attached.contains(c) {
                break;
            }
        }
    }
    if words.get(i).is_none() {
        // No script: an interactive prompt, or code from input (`… | python3`).
        out.unsure(inline());
    }
}

/// awk runs commands with `system()` and `|` (`print | "sh"`, `"cmd" | getline`).
fn awk(words: &[String], out: &mut Expansion) {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        i += 1;
        match w.as_str() {
            "--" => break,
            "-f" | "--file" | "-E" | "--exec" => return,
            "-F" | "-v" | "-W" | "--field-separator" | "--assign" => i += 1,
            "-e" | "--source" => {
                if words.get(i).is_some_and(|p| runs_commands(p)) {
                    out.unsure("an awk program that runs commands");
                }
                i += 1;
            }
            o if o.starts_with('-') && o.len() > 1 => {}
            program => {
                if runs_commands(program) {
                    out.unsure("an awk program that runs commands");
                }
                return;
            }
        }
    }
    if let Some(program) = words.get(i) {
        if runs_commands(program) {
            out.unsure("an awk program that runs commands");
        }
    }
}

fn runs_commands(program: &str) -> bool {
    program.contains("system") || program.contains('|')
}
