//! Subagents in the terminal (issue 24): Claude Code's `Agent` call starts a subagent whose
//! command is approved by `--approve accept`; `run` prints the subagent's work indented
//! under the call, and the approval names it; `show` keeps the nesting and the Markdown
//! export quotes it under the call.

use super::*;

#[tokio::test]
async fn claude_subagent_work_is_indented_under_its_call() {
    let Some((env, fake)) = engine_env("claude", "subagent").await else {
        return;
    };
    let Fake::Claude(f) = &fake else {
        unreachable!()
    };
    fake_messages::push_subagent_script(f, "SUB-DONE: 3 files", "Started it; waiting.");
    f.push(fake_messages::Reply::text(&["It counted 3 files."]));
    let ws = env.ws();
    let out = env
        .call(&[
            "run",
            "--workspace",
            &ws,
            "--approve",
            "accept",
            "MAIN-PROMPT count",
        ])
        .await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}\n{stdout}", stderr(&out));
    assert!(
        stdout.contains("    ↳ [Bash] touch sub-made.txt\n"),
        "{stdout}"
    );
    assert!(stdout.contains("    ↳ SUB-DONE: 3 files\n"), "{stdout}");
    assert!(stdout.contains("\nIt counted 3 files.\n"), "{stdout}");
    let err = stderr(&out);
    assert!(
        err.contains("[asked by the subagent general-purpose: Count files]"),
        "{err}"
    );
    assert!(std::path::Path::new(&ws).join("sub-made.txt").exists());

    let listed: Value = serde_json::from_str(&env.ok(&["sessions", "--json"]).await).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    let shown = env.ok(&["show", &id]).await;
    assert!(
        shown.contains("    ↳ [Bash] touch sub-made.txt (completed)"),
        "{shown}"
    );
    assert!(shown.contains("    ↳ SUB-DONE: 3 files"), "{shown}");
    let md = env.ok(&["export", &id, "--format", "md"]).await;
    assert!(
        md.contains("> ### Subagent\n>\n> SUB-DONE: 3 files"),
        "{md}"
    );
}
