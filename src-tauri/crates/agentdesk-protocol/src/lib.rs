//! Wire types only: no I/O, no logic beyond (de)serialisation.
//!
//! - [`ui`]: the DTOs that cross the Tauri IPC boundary, exported to TypeScript with ts-rs
//!   (`ui/src/generated/`); a test in this crate fails when the committed bindings are stale.
//! - [`ipc`]: the IPC command table (names, arguments, answers, errors) the shell implements
//!   and `ui/src/ipc/commands.generated.ts` is generated from.
//! - [`ids`]: one type per kind of stored id (session, run, approval, workspace, profile),
//!   plain strings on every wire, so one kind cannot be passed where another is expected.
//! - Engine wire types (Codex app-server, Claude stream-json) live in their own modules.
//! - [`sync::lock`]: the one poison-tolerant mutex lock, here because every crate depends on
//!   this one.

/// A unit enum the store keeps by name: the derives all of them share (serde and strum
/// names in snake_case, the same on the wire and in the database; see `stored.rs`).
macro_rules! stored_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($body:tt)* }) => {
        stored_enum! { case "snake_case"; $(#[$meta])* pub enum $name { $($body)* } }
    };
    (case $case:tt; $(#[$meta:meta])* pub enum $name:ident { $($body:tt)* }) => {
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            ::serde::Serialize,
            ::serde::Deserialize,
            ::ts_rs::TS,
            ::strum::IntoStaticStr,
            ::strum::EnumString,
            ::strum::VariantArray,
        )]
        #[serde(rename_all = $case)]
        #[strum(serialize_all = $case)]
        $(#[$meta])*
        pub enum $name { $($body)* }
    };
}

pub mod acp;
pub mod approval_detail;
pub mod capabilities;
pub mod claude;
pub mod codex;
pub mod engine_options;
pub mod events;
pub mod ids;
// Before `ipc`: `define_rpc!` is used there.
#[macro_use]
pub mod ipc_macro;
pub mod ipc;
pub mod plan;
pub mod rate_limits;
pub mod remote;
mod stored;
pub mod sync;
pub mod ui;
