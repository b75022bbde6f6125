//! `agentdesk-cli`: the headless face of Agent Desk, over the same core and database as the
//! app. For scripting and for tests.

mod account;
mod doctor;
mod error;
mod escape;
mod import;
mod mcp;
mod profile;
mod render;
mod run;
mod views;
mod worktree;

use std::path::PathBuf;
use std::process::ExitCode;

use agentdesk_core::{owner, paths, Desk};
use clap::{Parser, Subcommand};

use crate::error::{CliError, CliResult};

const EXIT_CODES: &str = "\
EXIT CODES:
  0   success (for `run`: the run completed)
  1   the run failed: the engine or the model reported an error, the engine was killed
      or crashed mid-run, or a wait timed out; git refused (a hook, a merge conflict:
      nothing was changed)
  2   bad command line (unknown flag, missing argument)
  3   the run was interrupted (Ctrl-C, SIGTERM, stdin closed at a prompt), or the
      process was shutting down
  4   invalid input (e.g. a profile field that does not validate, a conflict)
  5   not found (no such session, profile or workspace)
  6   an engine is unavailable: not installed, not logged in, unsupported version, or
      failed to start (no session is left behind); or a remote workspace's host
      (ssh://…) cannot be used: unreachable, login or host key refused, connection lost
  7   storage or internal error: the database is busy (held by another program),
      damaged, full or read-only; I/O
  130 killed by a second Ctrl-C

Errors print as `error: <message> [<code>]`; the code (engine_missing,
engine_not_logged_in, busy, storage_full...) says what to fix.

ENVIRONMENT:
  AGENTDESK_DATA_DIR   the data directory (default: the app's per-user data directory)
  AGENTDESK_CODEX_BIN  the codex executable (else the path in Settings, PATH, install dirs)
  AGENTDESK_CLAUDE_BIN the claude executable (likewise)";

#[derive(Parser, Debug)]
#[command(
    name = "agentdesk-cli",
    version,
    about = "Agent Desk without a window: run Codex or Claude Code sessions, browse and export them",
    after_help = EXIT_CODES
)]
struct Cli {
    /// The data directory (overrides AGENTDESK_DATA_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Send PROMPT to an agent in a workspace and stream the run's timeline.
    #[command(after_help = EXIT_CODES)]
    Run(run::RunArgs),
    /// List sessions, most recent first.
    Sessions(views::SessionsArgs),
    /// Print a session's timeline.
    Show(views::ShowArgs),
    /// Full-text search over every session's messages.
    Search(views::SearchArgs),
    /// Export a session as Markdown or JSON (to stdout).
    Export(views::ExportArgs),
    /// List the approvals waiting for an answer.
    Approvals(views::ApprovalsArgs),
    /// Check the engines, the data directory and the database; runs left `running` by a
    /// process that died are marked interrupted.
    Doctor(doctor::DoctorArgs),
    /// Import the sessions the engines ran in a terminal (Claude Code's history) into the
    /// workspaces they ran in; run again to pick up what is new.
    Import(import::ImportArgs),
    /// The engines' accounts, as each engine reports it.
    Account(account::AccountArgs),
    /// Log an engine in (Codex: the browser flow, --device-code, or --api-key-stdin); the
    /// engine stores the login.
    Login(account::LoginArgs),
    /// Log an engine out (it forgets its stored login).
    Logout(account::LogoutArgs),
    /// Manage a workspace's profiles.
    #[command(subcommand)]
    Profile(profile::ProfileCommand),
    /// A session's git worktree (sessions started with `run --worktree`): status, commit,
    /// merge, remove.
    #[command(subcommand, after_help = EXIT_CODES)]
    Worktree(worktree::WorktreeCommand),
}

fn main() -> ExitCode {
    // Before any thread or the heap grows: the forked watchdog keeps a copy of what is here.
    agentdesk_core::engines::start_orphan_watchdog();
    let cli = Cli::parse();
    // Like other Unix tools, die quietly when the reader of stdout goes away (`| head`)
    // instead of panicking on the next print.
    #[cfg(unix)]
    // SAFETY: resetting a signal disposition before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Only the commands that locate or start engines need the login shell's PATH (a
    // terminal-started CLI already has it; see agentdesk_engine::login_path): read it while
    // the store opens rather than when the engine is first looked for.
    if matches!(
        cli.command,
        Command::Run(_)
            | Command::Doctor(_)
            | Command::Account(_)
            | Command::Login(_)
            | Command::Logout(_)
    ) {
        agentdesk_engine::login_path::warm_up();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return CliError::internal(format!("cannot start the runtime: {e}")).report(),
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(e) => e.report(),
    }
}

async fn dispatch(cli: Cli) -> CliResult<ExitCode> {
    let data_dir = match cli.data_dir {
        Some(d) => d,
        None => paths::data_dir()?,
    };
    match cli.command {
        Command::Run(args) => run::run(&data_dir, args).await,
        Command::Doctor(args) => doctor::doctor(&data_dir, args).await,
        command => {
            // Pure reads and profile edits: they never touch run states, so they are safe
            // next to a live app or `run` whatever locks those hold.
            // Checked: a damaged file is reported, never half-listed (see `integrity`).
            let desk = Desk::open_checked(&data_dir).await?;
            let result = match command {
                Command::Sessions(a) => views::sessions(&desk, a).await,
                Command::Show(a) => views::show(&desk, a).await,
                Command::Search(a) => views::search(&desk, a).await,
                Command::Export(a) => views::export(&desk, a).await,
                Command::Approvals(a) => views::approvals(&desk, a).await,
                Command::Profile(c) => profile::profile(&desk, c).await,
                Command::Import(a) => import::import(&desk, a).await,
                Command::Worktree(c) => worktree::worktree(&desk, c).await,
                Command::Account(a) => account::account(&desk, a).await,
                Command::Login(a) => account::login(&desk, a).await,
                Command::Logout(a) => account::logout(&desk, a).await,
                Command::Run(_) | Command::Doctor(_) => Ok(()),
            };
            desk.close().await;
            result.map(|()| ExitCode::SUCCESS)
        }
    }
}

/// Open the core and, when no live process drives runs in this data directory, turn what a
/// dead one left `running` into `interrupted` (`doctor` does this, and `run` before it
/// starts, so a SIGKILLed `run` shows as interrupted afterwards).
pub(crate) async fn open_desk(data_dir: &std::path::Path) -> CliResult<Desk> {
    let desk = Desk::open_checked(data_dir).await?;
    if owner::nobody_else_owns(data_dir)? {
        let rec = desk.recover().await?;
        if !rec.interrupted_runs.is_empty() {
            eprintln!(
                "note: {} run(s) left running by a process that is gone are now marked interrupted",
                rec.interrupted_runs.len()
            );
        }
    }
    Ok(desk)
}
