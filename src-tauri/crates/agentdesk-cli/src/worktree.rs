//! `agentdesk-cli worktree …`: a session's git worktree — its changes, commit, merge into
//! the base, removal.

use agentdesk_core::Desk;
use agentdesk_protocol::ui::{ChangedFile, FileState, WorktreeStatus};
use clap::{Args, Subcommand};

use crate::error::CliResult;
use crate::escape::visible_line;
use crate::views::{find_session, print_json};

#[derive(Subcommand, Debug)]
pub enum WorktreeCommand {
    /// The worktree's changed files (uncommitted, then committed against the base) and the
    /// branch's commits the base does not have.
    Status(StatusArgs),
    /// Commit the uncommitted changes: all, or the FILEs given.
    Commit(CommitArgs),
    /// Merge the session's branch into its base (fast-forward when possible). A conflict
    /// exits 1 naming the files; the base and its working tree are left as they were.
    Merge(SessionArg),
    /// Remove the worktree (the conversation stays). Refused, naming them, while it holds
    /// uncommitted changes or commits the base does not have, unless --force; refused while
    /// a run is active.
    Remove(RemoveArgs),
    /// Make a worktree deleted outside Agent Desk again from its branch.
    Recreate(SessionArg),
    /// Stop tracking a worktree deleted outside Agent Desk (its branch is kept).
    Forget(SessionArg),
}

#[derive(Args, Debug)]
pub struct SessionArg {
    /// A session id (or an unambiguous prefix of one).
    session: String,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    session: String,
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct CommitArgs {
    session: String,
    /// The commit message (default: the session's title).
    #[arg(short, long, value_name = "MESSAGE")]
    message: Option<String>,
    /// Only these files (paths as `worktree status` lists them).
    files: Vec<String>,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    session: String,
    /// Remove it even with uncommitted changes or unmerged commits (the branch is then kept).
    #[arg(long)]
    force: bool,
}

pub async fn worktree(desk: &Desk, command: WorktreeCommand) -> CliResult<()> {
    match command {
        WorktreeCommand::Status(a) => {
            let s = find_session(desk, &a.session).await?;
            let status = desk.worktree_status(&s.id).await?;
            if a.json {
                return print_json(&status);
            }
            print_status(&status);
        }
        WorktreeCommand::Commit(a) => {
            let s = find_session(desk, &a.session).await?;
            let message = a.message.unwrap_or_else(|| {
                if s.title.trim().is_empty() {
                    format!("Agent Desk session {}", s.id)
                } else {
                    s.title.clone()
                }
            });
            let status = desk.worktree_commit(&s.id, &message, &a.files).await?;
            if let Some(c) = status.commits.first() {
                println!("committed {} {}", short(&c.sha), visible_line(&c.summary));
            }
        }
        WorktreeCommand::Merge(a) => {
            let s = find_session(desk, &a.session).await?;
            let out = desk.worktree_merge(&s.id).await?;
            if out.commits == 0 {
                println!("{} already has every commit of the branch", out.base);
            } else {
                println!(
                    "merged {} commit(s) into {} ({}) at {}",
                    out.commits,
                    out.base,
                    if out.fast_forward {
                        "fast-forward"
                    } else {
                        "merge commit"
                    },
                    short(&out.commit)
                );
            }
        }
        WorktreeCommand::Remove(a) => {
            let s = find_session(desk, &a.session).await?;
            let removed = desk.remove_worktree(&s.id, a.force).await?;
            match removed.kept_branch {
                Some(b) => println!("worktree removed; the branch {b} is kept with its commits"),
                None => println!("worktree and branch removed; the session is kept"),
            }
        }
        WorktreeCommand::Recreate(a) => {
            let s = find_session(desk, &a.session).await?;
            let status = desk.recreate_worktree(&s.id).await?;
            println!("worktree at {}", visible_line(&status.path));
        }
        WorktreeCommand::Forget(a) => {
            let s = find_session(desk, &a.session).await?;
            desk.forget_worktree(&s.id).await?;
            println!("forgotten; the session goes on in its workspace folder");
        }
    }
    Ok(())
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(8)]
}

fn print_status(st: &WorktreeStatus) {
    println!(
        "{}  branch {} (from {}){}",
        visible_line(&st.path),
        st.branch,
        st.base,
        if st.missing {
            "  MISSING: recreate or forget it"
        } else {
            ""
        }
    );
    println!(
        "{} commit(s) ahead of {}, {} behind",
        st.commits.len(),
        st.base,
        st.behind
    );
    for (title, files) in [
        ("uncommitted", &st.uncommitted),
        ("committed", &st.committed),
    ] {
        if files.is_empty() {
            continue;
        }
        println!("{title}:");
        for f in files.iter() {
            println!("  {}", file_line(f));
        }
    }
    if !st.commits.is_empty() {
        println!("commits:");
        for c in &st.commits {
            println!("  {} {}", short(&c.sha), visible_line(&c.summary));
        }
    }
}

fn file_line(f: &ChangedFile) -> String {
    let state = match f.state {
        FileState::Added => "added",
        FileState::Modified => "modified",
        FileState::Deleted => "deleted",
        FileState::Renamed => "renamed",
        FileState::Copied => "copied",
        FileState::TypeChanged => "type changed",
        FileState::Conflicted => "conflicted",
    };
    let name = match &f.old_path {
        Some(old) => format!("{} → {}", visible_line(old), visible_line(&f.path)),
        None => visible_line(&f.path),
    };
    let counts = if f.binary {
        "  (binary)".to_owned()
    } else if f.submodule {
        "  (submodule)".to_owned()
    } else {
        match (f.added, f.removed) {
            (Some(a), Some(r)) => format!("  +{a} -{r}"),
            (Some(a), None) => format!("  +{a}"),
            _ => String::new(),
        }
    };
    format!("{state:<12} {name}{counts}")
}
