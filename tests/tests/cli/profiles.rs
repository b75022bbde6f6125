//! `profile` add/list/edit/remove with the core's validation errors and exit codes (ACP
//! profiles too), and `doctor` (data dir, integrity, schema version, engines).

use super::*;

#[tokio::test]
async fn profile_round_trip_with_validation() {
    let Some(bin) = cli_bin() else { return };
    let env = Env::new(bin, "profiles");
    let ws = env.ws();
    let w = ws.as_str();
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        w,
        "main",
        "--engine",
        "codex",
        "--model",
        "gpt-5.1-codex",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api-key-env",
        "MY_KEY",
        "--permission-mode",
        "auto-edit",
        "--allow-tool",
        "Read",
        "--deny-tool",
        "Bash",
        "--system-prompt",
        "Be brief.",
        "--extra-dir",
        "/tmp",
        "--env",
        "FOO=bar=baz",
    ])
    .await;
    env.ok(&[
        "profile",
        "add",
        "--workspace",
        w,
        "second",
        "--engine",
        "claude",
    ])
    .await;

    // Validation errors: a clear message with its code, exit 4; nothing stored.
    for (args, msg) in [
        (vec!["--engine", "gemini"], "unknown engine"),
        (vec!["--engine", "codex", "--model", "gpt 5"], "model name"),
        (
            vec!["--engine", "codex", "--base-url", "ftp://x"],
            "base URL",
        ),
        (
            vec!["--engine", "codex", "--extra-dir", "rel/dir"],
            "not an absolute path",
        ),
        (vec!["--engine", "codex", "--env", "NOEQUALS"], "KEY=VALUE"),
        (
            vec!["--engine", "codex", "--api-key-env", "sk-123"],
            "environment variable",
        ),
        (
            vec!["--engine", "codex", "--permission-mode", "yolo"],
            "permission mode",
        ),
    ] {
        let mut full = vec!["profile", "add", "--workspace", w, "bad"];
        full.extend(args);
        let out = env.call(&full).await;
        assert_eq!(out.status.code(), Some(4), "{full:?}");
        let err = stderr(&out);
        assert!(
            err.contains("error: ") && err.contains(msg),
            "{full:?}: {err}"
        );
        assert!(err.contains("[invalid_input]"), "{err}");
    }
    let dup = env
        .call(&[
            "profile",
            "add",
            "--workspace",
            w,
            "main",
            "--engine",
            "codex",
        ])
        .await;
    assert_eq!(dup.status.code(), Some(4), "a duplicate name is a conflict");

    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    let main = &list.iter().find(|p| p["name"] == "main").unwrap();
    assert_eq!(main["isDefault"], true, "the first profile is the default");
    assert_eq!(main["model"], "gpt-5.1-codex");
    assert_eq!(main["baseUrl"], "http://127.0.0.1:9/v1");
    assert_eq!(main["apiKeyEnv"], "MY_KEY");
    assert_eq!(main["permissionMode"], "auto_edit");
    assert_eq!(main["allowedTools"], serde_json::json!(["Read"]));
    assert_eq!(main["deniedTools"], serde_json::json!(["Bash"]));
    assert_eq!(main["systemPrompt"], "Be brief.");
    assert_eq!(main["extraDirs"], serde_json::json!(["/tmp"]));
    assert_eq!(main["env"], serde_json::json!({"FOO": "bar=baz"}));

    env.ok(&[
        "profile",
        "edit",
        "--workspace",
        w,
        "second",
        "--rename",
        "fast",
        "--model",
        "claude-haiku-4-5",
        "--default",
    ])
    .await;
    env.ok(&[
        "profile",
        "edit",
        "--workspace",
        w,
        "main",
        "--clear",
        "base-url",
        "--clear",
        "env",
    ])
    .await;
    let bad_edit = env
        .call(&[
            "profile",
            "edit",
            "--workspace",
            w,
            "fast",
            "--extra-dir",
            "nope",
        ])
        .await;
    assert_eq!(bad_edit.status.code(), Some(4));
    let text = env.ok(&["profile", "list", "--workspace", w]).await;
    assert!(
        text.contains("* fast  engine=claude model=claude-haiku-4-5"),
        "{text}"
    );
    assert!(!text.contains("base url"), "{text}");
    // Env values can be secrets: the table shows names only.
    assert!(!text.contains("bar=baz"), "{text}");

    let missing = env
        .call(&["profile", "remove", "--workspace", w, "nope"])
        .await;
    assert_eq!(missing.status.code(), Some(5));
    assert!(stderr(&missing).contains("[not_found]"));
    env.ok(&["profile", "remove", "--workspace", w, "main"])
        .await;
    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);

    let nows = env
        .call(&["profile", "list", "--workspace", &s(&env.root)])
        .await;
    assert_eq!(nows.status.code(), Some(5), "not a workspace yet");
    let usage = env.call(&["profile", "frobnicate"]).await;
    assert_eq!(usage.status.code(), Some(2));
}

