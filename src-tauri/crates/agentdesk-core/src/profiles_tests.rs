#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::{ApprovalKindName, ApprovalRule, ErrorCode, RuleAction};

use super::*;

pub(crate) fn spec(name: &str) -> ProfileSpec {
    ProfileSpec {
        name: name.into(),
        engine: Engine::Claude,
        model: Some("claude-sonnet-4-5".into()),
        base_url: Some("https://api.example.com/v1".into()),
        api_key_env: Some("EXAMPLE_API_KEY".into()),
        permission_mode: PermissionMode::AutoEdit,
        allowed_tools: vec!["Read".into(), "Bash(git status:*)".into()],
        denied_tools: vec!["WebFetch".into()],
        system_prompt: Some("Answer in French.".into()),
        extra_dirs: vec!["/usr/share/doc".into()],
        env: [("RUST_LOG".to_string(), "debug".to_string())].into(),
        secret_env: Vec::new(),
        approval_rules: vec![ApprovalRule {
            kind: None,
            tool: Some("Grep".into()),
            command_prefix: None,
            action: RuleAction::Allow,
        }],
        approval_timeout_secs: Some(120),
        engine_options: serde_json::json!({}),
        mcp_servers: Vec::new(),
    }
}

fn err(f: impl FnOnce(&mut ProfileSpec)) -> String {
    let mut s = spec("p");
    f(&mut s);
    validate_profile(&s).unwrap_err().to_string()
}

#[test]
fn a_full_profile_is_valid_and_normalised() {
    let mut s = spec("  main ");
    s.model = Some(" ".into());
    s.system_prompt = Some("  ".into());
    let v = validate_profile(&s).unwrap();
    assert_eq!(v.name, "main");
    assert_eq!(v.model, None);
    assert_eq!(v.system_prompt, None);
    for m in [
        "gpt-5.1-codex",
        "o3",
        "openrouter/meta/llama-3:70b",
        "claude-opus-4@20250101",
    ] {
        let mut s = spec("p");
        s.model = Some(m.into());
        assert!(validate_profile(&s).is_ok(), "{m}");
    }
    for u in [
        "http://127.0.0.1:8080",
        "https://[::1]:443/v1",
        "http://localhost/x?y=1",
    ] {
        let mut s = spec("p");
        s.base_url = Some(u.into());
        assert!(validate_profile(&s).is_ok(), "{u}");
    }
}

#[test]
fn each_mistake_gets_a_clear_error() {
    assert!(err(|s| s.name = " ".into()).contains("give the profile a name"));
    assert!(err(|s| s.model = Some("gpt 5".into())).contains("model name \"gpt 5\" is not valid"));
    assert!(err(|s| s.model = Some("-x".into())).contains("not valid"));
    assert!(err(|s| s.base_url = Some("ftp://x".into())).contains("must start with http"));
    assert!(err(|s| s.base_url = Some("https://".into())).contains("no host"));
    assert!(err(|s| s.base_url = Some("https://a b".into())).contains("spaces"));
    assert!(err(|s| s.base_url = Some("http://h:99999".into())).contains("port"));
    assert!(
        err(|s| s.api_key_env = Some("sk-123".into())).contains("not an environment variable name")
    );
    assert!(err(|s| s.extra_dirs = vec!["docs".into()]).contains("not an absolute path"));
    assert!(err(|s| {
        s.env.insert("1BAD".into(), "x".into());
    })
    .contains("\"1BAD\" is not a valid environment variable name"));
    assert!(err(|s| s.denied_tools.push("Read".into())).contains("both allowed and denied"));
    assert!(err(|s| s.approval_timeout_secs = Some(0)).contains("approval timeout"));
    assert!(err(|s| s.approval_rules[0].tool = None).contains("matches nothing"));
    // A command prefix is read on shell requests only: with another kind it would match
    // nothing (issue 19, item 5).
    assert!(err(|s| {
        s.approval_rules[0].kind = Some(ApprovalKindName::Tool);
        s.approval_rules[0].command_prefix = Some("git status".into());
    })
    .contains("applies to shell commands only"));
    assert!(err(|s| s.engine_options = serde_json::json!([1])).contains("JSON object"));
    assert!(parse_engine("gemini")
        .unwrap_err()
        .to_string()
        .contains("unknown engine \"gemini\""));
    assert_eq!(parse_engine(" codex").unwrap(), Engine::Codex);
    assert_eq!(
        parse_permission_mode("auto-edit").unwrap(),
        PermissionMode::AutoEdit
    );
    assert!(parse_permission_mode("yolo").is_err());
}

