#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use agentdesk_protocol::events::{AgentEvent, FileChangeKind, ToolStatus};
use serde_json::json;

use super::*;

/// A transcript the pinned claude (2.1.328) wrote for two turns against the fake model (a
/// text answer; a Bash call the user approved, then text), its bookkeeping lines kept except
/// the request dumps, the folder renamed.
fn fixture() -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude_history/session.jsonl"),
    )
    .unwrap()
}

fn read_bytes(content: &[u8], from: u64) -> HistoryRead {
    let dir = tempfile::tempdir().unwrap();
    let p = dir
        .path()
        .join("78f3acaa-792c-4a1e-8234-e8a6eb774961.jsonl");
    std::fs::write(&p, content).unwrap();
    read_transcript(&p, from).unwrap()
}

fn kinds(t: &HistoryTurn) -> Vec<&'static str> {
    t.events.iter().map(AgentEvent::type_name).collect()
}

#[test]
fn a_real_transcript_reads_as_two_turns_of_canonical_events() {
    let bytes = fixture();
    let r = read_bytes(&bytes, 0);
    assert_eq!(r.origin, SessionOrigin::ClaudeCode);
    assert_eq!(
        r.session_id.as_deref(),
        Some("78f3acaa-792c-4a1e-8234-e8a6eb774961")
    );
    assert_eq!(r.cwd, Some(PathBuf::from("/home/dev/project")));
    assert_eq!(r.version.as_deref(), Some("2.1.328"));
    assert_eq!((r.read_to, r.skipped), (bytes.len() as u64, 0));
    assert_eq!(r.turns.len(), 2, "{:#?}", r.turns);
    let (t1, t2) = (&r.turns[0], &r.turns[1]);
    assert_eq!(t1.prompt, "first question");
    assert!(t1.complete && t2.complete);
    assert_eq!(kinds(t1), ["message.completed", "usage"]);
    assert!(t1.started_at.unwrap() <= t1.ended_at.unwrap());
    assert_eq!(t2.prompt, "run echo");
    assert_eq!(
        kinds(t2),
        [
            "message.completed",
            "tool.started",
            "tool.completed",
            "message.completed",
            "usage"
        ]
    );
    let AgentEvent::ToolCompleted {
        name,
        status,
        output,
        input,
        ..
    } = &t2.events[2]
    else {
        panic!("{:?}", t2.events[2]);
    };
    assert_eq!((name.as_str(), *status), ("Bash", ToolStatus::Completed));
    assert_eq!(output.as_deref(), Some("(Bash completed with no output)"));
    assert_eq!(input["command"], "touch made.txt");
    assert!(matches!(&t2.events[3], AgentEvent::MessageCompleted { text, .. } if text == "Done."));
    // One model message spans several lines: its usage counts once.
    assert!(matches!(&t2.events[4], AgentEvent::Usage(u) if u.input == 20 && u.output == 10));
    // Reading again from where the last turn began gives that turn again (a re-scan of a
    // growing file re-reads only its last turn).
    let again = read_bytes(&bytes, t2.at);
    assert_eq!(again.turns, vec![t2.clone()]);
}

#[test]
fn a_file_being_written_ends_in_an_unfinished_turn_and_an_unread_line() {
    let bytes = fixture();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let cut = text.find("\"Done.\"").unwrap();
    let r = read_bytes(&bytes[..cut], 0);
    let line_start = text[..cut].rfind('\n').unwrap() as u64 + 1;
    assert_eq!(
        r.read_to, line_start,
        "the half line is left for the next read"
    );
    assert_eq!(r.skipped, 0);
    let last = r.turns.last().unwrap();
    assert!(!last.complete);
    assert!(!kinds(last).contains(&"usage"));
}

#[test]
fn damaged_and_unknown_lines_are_counted_and_the_rest_kept() {
    let mut bytes = b"not json at all\n{\"type\":\"assistant\",\"message\":5}\n".to_vec();
    bytes.extend(fixture());
    bytes.extend(b"{\"type\":\"a-kind-from-a-newer-claude\",\"x\":1}\n\n");
    let r = read_bytes(&bytes, 0);
    assert_eq!(r.skipped, 2, "a newer kind is not damage: it is left out");
    assert_eq!(r.turns.len(), 2);
}

