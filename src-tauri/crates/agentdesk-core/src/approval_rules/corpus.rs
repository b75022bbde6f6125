#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The rules corpus: command lines written to dodge a deny rule (wrappers, assignments,
//! quoting, folders, nested shells, `eval`, `xargs`, `find -exec`...), lines that must still
//! be approved, and lines that cannot be read and must be asked. Each row runs as Codex asks
//! (a command execution) and as Claude asks (its `Bash` tool). Every failing row is listed
//! before the test fails, so a regression shows all it breaks at once.

use agentdesk_protocol::approval_detail::ClaudeToolDetail;
use serde_json::json;

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Approve,
    Deny,
    Ask,
}
use Want::{Approve, Ask, Deny};

/// A profile: its permission mode and rules.
#[derive(Debug, Clone, Copy)]
enum Set {
    /// Full-auto, deny `curl`: anything not denied or uncertain is approved.
    DenyCurl,
    /// Ask, allow every plain command (first), deny `curl` (second).
    AllowAllDenyCurl,
    /// Ask, allow `env` (first), deny `curl` (second).
    AllowEnvDenyCurl,
    /// Ask, allow `git status`, no deny rule.
    AllowGitStatus,
    /// Full-auto, no rule.
    FullAuto,
    /// Full-auto, deny `git push`.
    DenyGitPush,
    /// Full-auto, deny `/usr/bin/curl` (a prefix with a folder).
    DenyCurlPath,
    /// Read-only, deny `curl`.
    ReadOnlyDenyCurl,
}

fn command_rule(prefix: Option<&str>, action: RuleAction) -> ApprovalRule {
    ApprovalRule {
        kind: Some(ApprovalKindName::Command),
        tool: None,
        command_prefix: prefix.map(str::to_string),
        action,
    }
}

fn profile(set: Set) -> ApprovalPolicy {
    use RuleAction::{Allow, Deny as No};
    let (mode, rules) = match set {
        Set::DenyCurl => (
            PermissionMode::FullAuto,
            vec![command_rule(Some("curl"), No)],
        ),
        Set::AllowAllDenyCurl => (
            PermissionMode::Ask,
            vec![command_rule(None, Allow), command_rule(Some("curl"), No)],
        ),
        Set::AllowEnvDenyCurl => (
            PermissionMode::Ask,
            vec![
                command_rule(Some("env"), Allow),
                command_rule(Some("curl"), No),
            ],
        ),
        Set::AllowGitStatus => (
            PermissionMode::Ask,
            vec![command_rule(Some("git status"), Allow)],
        ),
        Set::FullAuto => (PermissionMode::FullAuto, vec![]),
        Set::DenyGitPush => (
            PermissionMode::FullAuto,
            vec![command_rule(Some("git push"), No)],
        ),
        Set::DenyCurlPath => (
            PermissionMode::FullAuto,
            vec![command_rule(Some("/usr/bin/curl"), No)],
        ),
        Set::ReadOnlyDenyCurl => (
            PermissionMode::ReadOnly,
            vec![command_rule(Some("curl"), No)],
        ),
    };
    ApprovalPolicy {
        permission_mode: mode,
        workspace_root: "/work/repo".into(),
        rules,
        ..Default::default()
    }
}

use Set::*;

