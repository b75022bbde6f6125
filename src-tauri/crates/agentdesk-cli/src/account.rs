//! `account`, `login`, `logout` (issue 24, item 7): an engine's account as it reports it,
//! and logging it in or out. The engine keeps its credentials; an API key is read from stdin
//! (never from the command line, where other users' `ps` could see it) and handed over.

use std::io::Read;

use agentdesk_core::engines::descriptor;
use agentdesk_core::profiles::parse_engine;
use agentdesk_core::Desk;
use agentdesk_protocol::ui::{Engine, EngineAccount, LoginRequest};
use clap::Args;

use crate::error::{CliError, CliResult};
use crate::escape::visible_line;
use crate::views::print_json;

#[derive(Args, Debug)]
pub struct AccountArgs {
    /// codex or claude (default: every engine that can say).
    engine: Option<String>,
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct LoginArgs {
    /// The engine (codex).
    engine: String,
    /// Read an API key from stdin and hand it to the engine (which stores it).
    #[arg(long, conflicts_with = "device_code")]
    api_key_stdin: bool,
    /// Log in with a code typed on another device instead of a browser on this one.
    #[arg(long)]
    device_code: bool,
}

#[derive(Args, Debug)]
pub struct LogoutArgs {
    /// The engine (codex).
    engine: String,
}

pub async fn account(desk: &Desk, a: AccountArgs) -> CliResult<()> {
    let engines: Vec<Engine> = match &a.engine {
        Some(e) => vec![parse_engine(e)?],
        None => Engine::ALL
            .iter()
            .copied()
            .filter(|e| descriptor(*e).login_checkable())
            .collect(),
    };
    let mut all = Vec::new();
    for e in engines {
        all.push(desk.engine_account(e).await?);
    }
    if a.json {
        return print_json(&all);
    }
    for acc in &all {
        print_account(acc);
    }
    Ok(())
}

fn print_account(a: &EngineAccount) {
    let name = descriptor(a.engine).display_name();
    let state = match a.logged_in {
        Some(true) => "logged in",
        Some(false) => "not logged in",
        None => "unknown",
    };
    let mut line = format!("{name}: {state}");
    for part in [&a.method, &a.email, &a.plan].into_iter().flatten() {
        line.push_str(&format!(" · {part}"));
    }
    println!("{}", visible_line(&line));
    if let Some(why) = &a.unavailable {
        println!("    {}", visible_line(why));
    }
    if a.logged_in != Some(true) {
        if a.login_methods.is_empty() {
            println!(
                "    log in from a terminal: {}",
                a.login_commands.join(", then ")
            );
        } else {
            println!("    log in: agentdesk-cli login {}", a.engine.as_str());
        }
    }
}

pub async fn login(desk: &Desk, a: LoginArgs) -> CliResult<()> {
    let engine = parse_engine(&a.engine)?;
    let request = if a.api_key_stdin {
        let mut key = String::new();
        std::io::stdin()
            .read_to_string(&mut key)
            .map_err(|e| CliError::io("stdin", e))?;
        LoginRequest::ApiKey {
            api_key: key.trim().to_owned(),
        }
    } else if a.device_code {
        LoginRequest::DeviceCode
    } else {
        LoginRequest::Browser
    };
    let started = desk.engine_login(engine, request).await?;
    let Some(login_id) = started.login_id else {
        if let Some(acc) = &started.account {
            print_account(acc);
        }
        return Ok(());
    };
    // Tokio installs the Ctrl-C handler when the future is first polled: before the page is
    // printed, so a Ctrl-C as soon as the user sees it cancels the login (instead of killing
    // the CLI by the default action while codex keeps waiting).
    let mut ctrl_c = Box::pin(tokio::signal::ctrl_c());
    tokio::select! {
        biased;
        _ = &mut ctrl_c => {
            desk.engine_login_cancel(&login_id)?;
            return Err(CliError::invalid("the login was cancelled"));
        }
        () = std::future::ready(()) => {}
    }
    if let Some(url) = &started.auth_url {
        println!("Open this page to log in (waiting for the browser):\n  {url}");
    }
    if let (Some(url), Some(code)) = (&started.verification_url, &started.user_code) {
        println!("On any device, open {url} and type the code {code} (waiting):");
    }
    let acc = tokio::select! {
        acc = desk.engine_login_wait(&login_id) => acc?,
        _ = &mut ctrl_c => {
            desk.engine_login_cancel(&login_id)?;
            return Err(CliError::invalid("the login was cancelled"));
        }
    };
    print_account(&acc);
    Ok(())
}

pub async fn logout(desk: &Desk, a: LogoutArgs) -> CliResult<()> {
    let acc = desk.engine_logout(parse_engine(&a.engine)?).await?;
    print_account(&acc);
    Ok(())
}
