//! `ui/src/ipc/commands.generated.ts` is generated from the command table (`src/ipc.rs`) and
//! committed. This test fails when it is stale.
//! Regenerate with: `UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use agentdesk_protocol::ipc;

fn generated_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/ipc/commands.generated.ts")
}

#[test]
fn typescript_client_is_fresh() {
    let path = generated_file();
    let expected = ipc::typescript();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk.replace("\r\n", "\n") == expected,
        "{} is stale\nrun: UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands",
        path.display()
    );
}

/// Every command has a typed function of its own, and they never collide.
#[test]
fn one_function_per_command() {
    let ts = ipc::typescript();
    let mut functions: Vec<String> = ipc::COMMAND_NAMES.iter().map(|n| ipc::camel(n)).collect();
    for f in &functions {
        assert_eq!(
            ts.matches(&format!("export function {f}(")).count(),
            1,
            "{f}"
        );
    }
    functions.sort();
    functions.dedup();
    assert_eq!(functions.len(), ipc::COMMAND_NAMES.len());
}
