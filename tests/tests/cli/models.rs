//! `profile models` with the real engines (issue 24): the models each engine lists, with
//! their reasoning efforts, and a profile's `--effort` reaching the model's request.

use super::*;

async fn models_and_effort(engine: &str, expect_model: &str, effort: &str) {
    let Some((env, fake)) = engine_env(engine, "models").await else {
        return;
    };
    let ws = env.ws();
    let listed: Value = serde_json::from_str(
        &env.ok(&["profile", "models", "test", "--workspace", &ws, "--json"])
            .await,
    )
    .unwrap();
    assert!(listed["unavailable"].is_null(), "{listed}");
    let models = listed["models"].as_array().unwrap();
    let m = models
        .iter()
        .find(|m| m["id"] == expect_model)
        .unwrap_or_else(|| panic!("no {expect_model}: {listed:#}"));
    assert!(
        m["efforts"].as_array().unwrap().iter().any(|e| e == effort),
        "{m}"
    );
    assert_eq!(
        models.iter().filter(|m| m["isDefault"] == true).count(),
        1,
        "one default: {listed:#}"
    );
    let table = env
        .ok(&["profile", "models", "--engine", engine, "--workspace", &ws])
        .await;
    assert!(
        table.contains(expect_model) && table.contains("effort: "),
        "{table}"
    );

    // The profile's effort reaches the model: what the request says about reasoning
    // changes from the model's default to the effort's.
    // (Claude: a listed model that takes an effort; the fake's own name is not one.)
    let reasoning = |fake: &Fake| match fake {
        Fake::Codex(f) => f.requests().last().unwrap().body["reasoning"].clone(),
        Fake::Claude(f) => f.model_requests().last().unwrap().body["output_config"].clone(),
    };
    if engine == "claude" {
        env.on_profile(&["edit"], &["--model", expect_model]).await;
    }
    fake.push_text(&["Thinking."]);
    let out = env.call(&["run", "--workspace", &ws, "Think"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let before = reasoning(&fake);
    env.on_profile(&["edit"], &["--effort", effort]).await;
    let bad = env
        .call(&[
            "profile",
            "edit",
            "test",
            "--workspace",
            &ws,
            "--effort",
            "Very High!",
        ])
        .await;
    assert_eq!(bad.status.code(), Some(4), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("reasoningEffort"), "{}", stderr(&bad));
    fake.push_text(&["Thinking hard."]);
    let out = env.call(&["run", "--workspace", &ws, "Think harder"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let after = reasoning(&fake);
    assert_ne!(before["effort"], effort, "{before}");
    assert_eq!(after["effort"], effort, "{after}");

    // A session's own model and effort (the window's picker; `run --model/--effort` without
    // --engine) go over the profile's from that run on, and stay for the session's next runs.
    let other = models
        .iter()
        .find(|m| {
            m["id"] != expect_model && m["efforts"].as_array().unwrap().iter().any(|e| e == "low")
        })
        .unwrap_or_else(|| panic!("a second model taking low: {listed:#}"));
    let other = other["id"].as_str().unwrap();
    let model_of = |fake: &Fake| match fake {
        Fake::Codex(f) => f.requests().last().unwrap().body["model"].clone(),
        Fake::Claude(f) => f.model_requests().last().unwrap().body["model"].clone(),
    };
    fake.push_text(&["On the other model."]);
    let out = env
        .call(&[
            "run",
            "--workspace",
            &ws,
            "--json",
            "--model",
            other,
            "--effort",
            "low",
            "Go",
        ])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let sid = session_of(&out);
    let on_other = |v: &Value| {
        let v = v.as_str().unwrap_or_default();
        // Claude's aliases name a family (`sonnet`); the request names the model.
        if engine == "claude" {
            v.contains(other)
        } else {
            v == other
        }
    };
    assert!(
        on_other(&model_of(&fake)),
        "{} is not {other}",
        model_of(&fake)
    );
    assert_eq!(reasoning(&fake)["effort"], "low", "{}", reasoning(&fake));
    fake.push_text(&["Still there."]);
    let out = env.call(&["run", "--session", &sid, "Again"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(on_other(&model_of(&fake)), "kept: {}", model_of(&fake));
    assert_eq!(
        reasoning(&fake)["effort"],
        "low",
        "kept: {}",
        reasoning(&fake)
    );
    // An effort the engine does not take is refused before anything runs.
    let bad = env
        .call(&["run", "--session", &sid, "--effort", "Very High!", "No"])
        .await;
    assert_eq!(bad.status.code(), Some(4), "{}", stderr(&bad));
}

#[tokio::test]
async fn codex_lists_its_models_and_takes_an_effort() {
    models_and_effort("codex", "gpt-5.5", "high").await;
}

#[tokio::test]
async fn claude_lists_its_models_and_takes_an_effort() {
    models_and_effort("claude", "opus", "high").await;
}