#[tokio::test]
async fn several_named_profiles_one_default() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let a = desk.create_profile(&ws.id, &spec("a")).await.unwrap();
    let b = desk.create_profile(&ws.id, &spec("b")).await.unwrap();
    assert!(a.is_default && !b.is_default);
    let dup = desk.create_profile(&ws.id, &spec("a")).await.unwrap_err();
    assert_eq!(dup.code(), ErrorCode::Conflict);
    desk.set_default_profile(&b.id).await.unwrap();
    assert_eq!(
        desk.default_profile(&ws.id).await.unwrap().unwrap().id,
        b.id
    );
    let mut changed = spec("b2");
    changed.engine = Engine::Codex;
    let b2 = desk.update_profile(&b.id, &changed).await.unwrap();
    assert_eq!((b2.spec.name.as_str(), b2.is_default), ("b2", true));
    assert_eq!(
        desk.find_profile(&ws.id, "a").await.unwrap().unwrap().id,
        a.id
    );
    let bad = desk.update_profile(&b.id, &spec("")).await.unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidInput);
    desk.delete_profile(&b.id).await.unwrap();
    assert_eq!(
        desk.default_profile(&ws.id).await.unwrap().unwrap().id,
        a.id
    );
    assert_eq!(desk.list_profiles(&ws.id).await.unwrap().len(), 1);
    let missing = desk
        .create_profile(&"nope".into(), &spec("x"))
        .await
        .unwrap_err();
    assert_eq!(missing.code(), ErrorCode::NotFound);
}

#[test]
fn secret_env_names_must_have_a_value() {
    assert!(err(|s| s.secret_env = vec!["NOPE".into()]).contains("\"NOPE\" has no value"));
    let mut s = spec("p");
    s.env.insert("TOKEN".into(), "t0ken-value".into());
    s.secret_env = vec![" TOKEN".into(), "TOKEN".into()];
    assert_eq!(validate_profile(&s).unwrap().secret_env, vec!["TOKEN"]);
}

#[tokio::test]
async fn secret_env_is_stored_and_a_masked_edit_keeps_the_value() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let mut s = spec("s");
    s.env.insert("TOKEN".into(), "t0ken-value".into());
    s.secret_env = vec!["TOKEN".into()];
    let p = desk.create_profile(&ws.id, &s).await.unwrap();
    let stored = desk.get_profile(&p.id).await.unwrap();
    assert_eq!(stored.spec.secret_env, vec!["TOKEN"]);
    assert_eq!(stored.spec.env["TOKEN"], "t0ken-value");
    // An editor that saw the masked profile saves it with another change.
    let mut edited = stored.spec.masked();
    edited.model = Some("claude-opus-4".into());
    let after = desk.update_profile(&p.id, &edited).await.unwrap();
    assert_eq!(after.spec.env["TOKEN"], "t0ken-value");
    assert_eq!(after.spec.model.as_deref(), Some("claude-opus-4"));
    // A new value replaces it; un-marking it makes the value plain.
    let mut replaced = after.spec.clone();
    replaced.env.insert("TOKEN".into(), "n3w-value".into());
    let after = desk.update_profile(&p.id, &replaced).await.unwrap();
    assert_eq!(after.spec.env["TOKEN"], "n3w-value");
}