#[tokio::test]
async fn doctor_reports_data_dir_database_and_engines() {
    let Some(bin) = cli_bin() else { return };
    let mut env = Env::new(bin, "doctor");
    let missing = s(&env.root.join("no-such-codex"));
    env.vars
        .push(("AGENTDESK_CODEX_BIN".into(), missing.clone()));
    env.vars
        .push(("AGENTDESK_CLAUDE_BIN".into(), "/bin/true".into()));
    let out = env.ok(&["doctor", "--no-login"]).await;
    assert!(out.contains(&s(&env.root.join("data"))), "{out}");
    assert!(out.contains("integrity: ok"), "{out}");
    assert!(out.contains("schema:    version"), "{out}");
    let json: Value =
        serde_json::from_str(&env.ok(&["doctor", "--no-login", "--json"]).await).unwrap();
    assert_eq!(json["integrity"], "ok");
    assert_eq!(json["schemaVersion"], json["knownSchemaVersion"]);
    let codex = &json["engines"][0];
    assert_eq!(codex["engine"], "codex");
    assert!(codex["path"].is_null(), "{codex}");
    assert!(
        codex["problem"].as_str().unwrap().contains("no-such-codex"),
        "{codex}"
    );
    let claude = &json["engines"][1];
    // `/bin/true --version` prints nothing: found, but no version.
    assert_eq!(claude["path"], "/bin/true");
    assert!(
        claude["version"].is_null() && claude["problem"].is_string(),
        "{claude}"
    );
    let help = env.ok(&["run", "--help"]).await;
    assert!(
        help.contains("EXIT CODES") && help.contains("interrupted"),
        "{help}"
    );
}

/// Issue 21: an ACP profile names its agent by preset or command (the registry's check, with
/// the field named), the ACP flags are refused for an engine that runs its own executable, and
/// `doctor` lists each ACP agent's program as it does codex and claude.
#[tokio::test]
async fn acp_profiles_and_doctor_rows() {
    let Some(bin) = cli_bin() else { return };
    let mut env = Env::new(bin, "acp-profiles");
    let ws = env.ws();
    let w = ws.as_str();
    let add = |name: &'static str, extra: &[&'static str]| {
        let mut args = vec!["profile", "add", "--workspace", w, name];
        args.extend_from_slice(extra);
        args
    };
    let nameless = env.call(&add("none", &["--engine", "acp"])).await;
    assert_eq!(nameless.status.code(), Some(4));
    let err = stderr(&nameless);
    assert!(
        err.contains("choose a preset (opencode, gemini) or give its command"),
        "{err}"
    );
    let codex = env
        .call(&add("c", &["--engine", "codex", "--command", "/opt/x"]))
        .await;
    assert_eq!(codex.status.code(), Some(4));
    assert!(
        stderr(&codex).contains("Codex runs its own executable"),
        "{}",
        stderr(&codex)
    );
    let preset = env
        .call(&add("bad", &["--engine", "acp", "--preset", "nope"]))
        .await;
    assert_eq!(preset.status.code(), Some(4));
    assert!(stderr(&preset).contains("preset must be one of opencode, gemini"));

    env.ok(&add(
        "oc",
        &[
            "--engine",
            "acp",
            "--preset",
            "opencode",
            "--arg",
            "--print-logs",
            "--env",
            "K=V",
        ],
    ))
    .await;
    env.ok(&add(
        "custom",
        &[
            "--engine",
            "acp",
            "--command",
            "/opt/agent",
            "--arg",
            "--acp",
        ],
    ))
    .await;
    let list: Value = serde_json::from_str(
        &env.ok(&["profile", "list", "--workspace", w, "--json"])
            .await,
    )
    .unwrap();
    let oc = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "oc")
        .unwrap();
    assert_eq!(oc["engine"], "acp");
    assert_eq!(
        oc["engineOptions"],
        serde_json::json!({"preset": "opencode", "args": ["--print-logs"]})
    );
    assert_eq!(oc["env"], serde_json::json!({"K": "V"}));
    // A custom agent cannot be made to ask: the profile says so.
    let shown = env
        .ok(&["profile", "show", "--workspace", w, "custom"])
        .await;
    assert!(
        shown.contains("cannot make it ask before acting"),
        "{shown}"
    );

    env.vars
        .push(("AGENTDESK_OPENCODE_BIN".into(), "/bin/true".into()));
    env.vars.push((
        "AGENTDESK_GEMINI_BIN".into(),
        s(&env.root.join("no-such-gemini")),
    ));
    let json: Value =
        serde_json::from_str(&env.ok(&["doctor", "--no-login", "--json"]).await).unwrap();
    let rows = json["engines"].as_array().unwrap();
    let programs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["engine"].as_str().unwrap(),
                r["program"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        programs,
        [
            ("codex", "codex"),
            ("claude", "claude"),
            ("acp", "opencode"),
            ("acp", "gemini")
        ]
    );
    assert_eq!(rows[2]["path"], "/bin/true");
    assert!(
        rows[3]["path"].is_null() && rows[3]["problem"].is_string(),
        "{}",
        rows[3]
    );
    let text = env.ok(&["doctor", "--no-login"]).await;
    assert!(text.contains("opencode   found at /bin/true"), "{text}");
    assert!(text.contains("gemini     not found"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_probes_the_real_engines() {
    let Some((mut env, _fake)) = engine_env("codex", "doctor").await else {
        return;
    };
    let Some(claude) = engine_bin("CLAUDE_BIN", SUITE) else {
        return;
    };
    env.vars.push(("AGENTDESK_CLAUDE_BIN".into(), s(&claude)));
    let json: Value = serde_json::from_str(&env.ok(&["doctor", "--json"]).await).unwrap();
    for (i, name) in ["codex", "claude"].iter().enumerate() {
        let e = &json["engines"][i];
        assert_eq!(e["engine"], *name);
        assert!(e["version"].as_str().is_some_and(|v| !v.is_empty()), "{e}");
        // No login in these homes: reported, not an error.
        assert_eq!(e["loggedIn"], false, "{e}");
    }
    let text = env.ok(&["doctor"]).await;
    assert!(text.contains("NOT logged in"), "{text}");
}
