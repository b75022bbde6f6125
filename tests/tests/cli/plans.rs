//! The agent's plan with the real engines (issue 24): Codex's `update_plan` tool and Claude's
//! task tools, called by the fake model, become one checklist per run — printed by `run`,
//! shown by `show`, exported as a task list — and Claude's tasks of an earlier run keep their
//! subjects when the next run only names them by id.

use super::*;

fn function_call(id: &str, name: &str, args: Value) -> fake_responses::Reply {
    fake_responses::Reply::Stream(vec![fake_responses::Step::FunctionCall {
        call_id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }])
}

fn tool_use(id: &str, name: &str, input: Value) -> fake_messages::Reply {
    fake_messages::Reply::Stream(vec![fake_messages::Step::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }])
}

#[tokio::test]
async fn codex_update_plan_is_a_checklist() {
    let Some((env, fake)) = engine_env("codex", "plan").await else {
        return;
    };
    let Fake::Codex(f) = &fake else {
        unreachable!()
    };
    let step = |s: &str, st: &str| serde_json::json!({"step": s, "status": st});
    f.push(function_call(
        "call_plan_1",
        "update_plan",
        serde_json::json!({"explanation": "Starting with the code", "plan": [
            step("Read the code", "completed"),
            step("Write the fix", "in_progress"),
            step("Run the tests", "pending")]}),
    ));
    f.push(function_call(
        "call_plan_2",
        "update_plan",
        serde_json::json!({"plan": [
            step("Read the code", "completed"),
            step("Write the fix", "completed"),
            step("Run the tests", "in_progress")]}),
    ));
    f.push(fake_responses::Reply::text(&["Planned."]));
    let ws = env.ws();
    let out = env.call(&["run", "--workspace", &ws, "Fix it"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}\n{stdout}", stderr(&out));
    assert!(
        stdout.contains(
            "[plan] 1 of 3 done\n  ✓ Read the code\n  → Write the fix\n  · Run the tests"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("[plan] 2 of 3 done"), "{stdout}");
    assert!(
        !stdout.contains("[update_plan]"),
        "a tool card too: {stdout}"
    );

    let listed: Value = serde_json::from_str(&env.ok(&["sessions", "--json"]).await).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    // One plan item for the run, showing the last list.
    let shown = env.ok(&["show", &id]).await;
    assert_eq!(shown.matches("[plan]").count(), 1, "{shown}");
    assert!(shown.contains("[plan] 2 of 3 done"), "{shown}");
    let md = env.ok(&["export", &id, "--format", "md"]).await;
    assert!(
        md.contains("**Plan** (2 of 3 done)\n\n- [x] Read the code\n- [x] Write the fix\n- [ ] Run the tests *(in progress)*"),
        "{md}"
    );
}

#[tokio::test]
async fn claude_tasks_are_a_checklist_across_runs() {
    let Some((env, fake)) = engine_env("claude", "plan").await else {
        return;
    };
    let Fake::Claude(f) = &fake else {
        unreachable!()
    };
    let create = |subject: &str, active: &str| serde_json::json!({"subject": subject, "description": subject, "activeForm": active});
    f.push(tool_use(
        "toolu_p1",
        "TaskCreate",
        create("Write the tests", "Writing the tests"),
    ));
    f.push(tool_use(
        "toolu_p2",
        "TaskCreate",
        create("Ship it", "Shipping"),
    ));
    f.push(tool_use(
        "toolu_p3",
        "TaskUpdate",
        serde_json::json!({"taskId": "1", "status": "in_progress"}),
    ));
    f.push(fake_messages::Reply::text(&["Working on it."]));
    let ws = env.ws();
    let out = env
        .call(&["run", "--workspace", &ws, "--json", "Plan the work"])
        .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let id = session_of(&out);
    let shown = env.ok(&["show", &id]).await;
    assert!(
        shown.contains("[plan] 0 of 2 done\n  → Write the tests\n  · Ship it"),
        "{shown}"
    );
    assert!(!shown.contains("[TaskCreate]"), "a tool card too: {shown}");

    // The next run only names the tasks by id: their subjects come from the first run.
    f.push(tool_use(
        "toolu_p4",
        "TaskUpdate",
        serde_json::json!({"taskId": "1", "status": "completed"}),
    ));
    f.push(tool_use(
        "toolu_p5",
        "TaskUpdate",
        serde_json::json!({"taskId": "2", "status": "in_progress"}),
    ));
    f.push(fake_messages::Reply::text(&["Tests written."]));
    let out = env.call(&["run", "--session", &id, "Go on"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}\n{stdout}", stderr(&out));
    assert!(
        stdout.contains("[plan] 1 of 2 done\n  ✓ Write the tests\n  → Ship it"),
        "{stdout}"
    );
    let md = env.ok(&["export", &id, "--format", "md"]).await;
    assert!(
        md.contains("- [x] Write the tests\n- [ ] Ship it *(in progress)*"),
        "{md}"
    );
}
