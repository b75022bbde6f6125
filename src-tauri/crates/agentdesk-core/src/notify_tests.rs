#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use agentdesk_protocol::events::{ApprovalFile, FileChangeKind, Question, QuestionOption};
use agentdesk_protocol::ui::{ApprovalRequest, ApprovalState, Engine, Run, RunStatus};

/// What a notification shows of each kind of request, and when it may carry the buttons.
#[path = "notify_content_tests.rs"]
mod content;

fn approval(id: &str, kind: ApprovalKindName, request: ApprovalRequest) -> Approval {
    Approval {
        id: id.into(),
        session_id: "s1".into(),
        run_id: "r1".into(),
        item_id: None,
        engine_request_id: "1".into(),
        kind,
        request,
        suggestions: serde_json::Value::Null,
        state: ApprovalState::Pending,
        decided_by: None,
        decision: None,
        created_at: 0,
        deadline_at: None,
        decided_at: None,
    }
}

fn command(id: &str) -> Approval {
    approval(
        id,
        ApprovalKindName::Command,
        ApprovalRequest {
            command: Some("touch made.txt".into()),
            cwd: Some("/home/me/app".into()),
            ..Default::default()
        },
    )
}

fn question(id: &str, options: &[&str]) -> Approval {
    approval(
        id,
        ApprovalKindName::Question,
        ApprovalRequest {
            questions: vec![Question {
                id: "q1".into(),
                header: None,
                question: "Which colour?".into(),
                options: options
                    .iter()
                    .map(|l| QuestionOption {
                        label: l.to_string(),
                        description: None,
                    })
                    .collect(),
                allow_other: false,
                secret: false,
            }],
            ..Default::default()
        },
    )
}

fn origin() -> Origin {
    Origin {
        engine: Some(Engine::Codex),
        workspace: "demo".into(),
        session: "Fix the build".into(),
    }
}

#[test]
fn preferences_decide_by_kind_and_focus() {
    let mut s = NotificationPrefs::default();
    assert!(s.shows_request(ApprovalKindName::Command, false));
    assert!(!s.shows_request(ApprovalKindName::Command, true));
    s.approvals = NotifyWhen::Always;
    s.questions = NotifyWhen::Never;
    assert!(s.shows_request(ApprovalKindName::FileChange, true));
    assert!(!s.shows_request(ApprovalKindName::Question, false));
    // Runs: only long ones, only while unfocused by default.
    let d = NotificationPrefs::default();
    assert!(d.shows_run_end(Duration::from_secs(31), false));
    assert!(!d.shows_run_end(Duration::from_secs(5), false));
    assert!(!d.shows_run_end(Duration::from_secs(60), true));
}

#[test]
fn settings_read_back_with_defaults_for_missing_fields() {
    let s: NotificationPrefs =
        serde_json::from_str(r#"{"approvals":"always","sound":false}"#).unwrap();
    assert_eq!(s.approvals, NotifyWhen::Always);
    assert_eq!(s.questions, NotifyWhen::WhenUnfocused);
    assert!(!s.sound);
    assert_eq!(s.run_min_secs, 30);
}

#[tokio::test]
async fn settings_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    assert_eq!(
        desk.notification_prefs().await.unwrap(),
        NotificationPrefs::default()
    );
    let s = NotificationPrefs {
        approvals: NotifyWhen::Never,
        sound: false,
        ..Default::default()
    };
    desk.set_notification_prefs(&s).await.unwrap();
    assert_eq!(desk.notification_prefs().await.unwrap(), s);
    desk.close().await;
}

#[test]
fn command_content_names_engine_place_command_and_cwd_with_approve_deny() {
    let c = approval_content(&command("a1"), &origin());
    assert_eq!(c.title, "Codex asks to run a command");
    assert_eq!(
        c.body,
        "demo · Fix the build\n$ touch made.txt\nin /home/me/app"
    );
    assert_eq!(
        c.actions,
        vec![
            ("approve".to_string(), "Approve".to_string()),
            ("deny".to_string(), "Deny".to_string())
        ]
    );
}

#[test]
fn content_is_cut_and_shows_escapes_visibly() {
    let mut a = command("a1");
    a.request.command = Some(format!("echo \x1b[31m{}", "x".repeat(500)));
    let c = approval_content(&a, &origin());
    let line = c.body.lines().nth(1).unwrap();
    assert!(line.starts_with("$ echo \\u{1b}[31m"), "{line}");
    assert_eq!(line.chars().count(), 160);
    assert!(line.ends_with('…'));
    assert!(!c.body.contains('\x1b'));
}

