//! `@`-mentions with the real engines (issue 24): a file the message mentions reaches the
//! model — Claude Code reads `@path` itself, Codex gets the file's text from Agent Desk —
//! and a mention that leads outside the workspace reaches nothing.

use super::*;

async fn mentioned_file_reaches_the_model(engine: &str) {
    let Some((env, fake)) = engine_env(engine, "mentions").await else {
        return;
    };
    std::fs::write(env.work.join("NOTES.md"), "zebra-notes-content\n").unwrap();
    let outside = env.root.join("secret.txt");
    std::fs::write(&outside, "outside-secret-content\n").unwrap();
    fake.push_text(&["Summarised."]);
    let ws = env.ws();
    let out = env
        .call(&[
            "run",
            "--workspace",
            &ws,
            "Summarise @NOTES.md and @../secret.txt",
        ])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let body = match &fake {
        Fake::Codex(f) => f.requests().last().unwrap().body.to_string(),
        Fake::Claude(f) => f.model_requests().last().unwrap().body.to_string(),
    };
    assert!(
        body.contains("zebra-notes-content"),
        "the file did not reach the model"
    );
    if engine == "codex" {
        assert!(
            !body.contains("outside-secret-content"),
            "a file outside the workspace was sent"
        );
    }
}

#[tokio::test]
async fn codex_gets_a_mentioned_file() {
    mentioned_file_reaches_the_model("codex").await;
}

#[tokio::test]
async fn claude_gets_a_mentioned_file() {
    mentioned_file_reaches_the_model("claude").await;
}

#[tokio::test]
async fn codex_gets_the_skill_a_message_names() {
    let Some((env, fake)) = engine_env("codex", "skills").await else {
        return;
    };
    let skill = env.work.join(".agents/skills/release-notes");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes\n---\nzebra-skill-body: list the changes.\n",
    )
    .unwrap();
    fake.push_text(&["Notes written."]);
    let ws = env.ws();
    let out = env
        .call(&["run", "--workspace", &ws, "Use $release-notes for v2"])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let Fake::Codex(f) = &fake else {
        unreachable!()
    };
    let body = f.requests().last().unwrap().body.to_string();
    assert!(
        body.contains("zebra-skill-body"),
        "the skill did not reach the model"
    );
}
