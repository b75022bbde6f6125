//! The account's rate limits with the real engines (issue 24): the fake model servers send
//! the providers' limit headers; `run` says when a window is near its limit, `doctor` shows
//! the last limits seen, and a run refused at the limit says when it resets.

use super::*;

fn in_secs(secs: u64) -> String {
    (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + secs)
        .to_string()
}

#[tokio::test]
async fn codex_limits_are_shown_and_a_refused_run_says_when_it_resets() {
    let Some((env, fake)) = engine_env("codex", "limits").await else {
        return;
    };
    let Fake::Codex(f) = &fake else {
        unreachable!()
    };
    let (soon, later) = (in_secs(3600), in_secs(86_400));
    f.set_response_headers(&[
        ("x-codex-primary-used-percent", "85.0"),
        ("x-codex-primary-window-minutes", "300"),
        ("x-codex-primary-reset-at", &soon),
        ("x-codex-secondary-used-percent", "20.0"),
        ("x-codex-secondary-window-minutes", "10080"),
        ("x-codex-secondary-reset-at", &later),
    ]);
    f.push(fake_responses::Reply::text(&["Near the limit."]));
    let ws = env.ws();
    let out = env.call(&["run", "--workspace", &ws, "Hello"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}\n{stdout}", stderr(&out));
    assert!(
        stdout.contains("-- limits: 5-hour 85 % (resets ") && stdout.contains("· weekly 20 %"),
        "{stdout}"
    );
    let doctor = env.ok(&["doctor", "--no-login"]).await;
    assert!(doctor.contains("limits:    codex 5-hour 85 %"), "{doctor}");

    // The provider refuses (codex 0.169 reads no limits from a refusal): the run says when
    // the limit it last saw resets.
    f.push(fake_responses::Reply::status(
        429,
        "You exceeded your current quota",
    ));
    let out = env.call(&["run", "--workspace", &ws, "Again"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{}\n{stdout}", stderr(&out));
    let said = format!("{stdout}{}", stderr(&out));
    assert!(
        said.contains("429") && said.contains("the 5-hour limit was last at 85 % and resets at "),
        "{said}"
    );
}

#[tokio::test]
async fn claude_subscription_limits_are_shown() {
    let Some((env, fake)) = engine_env("claude", "limits").await else {
        return;
    };
    let Fake::Claude(f) = &fake else {
        unreachable!()
    };
    // Claude Code reports limits for a subscription login (an OAuth token), not an API key.
    let ws = env.ws();
    env.ok(&[
        "profile",
        "edit",
        "test",
        "--workspace",
        &ws,
        "--clear",
        "api-key-env",
        "--secret-env",
        "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-fake",
    ])
    .await;
    let (soon, later) = (in_secs(3600), in_secs(86_400));
    f.set_response_headers(&[
        ("anthropic-ratelimit-unified-status", "allowed_warning"),
        ("anthropic-ratelimit-unified-reset", &soon),
        (
            "anthropic-ratelimit-unified-representative-claim",
            "five_hour",
        ),
        ("anthropic-ratelimit-unified-5h-utilization", "0.9"),
        ("anthropic-ratelimit-unified-5h-reset", &soon),
        ("anthropic-ratelimit-unified-5h-status", "allowed_warning"),
        ("anthropic-ratelimit-unified-7d-utilization", "0.3"),
        ("anthropic-ratelimit-unified-7d-reset", &later),
        ("anthropic-ratelimit-unified-7d-status", "allowed"),
    ]);
    f.push(fake_messages::Reply::text(&["Near the limit."]));
    let out = env.call(&["run", "--workspace", &ws, "Hello"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}\n{stdout}", stderr(&out));
    assert!(
        stdout.contains("-- limits: 5-hour 90 % (resets ") && stdout.contains("· weekly 30 %"),
        "{stdout}"
    );
    assert!(!stdout.contains("rate_limit_event"), "{stdout}");
    let doctor = env.ok(&["doctor", "--no-login"]).await;
    assert!(doctor.contains("limits:    claude 5-hour 90 %"), "{doctor}");
}
