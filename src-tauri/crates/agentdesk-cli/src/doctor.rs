//! `doctor`: is everything in place? Engines (found where, version, logged in), the data
//! directory, and the database (`PRAGMA integrity_check`, schema version). Exits non-zero
//! when the database is unhealthy (7) or an installed engine has a version runs are refused
//! with (6); a missing engine is reported, not an error, because a user may only use one of
//! the two.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agentdesk_core::{engines, Desk, EngineSettings};
use agentdesk_engine::claude::{ClaudeEngine, ClaudeEngineConfig, ClaudeProfile};
use agentdesk_engine::codex::{CodexEngine, CodexEngineConfig, CodexProfile};
use agentdesk_protocol::ui::Engine;
use clap::Args;
use serde::Serialize;

use crate::error::{CliError, CliResult, EXIT_INTERNAL};

/// Bound on each login probe (an engine start plus one request).
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// Skip the login checks (they start each engine once).
    #[arg(long)]
    no_login: bool,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct EngineReport {
    engine: &'static str,
    path: Option<String>,
    version: Option<String>,
    /// `None`: not checked (not found, or `--no-login`).
    logged_in: Option<bool>,
    problem: Option<String>,
    /// Found, but a version runs are refused with.
    unsupported: bool,
    /// Why, for the exit code and the error line (the same one a run fails with).
    #[serde(skip)]
    unsupported_error: Option<agentdesk_core::CoreError>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Report {
    data_dir: String,
    database: String,
    integrity: String,
    schema_version: i64,
    known_schema_version: i64,
    engines: Vec<EngineReport>,
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
        for e in &report.engines {
            let login = match e.logged_in {
                Some(true) => "logged in",
                Some(false) => "NOT logged in",
                None => "login not checked",
            };
            match (&e.path, &e.version) {
                (Some(p), Some(v)) => println!("{:<7}    {v} at {p} ({login})", e.engine),
                (Some(p), None) => println!("{:<7}    found at {p}", e.engine),
                _ => println!("{:<7}    not found", e.engine),
            }
            if let Some(problem) = &e.problem {
                println!("           {problem}");
            }
        }
    }
    if report.integrity != "ok" {
        eprintln!("error: the database failed its integrity check [storage]");
        return Ok(ExitCode::from(EXIT_INTERNAL));
    }
    if let Some(e) = report.engines.into_iter().find_map(|e| e.unsupported_error) {
        return Err(CliError::from(e));
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
    let settings = desk.engine_settings().await?;
    let mut engines = Vec::new();
    for engine in [Engine::Codex, Engine::Claude] {
        engines.push(engine_report(desk, engine, &settings, !a.no_login).await);
    }
    Ok(Report {
        data_dir: desk.data_dir().display().to_string(),
        database: desk.database_path().display().to_string(),
        integrity,
        schema_version,
        known_schema_version: agentdesk_store::Store::known_schema_version(),
        engines,
    })
}

async fn engine_report(
    desk: &Desk,
    engine: Engine,
    settings: &EngineSettings,
    check_login: bool,
) -> EngineReport {
    let mut r = EngineReport {
        engine: engine.as_str(),
        path: None,
        version: None,
        logged_in: None,
        problem: None,
        unsupported: false,
        unsupported_error: None,
    };
    let exe = match desk.locate_engine(engine).await {
        Ok(exe) => exe,
        Err(e) => {
            r.problem = Some(e.to_string());
            return r;
        }
    };
    r.path = Some(exe.path.display().to_string());
    match desk.engine_version(engine).await {
        Ok(v) => {
            r.version = Some(v.raw.clone());
            // Installed but outside the supported range: runs are refused, so say what to
            // install (and make doctor fail, unlike a merely missing engine).
            if let Err(e) = engines::engine_program(engine).check_version(&exe.path, &v) {
                r.problem = Some(e.to_string());
                r.unsupported = true;
                r.unsupported_error = Some(e.into());
                return r;
            }
        }
        Err(e) => {
            r.problem = Some(e.to_string());
            return r;
        }
    }
    if check_login {
        let probe = login_state(engine, &exe.path, desk.data_dir(), settings);
        match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(Ok(logged_in)) => r.logged_in = Some(logged_in),
            Ok(Err(e)) => r.problem = Some(format!("login check failed: {}", e.message)),
            Err(_) => r.problem = Some("login check timed out".to_string()),
        }
    }
    r
}

/// Start the engine once with default options and ask who is logged in.
async fn login_state(
    engine: Engine,
    program: &Path,
    cwd: &Path,
    settings: &EngineSettings,
) -> CliResult<bool> {
    let failed = |e: agentdesk_engine::EngineError| CliError::engine(e.to_string());
    match engine {
        Engine::Claude => {
            let claude = ClaudeEngine::new(ClaudeEngineConfig::new(program));
            let status = claude
                .status(cwd, &ClaudeProfile::default())
                .await
                .map_err(failed)?;
            Ok(status.logged_in)
        }
        Engine::Codex => {
            let codex = CodexEngine::new(CodexEngineConfig::new(program));
            let home = settings
                .codex_home
                .clone()
                .or_else(|| std::env::var_os("CODEX_HOME").map(Into::into));
            let account = codex.account(home, &CodexProfile::default()).await;
            // The app-server is resident; stop it before returning (no orphans).
            codex.shutdown().await;
            let account = account.map_err(failed)?;
            Ok(account.account.is_some() || !account.requires_openai_auth)
        }
    }
}