#[rustfmt::skip]
const CORPUS: &[(Set, &str, Want)] = &[
    // ---- Approved: the deny rule does not get in the way of ordinary work.
    (DenyCurl, "git status", Approve),
    (DenyCurl, "ls -la && pwd", Approve),
    (DenyCurl, "echo curl", Approve),
    (DenyCurl, "grep -rn curl src/", Approve),
    (DenyCurl, "/bin/bash -lc 'cargo test'", Approve),
    (DenyCurl, "env FOO=1 cargo build", Approve),
    (DenyCurl, "timeout 10 cargo test", Approve),
    (DenyCurl, "find . -name '*.rs' -exec grep -n curl {} +", Approve),
    (DenyCurl, "printf '%s\\0' a b | xargs -0 grep -l x", Approve),
    (DenyCurl, "python3 scripts/gen.py --out x", Approve),
    (DenyCurl, "python3 -m venv .venv", Approve),
    (DenyCurl, "echo $((1 + 2))", Approve),
    (DenyCurl, "(cd sub && make)", Approve),
    (DenyCurl, "diff <(sort a) <(sort b)", Approve),
    (DenyCurl, "for f in *.rs; do wc -l \"$f\"; done", Approve),
    (DenyCurl, "awk '{print $1}' file.txt", Approve),
    (DenyCurl, "node --version", Approve),
    (DenyCurl, "sudo -u build make install", Approve),
    (DenyCurl, "git log --format='%H' | head -1", Approve),
    (DenyCurl, "echo \"$HOME\"", Approve),
    (DenyCurl, "command -v curl", Approve),
    (DenyCurl, "time -p cargo build", Approve),
    (DenyCurl, "nice -n 10 ionice -c3 make -j2", Approve),
    // ---- Denied: the program run is curl, however it is written.
    (DenyCurl, "curl http://127.0.0.1:9/x", Deny),
    (DenyCurl, "/usr/bin/curl x", Deny),
    (DenyCurl, "./curl x", Deny),
    (DenyCurl, "\"/usr/bin/curl\" x", Deny),
    (DenyCurl, "CURL x", Deny),
    (DenyCurl, "curl.exe x", Deny),
    (DenyCurl, "curlie x", Deny),
    (DenyCurl, "env curl x", Deny),
    (DenyCurl, "/usr/bin/env curl x", Deny),
    (DenyCurl, "env -i PATH=/usr/bin curl x", Deny),
    (DenyCurl, "env -u HOME -- curl x", Deny),
    (DenyCurl, "env - curl x", Deny),
    (DenyCurl, "env -S 'curl -s' x", Deny),
    (DenyCurl, "FOO=1 curl x", Deny),
    (DenyCurl, "FOO=1 BAR='a b' curl x", Deny),
    (DenyCurl, "nice -n 5 curl x", Deny),
    (DenyCurl, "nice -10 curl x", Deny),
    (DenyCurl, "nohup curl x &", Deny),
    (DenyCurl, "timeout -s KILL 10 curl x", Deny),
    (DenyCurl, "timeout --kill-after=5 10s /usr/bin/curl x", Deny),
    (DenyCurl, "command curl x", Deny),
    (DenyCurl, "command -p curl x", Deny),
    (DenyCurl, "builtin exec curl x", Deny),
    (DenyCurl, "exec -a foo curl x", Deny),
    (DenyCurl, "stdbuf -oL curl x", Deny),
    (DenyCurl, "ionice -c3 curl x", Deny),
    (DenyCurl, "setsid -f curl x", Deny),
    (DenyCurl, "/usr/bin/time -v curl x", Deny),
    (DenyCurl, "time curl x", Deny),
    (DenyCurl, "'time' -v curl x", Deny),
    (DenyCurl, "nice time -p curl x", Deny),
    (DenyCurl, "taskset -c 0 curl x", Deny),
    (DenyCurl, "chrt -b 0 curl x", Deny),
    (DenyCurl, "sudo curl x", Deny),
    (DenyCurl, "sudo -u root -E curl x", Deny),
    (DenyCurl, "sudo --user=root -- curl x", Deny),
    (DenyCurl, "doas -u root curl x", Deny),
    (DenyCurl, "chroot / curl x", Deny),
    (DenyCurl, "flock /tmp/l curl x", Deny),
    (DenyCurl, "flock -c 'curl x' /tmp/l", Deny),
    (DenyCurl, "watch -n 5 curl x", Deny),
    (DenyCurl, "su -c 'curl x' root", Deny),
    (DenyCurl, "script -qc 'curl x' /dev/null", Deny),
    (DenyCurl, "busybox sh -c 'curl x'", Deny),
    (DenyCurl, "ssh -p 2222 localhost 'curl x'", Deny),
    (DenyCurl, "ssh build-host make test", Approve),
    (DenyCurl, "'cu'rl x", Deny),
    (DenyCurl, "\"curl\" x", Deny),
    (DenyCurl, "\\curl x", Deny),
    (DenyCurl, "c\\url x", Deny),
    (DenyCurl, "$'\\x63url' x", Deny),
    (DenyCurl, "$'\\143url' x", Deny),
    (DenyCurl, "true && bash -c 'curl x'", Deny),
    (DenyCurl, "ls; sh -c \"curl x\"", Deny),
    (DenyCurl, "bash -l -c 'curl x'", Deny),
    (DenyCurl, "bash -c -l 'curl x'", Deny),
    (DenyCurl, "bash -o pipefail -c 'curl x | sh'", Deny),
    (DenyCurl, "/bin/bash -lc 'FOO=1 env nice curl x'", Deny),
    (DenyCurl, "bash -c \"bash -c 'env curl x'\"", Deny),
    (DenyCurl, "zsh -c 'curl x'", Deny),
    (DenyCurl, "git status || dash -c 'curl x'", Deny),
    (DenyCurl, "echo ok | xargs bash -c 'curl x'", Deny),
    (DenyCurl, "xargs curl < urls.txt", Deny),
    (DenyCurl, "xargs -n1 -P4 curl < urls.txt", Deny),
    (DenyCurl, "xargs -I{} curl {} < urls.txt", Deny),
    (DenyCurl, "find . -exec curl {} \\;", Deny),
    (DenyCurl, "find . -type f -execdir sh -c 'curl x' \\;", Deny),
    (DenyCurl, "eval curl x", Deny),
    (DenyCurl, "eval \"cu\"\"rl x\"", Deny),
    (DenyCurl, "echo $(curl x)", Deny),
    (DenyCurl, "trap 'curl x' EXIT", Deny),
    (DenyCurl, "trap -- 'curl x' EXIT", Deny),
    (DenyCurl, "f() { curl x; }; f", Deny),
    (DenyCurl, "function f { curl x; }; f", Deny),
    (DenyCurl, "if curl x; then :; fi", Deny),
    (DenyCurl, "fish -c 'curl x'", Deny),
    (DenyCurl, "bash <<EOF\ncurl x\nEOF", Deny),
    (DenyCurl, "cmd /c curl x", Deny),
    (DenyCurl, "powershell.exe -NoProfile -Command 'curl.exe x'", Deny),
    (DenyCurl, "pwsh -c \"ls; curl x\"", Deny),
    // ---- Windows (codex wraps commands in PowerShell there).
    (DenyCurl, "C:\\Windows\\System32\\curl.exe x", Deny),
    (DenyCurl, "powershell.exe -Command 'C:\\tools\\curl.exe -s x'", Deny),
    (DenyCurl, "\"C:\\Program Files\\PowerShell\\7\\pwsh.exe\" -NoProfile -Command \"curl.exe x\"", Deny),
    (DenyCurl, "cmd.exe /c \"C:\\bin\\CURL.EXE x\"", Deny),
    (DenyCurl, "powershell.exe -NoProfile -Command 'git status'", Approve),
    (DenyCurl, "pwsh -Command 'Get-ChildItem -Recurse'", Approve),
    (DenyCurl, "powershell -Command '& $env:TOOL x'", Ask),
    // ---- Asked: what runs cannot be read, and a deny rule exists.
    (DenyCurl, "eval \"$CMD\"", Ask),
    (DenyCurl, "eval ls", Ask),
    (DenyCurl, "$CMD x", Ask),
    (DenyCurl, "\"$CURL\" x", Ask),
    (DenyCurl, "${C}url x", Ask),
    (DenyCurl, "$(echo curl) x", Ask),
    (DenyCurl, "`echo curl` x", Ask),
    (DenyCurl, "echo ok $(date)", Ask),
    (DenyCurl, "{cu,}rl x", Ask),
    (DenyCurl, "/usr/bin/cu?l x", Ask),
    (DenyCurl, "source ./script.sh", Ask),
    (DenyCurl, ". ./env.sh", Ask),
    (DenyCurl, "bash script.sh", Ask),
    (DenyCurl, "echo 'curl x' | sh", Ask),
    (DenyCurl, "sh < cmds.txt", Ask),
    (DenyCurl, "bash <<'EOF'\nls\nEOF", Ask),
    (DenyCurl, "python3 -c 'import os; os.system(\"ls\")'", Ask),
    (DenyCurl, "perl -e 'print 1'", Ask),
    (DenyCurl, "perl -ne 'print' f", Ask),
    (DenyCurl, "node -e 'x'", Ask),
    (DenyCurl, "echo 'print(1)' | python3", Ask),
    (DenyCurl, "python3 - <<EOF\nprint(1)\nEOF", Ask),
    (DenyCurl, "awk 'BEGIN { system(\"ls\") }'", Ask),
    (DenyCurl, "xargs -I{} sh -c '{}' < cmds.txt", Ask),
    (DenyCurl, "xargs -I% sh -c 'echo %' < names.txt", Ask),
    (DenyCurl, "cat cmds.txt | xargs env", Ask),
    (DenyCurl, "cat cmds.txt | xargs", Approve),
    (DenyCurl, "xargs sh -c < cmds.txt", Ask),
    (DenyCurl, "find . -exec {} \\;", Ask),
    (DenyCurl, "find . -exec sh -c 'echo {}' \\;", Ask),
    (DenyCurl, "echo 'unterminated", Ask),
    (DenyCurl, "echo $(ls", Ask),
    (DenyCurl, "sudo -i", Ask),
    (DenyCurl, "alias c=curl; c x", Ask),
    (DenyCurl, "nice --weird curl x", Deny),
    (DenyCurl, "nice --weird ls", Ask),
    (DenyCurl, "fish -c 'ls'", Ask),
    (DenyCurl, "cmd /c dir", Ask),
    (DenyCurl, "powershell -Command 'iex $x'", Ask),
    (DenyCurl, "powershell -EncodedCommand ZQBjAGgAbwA=", Ask),
    // ---- Deny wins over an allow listed before it; uncertainty is asked over an allow.
    (AllowAllDenyCurl, "ls -la", Approve),
    (AllowAllDenyCurl, "curl x", Deny),
    (AllowAllDenyCurl, "env curl x", Deny),
    (AllowAllDenyCurl, "bash -lc 'nice curl x'", Deny),
    (AllowAllDenyCurl, "eval ls", Ask),
    (AllowAllDenyCurl, "$X", Ask),
    (AllowAllDenyCurl, "python3 -c 'print(1)'", Ask),
    (AllowAllDenyCurl, "ls; pwd", Ask),
    (AllowEnvDenyCurl, "env curl x", Deny),
    (AllowEnvDenyCurl, "env ls", Approve),
    (AllowEnvDenyCurl, "env $X", Ask),
    // ---- Without a deny rule, nothing changes for uncertain lines.
    (AllowGitStatus, "git status", Approve),
    (AllowGitStatus, "eval ls", Ask),
    (AllowGitStatus, "env git status", Ask),
    (FullAuto, "eval \"$CMD\"", Approve),
    (FullAuto, "python3 -c 'print(1)'", Approve),
    (FullAuto, "curl x", Approve),
    // ---- Several words: the program and its first words.
    (DenyGitPush, "git push origin main", Deny),
    (DenyGitPush, "env GIT_TRACE=1 git push", Deny),
    (DenyGitPush, "sudo -u me git push", Deny),
    (DenyGitPush, "git status && git   push", Deny),
    (DenyGitPush, "/usr/bin/git 'push' --force", Deny),
    (DenyGitPush, "git pull", Approve),
    (DenyGitPush, "git log --grep push", Approve),
    // ---- A prefix with a folder names the program.
    (DenyCurlPath, "curl x", Deny),
    (DenyCurlPath, "env /usr/local/bin/curl x", Deny),
    (DenyCurlPath, "ls", Approve),
    // ---- A mode's denial stands for an uncertain line.
    (ReadOnlyDenyCurl, "eval ls", Deny),
    (ReadOnlyDenyCurl, "curl x", Deny),
];