#[test]
fn file_changes_list_a_few_files() {
    let files = (0..5)
        .map(|i| ApprovalFile {
            path: format!("src/f{i}.rs"),
            kind: FileChangeKind::Update,
            diff: String::new(),
        })
        .collect();
    let a = approval(
        "a1",
        ApprovalKindName::FileChange,
        ApprovalRequest {
            files,
            ..Default::default()
        },
    );
    let c = approval_content(&a, &origin());
    assert_eq!(c.title, "Codex asks to change files");
    assert_eq!(
        c.body,
        "demo · Fix the build\nsrc/f0.rs\nsrc/f1.rs\nsrc/f2.rs\nand 2 more files"
    );
}

#[test]
fn a_question_with_up_to_three_options_gets_them_as_buttons() {
    let q = question("q", &["Red", "Blue"]);
    let c = approval_content(&q, &origin());
    assert_eq!(c.title, "Codex asks a question");
    assert!(c.body.ends_with("Which colour?"));
    assert_eq!(
        c.actions,
        vec![
            ("option:0".to_string(), "Red".to_string()),
            ("option:1".to_string(), "Blue".to_string())
        ]
    );
    // Four options do not fit: the card answers it.
    let four = question("q", &["a", "b", "c", "d"]);
    assert!(approval_content(&four, &origin()).actions.is_empty());
}

#[test]
fn presses_map_to_answers_that_fit_the_request() {
    let cmd = command("a1");
    assert_eq!(
        Press::parse("approve.n0", "n0").unwrap().answer(&cmd),
        Some(PressAnswer::Decide(UserDecision::ApproveOnce))
    );
    assert_eq!(Press::parse("default", "n0"), Some(Press::Open));
    assert_eq!(Press::Open.answer(&cmd), None);
    assert_eq!(Press::parse("bogus.n0", "n0"), None);
    let q = question("q", &["Red", "Blue"]);
    assert_eq!(
        Press::Approve.answer(&q),
        None,
        "a question is not approved"
    );
    let mut want = BTreeMap::new();
    want.insert("q1".to_string(), vec!["Blue".to_string()]);
    assert_eq!(
        Press::parse("option:1.n0", "n0").unwrap().answer(&q),
        Some(PressAnswer::Answer(want))
    );
    assert_eq!(Press::Option(7).answer(&q), None);
}

#[test]
fn markup_is_escaped() {
    assert_eq!(escape_markup("a <b> & c"), "a &lt;b&gt; &amp; c");
}

fn planner() -> Planner {
    Planner::new(Folding::default())
}

#[test]
fn one_request_shows_once_after_the_gap_and_never_again() {
    let mut p = planner();
    let t0 = Instant::now();
    p.added(command("a1"), true, t0);
    assert!(p.flush(t0).is_empty(), "waits for the burst to end");
    let steps = p.flush(t0 + Duration::from_millis(300));
    assert!(matches!(&steps[..], [Step::Show { key: 1, approval }] if approval.id == "a1"));
    // The same request again (a reconnect, a re-read after lagging): nothing.
    p.added(command("a1"), true, t0 + Duration::from_secs(2));
    assert!(p.due().is_none());
    assert!(p.flush(t0 + Duration::from_secs(5)).is_empty());
    assert_eq!(p.target(1), Some(Target::Approval("a1".into())));
}

#[test]
fn a_request_not_shown_because_of_focus_is_not_shown_later() {
    let mut p = planner();
    let t0 = Instant::now();
    p.added(command("a1"), false, t0);
    assert!(p.due().is_none());
    p.added(command("a1"), true, t0);
    assert!(p.due().is_none());
    assert!(p.has_seen(&"a1".into()));
}

#[test]
fn a_burst_folds_into_one_summary_that_closes_with_its_last_request() {
    let mut p = planner();
    let t0 = Instant::now();
    for i in 0..5 {
        p.added(
            command(&format!("a{i}")),
            true,
            t0 + Duration::from_millis(150 * i),
        );
    }
    // Still arriving 150 ms apart: not yet.
    assert!(p.flush(t0 + Duration::from_millis(650)).is_empty());
    let steps = p.flush(t0 + Duration::from_millis(900));
    assert_eq!(
        steps,
        vec![Step::Summary {
            key: 1,
            count: 5,
            held_elsewhere: false
        }]
    );
    assert_eq!(p.target(1), Some(Target::Summary));
    for i in 0..4 {
        assert!(p.resolved(&format!("a{i}").into()).is_empty());
    }
    assert_eq!(p.resolved(&"a4".into()), vec![Step::Close { key: 1 }]);
}

