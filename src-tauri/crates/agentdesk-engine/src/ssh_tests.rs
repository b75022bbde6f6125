#![allow(clippy::unwrap_used)]
use super::*;

fn loc(s: &str) -> SshLocation {
    SshLocation::parse_any(s).unwrap().unwrap()
}

/// What `sshd` does with the command line: the user's shell runs it with `-c`.
#[cfg(unix)]
fn run_as_sshd(command: &str, home: &Path) -> std::process::Output {
    std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .env_clear()
        .env("HOME", home)
        .env("SHELL", "/bin/sh")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn launch_command_takes_the_login_path_the_folder_and_only_the_given_variables() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("tools");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("fake-engine");
    std::fs::write(
        &tool,
        "#!/bin/sh\nprintf '%s|' \"$(pwd)\" \"$@\" \"$SECRET_ONE\" \"$PROFILE_VAR\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A chatty .profile puts the tool on PATH (as npm's global bin would be).
    std::fs::write(
        home.path().join(".profile"),
        format!("echo welcome\nPATH=\"{}:$PATH\"\n", bin.display()),
    )
    .unwrap();
    let work = home.path().join("it's a \"folder\" $x");
    std::fs::create_dir(&work).unwrap();
    let cmd = launch_command(
        work.to_str().unwrap(),
        "fake-engine",
        &["app-server".into(), "--x=a b'c".into()],
        &[
            ("PROFILE_VAR".into(), "v$1 'q'".into()),
            ("bad name".into(), "ignored".into()),
        ],
    );
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(&cmd)
        .env_clear()
        .env("HOME", home.path())
        .env("SHELL", "/bin/sh")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let canonical = std::fs::canonicalize(&work).unwrap();
    // What sshd set and the profile's variables are all there is.
    assert_eq!(
        stdout,
        format!("{}|app-server|--x=a b'c||v$1 'q'|", canonical.display())
    );

    let missing = launch_command("/no/such/folder", "fake-engine", &[], &[]);
    let out = run_as_sshd(&missing, home.path());
    assert_eq!(out.status.code(), Some(EXIT_NO_FOLDER));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the folder /no/such/folder does not exist"),
        "{err}"
    );

    let absent = launch_command(work.to_str().unwrap(), "no-such-engine", &[], &[]);
    let out = run_as_sshd(&absent, home.path());
    assert_eq!(out.status.code(), Some(EXIT_NO_PROGRAM));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-engine is not installed on"), "{err}");
    assert!(
        err.contains(bin.to_str().unwrap()),
        "the PATH searched: {err}"
    );
}

#[test]
fn quoting_survives_the_shell() {
    for s in ["plain", "a b", "it's", "$HOME `x` \\n \"q\"", ""] {
        let q = sh_quote(s);
        #[cfg(unix)]
        {
            let out = std::process::Command::new("/bin/sh")
                .arg("-c")
                .arg(format!("printf %s {q}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), s);
        }
        assert!(q.starts_with('\''));
    }
}

#[test]
fn ssh_errors_become_what_to_do() {
    let h = loc("me@devbox:2222:/p");
    let changed = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.";
    let r = reason(Some(255), changed, &h);
    assert!(r.contains("host key of devbox has changed"), "{r}");
    assert!(r.contains("ssh-keygen -R devbox"), "{r}");
    let r = reason(
        Some(255),
        "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.",
        &h,
    );
    assert!(
        r.contains("not known yet") && r.contains("ssh me@devbox"),
        "{r}"
    );
    let r = reason(
        Some(255),
        "ssh: Could not resolve hostname devbox: Name or service not known",
        &h,
    );
    assert!(r.contains("name lookup failed"), "{r}");
    let r = reason(
        Some(255),
        "ssh: connect to host devbox port 2222: Connection refused",
        &h,
    );
    assert!(
        r.contains("refused the connection") && r.contains("2222"),
        "{r}"
    );
    let r = reason(Some(255), "me@devbox: Permission denied (publickey).", &h);
    assert!(r.contains("refused the login"), "{r}");
    let r = reason(Some(255), "", &h);
    assert_eq!(r, "the connection to devbox was lost");
    let r = reason(
        Some(255),
        "2026-12-03 ERROR codex_app_server: something of its own",
        &h,
    );
    assert_eq!(
        r, "the connection to devbox was lost",
        "an engine's log line is not the reason"
    );
    let r = reason(Some(255), "client_loop: send disconnect: Broken pipe", &h);
    assert_eq!(
        r,
        "the connection to devbox was lost (client_loop: send disconnect: Broken pipe)"
    );
    let r = reason(Some(97), "the folder /x does not exist on devbox\n", &h);
    assert_eq!(r, "the folder /x does not exist on devbox");
}

#[test]
fn sockets_are_short_and_per_host() {
    let dir = Path::new("/d");
    let a = RemoteHost::new(&loc("devbox:/a"), dir);
    let b = RemoteHost::new(&loc("devbox:/b"), dir);
    let c = RemoteHost::new(&loc("other@devbox:/a"), dir);
    if cfg!(unix) {
        assert_eq!(a.control_path, b.control_path, "one connection per host");
        assert_ne!(a.control_path, c.control_path);
        assert_eq!(
            a.control_path.clone().unwrap().as_os_str().len(),
            "/d/".len() + 16
        );
    }
    let args: Vec<String> = a
        .channel_args(false, "true".into())
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    for want in [
        "BatchMode=yes",
        "StrictHostKeyChecking=yes",
        "ForwardAgent=no",
    ] {
        assert!(args.iter().any(|a| a == want), "{want} in {args:?}");
    }
    let forwarded: Vec<String> = a
        .clone()
        .forwarding_agent(true)
        .channel_args(true, "true".into())
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    assert!(
        forwarded.iter().any(|a| a == "ForwardAgent=yes"),
        "{forwarded:?}"
    );
    // An engine's channel forwards as its host says (the spec's `remote` is the host):
    // off unless the profile turned it on.
    assert!(a.clone().forwarding_agent(true).forward_agent);
    assert!(!a.forward_agent);
    // The destination comes after `--`: it cannot be read as an option.
    let dd = args.iter().position(|a| a == "--").unwrap();
    assert_eq!(args[dd + 1], "devbox");
}