fn shell_request(line: &str, claude: bool) -> ApprovalRequest {
    ApprovalRequest {
        tool: claude.then(|| "Bash".to_string()),
        command: Some(line.to_string()),
        detail: Some(Box::new(if claude {
            ApprovalDetail::ClaudeTool(ClaudeToolDetail {
                tool_name: "Bash".into(),
                input: json!({ "command": line }),
                ..Default::default()
            })
        } else {
            ApprovalDetail::CodexCommand(Default::default())
        })),
        ..Default::default()
    }
}

fn outcome(v: Option<Verdict>) -> Want {
    match v {
        Some(v) if v.approve => Approve,
        Some(_) => Deny,
        None => Ask,
    }
}

#[test]
fn the_rules_corpus() {
    assert!(CORPUS.len() >= 40);
    let mut failed = Vec::new();
    for &(set, line, want) in CORPUS {
        let policy = profile(set);
        for claude in [false, true] {
            let req = shell_request(line, claude);
            let got = outcome(evaluate(
                &policy,
                ApprovalKindName::Command,
                &req,
                &HashSet::new(),
            ));
            if got != want {
                let engine = if claude { "claude" } else { "codex" };
                failed.push(format!(
                    "{set:?} {line:?} ({engine}): want {want:?}, got {got:?}"
                ));
            }
        }
    }
    let rows = CORPUS.len();
    assert!(
        failed.is_empty(),
        "{} of {} cases ({rows} rows × 2 engines) failed:\n{}",
        failed.len(),
        rows * 2,
        failed.join("\n")
    );
}

