//! The engines' accounts (issue 24, item 7): read, log in (an API key, the engine's browser
//! or device flow), wait, cancel, log out. The window runs next to agent output, so an API
//! key login and a logout are carried out only once the user confirms them in a native
//! dialog the page cannot answer: a compromised window must not put the engine on a key of
//! its choosing (every prompt would go to that account), nor log the user out.

use agentdesk_protocol::ipc::{
    EngineAccountArgs, EngineLoginArgs, EngineLoginCancelArgs, EngineLoginWaitArgs,
    EngineLogoutArgs,
};
use agentdesk_protocol::ui::LoginRequest;
use tauri::{AppHandle, State};

use super::{invalid, Args, Reply};
use crate::state::AppState;

/// Title of the native confirmation (the E2E tests find the dialog by it).
pub const CONFIRM_ACCOUNT_TITLE: &str = "Confirm the engine's login";

desk_commands! {
    fn engine_account(desk, args: EngineAccountArgs) {
        desk.engine_account(args.engine).await?
    }

    fn engine_login_wait(desk, args: EngineLoginWaitArgs) {
        desk.engine_login_wait(&args.login_id).await?
    }

    fn engine_login_cancel(desk, args: EngineLoginCancelArgs) {
        desk.engine_login_cancel(&args.login_id)?
    }
}

async fn user_confirms(app: &AppHandle, message: String, yes: &str) -> bool {
    super::confirm_natively(app, CONFIRM_ACCOUNT_TITLE, message, yes).await
}

fn engine_name(engine: agentdesk_protocol::ui::Engine) -> &'static str {
    agentdesk_core::engines::descriptor(engine).display_name()
}

#[tauri::command]
pub async fn engine_login(
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<EngineLoginArgs>,
) -> Reply<EngineLoginArgs> {
    let EngineLoginArgs { engine, request } = args.args;
    let desk = state.desk()?;
    if let LoginRequest::ApiKey { .. } = &request {
        let name = engine_name(engine);
        let text = format!(
            "Log {name} in with the API key typed in Agent Desk?\n\n{name} will send your prompts and files under that key's account, and keep the key itself.\n\nConfirm only if you typed it yourself: text shown in the app, an agent's output included, must never be able to choose the account your work goes to."
        );
        if !user_confirms(&app, text, "Use this key").await {
            tracing::warn!(engine = engine.as_str(), "API key login not confirmed");
            return Err(invalid(
                "not logged in: the API key was not confirmed in the dialog",
            ));
        }
    }
    Ok(desk.engine_login(engine, request).await?)
}

#[tauri::command]
pub async fn engine_logout(
    app: AppHandle,
    state: State<'_, AppState>,
    args: Args<EngineLogoutArgs>,
) -> Reply<EngineLogoutArgs> {
    let engine = args.args.engine;
    let desk = state.desk()?;
    let name = engine_name(engine);
    let text = format!("Log {name} out? It forgets its stored login, for the terminal too.");
    if !user_confirms(&app, text, "Log out").await {
        return Err(invalid(
            "not logged out: it was not confirmed in the dialog",
        ));
    }
    Ok(desk.engine_logout(engine).await?)
}