/// The fields of every error, in the order found.
fn fields(f: impl FnOnce(&mut ProfileSpec)) -> Vec<(String, String)> {
    let mut s = spec("p");
    f(&mut s);
    validate_profile_fields(&s)
        .unwrap_err()
        .into_iter()
        .map(|e| (e.field, e.message))
        .collect()
}

fn field_of(f: impl FnOnce(&mut ProfileSpec)) -> String {
    let all = fields(f);
    assert_eq!(all.len(), 1, "{all:?}");
    all[0].0.clone()
}

#[test]
fn each_error_names_its_field() {
    assert_eq!(field_of(|s| s.name = " ".into()), "name");
    assert_eq!(field_of(|s| s.model = Some("gpt 5".into())), "model");
    assert_eq!(field_of(|s| s.base_url = Some("htp://x".into())), "baseUrl");
    assert_eq!(
        field_of(|s| s.api_key_env = Some("sk-1".into())),
        "apiKeyEnv"
    );
    assert_eq!(
        field_of(|s| s.allowed_tools.push(" ".into())),
        "allowedTools"
    );
    assert_eq!(
        field_of(|s| s.denied_tools.push("Read".into())),
        "deniedTools"
    );
    assert_eq!(
        field_of(|s| s.extra_dirs = vec!["/ok".into(), "rel".into()]),
        "extraDirs.1"
    );
    assert_eq!(
        field_of(|s| {
            s.env.insert("1BAD".into(), "x".into());
        }),
        "env.1BAD"
    );
    assert_eq!(field_of(|s| s.secret_env = vec!["NOPE".into()]), "env.NOPE");
    assert_eq!(
        field_of(|s| s.approval_rules[0].tool = None),
        "approvalRules.0"
    );
    assert_eq!(
        field_of(|s| s.approval_timeout_secs = Some(0)),
        "approvalTimeoutSecs"
    );
    assert_eq!(
        field_of(|s| s.engine_options = serde_json::json!("x")),
        "engineOptions"
    );
}

#[test]
fn all_mistakes_are_reported_at_once_and_the_cli_message_joins_them() {
    let all = fields(|s| {
        s.model = Some("a b".into());
        s.base_url = Some("ftp://x".into());
    });
    let names: Vec<&str> = all.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(names, ["model", "baseUrl"]);
    assert!(all[1].1.contains("must start with http:// or https://"));
    let mut s = spec("p");
    s.model = Some("a b".into());
    s.base_url = Some("ftp://x".into());
    let e = validate_profile(&s).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    let text = e.to_string();
    assert!(text.contains("model name \"a b\"") && text.contains("must start with http"));
}

#[test]
fn engine_options_the_adapters_read_must_have_their_type() {
    // Each engine's descriptor checks its own keys (and the common ones).
    let one = |engine: Engine, v: serde_json::Value| {
        let all = fields(|s| {
            s.engine = engine;
            s.engine_options = v;
        });
        assert_eq!(all.len(), 1, "{all:?}");
        all[0].clone()
    };
    let (f, m) = one(Engine::Claude, serde_json::json!({"maxTurns": "5"}));
    assert_eq!(f, "engineOptions.maxTurns");
    assert!(m.contains("whole number"), "{m}");
    assert_eq!(
        one(Engine::Claude, serde_json::json!({"maxTurns": 0})).0,
        "engineOptions.maxTurns"
    );
    for engine in [Engine::Codex, Engine::Claude] {
        assert_eq!(
            one(engine, serde_json::json!({"inactivityTimeoutSecs": -1})).0,
            "engineOptions.inactivityTimeoutSecs"
        );
    }
    assert_eq!(
        one(Engine::Codex, serde_json::json!({"planMode": "yes"})).0,
        "engineOptions.planMode"
    );
    assert_eq!(
        one(Engine::Codex, serde_json::json!({"codexHome": "rel/dir"})).0,
        "engineOptions.codexHome"
    );
    assert_eq!(
        one(
            Engine::Claude,
            serde_json::json!({"settingSources": ["user", "everything"]})
        )
        .0,
        "engineOptions.settingSources"
    );
    assert_eq!(
        one(
            Engine::Codex,
            serde_json::json!({"configOverrides": {"a b": "1"}})
        )
        .0,
        "engineOptions.configOverrides.a b"
    );
    assert_eq!(
        one(Engine::Acp, serde_json::json!({"args": ["--acp"]})).0,
        "engineOptions.command"
    );
    // What the adapters accept passes, and keys of other engines or later versions are kept.
    let mut s = spec("p");
    s.engine_options = serde_json::json!({
        "maxTurns": 3, "settingSources": ["user", "project"], "inactivityTimeoutSecs": 0,
        "codexHome": "/home/u/.codex", "planMode": true, "trustProjectConfig": false,
        "requestMaxRetries": 0, "configOverrides": {"x.y": 1}, "somethingNew": [1]
    });
    assert_eq!(
        validate_profile(&s).unwrap().engine_options,
        s.engine_options
    );
}