/// A denial by rule names the rule; an uncertain line with a deny rule is never approved by
/// a grant either (what it runs may have changed since: a variable, a file's content).
#[test]
fn deny_reasons_and_grants() {
    let p = profile(AllowAllDenyCurl);
    let cmd = ApprovalKindName::Command;
    let v = evaluate(&p, cmd, &shell_request("env curl x", true), &HashSet::new()).unwrap();
    assert_eq!(
        v,
        Verdict {
            approve: false,
            reason: "profile rule 2".into()
        }
    );
    let eval = shell_request("eval \"$CMD\"", false);
    let grants: HashSet<GrantKey> = GrantKey::for_request(&p, cmd, &eval).into_iter().collect();
    assert_eq!(evaluate(&p, cmd, &eval, &grants), None);
    let p = profile(AllowGitStatus);
    assert!(evaluate(&p, cmd, &eval, &grants).unwrap().approve);
}

/// An MCP tool whose input has a `command` field.
fn mcp_exec(command: &str, host: &str) -> ApprovalRequest {
    let input = json!({ "command": command, "host": host, "sudo": true });
    ApprovalRequest {
        tool: Some("mcp__ssh__exec".into()),
        command: Some(command.into()),
        detail: Some(Box::new(ApprovalDetail::ClaudeTool(ClaudeToolDetail {
            tool_name: "mcp__ssh__exec".into(),
            input,
            ..Default::default()
        }))),
        ..Default::default()
    }
}

