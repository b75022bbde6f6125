//! IPC commands, by resource. Each is a thin call into the core; errors cross as
//! `{ code, message }` (`IpcError`), never bare strings.
//!
//! The commands implement the table in `agentdesk_protocol::ipc` (names, arguments, answers,
//! errors), from which the window's client is generated: a command takes its arguments as
//! the table's struct ([`Args`], or [`Raw`] for a binary body) and returns [`Reply`], so a
//! command that drifts from the table does not compile; `lib.rs` checks the registered names
//! against the table at compile time.

/// Commands that only call the desk, written as `fn name(desk, args: XArgs) { answer }`:
/// the signature they all share (the app state, the table's arguments, the table's reply)
/// and the desk lookup are written once, here. The body's value is the answer; `?` and
/// `return Err(..)` work as in any command.
macro_rules! desk_commands {
    ($($(#[$meta:meta])* fn $name:ident($desk:ident, $args:ident: $ty:ty) $body:block)*) => {$(
        $(#[$meta])*
        #[tauri::command]
        pub async fn $name(
            state: tauri::State<'_, crate::state::AppState>,
            args: crate::commands::Args<$ty>,
        ) -> crate::commands::Reply<$ty> {
            let $desk = state.desk()?;
            let $args = args.args;
            Ok($body)
        }
    )*};
}

pub mod accounts;
pub mod approvals;
pub mod attachments;
pub mod engines;
pub mod history;
pub mod profiles;
pub mod search;
pub mod session_admin;
pub mod sessions;
pub mod settings;
pub mod window;
pub mod workspaces;
pub mod worktrees;

use std::str::FromStr;

use agentdesk_protocol::ipc::{self, Body, Command};
use agentdesk_protocol::ui::{ErrorCode, IpcError};
use tauri::ipc::{
    CommandArg, CommandItem, InvokeBody, InvokeError, IpcResponse, JavaScriptChannelId, Request,
};
use tauri::{Webview, Wry};

pub type CmdResult<T> = Result<T, IpcError>;

/// What the command `A` answers, as the table declares it.
pub type Reply<A> = Result<<A as Command>::Response, <A as Command>::Error>;

pub fn invalid(message: impl Into<String>) -> IpcError {
    IpcError {
        code: ErrorCode::InvalidInput,
        message: message.into(),
    }
}

pub fn internal(message: impl Into<String>) -> IpcError {
    IpcError {
        code: ErrorCode::Internal,
        message: message.into(),
    }
}

/// A command's arguments, read as the table's struct `A` from the whole JSON body (one key
/// per field, camelCase: what the generated client sends).
pub struct Args<A> {
    pub args: A,
    webview: Webview<Wry>,
}

impl<A> std::ops::Deref for Args<A> {
    type Target = A;
    fn deref(&self) -> &A {
        &self.args
    }
}

impl<A> Args<A> {
    /// The live feed the page opened for this call, typed as the table declares it.
    pub fn channel<T: IpcResponse>(
        &self,
        channel: &ipc::Channel<T>,
    ) -> CmdResult<tauri::ipc::Channel<T>> {
        let id = JavaScriptChannelId::from_str(channel.id())
            .map_err(|e| invalid(format!("not a channel ({e}): {:?}", channel.id())))?;
        Ok(id.channel_on(self.webview.clone()))
    }
}

/// The command being called is the one `A` belongs to: a function registered under one name
/// cannot read another command's arguments (the table and the handler list are matched by name).
fn check_name<A: Command>(item: &CommandItem<'_, Wry>, body: Body) -> Result<(), InvokeError> {
    if item.name != A::NAME {
        return Err(internal(format!(
            "the command {} reads the arguments of {}",
            item.name,
            A::NAME
        ))
        .into());
    }
    if A::BODY != body {
        return Err(internal(format!("the command {} has a {:?} body", A::NAME, A::BODY)).into());
    }
    Ok(())
}

impl<'de, A: Command> CommandArg<'de, Wry> for Args<A> {
    fn from_command(item: CommandItem<'de, Wry>) -> Result<Self, InvokeError> {
        check_name::<A>(&item, Body::Json)?;
        let InvokeBody::Json(body) = item.message.payload() else {
            return Err(invalid(format!("{} takes JSON arguments", A::NAME)).into());
        };
        let args = ipc::read_json(body).map_err(invalid)?;
        Ok(Self {
            args,
            webview: item.message.webview(),
        })
    }
}

/// A binary body (the bytes as sent) with the table's arguments `A`, read from their headers
/// (`x-file-name` for `file_name`, percent-encoded).
pub struct Raw<'a, A> {
    pub args: A,
    pub body: &'a [u8],
}

impl<'de, A: Command> CommandArg<'de, Wry> for Raw<'de, A> {
    fn from_command(item: CommandItem<'de, Wry>) -> Result<Self, InvokeError> {
        check_name::<A>(&item, Body::Raw)?;
        let message = item.message;
        let request = Request::from_command(item)?;
        let InvokeBody::Raw(body) = message.payload() else {
            return Err(invalid(format!("{} must be sent as raw bytes", A::NAME)).into());
        };
        let headers = request.headers();
        let args = ipc::read_headers(|name| {
            let value = headers.get(name)?.to_str().ok()?;
            Some(value.to_string())
        })
        .map_err(invalid)?;
        Ok(Self { args, body })
    }
}

/// Whether the registered handlers (`path::to::command`, as `stringify!` writes them) are
/// exactly the table's commands: as many, and each command of the table registered once.
/// Evaluated at compile time by `lib.rs`.
pub const fn handlers_match_table(handlers: &[&str], table: &[&str]) -> bool {
    if handlers.len() != table.len() {
        return false;
    }
    let mut j = 0;
    while j < table.len() {
        let mut count = 0;
        let mut i = 0;
        while i < handlers.len() {
            if last_segment_is(handlers[i], table[j]) {
                count += 1;
            }
            i += 1;
        }
        if count != 1 {
            return false;
        }
        j += 1;
    }
    true
}

/// `path` is `name` or ends with `::name` (spaces around `::` allowed).
const fn last_segment_is(path: &str, name: &str) -> bool {
    let (p, n) = (path.as_bytes(), name.as_bytes());
    if p.len() < n.len() {
        return false;
    }
    let start = p.len() - n.len();
    let mut i = 0;
    while i < n.len() {
        if p[start + i] != n[i] {
            return false;
        }
        i += 1;
    }
    start == 0 || p[start - 1] == b':' || p[start - 1] == b' '
}

/// Ask the user in a native dialog the window cannot answer (script in the page cannot press
/// it); `true` only for the explicit `yes` button (closing the dialog is a no).
pub(crate) async fn confirm_natively(
    app: &tauri::AppHandle,
    title: &str,
    message: String,
    yes: &str,
) -> bool {
    use tauri::Manager;
    use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut dialog = app
        .dialog()
        .message(message)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            yes.into(),
            "Cancel".into(),
        ));
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.parent(&window);
    }
    dialog.show(move |ok| {
        let _ = tx.send(ok);
    });
    rx.await.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handler_lists_are_matched_with_the_table() {
        let table = ["app_info", "list_workspaces"];
        assert!(handlers_match_table(
            &["commands::workspaces::app_info", "x :: list_workspaces"],
            &table
        ));
        // Missing, extra, twice, or a name that only ends like a command.
        assert!(!handlers_match_table(&["a::app_info"], &table));
        assert!(!handlers_match_table(
            &["a::app_info", "b::app_info"],
            &table
        ));
        assert!(!handlers_match_table(
            &["a::app_info", "a::my_list_workspaces"],
            &table
        ));
    }
}
