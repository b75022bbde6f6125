//! Lossless live updates (issue 10, item 1): 200,000 deltas through the core (`Desk`, a real
//! SQLite file) with deliberately slow subscribers, for both engines' adapters driven by the
//! scripted fakes (`fake-claude-stream`, `fake-app-server` on its `stream` script). Every
//! subscriber's concatenated text must equal the stored text:
//! - a raw subscriber (`Desk::subscribe_runs`) that sleeps on every update, reading both the
//!   canonical deltas and the window's live ops;
//! - the window's per-session feed (`open_session_feed`) whose consumer sleeps per batch.
//!
//! The CLI (`agentdesk-cli run` with a slow stdout reader, and `--json`'s ids): `live_fanout/cli.rs`.
//!
//! Unix only: the codex fake runs behind a `#!/bin/sh` wrapper that answers `--version`
//! (`world::version_wrapper`), and CI runs the tests crate on Linux only.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentdesk_core::fanout::RecvError;
use agentdesk_core::{Desk, EngineSettings, RunUpdate};
use agentdesk_protocol::events::AgentEvent;
use agentdesk_protocol::ids::{RunId, SessionId};
use agentdesk_protocol::ui::{Engine, ItemBody, LiveBatch, LiveOp, RunStatus, TimelineItem};
use agentdesk_tests::world::{desk_with_session, fresh_root, profile_spec, version_wrapper};

#[path = "live_fanout/cli.rs"]
mod cli;

const DELTAS: usize = 200_000;
/// Bound on one whole run (a debug build on a loaded 2-core machine).
const RUN: Duration = Duration::from_secs(300);

/// A fresh folder for a scenario (with its workspace folder `work`).
fn root(name: &str) -> PathBuf {
    let root = fresh_root(env!("CARGO_TARGET_TMPDIR"), "live_fanout", name);
    std::fs::create_dir_all(root.join("work")).unwrap();
    root
}

/// `fake-app-server` behind a wrapper that answers `--version` like the supported codex.
fn fake_codex(dir: &Path) -> PathBuf {
    version_wrapper(
        dir,
        "codex",
        "codex-cli 0.169.0",
        env!("CARGO_BIN_EXE_fake-app-server"),
    )
}

/// A desk whose engine is the streaming fake, and a session on a profile for it.
async fn session(engine: Engine, name: &str) -> (Desk, SessionId) {
    let root = root(name);
    let mut settings = EngineSettings::default();
    let mut spec = profile_spec(name, engine);
    match engine {
        Engine::Claude => {
            settings.set_bin(
                "claude",
                Some(env!("CARGO_BIN_EXE_fake-claude-stream").into()),
            );
            spec.env
                .insert("FAKE_STREAM_DELTAS".into(), DELTAS.to_string());
        }
        Engine::Codex => {
            settings.set_bin("codex", Some(fake_codex(&root)));
            settings.set_home("codex", Some(root.join("codex-home")));
            std::fs::create_dir_all(root.join("codex-home")).unwrap();
            spec.env.insert("FAKE_SCRIPT".into(), "stream".into());
            spec.env.insert("FAKE_DELTAS".into(), DELTAS.to_string());
            spec.env.insert("FAKE_KEY".into(), "not-a-secret".into());
            // A provider keeps the adapter from asking the (fake's) login first.
            spec.base_url = Some("http://127.0.0.1:9/v1".to_string());
            spec.api_key_env = Some("FAKE_KEY".to_string());
        }
        Engine::Acp => panic!("the fan-out suite streams from the scripted Codex and Claude fakes"),
    }
    let (desk, _, session) =
        desk_with_session(&root.join("data"), &root.join("work"), &settings, &spec).await;
    (desk, session.id)
}

/// What a deliberately slow raw subscriber put together.
#[derive(Default)]
struct Heard {
    /// The canonical `message.delta` texts, concatenated.
    deltas: String,
    /// The window's live ops, applied to the items they name.
    live: HashMap<String, String>,
    updates: usize,
}

fn apply_live(live: &mut HashMap<String, String>, ops: Vec<LiveOp>) {
    for op in ops {
        match op {
            LiveOp::Upsert { item } => {
                if let ItemBody::AgentMessage { text } = item.body {
                    live.insert(item.id, text);
                }
            }
            LiveOp::Append { item_id, text } => {
                live.entry(item_id).or_default().push_str(&text);
            }
            _ => {}
        }
    }
}

