//! "Inside the workspace" for a remote workspace: the request's paths resolved on its host.
//!
//! The rules are the local ones (`approval_rules`); only where a path really points is asked
//! of the host, which is where the engine writes. The rules run against the answers known so
//! far; the paths they needed and had no answer for are resolved there in one round trip
//! (`realpath` in a short `sh` script on the host's connection), and the rules run again
//! until nothing new is needed (a link's target is only known once the link is). A path the
//! host did not answer for (the connection is down, too many rounds) counts as outside: the
//! user is asked, nothing is approved on a guess.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentdesk_protocol::remote::SshLocation;
use agentdesk_protocol::ui::{ApprovalKindName, ApprovalRequest};

use crate::approval_rules::paths::{HostPath, HostPaths, PathSpace};
use crate::approval_rules::{host_paths_wanted, ApprovalPolicy};
use crate::approvals::ApprovalAsk;
use crate::{Desk, Result};

/// Round trips for one request: every folder on the way, then those past a link, and so on
/// for links in links (usually one or two).
const ROUNDS: usize = 6;
/// Bound on one round trip (the connection is up: the engine talks over it).
const TIMEOUT: Duration = Duration::from_secs(10);

/// Prints the host's resolved home, then one record per argument, NUL-terminated (a path
/// may hold a newline): `R<real path>` when it exists, `M` when nothing is there, `U` when it
/// cannot be told (a dangling link, a file where a folder should be, no `realpath`).
/// `$(…)` drops trailing newlines: a `.` is printed after the path and taken off again.
const RESOLVE_SCRIPT: &str = r#"canon() { realpath "$1" 2>/dev/null || readlink -f "$1" 2>/dev/null; }
home=$(cd -P "$HOME" 2>/dev/null && pwd -P && echo .)
printf 'H%s\0' "${home%?.}"
for p in "$@"; do
  d=${p%/*}
  if [ -e "$p" ]; then
    r=$(canon "$p" && echo .)
    case $r in
      /*) printf 'R%s\0' "${r%?.}" ;;
      *) printf 'U\0' ;;
    esac
  elif [ -L "$p" ] || { [ -n "$d" ] && [ -e "$d" ] && [ ! -d "$d" ]; }; then
    printf 'U\0'
  else
    printf 'M\0'
  fi
done"#;

impl Desk {
    /// `policy` for this request with its paths resolved on the workspace's host.
    pub(crate) async fn policy_on_host(
        &self,
        policy: &ApprovalPolicy,
        ask: &ApprovalAsk,
        loc: &SshLocation,
    ) -> ApprovalPolicy {
        resolved_by(policy, ask.kind, &ask.request, |wanted| async move {
            self.resolve_on_host(loc, &wanted).await.map_err(|e| {
                tracing::warn!(host = %loc.host_label(), error = %e, "paths of a request could not be resolved on the host; the user decides");
            })
        })
        .await
    }

    /// The host's home and what each path is there.
    async fn resolve_on_host(
        &self,
        loc: &SshLocation,
        paths: &[PathBuf],
    ) -> Result<(Option<PathBuf>, Vec<(PathBuf, HostPath)>)> {
        let link = self.ssh_link(loc).await?;
        let args: Vec<String> = paths
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = link
            .host
            .run_script(RESOLVE_SCRIPT, &args, None, TIMEOUT)
            .await?;
        Ok(parse_answers(&out, paths))
    }
}

/// What the host said about some paths: its home, and each path's answer.
type Answers = (Option<PathBuf>, Vec<(PathBuf, HostPath)>);

/// `policy` with the paths deciding `req` answered by `host` (one call per round); what is
/// still unanswered when the host fails or the rounds run out counts as outside.
async fn resolved_by<F, Fut>(
    policy: &ApprovalPolicy,
    kind: ApprovalKindName,
    req: &ApprovalRequest,
    mut host: F,
) -> ApprovalPolicy
where
    F: FnMut(Vec<PathBuf>) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<Answers, ()>>,
{
    let mut home = None;
    let mut answers: HashMap<PathBuf, HostPath> = HashMap::new();
    for _ in 0..ROUNDS {
        let probe = ApprovalPolicy {
            space: PathSpace::Host(Arc::new(HostPaths::probe(home.clone(), answers.clone()))),
            ..policy.clone()
        };
        let wanted = host_paths_wanted(&probe, kind, req);
        if wanted.is_empty() {
            break;
        }
        match host(wanted).await {
            Ok((h, found)) => {
                home = h;
                answers.extend(found);
            }
            Err(()) => break,
        }
    }
    ApprovalPolicy {
        space: PathSpace::Host(Arc::new(HostPaths::new(home, answers))),
        ..policy.clone()
    }
}

/// The script's records, matched to the paths asked; a path without its record is
/// `Unknown`.
fn parse_answers(out: &str, paths: &[PathBuf]) -> (Option<PathBuf>, Vec<(PathBuf, HostPath)>) {
    let mut records = out.split('\0');
    let home = records
        .next()
        .and_then(|h| h.strip_prefix('H'))
        .filter(|h| h.starts_with('/'))
        .map(PathBuf::from);
    let answers = paths
        .iter()
        .map(|p| {
            let answer = match records.next() {
                Some(r) if r.starts_with("R/") => HostPath::Real(PathBuf::from(&r[1..])),
                Some("M") => HostPath::Missing,
                _ => HostPath::Unknown,
            };
            (p.clone(), answer)
        })
        .collect();
    (home, answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentdesk_protocol::ui::PermissionMode;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A host's file system as `realpath` sees it: `/ws` is a link to `/srv/w`, in which
    /// `link` leads to `/etc`; the user's home is `/home/u`. Anything else is missing.
    fn host_tree() -> HashMap<PathBuf, HostPath> {
        [
            ("/", "/"),
            ("/ws", "/srv/w"),
            ("/srv", "/srv"),
            ("/srv/w", "/srv/w"),
            ("/srv/w/src", "/srv/w/src"),
            ("/srv/w/link", "/etc"),
            ("/etc", "/etc"),
            ("/etc/passwd", "/etc/passwd"),
            ("/home", "/home"),
            ("/home/u", "/home/u"),
        ]
        .into_iter()
        .map(|(p, r)| (PathBuf::from(p), HostPath::Real(r.into())))
        .chain([(PathBuf::from("/srv/w/dangling"), HostPath::Unknown)])
        .collect()
    }

    #[cfg(unix)]
    fn write(path: &str) -> ApprovalRequest {
        use agentdesk_protocol::events::{ApprovalFile, FileChangeKind};
        ApprovalRequest {
            files: vec![ApprovalFile {
                path: path.into(),
                kind: FileChangeKind::Add,
                diff: String::new(),
            }],
            ..Default::default()
        }
    }

    fn auto_edit(root: &str) -> ApprovalPolicy {
        ApprovalPolicy {
            permission_mode: PermissionMode::AutoEdit,
            workspace_root: root.into(),
            ..Default::default()
        }
    }

    /// The decision for `req` with `tree` as the host, and the round trips it took.
    #[cfg(unix)]
    async fn decide(
        policy: &ApprovalPolicy,
        req: &ApprovalRequest,
        up: bool,
    ) -> (Option<bool>, usize) {
        decide_kind(policy, ApprovalKindName::FileChange, req, up).await
    }

    async fn decide_kind(
        policy: &ApprovalPolicy,
        kind: ApprovalKindName,
        req: &ApprovalRequest,
        up: bool,
    ) -> (Option<bool>, usize) {
        let tree = host_tree();
        let calls = AtomicUsize::new(0);
        let resolved = resolved_by(policy, kind, req, |wanted| {
            calls.fetch_add(1, Ordering::SeqCst);
            let found: Vec<(PathBuf, HostPath)> = wanted
                .into_iter()
                .map(|p| {
                    let a = tree.get(&p).cloned().unwrap_or(HostPath::Missing);
                    (p, a)
                })
                .collect();
            async move {
                if up {
                    Ok((Some(PathBuf::from("/home/u")), found))
                } else {
                    Err(())
                }
            }
        })
        .await;
        let v = crate::approval_rules::evaluate(&resolved, kind, req, &Default::default());
        (v.map(|v| v.approve), calls.load(Ordering::SeqCst))
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn writes_are_inside_where_the_host_says_they_lead() {
        let p = auto_edit("/ws");
        // A new file in the folder, by its link or its real name.
        assert_eq!(
            decide(&p, &write("/ws/src/new.rs"), true).await.0,
            Some(true)
        );
        assert_eq!(
            decide(&p, &write("/srv/w/new.rs"), true).await.0,
            Some(true)
        );
        assert_eq!(decide(&p, &write("src/new.rs"), true).await.0, Some(true));
        // Through the host's link out of the folder, a dangling link, a climb: asked.
        let (out, rounds) = decide(&p, &write("/ws/link/passwd"), true).await;
        assert_eq!(out, None);
        assert!(
            rounds >= 2,
            "the link's target is asked after the link: {rounds}"
        );
        assert_eq!(decide(&p, &write("/ws/dangling"), true).await.0, None);
        assert_eq!(decide(&p, &write("/ws/../etc/passwd"), true).await.0, None);
        // The host does not answer: asked, never approved on a guess.
        assert_eq!(decide(&p, &write("/ws/src/new.rs"), false).await.0, None);
        // The host's home is too wide to be a project (this machine's is not asked).
        let home = auto_edit("/home/u");
        assert_eq!(decide(&home, &write("/home/u/.bashrc"), true).await.0, None);
    }

    #[tokio::test]
    async fn requests_without_paths_do_not_reach_the_host() {
        let p = auto_edit("/ws");
        // A command is decided by its text: no round trip.
        let ls = ApprovalRequest {
            command: Some("ls".into()),
            ..Default::default()
        };
        let (out, rounds) = decide_kind(&p, ApprovalKindName::Command, &ls, true).await;
        assert_eq!((out, rounds), (None, 0));
    }

    #[test]
    fn records_are_matched_in_order_and_a_short_answer_is_unknown() {
        let asked = [
            PathBuf::from("/w"),
            PathBuf::from("/w/new"),
            PathBuf::from("/w/dangling"),
            PathBuf::from("/w/line\nbreak"),
            PathBuf::from("/w/unanswered"),
        ];
        let out = "H/home/u\0R/srv/w\0M\0U\0R/srv/w/line\nbreak\0";
        let (home, answers) = parse_answers(out, &asked);
        assert_eq!(home, Some(PathBuf::from("/home/u")));
        let got: Vec<HostPath> = answers.into_iter().map(|(_, a)| a).collect();
        assert_eq!(
            got,
            vec![
                HostPath::Real("/srv/w".into()),
                HostPath::Missing,
                HostPath::Unknown,
                HostPath::Real("/srv/w/line\nbreak".into()),
                HostPath::Unknown,
            ]
        );
        // No home (an empty `$HOME` there): none, not "/".
        assert_eq!(parse_answers("H\0", &[]).0, None);
    }
}
