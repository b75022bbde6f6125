//! `doctor`: is everything in place? Engines (found where, version, logged in), the data
//! directory, and the database (`PRAGMA integrity_check`, schema version). Exits non-zero
//! when the database is unhealthy (7) or an installed engine has a version runs are refused
//! with (6); a missing engine is reported, not an error, because a user may only use one of
//! the two.

use std::path::Path;
use std::process::ExitCode;

use agentdesk_core::Desk;
use clap::Args;
use serde::Serialize;

use agentdesk_protocol::remote::SshLocation;

use crate::error::{CliError, CliResult, EXIT_INTERNAL};

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Skip the login checks (they start each engine once).
    #[arg(long)]
    no_login: bool,
    /// Check the engines where this workspace's runs start them: for
    /// `ssh://[user@]host[:port]/path`, on that host (over SSH, as its login shell finds
    /// them); a local folder is this machine.
    #[arg(long, value_name = "FOLDER|ssh://HOST/PATH")]
    workspace: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct EngineReport {
    engine: &'static str,
    /// The executable checked: an engine may have several (the ACP agents).
    program: String,
    path: Option<String>,
    version: Option<String>,
    /// `None`: not checked (not found, or `--no-login`).
    logged_in: Option<bool>,
    problem: Option<String>,
    /// Found, but a version runs are refused with.
    unsupported: bool,
    /// What to run to fix it (install, log in), on the host for a remote workspace.
    fix: Vec<String>,
    /// Why, for the exit code and the error line (the same one a run fails with).
    #[serde(skip)]
    unsupported_error: Option<CliError>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Report {
    data_dir: String,
    database: String,
    integrity: String,
    schema_version: i64,
    known_schema_version: i64,
    /// The host the engines were checked on (`--workspace ssh://…`); `None`: this machine.
    host: Option<String>,
    engines: Vec<EngineReport>,
    /// What each engine last said about the account's rate limits.
    rate_limits: Vec<agentdesk_protocol::rate_limits::EngineRateLimits>,
}

pub async fn doctor(data_dir: &Path, a: DoctorArgs) -> CliResult<ExitCode> {
    let desk = match crate::open_desk(data_dir).await {
        Ok(desk) => desk,
        Err(e) => {
            // Damaged: the integrity report first, then the error that says how to recover.
            agentdesk_core::integrity::print_report_if_damaged(data_dir).await;
            return Err(e);
        }
    };
    let result = report(&desk, &a).await;
    desk.close().await;
    let report = result?;
    if a.json {
        crate::views::print_json(&report)?;
    } else {
        println!("data dir:  {}", report.data_dir);
        println!("database:  {}", report.database);
        println!(
            "schema:    version {} (this build knows {})",
            report.schema_version, report.known_schema_version
        );
        println!("integrity: {}", report.integrity);
        if let Some(host) = &report.host {
            println!("host:      {host} (the engines below are there)");
        }
        for e in &report.engines {
            let login = match e.logged_in {
                Some(true) => "logged in",
                Some(false) => "NOT logged in",
                None => "login not checked",
            };
            match (&e.path, &e.version) {
                (Some(p), Some(v)) => println!("{:<10} {v} at {p} ({login})", e.program),
                (Some(p), None) => println!("{:<10} found at {p}", e.program),
                _ => println!("{:<10} not found", e.program),
            }
            if let Some(problem) = &e.problem {
                println!("           {problem}");
            }
            for fix in &e.fix {
                println!("           run: {fix}");
            }
        }
        for l in &report.rate_limits {
            println!(
                "limits:    {} {} (as of {})",
                l.engine.as_str(),
                crate::escape::visible(&crate::render::rate_limits(&l.limits)),
                crate::render::time(l.updated_at)
            );
        }
    }
    if report.integrity != "ok" {
        eprintln!("error: the database failed its integrity check [storage]");
        return Ok(ExitCode::from(EXIT_INTERNAL));
    }
    if let Some(e) = report.engines.into_iter().find_map(|e| e.unsupported_error) {
        return Err(e);
    }
    Ok(ExitCode::SUCCESS)
}

async fn report(desk: &Desk, a: &DoctorArgs) -> CliResult<Report> {
    let store = desk.store();
    let integrity = store
        .integrity_check()
        .await
        .map_err(agentdesk_core::CoreError::from)?;
    let schema_version = store
        .schema_version()
        .await
        .map_err(agentdesk_core::CoreError::from)?;
    let remote = match a.workspace.as_deref().map(SshLocation::parse_any) {
        Some(Some(loc)) => Some(loc.map_err(CliError::invalid)?),
        _ => None,
    };
    let engines = match &remote {
        Some(loc) => desk
            .remote_engines_health(&loc.host_label(), Some(&loc.path), !a.no_login)
            .await?
            .into_iter()
            .map(remote_report)
            .collect(),
        None => desk
            .engines_health(!a.no_login)
            .await
            .into_iter()
            .map(engine_report)
            .collect(),
    };
    Ok(Report {
        data_dir: desk.data_dir().display().to_string(),
        database: desk.database_path().display().to_string(),
        integrity,
        schema_version,
        known_schema_version: agentdesk_store::Store::known_schema_version(),
        host: remote.map(|l| l.host_label()),
        engines,
        rate_limits: desk.watch_rate_limits().await.borrow().clone(),
    })
}

/// The core's engine check (the same one the app's Settings shows), in the CLI's shape.
fn engine_report(check: agentdesk_core::health::EngineCheck) -> EngineReport {
    report_of(check.health, check.unsupported.map(CliError::from))
}

/// An engine on a host: found there but of a version runs are refused with is an error
/// like a local one.
fn remote_report(h: agentdesk_protocol::ui::EngineHealth) -> EngineReport {
    let unsupported = h
        .problem
        .as_ref()
        .filter(|p| p.code == agentdesk_protocol::ui::ErrorCode::EngineVersionUnsupported)
        .map(|p| CliError::from_code(p.code, p.message.clone()));
    report_of(h, unsupported)
}

fn report_of(
    h: agentdesk_protocol::ui::EngineHealth,
    unsupported: Option<CliError>,
) -> EngineReport {
    EngineReport {
        engine: h.engine.as_str(),
        program: h.program,
        path: h.path,
        version: h.version,
        logged_in: h.logged_in,
        problem: h.problem.map(|p| p.message),
        fix: h.fix_commands,
        unsupported: unsupported.is_some(),
        unsupported_error: unsupported,
    }
}
