//! Wire types only: no I/O, no logic beyond (de)serialisation.
//!
//! - [`ui`]: the DTOs that cross the Tauri IPC boundary, exported to TypeScript with ts-rs
//!   (`ui/src/generated/`); a test in this crate fails when the committed bindings are stale.
//! - [`ipc`]: the IPC command table (names, arguments, answers, errors) the shell implements
//!   and `ui/src/ipc/commands.generated.ts` is generated from.
//! - [`ids`]: one type per kind of stored id (session, run, approval, workspace, profile),
//!   plain strings on every wire, so one kind cannot be passed where another is expected.
//! - Engine wire types (Codex app-server, Claude stream-json) live in their own modules.

pub mod acp;
pub mod approval_detail;
pub mod capabilities;
pub mod claude;
pub mod codex;
pub mod events;
pub mod ids;
// Before `ipc`: `define_rpc!` is used there.
#[macro_use]
pub mod ipc_macro;
pub mod ipc;
mod stored;
pub mod ui;