#[tokio::test]
async fn the_window_gets_masked_secrets_and_duplicates_keep_them_inside_the_core() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let mut s = spec("main");
    s.env.insert("TOKEN".into(), "t0ken-value".into());
    s.secret_env = vec!["TOKEN".into()];
    let p = desk.create_profile(&ws.id, &s).await.unwrap();
    let shown = desk.list_profiles_masked(&ws.id).await.unwrap();
    let text = serde_json::to_string(&shown).unwrap();
    assert!(!text.contains("t0ken-value"), "{text}");
    assert_eq!(shown[0].spec.env["TOKEN"], SECRET_MASK);
    assert_eq!(shown[0].spec.env["RUST_LOG"], "debug");

    let copy = desk.duplicate_profile(&p.id).await.unwrap();
    assert_eq!(copy.spec.name, "main (copy)");
    assert!(!copy.is_default);
    assert_eq!(copy.spec.env["TOKEN"], "t0ken-value");
    let again = desk.duplicate_profile(&p.id).await.unwrap();
    assert_eq!(again.spec.name, "main (copy 2)");

    // A secret renamed in the editor arrives with the mask as its value: it must be typed
    // again, not stored as the mask.
    let mut renamed = shown[0].spec.clone();
    renamed.env.remove("TOKEN");
    renamed.env.insert("NEW_TOKEN".into(), SECRET_MASK.into());
    renamed.secret_env = vec!["NEW_TOKEN".into()];
    let e = desk.update_profile(&p.id, &renamed).await.unwrap_err();
    let CoreError::InvalidProfile(f) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(f[0].field, "env.NEW_TOKEN");
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    // Un-marked without a new value: the mask is not saved as the plain value either.
    let mut unmarked = shown[0].spec.clone();
    unmarked.secret_env.clear();
    let e = desk.update_profile(&p.id, &unmarked).await.unwrap_err();
    assert!(e.to_string().contains("type the value of TOKEN"), "{e}");
    assert_eq!(
        desk.get_profile(&p.id).await.unwrap().spec.env["TOKEN"],
        "t0ken-value"
    );
    let mut fresh = spec("other");
    fresh.env.insert("K".into(), SECRET_MASK.into());
    fresh.secret_env = vec!["K".into()];
    assert!(matches!(
        desk.create_profile(&ws.id, &fresh).await.unwrap_err(),
        CoreError::InvalidProfile(_)
    ));
}

