//! The engines' accounts from the app (issue 24, item 7): read, log in, wait for a browser
//! login, cancel, log out. The engine keeps the credentials; an API key only passes through
//! to it. A browser or device login waits in a task of its own (its engine process with it)
//! until it ends, is cancelled, or times out.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use agentdesk_engine::registry::PendingLogin;
use agentdesk_protocol::sync::lock;
use agentdesk_protocol::ui::{Engine, EngineAccount, LoginRequest, LoginStart};
use tokio::sync::{oneshot, watch};

use crate::engines::descriptor;
use crate::{CoreError, Desk, Result};

/// How long a browser or device login may wait for the user.
const LOGIN_WAIT: Duration = Duration::from_secs(15 * 60);
/// Bound on reading an account (an engine start and a request).
const ACCOUNT_TIMEOUT: Duration = Duration::from_secs(30);

/// How a waiting login ended (`None` while it waits).
type Outcome = Option<std::result::Result<(), String>>;

struct Waiting {
    engine: Engine,
    outcome: watch::Receiver<Outcome>,
    cancel: Option<oneshot::Sender<()>>,
}

/// The logins waiting for the user, by login id. One owner: the desk (its clones share it).
#[derive(Default, Clone)]
pub(crate) struct Logins(Arc<std::sync::Mutex<HashMap<String, Waiting>>>);

impl std::fmt::Debug for Logins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Logins({} waiting)", lock(&self.0).len())
    }
}

impl Desk {
    /// `engine`'s account as it reports it, with the logins the app can start.
    pub async fn engine_account(&self, engine: Engine) -> Result<EngineAccount> {
        let d = descriptor(engine);
        let mut blank = d.blank_account();
        let exe = match self.locate_engine(engine).await {
            Ok(exe) => exe.path,
            Err(e) => {
                blank.unavailable = Some(e.to_ipc().message);
                return Ok(blank);
            }
        };
        let settings = self.engine_settings().await.unwrap_or_default();
        let asked = d.account(&exe, self.data_dir(), &settings);
        Ok(match tokio::time::timeout(ACCOUNT_TIMEOUT, asked).await {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => {
                blank.unavailable = Some(format!("{} could not say: {e}", d.display_name()));
                blank
            }
            Err(_) => {
                blank.unavailable = Some(format!(
                    "{} did not answer within {} s",
                    d.display_name(),
                    ACCOUNT_TIMEOUT.as_secs()
                ));
                blank
            }
        })
    }

    /// Start logging `engine` in. An API key is done at once (the account comes back); a
    /// browser or device login answers with where the user goes and a login id to wait for.
    pub async fn engine_login(&self, engine: Engine, request: LoginRequest) -> Result<LoginStart> {
        let d = descriptor(engine);
        if !d.login_kinds().contains(&request.kind()) {
            return Err(CoreError::InvalidInput(format!(
                "{} cannot be logged in that way from Agent Desk",
                d.display_name()
            )));
        }
        if let LoginRequest::ApiKey { api_key } = &request {
            if api_key.trim().is_empty() || api_key.chars().any(char::is_whitespace) {
                return Err(CoreError::InvalidInput(
                    "the API key is empty or has spaces in it".into(),
                ));
            }
        }
        let exe = self.locate_engine(engine).await?.path;
        let settings = self.engine_settings().await.unwrap_or_default();
        let started = d.login(&exe, &settings, request).await?;
        let Some(pending) = started.pending else {
            return Ok(LoginStart {
                login_id: None,
                auth_url: None,
                verification_url: None,
                user_code: None,
                account: Some(self.engine_account(engine).await?),
            });
        };
        let login_id = uuid::Uuid::now_v7().to_string();
        let (cancel_tx, cancel_rx) = oneshot::channel();
        let (outcome_tx, outcome_rx) = watch::channel(None);
        lock(&self.logins.0).insert(
            login_id.clone(),
            Waiting {
                engine,
                outcome: outcome_rx,
                cancel: Some(cancel_tx),
            },
        );
        tokio::spawn(wait_for_login(pending, cancel_rx, outcome_tx));
        Ok(LoginStart {
            login_id: Some(login_id),
            auth_url: started.auth_url,
            verification_url: started.verification_url,
            user_code: started.user_code,
            account: None,
        })
    }

    /// Wait for the login `login_id` to end: the account then, or why it failed.
    pub async fn engine_login_wait(&self, login_id: &str) -> Result<EngineAccount> {
        let (engine, mut outcome) = {
            let logins = lock(&self.logins.0);
            let w = logins
                .get(login_id)
                .ok_or_else(|| unknown_login(login_id))?;
            (w.engine, w.outcome.clone())
        };
        let ended = outcome
            .wait_for(Option::is_some)
            .await
            .map(|o| o.clone())
            .unwrap_or(Some(Err("the login was given up".into())));
        lock(&self.logins.0).remove(login_id);
        match ended {
            Some(Ok(())) => self.engine_account(engine).await,
            Some(Err(why)) => Err(CoreError::InvalidInput(why)),
            None => Err(CoreError::InvalidInput("the login was given up".into())),
        }
    }

    /// Give up the login `login_id` (its engine process stops).
    pub fn engine_login_cancel(&self, login_id: &str) -> Result<()> {
        let mut logins = lock(&self.logins.0);
        let w = logins
            .get_mut(login_id)
            .ok_or_else(|| unknown_login(login_id))?;
        if let Some(cancel) = w.cancel.take() {
            let _ = cancel.send(());
        }
        Ok(())
    }

    /// Log `engine` out: it forgets its stored login. The account then.
    pub async fn engine_logout(&self, engine: Engine) -> Result<EngineAccount> {
        let d = descriptor(engine);
        let exe = self.locate_engine(engine).await?.path;
        let settings = self.engine_settings().await.unwrap_or_default();
        d.logout(&exe, &settings).await?;
        self.engine_account(engine).await
    }
}

fn unknown_login(login_id: &str) -> CoreError {
    CoreError::InvalidInput(format!("no login {login_id} is waiting"))
}

async fn wait_for_login(
    mut pending: Box<dyn PendingLogin>,
    cancel: oneshot::Receiver<()>,
    outcome: watch::Sender<Outcome>,
) {
    let ended = tokio::select! {
        r = pending.wait() => r.map_err(|e| e.to_string()),
        _ = cancel => Err("the login was cancelled".to_owned()),
        _ = tokio::time::sleep(LOGIN_WAIT) => {
            Err(format!("the login was not finished within {} minutes", LOGIN_WAIT.as_secs() / 60))
        }
    };
    if ended.is_err() {
        pending.cancel().await;
    }
    let _ = outcome.send(Some(ended));
}
