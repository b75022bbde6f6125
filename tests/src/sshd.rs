//! A real OpenSSH server on 127.0.0.1 for the remote-workspace suites: its own host key,
//! config and authorized key, and a home of its own for the "remote" side, whose `.profile`
//! puts the engines (the pinned binaries, linked) on the login shell's `PATH`.
//!
//! The client side is the system `ssh` as the app runs it: the suites point
//! `AGENTDESK_SSH_CONFIG` at one config of this process that includes a `Host <alias>` file
//! per server (`HostName 127.0.0.1`, its port, key and known_hosts), so every server has an
//! alias like a user's `~/.ssh/config` entry.

// Test support: a server that cannot start is a failed test, reported by the panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::time::Duration;

/// The system's server, from the `openssh-server` package.
pub const SSHD: &str = "/usr/sbin/sshd";

/// One running `sshd`.
pub struct Sshd {
    child: Child,
    /// Its `Host` alias in the client config.
    pub alias: String,
    pub port: u16,
    /// Its files (keys, config, log).
    dir: PathBuf,
    /// The remote side's home (`SetEnv HOME`): its `.profile` and `bin/`.
    pub home: PathBuf,
}

/// The client config of this process (`AGENTDESK_SSH_CONFIG`), including every server's
/// `Host` file. Set once, before any `ssh` runs.
fn client_config(target_tmp: &str) -> PathBuf {
    static SET: Once = Once::new();
    let dir = Path::new(target_tmp).join(format!("ssh-client-{}", std::process::id()));
    let config = dir.join("config");
    SET.call_once(|| {
        std::fs::create_dir_all(dir.join("hosts")).unwrap();
        std::fs::write(&config, format!("Include {}/hosts/*.conf\n", dir.display())).unwrap();
        std::env::set_var("AGENTDESK_SSH_CONFIG", &config);
    });
    config
}

/// Whether this machine can run the suite's server (the package installed, root for its
/// privilege separation); else why not.
pub fn unavailable() -> Option<String> {
    if !Path::new(SSHD).exists() {
        return Some(format!("{SSHD} missing (apt-get install openssh-server)"));
    }
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("the sshd suite runs as root (sshd's privilege separation)".into());
    }
    None
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(path.with_extension("pub"));
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success(), "ssh-keygen {}", path.display());
}

impl Sshd {
    /// A server for `alias` under `root/sshd-<alias>`, with `engines` (name → binary)
    /// linked into the remote home's `bin/`.
    pub fn start(target_tmp: &str, root: &Path, alias: &str, engines: &[(&str, &Path)]) -> Sshd {
        let config = client_config(target_tmp);
        let dir = root.join(format!("sshd-{alias}"));
        let home = dir.join("home");
        std::fs::create_dir_all(home.join("bin")).unwrap();
        for (name, bin) in engines {
            let link = home.join("bin").join(name);
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(bin, &link).unwrap();
        }
        std::fs::write(
            home.join(".profile"),
            "# what npm's global bin does for a real user\nexport PATH=\"$HOME/bin:$PATH\"\n",
        )
        .unwrap();
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let port = free_port();
        let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_owned();
        std::fs::write(
            dir.join("sshd_config"),
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\nSetEnv HOME={h}\nPrintMotd no\nMaxSessions 64\nMaxStartups 64\nClientAliveInterval 5\nClientAliveCountMax 3\n",
                d = dir.display(),
                h = home.display()
            ),
        )
        .unwrap();
        Self::write_known_hosts(&dir, port);
        std::fs::write(
            config.parent().unwrap().join("hosts").join(format!("{alias}.conf")),
            format!(
                "Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {d}/user_key\n  IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n",
                d = dir.display()
            ),
        )
        .unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        let child = Self::spawn(&dir);
        let server = Sshd {
            child,
            alias: alias.to_owned(),
            port,
            dir,
            home,
        };
        server.wait_listening();
        server
    }

    fn spawn(dir: &Path) -> Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("sshd.log"))
            .unwrap();
        Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap()
    }

    fn write_known_hosts(dir: &Path, port: u16) {
        let public = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
        let key: Vec<&str> = public.split_whitespace().take(2).collect();
        std::fs::write(
            dir.join("known_hosts"),
            format!("[127.0.0.1]:{port} {}\n", key.join(" ")),
        )
        .unwrap();
    }

    fn wait_listening(&self) {
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("sshd did not listen on {}: {}", self.port, self.log());
    }

    /// Another `Host` alias for this server logging in with the key `identity` (one the
    /// server may not know).
    pub fn add_alias(&self, alias: &str, identity: &Path) {
        let hosts = std::path::PathBuf::from(std::env::var_os("AGENTDESK_SSH_CONFIG").unwrap())
            .parent()
            .unwrap()
            .join("hosts");
        let mine = std::fs::read_to_string(hosts.join(format!("{}.conf", self.alias))).unwrap();
        let theirs = mine
            .replacen(&format!("Host {}", self.alias), &format!("Host {alias}"), 1)
            .replace(
                &format!("IdentityFile {}/user_key", self.dir.display()),
                &format!("IdentityFile {}", identity.display()),
            );
        std::fs::write(hosts.join(format!("{alias}.conf")), theirs).unwrap();
    }

    /// `ssh://<alias><path>`: a remote workspace on this server.
    pub fn url(&self, path: &Path) -> String {
        format!("ssh://{}{}", self.alias, path.display())
    }

    /// The server's log (its `-e` output).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }

    /// The server gets a new host key (reinstalled, or someone in the middle) while the
    /// client's known_hosts keeps the old one; its connections drop.
    pub fn change_host_key(&mut self) {
        for pid in self.connection_pids() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let known = std::fs::read_to_string(self.dir.join("known_hosts")).unwrap();
        keygen(&self.dir.join("host_key"));
        std::fs::write(self.dir.join("known_hosts"), known).unwrap();
        self.child = Self::spawn(&self.dir);
        self.wait_listening();
    }

    /// Every process the server started (its sessions and what runs in them).
    pub fn descendants(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut next = vec![self.child.id()];
        while let Some(pid) = next.pop() {
            for c in children_of(pid) {
                if !crate::process::exited(c) {
                    out.push(c);
                    next.push(c);
                }
            }
        }
        out
    }

    /// The live processes on the "remote" side named `program` (`/proc/<pid>/comm`).
    pub fn running(&self, program: &str) -> Vec<u32> {
        self.descendants()
            .into_iter()
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c.trim().starts_with(program))
            })
            .collect()
    }

    /// The per-connection server processes (`sshd: user@notty`), children of the listener:
    /// killing one drops that connection.
    pub fn connection_pids(&self) -> Vec<u32> {
        children_of(self.child.id())
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        for pid in self.connection_pids() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if parent_of(child) == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// The parent of `pid` (`None` once it is gone).
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