fn user(text: serde_json::Value, extra: serde_json::Value) -> String {
    let mut v = json!({"type": "user", "message": {"role": "user", "content": text},
        "uuid": "u", "timestamp": "2026-12-02T04:54:14.811Z", "cwd": "/p", "sessionId": "s"});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

fn assistant(uuid: &str, id: &str, block: serde_json::Value, stop: &str) -> String {
    json!({"type": "assistant", "uuid": uuid, "sessionId": "s", "cwd": "/p",
        "message": {"id": id, "role": "assistant", "model": "m", "content": [block],
            "stop_reason": stop, "usage": {"input_tokens": 3, "output_tokens": 2}}})
    .to_string()
}

#[test]
fn a_file_tool_shows_the_diff_of_the_file_as_it_was_then() {
    let lines = [
        user(json!("fix it"), json!({})),
        assistant(
            "a1",
            "m1",
            json!({"type": "tool_use", "id": "t1", "name": "Edit",
                "input": {"file_path": "/p/a.txt", "old_string": "one", "new_string": "two"}}),
            "tool_use",
        ),
        user(
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
            json!({"toolUseResult": {"filePath": "/p/a.txt", "originalFile": "one\n"}}),
        ),
        assistant(
            "a2",
            "m2",
            json!({"type": "text", "text": "Fixed."}),
            "end_turn",
        ),
    ];
    let r = read_bytes((lines.join("\n") + "\n").as_bytes(), 0);
    let t = &r.turns[0];
    let change = t
        .events
        .iter()
        .find_map(|e| match e {
            AgentEvent::FileChanged {
                path, kind, diff, ..
            } => Some((path.clone(), *kind, diff.clone())),
            _ => None,
        })
        .expect("a file change");
    assert_eq!(change.0, "/p/a.txt");
    assert_eq!(change.1, FileChangeKind::Update);
    assert!(
        change.2.contains("-one") && change.2.contains("+two"),
        "{}",
        change.2
    );
}

#[test]
fn subagents_cli_notes_and_interrupt_markers_are_not_turns() {
    let lines = [
        user(json!("real prompt"), json!({})),
        user(json!("subagent prompt"), json!({"isSidechain": true})),
        assistant(
            "a1",
            "m1",
            json!({"type": "tool_use", "id": "t1", "name": "Bash",
            "input": {"command": "sleep 100"}}),
            "tool_use",
        ),
        user(json!("<local-command-caveat>…"), json!({"isMeta": true})),
        user(
            json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
            json!({}),
        ),
        user(json!("next prompt"), json!({})),
    ];
    let r = read_bytes((lines.join("\n") + "\n").as_bytes(), 0);
    let prompts: Vec<_> = r.turns.iter().map(|t| t.prompt.as_str()).collect();
    assert_eq!(prompts, ["real prompt", "next prompt"]);
    // The Bash call never got a result before the next prompt: it ends interrupted.
    assert!(matches!(
        r.turns[0].events.last(),
        Some(AgentEvent::ToolCompleted {
            status: ToolStatus::Interrupted,
            ..
        })
    ));
    assert!(r.turns[0].complete && !r.turns[1].complete);
}

#[test]
fn discovery_lists_transcripts_one_folder_deep_without_following_links() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-home-dev-project");
    std::fs::create_dir_all(project.join("memory")).unwrap();
    std::fs::write(project.join("s1.jsonl"), b"").unwrap();
    std::fs::write(project.join("notes.md"), b"").unwrap();
    std::fs::write(project.join("memory/deep.jsonl"), b"").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("projects"), project.join("loop")).unwrap();
    let (files, unreadable) = discover(dir.path());
    let names: Vec<_> = files
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s1.jsonl"]);
    assert_eq!(unreadable, 0);
    assert_eq!(discover(&dir.path().join("none")).0, vec![]);
    assert_eq!(
        config_dir(Some("/c".into()), Some("/h".into())),
        Some(PathBuf::from("/c"))
    );
    assert_eq!(
        config_dir(Some("".into()), Some("/h".into())),
        Some(PathBuf::from("/h/.claude"))
    );
}

#[test]
fn a_turn_ends_at_its_own_last_record_not_at_the_next_prompt() {
    let meta = |ts: &str| {
        json!({"cwd": "/w", "sessionId": "s1", "timestamp": ts, "isSidechain": false,
            "userType": "external", "version": "2.1.328"})
    };
    let line = |mut v: serde_json::Value, extra: serde_json::Value| {
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        format!("{v}\n")
    };
    let prompt = |ts: &str, uuid: &str, text: &str| {
        line(
            meta(ts),
            json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": text}}),
        )
    };
    let answer = line(
        meta("2026-11-01T10:00:05.000Z"),
        json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant",
            "model": "claude-x", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "hello"}]}}),
    );
    let text = [
        prompt("2026-11-01T10:00:00.000Z", "u1", "first"),
        answer,
        prompt("2026-11-01T11:00:00.000Z", "u2", "an hour later"),
    ]
    .concat();
    let r = read_bytes(text.as_bytes(), 0);
    assert_eq!(r.turns.len(), 2, "{:#?}", r.turns);
    let ms = |s: &str| rfc3339_ms(s).unwrap();
    assert_eq!(r.turns[0].started_at, Some(ms("2026-11-01T10:00:00.000Z")));
    assert_eq!(r.turns[0].ended_at, Some(ms("2026-11-01T10:00:05.000Z")));
    assert_eq!(r.turns[1].started_at, Some(ms("2026-11-01T11:00:00.000Z")));
}

#[test]
fn a_long_transcript_is_read_a_part_at_a_time_at_turn_starts() {
    // 1,100 turns: the first read stops at the start of turn 1,001.
    let one = fixture();
    let bytes: Vec<u8> = one.repeat(550);
    let first = read_bytes(&bytes, 0);
    assert_eq!(first.turns.len(), TURNS_PER_READ);
    assert!(first.more);
    assert!(
        first.turns.iter().all(|t| t.complete),
        "each part's turns are over"
    );
    let rest = read_bytes(&bytes, first.read_to);
    assert_eq!(first.turns.len() + rest.turns.len(), 1_100);
    assert!(!rest.more);
    assert_eq!(
        rest.turns[0].at, first.read_to,
        "the next part starts at a prompt"
    );
    assert_eq!(rest.turns[0].prompt, "first question");
    assert_eq!(rest.read_to, bytes.len() as u64);
}
