//! Where a remote workspace is: a folder on another machine reached over SSH.
//!
//! Two spellings are taken: the URL the CLI uses wherever it takes a workspace folder,
//! `ssh://[user@]host[:port]/path`, and the scp-like one of the window's "Add remote
//! workspace…", `[user@]host[:port]:/path`. `host` may be a `Host` alias of the user's
//! `~/.ssh/config` (the system `ssh` resolves it). A workspace row stores the URL as its
//! location, so one folder of one host is one workspace (the `path` column is unique).

use std::fmt;

/// The scheme of a remote workspace's location.
pub const SCHEME: &str = "ssh://";

/// A folder on a host reached over SSH.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SshLocation {
    pub user: Option<String>,
    /// A host name, an address or an alias of the user's SSH config.
    pub host: String,
    pub port: Option<u16>,
    /// Absolute path on the host.
    pub path: String,
}

impl SshLocation {
    /// Either spelling; `None` when `s` is not a remote location at all (a local path,
    /// including Windows' `C:\…` and `C:/…`).
    pub fn parse_any(s: &str) -> Option<Result<Self, String>> {
        let s = s.trim();
        if s.starts_with(SCHEME) {
            return Some(Self::parse_url(s));
        }
        if s.starts_with('/') || s.starts_with('~') || s.starts_with('\\') {
            return None;
        }
        let (dest, path) = s.split_once(":/")?;
        // `C:/work` is a Windows drive, not a host called C.
        if dest.len() == 1 && dest.chars().all(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        Some(Self::from_parts(dest, &format!("/{path}"), s))
    }

    /// `ssh://[user@]host[:port]/path`.
    pub fn parse_url(s: &str) -> Result<Self, String> {
        let rest = s
            .trim()
            .strip_prefix(SCHEME)
            .ok_or_else(|| format!("{s} does not start with {SCHEME}"))?;
        let (dest, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => {
                return Err(format!(
                    "{s} names no folder; write ssh://[user@]host[:port]/absolute/path"
                ))
            }
        };
        Self::from_parts(dest, path, s)
    }

    fn from_parts(dest: &str, path: &str, shown: &str) -> Result<Self, String> {
        let (user, hostport) = match dest.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, dest),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => {
                let port = p
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or_else(|| format!("{shown}: {p} is not a port number"))?;
                (h, Some(port))
            }
            None => (hostport, None),
        };
        if host.is_empty() {
            return Err(format!("{shown} names no host"));
        }
        // Whatever reaches `ssh` as the destination must not read as an option or carry
        // shell or config syntax.
        let bad = |c: char| c.is_whitespace() || c.is_control() || "'\"`$;&|<>\\/".contains(c);
        if host.starts_with('-') || host.chars().any(bad) {
            return Err(format!("{shown}: {host} is not a host name"));
        }
        if let Some(u) = user {
            if u.is_empty() || u.starts_with('-') || u.chars().any(bad) || u.contains('@') {
                return Err(format!("{shown}: {u} is not a user name"));
            }
        }
        if !path.starts_with('/') {
            return Err(format!("{shown}: the folder must be an absolute path"));
        }
        if path.chars().any(|c| c == '\0' || c == '\n') {
            return Err(format!(
                "{shown}: the folder's path holds a control character"
            ));
        }
        let path = if path.len() > 1 {
            path.trim_end_matches('/').to_owned()
        } else {
            path.to_owned()
        };
        Ok(Self {
            user: user.map(str::to_owned),
            host: host.to_owned(),
            port,
            path,
        })
    }

    /// What `ssh` connects to: `[user@]host`.
    pub fn destination(&self) -> String {
        match &self.user {
            Some(u) => format!("{u}@{}", self.host),
            None => self.host.clone(),
        }
    }

    /// The host as shown in the sidebar and headers: `[user@]host[:port]`.
    pub fn host_label(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.destination()),
            None => self.destination(),
        }
    }

    /// The same host with another folder.
    pub fn with_path(&self, path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            ..self.clone()
        }
    }

    /// `ssh://[user@]host[:port]/path`: the stored location.
    pub fn url(&self) -> String {
        format!("{SCHEME}{}{}", self.host_label(), self.path)
    }
}

impl fmt::Display for SshLocation {
    /// The scp-like spelling the window shows: `[user@]host[:port]:/path`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host_label(), self.path)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn both_spellings() {
        let a = SshLocation::parse_any("me@build.example.com:2222:/srv/app/")
            .unwrap()
            .unwrap();
        assert_eq!(a.user.as_deref(), Some("me"));
        assert_eq!(a.host, "build.example.com");
        assert_eq!(a.port, Some(2222));
        assert_eq!(a.path, "/srv/app");
        assert_eq!(a.url(), "ssh://me@build.example.com:2222/srv/app");
        assert_eq!(SshLocation::parse_any(&a.url()).unwrap().unwrap(), a);
        assert_eq!(a.to_string(), "me@build.example.com:2222:/srv/app");
        let b = SshLocation::parse_any("devbox:/home/me/p")
            .unwrap()
            .unwrap();
        assert_eq!(
            (b.user.clone(), b.port, b.host_label()),
            (None, None, "devbox".into())
        );
        assert_eq!(
            SshLocation::parse_url("ssh://gpu/").unwrap().path,
            "/".to_owned()
        );
    }

    #[test]
    fn local_paths_are_not_remote() {
        for s in [
            "/home/me",
            "~/p",
            "C:/work",
            "C:\\work",
            "relative/dir",
            "\\\\srv\\x",
        ] {
            assert!(SshLocation::parse_any(s).is_none(), "{s}");
        }
    }

    #[test]
    fn bad_locations_say_what_is_wrong() {
        for (s, want) in [
            ("ssh://devbox", "names no folder"),
            ("ssh://:22/x", "names no host"),
            ("devbox:99999:/x", "not a port"),
            ("-oProxyCommand=x:/p", "not a host name"),
            ("a b:/p", "not a host name"),
            ("-me@h:/p", "not a user name"),
            ("ssh://h/a\nb", "control character"),
        ] {
            let err = SshLocation::parse_any(s).unwrap().unwrap_err();
            assert!(err.contains(want), "{s}: {err}");
        }
    }
}