/// Issue 19 item 2: an extra folder is read by Claude without asking, so `/`, the home
/// folder and anything holding it are refused, also when reached through `..` or a symlink.
#[cfg(unix)]
#[test]
fn extra_dirs_that_are_the_root_or_the_home_folder_are_refused() {
    use super::validate::extra_dir_problem_with_home;
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let home = root.join("home").join("me");
    let project = home.join("src").join("app");
    std::fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink(&home, root.join("to-home")).unwrap();
    std::os::unix::fs::symlink("/", root.join("to-root")).unwrap();
    let p = |p: &std::path::Path| p.display().to_string();
    let check = |d: &str| extra_dir_problem_with_home(d, Some(&home));
    for (bad, why) in [
        ("/".to_string(), "root of the file system"),
        ("/tmp/..".to_string(), "root of the file system"),
        (p(&root.join("to-root")), "root of the file system"),
        (p(&home), "home folder"),
        (format!("{}/", p(&home)), "home folder"),
        (p(&project.join("../..")), "home folder"),
        (p(&root.join("to-home")), "home folder"),
        (p(&root.join("home")), "holds it"),
        (p(&root.join("nowhere/../home/me")), "home folder"),
    ] {
        let msg = check(&bad).unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(msg.contains(why) && msg.contains(&bad), "{bad}: {msg}");
    }
    for good in [
        p(&project),
        p(&root.join("to-home/src")),
        "/usr/share/doc".into(),
    ] {
        assert_eq!(check(&good), None, "{good}");
    }
    // Through the validation, with the real home folder: the field says which entry.
    if let Some(real_home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = real_home.to_string_lossy().into_owned();
        let f = fields(|s| s.extra_dirs = vec!["/usr/share/doc".into(), home.clone()]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "extraDirs.1");
        assert!(f[0].1.contains("home folder"), "{f:?}");
    }
    let f = fields(|s| s.extra_dirs = vec!["/".into()]);
    assert_eq!(f[0].0, "extraDirs.0", "{f:?}");
}

/// Issue 24: MCP servers are checked like the rest, each error on its server's field.
#[test]
fn mcp_servers_are_checked_field_by_field() {
    use agentdesk_protocol::ui::McpServer;
    let ok = |s: &mut ProfileSpec| {
        let mut notes = McpServer::stdio(" notes ", " /bin/notes ");
        notes.env_vars = vec![" TOKEN ".into(), String::new()];
        let mut web = McpServer::http("web", "https://mcp.example/x");
        web.bearer_token_env = Some("WEB_TOKEN".into());
        s.mcp_servers = vec![notes, web];
    };
    let mut s = spec("p");
    ok(&mut s);
    let v = validate_profile(&s).unwrap();
    assert_eq!(v.mcp_servers[0].name, "notes");
    assert_eq!(v.mcp_servers[0].command.as_deref(), Some("/bin/notes"));
    assert_eq!(v.mcp_servers[0].env_vars, ["TOKEN"]);

    let one = |f: fn(&mut Vec<McpServer>)| {
        fields(|s| {
            ok(s);
            f(&mut s.mcp_servers);
        })
    };
    assert_eq!(
        one(|m| m[0].name = "my server".into())[0].0,
        "mcpServers.0.name"
    );
    assert!(one(|m| m[1].name = "notes".into())[0]
        .1
        .contains("two MCP servers are named"));
    assert_eq!(one(|m| m[0].command = None)[0].0, "mcpServers.0.command");
    assert_eq!(
        one(|m| m[0].url = Some("https://x".into()))[0].0,
        "mcpServers.0.url"
    );
    assert_eq!(
        one(|m| m[1].url = Some("ftp://x".into()))[0].0,
        "mcpServers.1.url"
    );
    let token = one(|m| m[1].bearer_token_env = Some("sk-abc".into()));
    assert_eq!(token[0].0, "mcpServers.1.bearerTokenEnv");
    assert!(token[0].1.contains("not the token"), "{token:?}");
    assert_eq!(
        one(|m| m[0].env_vars = vec!["A=B".into()])[0].0,
        "mcpServers.0.envVars"
    );
    // An engine that takes none says so.
    let acp = fields(|s| {
        ok(s);
        s.engine = Engine::Acp;
        s.engine_options = serde_json::json!({"command": "opencode", "args": ["acp"]});
    });
    assert!(acp.iter().any(|(f, _)| f == "mcpServers"), "{acp:?}");
}
