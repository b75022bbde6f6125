#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn os(s: &str) -> OsString {
    OsString::from(s)
}

#[test]
fn the_path_between_the_markers_is_read_whatever_the_rc_files_print() {
    let m = "_AGENTDESK_PATH_1_2_";
    let out = format!(
        "Welcome to fish!\r\n+ echo {m}\nnvm: using v20\n{m}\n/opt/homebrew/bin:/usr/bin:/bin\n{m}\nbye\n"
    );
    assert_eq!(
        parse_probe_output(out.as_bytes(), m),
        Some(os("/opt/homebrew/bin:/usr/bin:/bin"))
    );
    // CRLF and trailing blanks.
    let out = format!("{m}\r\n/a:/b  \r\n{m}\r\n");
    assert_eq!(parse_probe_output(out.as_bytes(), m), Some(os("/a:/b")));
    // One marker only (the shell died), none, or nothing between them.
    assert_eq!(parse_probe_output(format!("{m}\n/a\n").as_bytes(), m), None);
    assert_eq!(parse_probe_output(b"/a:/b\n", m), None);
    assert_eq!(
        parse_probe_output(format!("{m}\n\n{m}\n").as_bytes(), m),
        None
    );
    // A line that merely contains the marker (xtrace) is not one.
    let out = format!("+ echo {m}\n/x\n+ echo {m}\n");
    assert_eq!(parse_probe_output(out.as_bytes(), m), None);
}

#[cfg(unix)]
#[test]
fn a_desktop_path_gets_the_login_entries_first() {
    let login = os("/opt/homebrew/bin:/Users/u/.nvm/versions/node/v20/bin:/usr/bin:/bin");
    let launchd = os("/usr/bin:/bin:/usr/sbin:/sbin");
    assert_eq!(
        merge(&login, Some(&launchd)),
        os("/opt/homebrew/bin:/Users/u/.nvm/versions/node/v20/bin:/usr/bin:/bin:/usr/sbin:/sbin")
    );
    assert_eq!(merge(&login, None), login);
    // Duplicates and empty entries (the cwd!) go.
    assert_eq!(merge(&os("/a::/b:/a"), Some(&os(":/c:/b"))), os("/a:/b:/c"));
}

#[cfg(unix)]
#[test]
fn a_path_that_already_has_every_login_entry_is_left_as_it_is() {
    // Started from a terminal with a venv activated: its order wins.
    let login = os("/opt/homebrew/bin:/usr/bin:/bin");
    let shell = os("/work/.venv/bin:/usr/bin:/opt/homebrew/bin:/bin:/usr/bin");
    assert_eq!(merge(&login, Some(&shell)), shell);
}

#[cfg(unix)]
#[test]
fn the_engines_folder_goes_first_once() {
    let path = os("/usr/bin:/home/u/.nvm/versions/node/v20/bin:/bin");
    assert_eq!(
        prepend(
            &[PathBuf::from("/home/u/.nvm/versions/node/v20/bin")],
            Some(&path)
        ),
        os("/home/u/.nvm/versions/node/v20/bin:/usr/bin:/bin")
    );
    assert_eq!(prepend(&[PathBuf::from("/e")], None), os("/e"));
    assert_eq!(prepend(&[], Some(&path)), path);
}

#[test]
fn shells_are_asked_as_interactive_login_shells_except_csh() {
    let cmd = probe_command("M");
    assert_eq!(cmd, "echo M; printenv PATH; echo M");
    let args = shell_args(std::path::Path::new("/bin/zsh"), &cmd);
    assert_eq!(args, [os("-i"), os("-l"), os("-c"), os(&cmd)]);
    let args = shell_args(std::path::Path::new("/bin/tcsh"), &cmd);
    assert_eq!(args, [os("-c"), os(&cmd)]);
}

#[cfg(unix)]
mod unix_probe {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use std::time::Instant;

    use super::*;
    use crate::error::EngineError;

    fn shell_script(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("login-shell");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_real_login_shell_is_read() {
        // What every Debian/macOS machine has: sh as an interactive login shell.
        let path = super::super::unix::probe(Path::new("/bin/sh"), PROBE_TIMEOUT).unwrap();
        assert!(!path.is_empty());
    }

    #[test]
    fn a_noisy_rc_file_does_not_matter() {
        let dir = tempfile::tempdir().unwrap();
        // Stands in for `$SHELL -i -l -c CMD`: rc noise, its own PATH, then CMD.
        let shell = shell_script(
            dir.path(),
            "echo 'motd: hello'; echo oops >&2\n\
             PATH=/login/bin:/usr/bin:/bin; export PATH\n\
             while [ \"$1\" != -c ]; do shift; done\n\
             exec /bin/sh -c \"$2\"",
        );
        let path = super::super::unix::probe(&shell, PROBE_TIMEOUT).unwrap();
        assert_eq!(path, os("/login/bin:/usr/bin:/bin"));
    }

    #[test]
    fn a_hanging_shell_is_killed_at_the_timeout_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("bg.pid");
        let shell = shell_script(
            dir.path(),
            &format!("sleep 60 & echo $! > {}\nexec sleep 60", pidfile.display()),
        );
        let started = Instant::now();
        let err = super::super::unix::probe(&shell, Duration::from_millis(500)).unwrap_err();
        assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(4));
        // The rc file's background job went with the shell (same session and group).
        let bg: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(3);
        // SAFETY: kill with signal 0 only checks whether the pid exists.
        while unsafe { libc::kill(bg, 0) } == 0 {
            // A zombie until init reaps it counts as gone once its state is Z.
            let state = std::fs::read_to_string(format!("/proc/{bg}/stat")).unwrap_or_default();
            if state
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
            {
                break;
            }
            assert!(Instant::now() < deadline, "background job {bg} survived");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_shell_that_prints_no_path_or_does_not_exist_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let shell = shell_script(dir.path(), "echo nothing here");
        let err = super::super::unix::probe(&shell, PROBE_TIMEOUT).unwrap_err();
        assert!(err.to_string().contains("printed no PATH"), "{err}");
        let err =
            super::super::unix::probe(Path::new("/nonexistent/shell"), PROBE_TIMEOUT).unwrap_err();
        assert!(matches!(err, EngineError::Spawn { .. }), "{err}");
    }
}