/// Reads every update of `run_id` until its end, sleeping 1 ms on each one (a subscriber
/// far slower than the engine: 200,000 updates would take over 3 minutes).
async fn slow_subscriber(mut updates: agentdesk_core::RunUpdates, run_id: RunId) -> Heard {
    let mut heard = Heard::default();
    loop {
        let u = match updates.recv().await {
            Ok(u) => u,
            Err(RecvError::Overflowed(n)) => panic!("overflowed by {n}: a hole"),
            Err(RecvError::Closed) => panic!("the core went away"),
        };
        heard.updates += 1;
        match u {
            RunUpdate::Event {
                run_id: r,
                event: AgentEvent::MessageDelta { text, .. },
                ..
            } if r == run_id => heard.deltas.push_str(&text),
            RunUpdate::Live { run_id: r, ops, .. } if r == run_id => {
                apply_live(&mut heard.live, ops)
            }
            RunUpdate::Status { run } if run.id == run_id && run.status.is_terminal() => {
                return heard;
            }
            _ => {}
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The window's view, consumed slowly (50 ms a batch, as a busy webview might) until the
/// run has ended; returns the agent message texts it shows.
async fn slow_window(desk: Desk, session_id: SessionId, run_id: RunId) -> HashMap<String, String> {
    let mut feed = desk.open_session_feed(&session_id).await.unwrap();
    let mut items: HashMap<String, TimelineItem> = HashMap::new();
    loop {
        let LiveBatch { ops, .. } = feed.next_batch().await.expect("the core is there");
        let mut ended = false;
        for op in ops {
            match op {
                LiveOp::Reset { items: all, .. } => {
                    items = all.into_iter().map(|i| (i.id.clone(), i)).collect();
                }
                LiveOp::Upsert { item } => {
                    items.insert(item.id.clone(), item);
                }
                LiveOp::Append { item_id, text } => {
                    match items.get_mut(&item_id).map(|i| &mut i.body) {
                        Some(ItemBody::AgentMessage { text: t }) => t.push_str(&text),
                        other => panic!("append to {other:?}"),
                    }
                }
                LiveOp::Run { run } if run.id == run_id && run.status.is_terminal() => ended = true,
                _ => {}
            }
        }
        if ended {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    items
        .into_values()
        .filter_map(|i| match i.body {
            ItemBody::AgentMessage { text } if i.run_id == run_id => Some((i.id, text)),
            _ => None,
        })
        .collect()
}

async fn lossless(engine: Engine) {
    let (desk, sid) = session(engine, &format!("{}-200k", engine.as_str())).await;
    // Subscribed before sending: the run's first update is in the queue.
    let updates = desk.subscribe_runs();
    let window = {
        let (desk, sid) = (desk.clone(), sid.clone());
        // The run id is not known yet: the window follows the session's only run.
        let mut probe = desk.subscribe_runs_where(|u| matches!(u, RunUpdate::Status { .. }));
        tokio::spawn(async move {
            let run_id = loop {
                if let Ok(RunUpdate::Status { run }) = probe.recv().await {
                    break run.id;
                }
            };
            slow_window(desk, sid, run_id).await
        })
    };
    let run = desk
        .send_message(&sid, "Stream a long answer", &[])
        .await
        .unwrap();
    let heard = tokio::time::timeout(RUN, slow_subscriber(updates, run.id.clone()))
        .await
        .expect("the slow subscriber saw the run end in time");
    let ended = desk.wait_run(&run.id, RUN).await.unwrap();
    assert_eq!(ended.status, RunStatus::Completed, "{ended:?}");
    let shown = tokio::time::timeout(RUN, window).await.unwrap().unwrap();

    let stored: Vec<(String, String)> = desk
        .store()
        .run_items(&run.id)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|i| match i.body {
            ItemBody::AgentMessage { text } => Some((i.id, text)),
            _ => None,
        })
        .collect();
    assert_eq!(stored.len(), 1, "one answer stored");
    let (item_id, text) = &stored[0];
    assert_eq!(text.len(), DELTAS * 20, "the fake's whole answer is stored");
    assert!(
        heard.deltas == *text,
        "the slow subscriber's deltas differ from the stored text ({} vs {} bytes)",
        heard.deltas.len(),
        text.len()
    );
    assert!(
        heard.live.get(item_id) == Some(text),
        "the slow subscriber's live ops differ from the stored text"
    );
    assert!(
        shown.get(item_id) == Some(text),
        "the slow window's text differs from the stored text"
    );
    // It was behind (else nothing was tested): far fewer updates than deltas reached it.
    assert!(
        heard.updates < DELTAS / 4,
        "{} updates for {DELTAS} deltas",
        heard.updates
    );
    eprintln!(
        "{}: {DELTAS} deltas reached a 1 ms/update subscriber as {} updates",
        engine.as_str(),
        heard.updates
    );
    desk.shutdown().await;
    desk.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_200k_deltas_reach_slow_subscribers_whole() {
    lossless(Engine::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_200k_deltas_reach_slow_subscribers_whole() {
    lossless(Engine::Codex).await;
}
