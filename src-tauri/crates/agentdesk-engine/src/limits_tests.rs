use super::*;

fn diag(source: DiagnosticSource, i: usize) -> AgentEvent {
    AgentEvent::EngineDiagnostic {
        source,
        message: format!("line {i} is not JSON"),
        raw: None,
    }
}

fn messages(out: &[AgentEvent]) -> Vec<&str> {
    out.iter()
        .filter_map(|e| match e {
            AgentEvent::EngineDiagnostic { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn budget_passes_n_then_one_notice_then_one_count_before_the_end() {
    let mut budget = DiagnosticBudget::new(3);
    let mut total = Vec::new();
    // Arrives in several batches, like the run loops send them.
    for batch in 0..4 {
        let mut out: Vec<AgentEvent> = (0..5)
            .map(|i| diag(DiagnosticSource::UnknownMessage, batch * 5 + i))
            .collect();
        budget.apply(&mut out);
        total.extend(out);
    }
    let mut end = vec![
        diag(DiagnosticSource::Stderr, 99),
        AgentEvent::RunCompleted {
            stop_reason: "completed".into(),
        },
    ];
    budget.apply(&mut end);
    total.extend(end);
    let m = messages(&total);
    assert_eq!(m.len(), 3 + 2, "{m:#?}");
    assert_eq!(
        &m[..3],
        [
            "line 0 is not JSON",
            "line 1 is not JSON",
            "line 2 is not JSON"
        ]
    );
    assert!(
        m[3].contains("suppressed") && m[3].contains("limit 3"),
        "{}",
        m[3]
    );
    assert_eq!(
        m[4],
        "18 more engine diagnostics were suppressed in this run (limit 3 per run)"
    );
    assert!(total.last().is_some_and(AgentEvent::is_terminal));
}

#[test]
fn notices_are_never_suppressed_and_no_count_when_nothing_was_dropped() {
    let mut budget = DiagnosticBudget::new(1);
    let mut out = vec![
        diag(DiagnosticSource::Stderr, 0),
        diag(DiagnosticSource::Notice, 1),
        diag(DiagnosticSource::Notice, 2),
        AgentEvent::RunInterrupted {},
    ];
    budget.apply(&mut out);
    assert_eq!(out.len(), 4, "{out:#?}");
}

#[tokio::test(start_paused = true)]
async fn watchdog_pauses_while_waiting_and_restarts_on_activity() {
    let mut w = Watchdog::new(Some(Duration::from_secs(10)));
    let t0 = Instant::now();
    assert_eq!(w.deadline(false), Some(t0 + Duration::from_secs(10)));
    assert_eq!(w.deadline(true), None, "a pending approval stops the clock");
    tokio::time::advance(Duration::from_secs(25)).await;
    w.activity();
    assert_eq!(w.deadline(false), Some(t0 + Duration::from_secs(35)));
    assert_eq!(Watchdog::new(Some(Duration::ZERO)).deadline(false), None);
    assert_eq!(Watchdog::new(None).deadline(false), None);
}

#[test]
fn watchdog_message_names_engine_and_seconds() {
    let w = Watchdog::new(Some(Duration::from_secs(600)));
    assert!(w
        .message("Codex")
        .starts_with("Codex said nothing for 600 s; the run was stopped"));
    let w = Watchdog::new(Some(Duration::from_millis(1500)));
    assert!(w.message("Claude Code").contains("for 1.5 s"));
}

#[test]
fn per_run_override_wins_only_when_given() {
    let base = RunLimits::default();
    assert_eq!(base.with_inactivity_timeout(None), base);
    assert_eq!(
        base.with_inactivity_timeout(Some(Duration::from_secs(2)))
            .inactivity_timeout,
        Some(Duration::from_secs(2))
    );
}

#[test]
fn human_sizes() {
    assert_eq!(human_bytes(62_914_560), "60.0 MiB");
    assert_eq!(human_bytes(2048), "2.0 KiB");
    assert_eq!(human_bytes(12), "12 bytes");
}