#[test]
fn a_steady_stream_is_flushed_within_the_max_wait() {
    let mut p = planner();
    let t0 = Instant::now();
    for i in 0..20u64 {
        p.added(
            command(&format!("a{i}")),
            true,
            t0 + Duration::from_millis(100 * i),
        );
        if i == 10 {
            break;
        }
    }
    assert_eq!(p.due(), Some(t0 + Duration::from_secs(1)));
}

#[test]
fn two_close_together_stay_separate() {
    let mut p = planner();
    let t0 = Instant::now();
    p.added(command("a1"), true, t0);
    p.added(command("a2"), true, t0 + Duration::from_millis(10));
    let steps = p.flush(t0 + Duration::from_secs(1));
    assert_eq!(steps.len(), 2);
    assert!(steps.iter().all(|s| matches!(s, Step::Show { .. })));
}

#[test]
fn decided_elsewhere_closes_and_decided_before_showing_never_shows() {
    let mut p = planner();
    let t0 = Instant::now();
    p.added(command("a1"), true, t0);
    p.flush(t0 + Duration::from_secs(1));
    assert_eq!(p.resolved(&"a1".into()), vec![Step::Close { key: 1 }]);
    assert_eq!(p.target(1), None);
    assert!(p.resolved(&"a1".into()).is_empty(), "closed once");
    p.added(command("a2"), true, t0 + Duration::from_secs(2));
    assert!(p.resolved(&"a2".into()).is_empty());
    assert!(p.flush(t0 + Duration::from_secs(9)).is_empty());
}

#[test]
fn a_dismissed_notification_leaves_its_request_alone() {
    let mut p = planner();
    let t0 = Instant::now();
    p.added(command("a1"), true, t0);
    p.flush(t0 + Duration::from_secs(1));
    p.closed(1);
    assert_eq!(p.target(1), None);
    // Deciding it later closes nothing (already gone) and nothing shows again.
    assert!(p.resolved(&"a1".into()).is_empty());
    p.added(command("a1"), true, t0 + Duration::from_secs(2));
    assert!(p.due().is_none());
}

#[test]
fn start_sums_up_what_is_already_pending_once() {
    let mut p = planner();
    let steps = p.start(&[command("a1"), command("a2"), command("a3")]);
    assert_eq!(
        steps,
        vec![Step::Summary {
            key: 1,
            count: 3,
            held_elsewhere: true
        }]
    );
    assert!(p.start(&[command("a1")]).is_empty());
    assert!(planner().start(&[]).is_empty());
    p.added(command("a2"), true, Instant::now());
    assert!(
        p.due().is_none(),
        "never notified one by one after the summary"
    );
}

fn run(status: RunStatus, secs: i64) -> Run {
    Run {
        id: "r1".into(),
        session_id: "s1".into(),
        seq: 1,
        status,
        prompt: "go".into(),
        profile_id: None,
        model: None,
        stop_reason: None,
        error: (status == RunStatus::Failed).then(|| "the engine exited".into()),
        created_at: 0,
        started_at: Some(1_000),
        ended_at: Some(1_000 + secs * 1000),
    }
}

#[test]
fn long_runs_that_finish_or_fail_are_notified_while_unfocused() {
    let s = NotificationPrefs::default();
    let done = run_end_content(&run(RunStatus::Completed, 95), &origin(), &s, false).unwrap();
    assert_eq!(done.title, "Codex finished");
    assert_eq!(done.body, "demo · Fix the build\nafter 1 min 35 s");
    let failed = run_end_content(&run(RunStatus::Failed, 40), &origin(), &s, false).unwrap();
    assert_eq!(failed.title, "Codex failed");
    assert!(
        failed.body.ends_with("the engine exited"),
        "{}",
        failed.body
    );
    assert!(run_end_content(&run(RunStatus::Completed, 10), &origin(), &s, false).is_none());
    assert!(run_end_content(&run(RunStatus::Completed, 95), &origin(), &s, true).is_none());
    assert!(run_end_content(&run(RunStatus::Interrupted, 95), &origin(), &s, false).is_none());
    assert!(run_end_content(&run(RunStatus::Running, 95), &origin(), &s, false).is_none());
}

#[test]
fn closing_the_window_asks_once_then_follows_the_answer() {
    // Nothing running: closing quits, whatever was answered.
    assert_eq!(close_action(false, None), CloseAction::Close);
    assert_eq!(close_action(false, Some(true)), CloseAction::Close);
    // A run is active: ask the first time, then do as told.
    assert_eq!(close_action(true, None), CloseAction::Ask);
    assert_eq!(close_action(true, Some(true)), CloseAction::Hide);
    assert_eq!(close_action(true, Some(false)), CloseAction::Close);
}

