//! Codex's account from the app (issue 24, item 7): `account/read`, `account/login/start`
//! (an API key, the ChatGPT browser flow, a device code), `account/login/cancel`,
//! `account/logout`, against an app-server of its own in the settings' home. Codex stores
//! the credentials in its home; nothing passes through Agent Desk's storage.

use std::path::{Path, PathBuf};

use agentdesk_protocol::codex::requests::{AccountLoginCancel, AccountLoginStart, AccountLogout};
use agentdesk_protocol::codex::{
    Account, AccountLoginCompletedNotification, CancelLoginAccountParams, LoginAccountParams,
    LoginAccountResponse, LogoutAccountParams,
};
use agentdesk_protocol::ui::{EngineAccount, LoginRequest};
use serde_json::Value;
use tokio::sync::broadcast;

use super::{CodexEngine, CodexEngineConfig, CodexProfile};
use crate::error::EngineError;
use crate::registry::{BoxFuture, EngineDescriptor, LoginStarted, PendingLogin};

/// The account as codex reports it (`None` fields: not said).
pub(crate) async fn account(
    exe: &Path,
    home: Option<PathBuf>,
) -> Result<EngineAccount, EngineError> {
    let codex = CodexEngine::new(CodexEngineConfig::new(exe));
    let read = codex.account(home, &CodexProfile::default()).await;
    codex.shutdown().await;
    let read = read?;
    let mut a = super::descriptor::CODEX.blank_account();
    a.logged_in = Some(read.account.is_some() || !read.requires_openai_auth);
    a.can_log_out = read.account.is_some();
    match read.account {
        Some(Account::ApiKey {}) => a.method = Some("API key".into()),
        Some(Account::Chatgpt { email, plan_type }) => {
            a.method = Some("ChatGPT".into());
            a.email = email;
            a.plan = plan_type
                .as_ref()
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        Some(Account::Unknown(_)) => a.method = Some("another account type".into()),
        None if !read.requires_openai_auth => a.method = Some("no login needed".into()),
        None => {}
    }
    Ok(a)
}

pub(crate) async fn start(
    exe: &Path,
    home: Option<PathBuf>,
    request: LoginRequest,
) -> Result<LoginStarted, EngineError> {
    let codex = CodexEngine::new(CodexEngineConfig::new(exe));
    let profile = CodexProfile::default();
    let params = match request {
        LoginRequest::ApiKey { api_key } => LoginAccountParams::ApiKey { api_key },
        LoginRequest::Browser => LoginAccountParams::Chatgpt {},
        LoginRequest::DeviceCode => LoginAccountParams::ChatgptDeviceCode {},
    };
    let started = codex.login_start(home.clone(), &profile, &params).await;
    let (reply, done) = match started {
        Ok(r) => r,
        Err(e) => {
            codex.shutdown().await;
            return Err(e);
        }
    };
    let mut out = LoginStarted::default();
    let login_id = match reply {
        LoginAccountResponse::ApiKey {} => None,
        LoginAccountResponse::Chatgpt { login_id, auth_url } => {
            out.auth_url = Some(auth_url);
            Some(login_id)
        }
        LoginAccountResponse::ChatgptDeviceCode {
            login_id,
            verification_url,
            user_code,
        } => {
            out.verification_url = verification_url;
            out.user_code = user_code;
            Some(login_id)
        }
        LoginAccountResponse::Unknown(v) => {
            codex.shutdown().await;
            return Err(EngineError::Preflight(format!(
                "Codex answered the login with {v}"
            )));
        }
    };
    match login_id {
        // The browser (or the other device) answers codex, which must live until then.
        Some(login_id) => {
            out.pending = Some(Box::new(CodexLogin {
                codex,
                home,
                login_id,
                done,
            }))
        }
        None => codex.shutdown().await,
    }
    Ok(out)
}

pub(crate) async fn logout(exe: &Path, home: Option<PathBuf>) -> Result<(), EngineError> {
    let codex = CodexEngine::new(CodexEngineConfig::new(exe));
    let r = codex.logout(home, &CodexProfile::default()).await;
    codex.shutdown().await;
    r
}

/// A browser or device login codex is waiting on: its app-server lives until the login
/// ends, is cancelled or this is dropped (the process is stopped with it).
struct CodexLogin {
    codex: CodexEngine,
    home: Option<PathBuf>,
    login_id: String,
    done: broadcast::Receiver<AccountLoginCompletedNotification>,
}

impl PendingLogin for CodexLogin {
    fn wait(&mut self) -> BoxFuture<'_, Result<(), EngineError>> {
        Box::pin(async move {
            loop {
                match self.done.recv().await {
                    Ok(n) if n.login_id.as_deref() == Some(self.login_id.as_str()) => {
                        self.codex.shutdown().await;
                        return if n.success {
                            Ok(())
                        } else {
                            Err(EngineError::Preflight(format!(
                                "Codex could not log in: {}",
                                n.error.as_deref().unwrap_or("no reason given")
                            )))
                        };
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => {
                        return Err(EngineError::Preflight(
                            "Codex stopped before the login ended".into(),
                        ))
                    }
                }
            }
        })
    }

    fn cancel(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let _ = self
                .codex
                .login_cancel(self.home.clone(), &CodexProfile::default(), &self.login_id)
                .await;
            self.codex.shutdown().await;
        })
    }
}

impl CodexEngine {
    /// `account/login/start`, with a receiver of login completions subscribed before it.
    pub async fn login_start(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
        params: &LoginAccountParams,
    ) -> Result<
        (
            LoginAccountResponse,
            broadcast::Receiver<AccountLoginCompletedNotification>,
        ),
        EngineError,
    > {
        let server = self.server(profile.server_key(codex_home));
        let done = server.logins();
        let peer = server.peer().await?;
        let reply = peer.call::<AccountLoginStart>(params).await?;
        Ok((reply, done))
    }

    pub async fn login_cancel(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
        login_id: &str,
    ) -> Result<(), EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        peer.call::<AccountLoginCancel>(&CancelLoginAccountParams {
            login_id: login_id.to_owned(),
        })
        .await
        .map(|_| ())
    }

    pub async fn logout(
        &self,
        codex_home: Option<PathBuf>,
        profile: &CodexProfile,
    ) -> Result<(), EngineError> {
        let peer = self.server(profile.server_key(codex_home)).peer().await?;
        peer.call::<AccountLogout>(&LogoutAccountParams {})
            .await
            .map(|_| ())
    }
}
