//! The engines' accounts with the real engines (issue 24, item 7): Codex logged in with an
//! API key read from stdin (stored by codex in its home, nowhere in Agent Desk's data), read
//! back, logged out; its browser flow gives the page to open (codex listening on 127.0.0.1
//! for the answer) and is cancelled by Ctrl-C with its process stopped; Claude Code's login
//! state with the commands to log in from a terminal.

use super::*;

fn walk_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn contains_bytes(path: &Path, needle: &[u8]) -> bool {
    std::fs::read(path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
}

#[tokio::test]
async fn codex_logs_in_with_a_key_and_out() {
    let Some((env, _fake)) = engine_env("codex", "account").await else {
        return;
    };
    let account = |out: String| -> Value {
        let all: Value = serde_json::from_str(&out).unwrap();
        all[0].clone()
    };
    let before = account(env.ok(&["account", "codex", "--json"]).await);
    assert_eq!(before["loggedIn"], false, "{before:#}");
    assert_eq!(
        before["loginMethods"],
        serde_json::json!(["browser", "device_code", "api_key"]),
        "{before:#}"
    );

    // The key from stdin (closed after it), never from the command line.
    const KEY: &str = "sk-agentdesk-test-0123456789";
    let mut c = env.command(&["login", "codex", "--api-key-stdin"]);
    c.stdin(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(format!("{KEY}\n").as_bytes())
        .await
        .unwrap();
    drop(input);
    let out = tokio::time::timeout(CALL, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout.contains("Codex: logged in · API key"), "{stdout}");
    let after = account(env.ok(&["account", "codex", "--json"]).await);
    assert_eq!(
        (&after["loggedIn"], &after["method"], &after["canLogOut"]),
        (
            &Value::from(true),
            &Value::from("API key"),
            &Value::from(true)
        ),
        "{after:#}"
    );
    // Codex keeps it in its home; Agent Desk's data holds no trace of it.
    let home = env.root.join("home");
    assert!(contains_bytes(&home.join("auth.json"), KEY.as_bytes()));
    let mut data = Vec::new();
    walk_files(&env.root.join("data"), &mut data);
    assert!(!data.is_empty());
    for f in &data {
        assert!(
            !contains_bytes(f, KEY.as_bytes()),
            "the key is in {}",
            f.display()
        );
    }

    let out = env.ok(&["logout", "codex"]).await;
    assert!(out.contains("Codex: not logged in"), "{out}");
    assert!(!contains_bytes(&home.join("auth.json"), KEY.as_bytes()));
    let bad = env.call(&["login", "codex", "--api-key-stdin"]).await;
    assert_eq!(bad.status.code(), Some(4), "an empty key: {}", stderr(&bad));
}

/// (Linux: the child processes are read from /proc.)
#[cfg(target_os = "linux")]
#[tokio::test]
async fn codex_browser_login_gives_the_page_and_is_cancelled_by_ctrl_c() {
    use tokio::io::AsyncBufReadExt;
    let Some((env, _fake)) = engine_env("codex", "browser").await else {
        return;
    };
    // The browser flow: the page to open, codex waiting for its answer on 127.0.0.1; Ctrl-C
    // gives it up and stops codex.
    let mut child = env.command(&["login", "codex"]).spawn().unwrap();
    let pid = child.id().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(CALL, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.trim_start().starts_with("https://") {
                return line.trim().to_owned();
            }
        }
        panic!("no page to open");
    })
    .await
    .unwrap();
    assert!(url.starts_with("https://auth.openai.com/"), "{url}");
    assert!(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1"), "{url}");
    let children: Vec<String> = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert!(!children.is_empty(), "codex is not waiting for the browser");
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = tokio::time::timeout(CALL, child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("cancelled"), "{}", stderr(&out));
    // No orphan: the codex that waited for the browser is gone with the CLI.
    let gone = |c: &String| {
        std::fs::read_to_string(format!("/proc/{c}/stat"))
            .map_or(true, |st| st.split_whitespace().nth(2) == Some("Z"))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !children.iter().all(gone) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(children.iter().all(gone), "left running: {children:?}");
}

#[tokio::test]
async fn claude_shows_its_login_state_and_commands() {
    let Some((env, _fake)) = engine_env("claude", "account").await else {
        return;
    };
    let all: Value = serde_json::from_str(&env.ok(&["account", "claude", "--json"]).await).unwrap();
    let a = &all[0];
    assert_eq!(a["loggedIn"], false, "{a:#}");
    assert_eq!(a["loginMethods"], serde_json::json!([]), "{a:#}");
    assert!(a["loginCommands"][0] == "claude", "{a:#}");
    let text = env.ok(&["account", "claude"]).await;
    assert!(
        text.contains("Claude Code: not logged in")
            && text.contains("log in from a terminal: claude"),
        "{text}"
    );
    let refused = env.call(&["login", "claude"]).await;
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        stderr(&refused).contains("cannot be logged in that way"),
        "{}",
        stderr(&refused)
    );
}
