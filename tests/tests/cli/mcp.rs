//! A profile's MCP servers with the real engines (issue 24): a real stdio MCP server
//! (`fake-mcp`) added with `profile mcp add`, reported connected with its tool by the engine
//! itself (`profile mcp list`), called by the model through the engine, its approval asked
//! through the queue, its call shown with the server's name; a disabled server is passed to
//! no engine.

use super::*;

const FAKE_MCP: &str = env!("CARGO_BIN_EXE_fake-mcp");

fn tool_names(fake: &Fake) -> Vec<String> {
    let body = match fake {
        Fake::Codex(f) => f.requests().last().unwrap().body.clone(),
        Fake::Claude(f) => f.model_requests().last().unwrap().body.clone(),
    };
    let mut names = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(n)) = o.get("name") {
                    out.push(n.clone());
                }
                o.values().for_each(|v| walk(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(&body["tools"], &mut names);
    names
}

async fn mcp_servers(engine: &str) {
    let Some((env, fake)) = engine_env(engine, "mcp").await else {
        return;
    };
    let ws = env.ws();
    let log = env.root.join("notes.log");
    // The server gets the variable by name; its value is in the profile's environment.
    env.on_profile(&["edit"], &["--env", &format!("FAKE_MCP_LOG={}", s(&log))])
        .await;
    env.on_profile(
        &["mcp", "add"],
        &["notes", "--env", "FAKE_MCP_LOG", "--", FAKE_MCP],
    )
    .await;
    env.on_profile(
        &["mcp", "add"],
        &[
            "web",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--token-env",
            "WEB_TOKEN",
            "--disabled",
        ],
    )
    .await;
    // A program that is not there: reported failed, the run says so and goes on.
    env.on_profile(
        &["mcp", "add"],
        &["broken", "--", "/nonexistent/agentdesk-mcp"],
    )
    .await;
    let bad = env
        .call(&[
            "profile",
            "mcp",
            "add",
            "--workspace",
            &ws,
            "test",
            "bad name",
            "--",
            FAKE_MCP,
        ])
        .await;
    assert_eq!(bad.status.code(), Some(4), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("MCP server name"), "{}", stderr(&bad));

    // The engine itself reports the server and its tool.
    let listed = env.on_profile(&["mcp", "list"], &[]).await;
    assert!(
        listed.lines().any(|l| l.starts_with("notes")
            && l.contains("connected")
            && l.contains("tools: note")),
        "{listed}"
    );
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("web") && l.contains("disabled")),
        "{listed}"
    );
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("broken") && l.contains("failed") && l.contains("error: ")),
        "{listed}"
    );
    let report: Value =
        serde_json::from_str(&env.on_profile(&["mcp", "list"], &["--json"]).await).unwrap();
    assert_eq!(report["servers"][0]["state"], "connected", "{report:#}");
    assert_eq!(
        report["servers"][0]["tools"][0]["name"], "note",
        "{report:#}"
    );
    assert_eq!(report["servers"][1]["state"], "disabled", "{report:#}");

    if engine == "codex" {
        // Codex 0.169 defers a catalog model's MCP tools behind its `tool_search`, which it
        // offers only with OpenAI's own service: a model it has no metadata for gets them
        // directly, as one namespace per server.
        env.on_profile(&["edit"], &["--model", "mock-model"]).await;
    }
    // The model sees the server's tool (and nothing of the disabled one)...
    fake.push_text(&["Ready."]);
    let out = env
        .call(&["run", "--workspace", &ws, "--json", "What can you use?"])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let sid = session_of(&out);
    let names = tool_names(&fake);
    // Codex offers a server as a namespace of tools; Claude Code as `mcp__<server>__<tool>`.
    let tool = match engine {
        "codex" => "mcp__notes::note".to_owned(),
        _ => "mcp__notes__note".to_owned(),
    };
    // (Claude Code defers MCP tools behind its ToolSearch: the session lists the tool, the
    // request carries the search tool.)
    let started = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(
        names.iter().any(|n| n == "mcp__notes") && names.iter().any(|n| n == "note")
            || started.contains("\"mcp__notes__note\"") && names.iter().any(|n| n == "ToolSearch"),
        "no MCP tool offered: {names:?}\n{started}"
    );
    assert!(!names.iter().any(|n| n.contains("web")), "{names:?}");
    assert!(
        started.contains("The MCP server broken could not start"),
        "no warning for the broken server: {started}"
    );

    // ...calls it: the call is asked (the queue), runs in the server, shows the server.
    match &fake {
        Fake::Codex(f) => f.push(fake_responses::Reply::Stream(vec![
            fake_responses::Step::FunctionCall {
                call_id: "call_mcp_1".into(),
                name: tool.clone(),
                arguments: serde_json::json!({"text": "buy milk"}).to_string(),
            },
        ])),
        Fake::Claude(f) => f.push(fake_messages::Reply::Stream(vec![
            fake_messages::Step::ToolUse {
                id: "toolu_mcp_1".into(),
                name: tool.clone(),
                input: serde_json::json!({"text": "buy milk"}),
            },
        ])),
    }
    fake.push_text(&["Noted."]);
    let out = env
        .call_with_stdin(&["run", "--session", &sid, "Note: buy milk"], "y\n")
        .await;
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
    eprintln!("{stdout}\n{err}");
    assert!(out.status.success(), "{err}");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default().trim(),
        "buy milk",
        "the server was not called with its variable"
    );
    assert!(
        stdout.contains("[notes/note]"),
        "the server's name: {stdout}"
    );
    assert!(stdout.contains("Noted."), "{stdout}");
    let shown = env.ok(&["show", &sid]).await;
    assert!(shown.contains("noted: buy milk"), "{shown}");
}

#[tokio::test]
async fn codex_runs_a_profiles_mcp_server() {
    mcp_servers("codex").await;
}

#[tokio::test]
async fn claude_runs_a_profiles_mcp_server() {
    mcp_servers("claude").await;
}
