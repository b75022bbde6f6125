//! Started the way Finder/Dock or a desktop launcher starts it: `PATH=/usr/bin:/bin`, the
//! user's `PATH` only in the login shell's rc files (`SHELL` here is a script standing in
//! for it), and npm-style engines that are `#!/usr/bin/env <interpreter>` scripts:
//! - codex lives in a folder only the login `PATH` names, and its interpreter in another:
//!   found through the login `PATH` and started with it (version probed);
//! - claude is an nvm install (`~/.nvm/versions/node/v*/bin`, found in the install dirs)
//!   whose interpreter sits next to it and nowhere else: started because the engine's own
//!   folder comes first on its `PATH`.
//!
//! Before the login `PATH` was merged, codex was not found and claude exited 127.

use std::os::unix::fs::PermissionsExt;

use super::*;

fn executable(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn a_bare_desktop_path_still_finds_and_starts_npm_engines() {
    let Some(bin) = cli_bin() else { return };
    let mut env = Env::new(bin, "login-path");
    let root = env.root.clone();
    let login_bin = root.join("login-bin");
    let interpreters = root.join("interpreters");
    let home = root.join("home");
    let nvm_bin = home.join(".nvm/versions/node/v20.11.0/bin");

    // Interpreters that exist nowhere on the bare PATH ("node" of each install).
    let interpreter = "#!/bin/sh\nexec /bin/sh \"$@\"\n";
    executable(&interpreters.join("agentdesk-test-node"), interpreter);
    executable(&nvm_bin.join("agentdesk-test-nvm-node"), interpreter);
    executable(
        &login_bin.join("codex"),
        "#!/usr/bin/env agentdesk-test-node\necho 'codex-cli 0.169.0'\n",
    );
    executable(
        &nvm_bin.join("claude"),
        "#!/usr/bin/env agentdesk-test-nvm-node\necho '2.1.328 (Claude Code)'\n",
    );
    // The login shell: rc files that talk, set PATH, then run what `-c` says.
    let shell = root.join("login-shell");
    executable(
        &shell,
        &format!(
            "#!/bin/sh\necho 'Last login: today'\necho 'rc noise' >&2\n\
             PATH={}:{}:/usr/bin:/bin; export PATH\n\
             while [ $# -gt 0 ] && [ \"$1\" != -c ]; do shift; done\n\
             exec /bin/sh -c \"$2\"\n",
            s(&login_bin),
            s(&interpreters)
        ),
    );

    env.vars.push(("PATH".into(), "/usr/bin:/bin".into()));
    env.vars.push(("SHELL".into(), s(&shell)));
    env.vars.push(("HOME".into(), s(&home)));
    let mut command = env.command(&["doctor", "--no-login", "--json"]);
    for var in [
        "AGENTDESK_CODEX_BIN",
        "AGENTDESK_CLAUDE_BIN",
        "NVM_BIN",
        "NPM_CONFIG_PREFIX",
        "npm_config_prefix",
    ] {
        command.env_remove(var);
    }
    let out = cli_output(command, &["doctor", "--no-login", "--json"], CALL).await;
    assert!(out.status.success(), "doctor failed: {}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codex = &json["engines"][0];
    assert_eq!(codex["path"], s(&login_bin.join("codex")), "{codex}");
    assert_eq!(codex["version"], "codex-cli 0.169.0", "{codex}");
    let claude = &json["engines"][1];
    assert_eq!(claude["path"], s(&nvm_bin.join("claude")), "{claude}");
    assert_eq!(claude["version"], "2.1.328 (Claude Code)", "{claude}");
}