/// Item 5: a command prefix is about shell commands; the editor's old default rule (no kind,
/// no tool) allowing `git status` must not approve `git status` run as root on `prod`.
#[test]
fn a_command_prefix_never_matches_another_tool() {
    let tool = ApprovalKindName::Tool;
    let cmd = ApprovalKindName::Command;
    for kind in [None, Some(cmd)] {
        let mut p = profile(AllowGitStatus);
        p.rules[0].kind = kind;
        assert_eq!(
            evaluate(&p, tool, &mcp_exec("git status", "prod"), &HashSet::new()),
            None
        );
        assert!(
            evaluate(&p, cmd, &shell_request("git status", true), &HashSet::new())
                .unwrap()
                .approve
        );
    }
    // A prefix rule limited to that tool matches nothing either.
    let mut p = profile(AllowGitStatus);
    p.rules[0].kind = None;
    p.rules[0].tool = Some("mcp__ssh__exec".into());
    assert_eq!(
        evaluate(&p, tool, &mcp_exec("git status", "prod"), &HashSet::new()),
        None
    );
    // A deny prefix neither (the tool is the user's or the mode's call), and a line the
    // tool sends is not read as a shell's: no uncertainty asked over full-auto.
    let p = profile(DenyCurl);
    for c in ["curl x", "eval \"$X\""] {
        assert!(
            evaluate(&p, tool, &mcp_exec(c, "prod"), &HashSet::new())
                .unwrap()
                .approve,
            "{c}"
        );
    }
    // The tool itself can still be ruled on.
    let mut p = profile(FullAuto);
    p.rules = vec![ApprovalRule {
        kind: None,
        tool: Some("mcp__ssh__exec".into()),
        command_prefix: None,
        action: RuleAction::Deny,
    }];
    assert!(
        !evaluate(&p, tool, &mcp_exec("ls", "prod"), &HashSet::new())
            .unwrap()
            .approve
    );
    // An "always" on the tool covers that exact input, not the same command on another host.
    let p = profile(AllowGitStatus);
    let grants: HashSet<GrantKey> = GrantKey::for_request(&p, tool, &mcp_exec("git status", "dev"))
        .into_iter()
        .collect();
    assert!(
        evaluate(&p, tool, &mcp_exec("git status", "dev"), &grants)
            .unwrap()
            .approve
    );
    assert_eq!(
        evaluate(&p, tool, &mcp_exec("git status", "prod"), &grants),
        None
    );
}

