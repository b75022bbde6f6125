//! Shared test support: process helpers, fake model servers, fake engines (see `src/bin/`).

pub mod bench;
pub mod e2e;
pub mod e2e_acp;
pub mod events;
pub mod fake_chat;
pub mod fake_messages;
pub mod fake_notifications;
pub mod fake_responses;
pub mod fake_tray;
pub mod histories;
pub mod http;
pub mod process;
pub mod real;
pub mod script;
pub mod soak;
#[cfg(unix)]
pub mod sshd;
pub mod world;
pub mod xwindow;