#[tokio::test]
async fn the_tray_answer_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    assert_eq!(
        desk.tray_settings().await.unwrap().keep_running_in_tray,
        None
    );
    desk.set_tray_settings(&TraySettings {
        keep_running_in_tray: Some(true),
    })
    .await
    .unwrap();
    desk.close().await;
    // Remembered across a restart.
    let desk = Desk::open(dir.path()).await.unwrap();
    assert_eq!(
        desk.tray_settings().await.unwrap().keep_running_in_tray,
        Some(true)
    );
    desk.close().await;
}

#[test]
fn the_badge_names_the_bundled_desktop_file() {
    // The Tauri bundler installs `<productName>.desktop`.
    assert_eq!(
        launcher_app_uri("Agent Desk"),
        "application://Agent Desk.desktop"
    );
    assert_eq!(desktop_entry_id("Agent Desk"), "Agent Desk");
}

#[test]
fn tray_labels_say_what_is_asked_on_one_line() {
    assert_eq!(tray_label(&command("a1")), "Run: touch made.txt");
    assert_eq!(
        tray_label(&question("q", &["Red", "Blue"])),
        "Question: Which colour?"
    );
    let mut a = command("a2");
    a.request.command = Some("echo a && echo b\nrm -rf x".into());
    let label = tray_label(&a);
    assert_eq!(label, "Run: echo a &&&& echo b\\u{a}rm -rf x");
    a.request.command = Some("x".repeat(200));
    assert_eq!(tray_label(&a).chars().count(), 60);
    let files = approval(
        "f",
        ApprovalKindName::FileChange,
        ApprovalRequest {
            files: ["src/a.rs", "src/b.rs", "src/c.rs"]
                .iter()
                .map(|p| ApprovalFile {
                    path: p.to_string(),
                    kind: FileChangeKind::Update,
                    diff: String::new(),
                })
                .collect(),
            ..Default::default()
        },
    );
    assert_eq!(tray_label(&files), "Change: src/a.rs (+2)");
}

#[test]
fn a_summary_says_where_to_answer() {
    let burst = summary_content(3, false);
    assert_eq!(burst.title, "3 approvals waiting");
    assert!(burst.body.contains("Approvals view"), "{burst:?}");
    // Found at start: another process holds them and asks for the answer itself.
    let found = summary_content(1, true);
    assert_eq!(found.title, "1 approval waiting");
    assert!(found.body.contains("agentdesk-cli"), "{found:?}");
    assert!(!found.body.contains("Approvals view"), "{found:?}");
}

#[test]
fn option_descriptions_are_shown_with_their_buttons() {
    let mut q = question("q", &["Red", "Blue"]);
    q.request.questions[0].options[0].description = Some("warm".into());
    let c = approval_content(&q, &origin());
    assert!(c.body.ends_with("Which colour?\nRed: warm"), "{:?}", c.body);
    assert_eq!(c.actions.len(), 2);
}

#[test]
fn a_press_counts_only_with_the_key_issued_for_that_notification() {
    let nonce = new_nonce();
    assert_eq!(nonce.len(), 32);
    assert!(nonce.chars().all(|c| c.is_ascii_hexdigit()), "{nonce}");
    assert_ne!(nonce, new_nonce(), "fresh each time");
    let c = approval_content(&command("a1"), &origin()).sealed(&nonce);
    let keys: Vec<&str> = c.actions.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, [format!("approve.{nonce}"), format!("deny.{nonce}")]);
    assert_eq!(Press::parse(keys[0], &nonce), Some(Press::Approve));
    assert_eq!(Press::parse(keys[1], &nonce), Some(Press::Deny));
    // The constant keys of old, another notification's key, a guess, an empty nonce.
    let other = new_nonce();
    for forged in ["approve", "deny", "option:0", "approve.", "approve.0"] {
        assert_eq!(Press::parse(forged, &nonce), None, "{forged}");
    }
    assert_eq!(Press::parse(&format!("approve.{other}"), &nonce), None);
    assert_eq!(Press::parse("approve.", ""), None);
    // The body click is the server's own key: it only opens the card.
    assert_eq!(Press::parse(ACTION_OPEN, &nonce), Some(Press::Open));
    let q = approval_content(&question("q", &["Red", "Blue"]), &origin()).sealed(&nonce);
    assert_eq!(q.actions[1].0, format!("option:1.{nonce}"));
    assert_eq!(
        Press::parse(&q.actions[1].0, &nonce),
        Some(Press::Option(1))
    );
}