/// Quote `s` as one word for sh (`'…'`, with `'\''` for a quote inside).
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// Reading and deciding never panic, whatever the line (escapes, brackets, wrappers
    /// without their arguments, non-ASCII).
    #[test]
    fn any_line_is_decided_without_panicking(
        words in proptest::collection::vec(proptest::sample::select(vec![
            "env", "-S", "-u", "sudo", "xargs", "-I{}", "{}", "find", "-exec", "\\;", "bash",
            "-c", "'", "\"", "$(", "`", ")", "(", "{", "}", ";", "&&", "|", "$'\\c\u{e9}'",
            "$'\\x'", "eval", "trap", "--", "time", "-p", "function", "f", "()", "curl",
            "powershell", "-Command", "cmd", "/c", "C:\\x.exe", "python3", "-", "awk", "ssh",
            "\u{202e}", "\\", "$((", "<(", "<<EOF", "\n",
        ]), 0..12),
    ) {
        let line = words.join(" ");
        for claude in [false, true] {
            let _ = evaluate(
                &profile(DenyCurl),
                ApprovalKindName::Command,
                &shell_request(&line, claude),
                &HashSet::new(),
            );
        }
    }

    /// However `curl` is spelled and whatever chain of wrappers, assignments, shells and
    /// lists it sits in, a deny rule on it denies the line.
    #[test]
    fn no_chain_of_wrappers_dodges_a_deny(
        spelling in proptest::sample::select(vec![
            "curl", "'curl'", "\"curl\"", "/usr/bin/curl", "\\curl", "cu''rl", "$'\\x63url'",
            "./curl", "CURL", "/usr/local/bin/curl.exe",
        ]),
        chain in proptest::collection::vec(0usize..20, 0..6),
    ) {
        let mut line = format!("{spelling} -s http://127.0.0.1:9/x");
        for step in chain {
            line = match step {
                0 => format!("env {line}"),
                1 => format!("env -i PATH=/bin {line}"),
                2 => format!("FOO=1 {line}"),
                3 => format!("nice -n 5 {line}"),
                4 => format!("nohup {line}"),
                5 => format!("timeout -k 1 5 {line}"),
                6 => format!("command {line}"),
                7 => format!("exec {line}"),
                8 => format!("sudo -u root {line}"),
                9 => format!("stdbuf -oL {line}"),
                10 => format!("setsid {line}"),
                11 => format!("xargs -n1 {line}"),
                12 => format!("bash -c {}", quoted(&line)),
                13 => format!("sh -lc {}", quoted(&line)),
                14 => format!("true && {line}"),
                15 => format!("ls; {line}"),
                16 => format!("( {line} )"),
                17 => format!("{{ {line}; }}"),
                18 => format!("eval {}", quoted(&line)),
                _ => format!("find . -exec {line} \\;"),
            };
        }
        for claude in [false, true] {
            let got = outcome(evaluate(
                &profile(DenyCurl),
                ApprovalKindName::Command,
                &shell_request(&line, claude),
                &HashSet::new(),
            ));
            proptest::prop_assert_eq!(got, Deny, "{:?}", line);
        }
    }
}
