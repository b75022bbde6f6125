//! The real app, under Xvfb, through tauri-driver + WebKitWebDriver: UI → Rust → SQLite → UI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use agentdesk_tests::bench::mappings;
use agentdesk_tests::e2e::{artifacts_dir, prerequisites, AppEnv, BoxError, Desktop};

const TEST: &str = "workspace_survives_restart";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_added_by_typed_path_survives_restart() {
    let Some(pre) = prerequisites(TEST) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), scenario(pre))
        .await
        .expect("E2E timed out")
        .unwrap();
}

async fn scenario(pre: agentdesk_tests::e2e::Prerequisites) -> Result<(), BoxError> {
    let artifacts = artifacts_dir(TEST);
    let desktop = Desktop::start(pre)?;
    let mut env = AppEnv::new(TEST)?;
    let folder = env.root.join("my project");
    std::fs::create_dir_all(&folder)?;
    let folder = std::fs::canonicalize(&folder)?.display().to_string();

    // First run: an empty list, a bad path gets a clear error, a good one is listed.
    let app = desktop.launch(&env, "first-run", &artifacts).await?;
    app.find("[data-testid=no-workspaces]").await?;

    let input = app.find("[data-testid=workspace-path-input]").await?;
    input.send_keys("/definitely/not/here").await?;
    app.find("[data-testid=add-workspace-submit]")
        .await?
        .click()
        .await?;
    let banner = app.find("[data-testid=error-banner]").await?;
    let text = banner.text().await?;
    assert!(
        text.contains("/definitely/not/here does not exist"),
        "banner said: {text}"
    );

    input.clear().await?;
    input.send_keys(&folder).await?;
    app.find("[data-testid=add-workspace-submit]")
        .await?
        .click()
        .await?;
    let listed = app
        .wait_for_text("[data-testid=workspace-path]", &folder)
        .await;
    app.screenshot(&artifacts.join("first-run.png")).await?;
    listed?;
    app.wait_for_text("[data-testid=selected-workspace-path]", &folder)
        .await?;
    // The window remembers its size across restarts; it is saved after a short quiet time,
    // so even an unclean exit (as when the WebDriver session ends) keeps it.
    app.client.set_window_size(1000, 700).await?;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    app.quit().await?;

    assert!(
        env.data_dir.join("agentdesk.db").is_file(),
        "the SQLite file is in the data dir"
    );

    // Second run on the same data dir: still there.
    let app = desktop.launch(&env, "second-run", &artifacts).await?;
    app.wait_for_text("[data-testid=workspace-path]", &folder)
        .await?;
    let items = app
        .client
        .find_all(fantoccini::Locator::Css("[data-testid=workspace-item]"))
        .await?;
    assert_eq!(items.len(), 1);
    let (w, h) = app.client.get_window_size().await?;
    assert_eq!((w, h), (1000, 700), "window size was not restored");
    app.screenshot(&artifacts.join("second-run.png")).await?;
    app.quit().await?;
    env.passed();
    Ok(())
}

/// A corrupt database never gives a blank window: the app opens and says what is wrong, and
/// the file is left exactly as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_database_is_reported_in_the_window() {
    const NAME: &str = "corrupt_database";
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(180), async {
        let artifacts = artifacts_dir(NAME);
        let desktop = Desktop::start(pre)?;
        let mut env = AppEnv::new(NAME)?;
        let db = env.data_dir.join("agentdesk.db");
        let garbage = b"not a database at all; ".repeat(500);
        std::fs::write(&db, &garbage)?;

        let app = desktop.launch(&env, "corrupt", &artifacts).await?;
        let banner = app.find("[data-testid=error-banner]").await?;
        let text = banner.text().await?;
        app.screenshot(&artifacts.join("corrupt.png")).await?;
        // What is wrong and what to do about it, not raw SQLite text.
        assert!(
            text.contains("is damaged") && text.contains("To recover"),
            "banner said: {text}"
        );
        let input = app.find("[data-testid=workspace-path-input]").await?;
        assert!(
            !input.is_enabled().await?,
            "adding is disabled while the store is broken"
        );
        app.quit().await?;
        assert_eq!(
            std::fs::read(&db)?,
            garbage,
            "the corrupt file was left untouched"
        );
        env.passed();
        Ok::<(), BoxError>(())
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// The app owns the runs in its data dir: on start it turns what a crashed process left
/// "running" into "interrupted" (nothing may look alive that is not), and it holds the owner
/// lock that tells `agentdesk-cli` processes not to do the same to its live runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_recovers_runs_a_dead_process_left_running() {
    use agentdesk_protocol::ui::{Engine, RunStatus, Session, Workspace};
    use agentdesk_store::{NewRun, Store};
    const NAME: &str = "start_up_recovery";
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(180), async {
        let artifacts = artifacts_dir(NAME);
        let desktop = Desktop::start(pre)?;
        let mut env = AppEnv::new(NAME)?;
        // What a process killed mid-run leaves behind.
        let store = Store::open_in_dir(&env.data_dir).await?;
        store
            .insert_workspace(&Workspace {
                id: "w".into(),
                name: "crashed".into(),
                path: env.root.display().to_string(),
                host: None,
                created_at: 1,
            })
            .await?;
        store
            .insert_session(&Session::begun(
                "s".into(),
                "w".into(),
                Engine::Codex,
                "left running",
                1,
            ))
            .await?;
        store
            .create_run(&NewRun::running(&"r".into(), &"s".into(), "p", 1))
            .await?;
        store.close().await;

        let app = desktop.launch(&env, "recovery", &artifacts).await?;
        // The window is up and has read the store (recovery ran before the first command).
        app.find("[data-testid=workspace-list]").await?;
        assert!(
            env.data_dir.join("engines.lock").is_file(),
            "the app holds the owner lock"
        );
        app.quit().await?;

        let store = Store::open_in_dir(&env.data_dir).await?;
        let run = store.get_run(&"r".into()).await?;
        assert_eq!(run.status, RunStatus::Interrupted, "{run:?}");
        store.close().await;
        env.passed();
        Ok::<(), BoxError>(())
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// Keys pressed in other applications (the app's window not focused) cost the app nothing. With
/// tao's `x11` feature, a thread of the app listened to every key pressed on the X display and
/// kept each event's data (press and release) forever: 20,000 key presses elsewhere grew the
/// app by 6.4 MB, a day of typing by tens of MB (found by a heap profile of the soak).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_typed_in_other_windows_cost_the_app_nothing() {
    use agentdesk_tests::bench::memory_kb;
    use agentdesk_tests::xwindow;
    const NAME: &str = "keys_elsewhere";
    const PRESSES: usize = 20_000;
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(180), async {
        let idle = IdleApp::start(pre, NAME).await?;
        let pid = idle.pid;
        let display = idle.desktop.display_name().to_string();
        // The user is in another application: the focus and the pointer are off the window.
        xwindow::unfocus(&display)?;
        // About 10 s after its page shows, the idle app gives ~4 MB back (its start-up work
        // done): measure from after that.
        tokio::time::sleep(Duration::from_secs(15)).await;
        let (_, before) = memory_kb(pid);

        // Shift alone: a key that types nothing anywhere, pressed and released PRESSES times.
        let keys = vec!["shift"; 500];
        for _ in 0..PRESSES / keys.len() {
            let status = std::process::Command::new("xdotool")
                .env("DISPLAY", &display)
                .args(["key", "--delay", "0"])
                .args(&keys)
                .status()?;
            assert!(status.success(), "xdotool key: {status}");
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (_, after) = memory_kb(pid);
        let grew_kb = after.saturating_sub(before);
        println!("the app's anonymous memory: {before} kB, after {PRESSES} key presses elsewhere {after} kB (+{grew_kb} kB)");
        // With the leak: +6,400 kB (tao's `x11` feature on). An idle app moves by a few hundred
        // kB at most in the same seconds.
        assert!(
            grew_kb < 1_500,
            "the app grew {grew_kb} kB while {PRESSES} keys were pressed in other windows"
        );
        idle.passed().await
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// The web process gets the app's memory-pressure settings (`src-tauri/src/webkit.rs`): it
/// measures its memory every 10 s, where WebKit's default is every 30 s and a limit of the
/// machine's RAM (up to 3 GB) under which it never gives anything back. The settings can only
/// reach it through the hook on WebKit's web context, so this is what says the hook works with
/// the WebKitGTK at hand; the memory it saves is the soak's figure (BENCHMARKS.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_process_measures_its_memory_as_the_app_set() {
    use agentdesk_tests::e2e::{find_on_path, nothing_missing, Guarded};
    const NAME: &str = "web_memory_settings";
    const WATCH: Duration = Duration::from_secs(25);
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    let Some(strace) = find_on_path("strace") else {
        // A loud SKIP here; under CI (which installs strace) a failure.
        let _ = nothing_missing(NAME, &["strace"]);
        return;
    };
    tokio::time::timeout(Duration::from_secs(120), async {
        let idle = IdleApp::start(pre, NAME).await?;
        let web = idle.web_process()?;
        // Every file the web process opens for WATCH: WebKit reads /proc/self/smaps each time
        // it measures its memory (WTF's memoryFootprint on Linux).
        let trace = idle.artifacts.join("web-openat.txt");
        let tracer = std::process::Command::new(strace)
            .args(["-f", "-e", "trace=openat", "-o"])
            .arg(&trace)
            .args(["-p", &web.to_string()])
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let tracer = Guarded::new("strace", tracer);
        tokio::time::sleep(WATCH).await;
        // Dropped: SIGTERM, on which strace detaches and leaves the web process running.
        drop(tracer);
        let opens = std::fs::read_to_string(&trace)?;
        let measured = opens
            .lines()
            .filter(|l| l.contains("\"/proc/self/smaps\""))
            .count();
        println!("the web process measured its memory {measured} times in {WATCH:?}");
        // Every 10 s: 2 or 3 times in 25 s; WebKit's default (30 s) at most once.
        assert!(
            measured >= 2,
            "the web process measured its memory {measured} times in {WATCH:?} (see {})",
            trace.display()
        );
        // Still alive and answering after being traced.
        idle.app.find("[data-testid=no-workspaces]").await?;
        idle.passed().await
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// The app renders the page with the CPU, so its own process needs no GL: neither GTK's (GLX,
/// set up with the X11 screen) nor the EGL display WebKit's UI process makes only to find the
/// GPU's render node. Either loads the GL driver — under Xvfb Mesa's, with LLVM: 10.6 MB of
/// anonymous memory and 18 MB of PSS at idle (BENCHMARKS.md, "No GL in the app's process").
/// The web process still has its EGL display (WebKit aborts without one): the page showing is
/// what says it works. In the dark theme, which the page must still learn: in WebKitGTK 2.50
/// the display query is also what starts WebKit's reading of GTK's settings (skipping it with
/// WebKit's own variable left every page light).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_own_process_loads_no_gl_driver() {
    const NAME: &str = "no_gl_in_the_app";
    /// A GL driver or what only a GL driver brings in (glvnd's vendor libraries, Mesa's DRI
    /// drivers, LLVM).
    const GL: [&str; 5] = ["libGLX_", "libEGL_", "_dri.so", "libLLVM", "libgallium"];
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(120), async {
        let idle = IdleApp::start_with(pre, NAME, &[("GTK_THEME", "Adwaita:dark")]).await?;
        let gl_in = |pid: u32| -> Result<Vec<String>, BoxError> {
            let mut libs: Vec<String> = mappings(pid)?
                .into_iter()
                .filter(|m| GL.iter().any(|g| m.path.contains(g)))
                .map(|m| m.path)
                .collect();
            libs.dedup();
            Ok(libs)
        };
        let app = gl_in(idle.pid)?;
        assert!(app.is_empty(), "the app's process loaded GL: {app:?}");
        // The same check finds the driver where it is loaded: the web process's EGL display.
        let web = gl_in(idle.web_process()?)?;
        println!("the web process's GL: {web:?}");
        assert!(
            web.iter().any(|l| l.contains("libEGL_")),
            "no EGL vendor library in the web process: {web:?}"
        );
        let scheme = idle
            .app
            .script_strings(
                "return [String(matchMedia('(prefers-color-scheme: dark)').matches), \
                 getComputedStyle(document.body).backgroundColor]",
            )
            .await?;
        assert_eq!(
            scheme[0], "true",
            "the page is not in the dark theme: {scheme:?}"
        );
        idle.passed().await
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// The page's JavaScript runs without a JIT (`src-tauri/src/webkit.rs`, `JSC_JIT`): no memory
/// in the web process is both writable and executable, and no anonymous memory executable at
/// all, even after the page ran a loop hot enough for every JIT tier. With JavaScriptCore's JIT
/// the web process maps a 1 GB writable and executable region for its code; without it the
/// window's memory and CPU are lower for the same speed (BENCHMARKS.md, "No JIT"), and hostile
/// text the page renders has no JIT to aim at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_runs_without_a_jit() {
    const NAME: &str = "no_jit";
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(120), async {
        let idle = IdleApp::start(pre, NAME).await?;
        let sum = idle
            .app
            .script_strings(
                "let s = 0; for (let i = 0; i < 3000000; i++) s = (s + i * 7) % 1000003; \
                 return [String(s)]",
            )
            .await?;
        assert!(!sum[0].is_empty(), "the loop gave no result: {sum:?}");
        let executable_data: Vec<String> = mappings(idle.web_process()?)?
            .into_iter()
            .filter(|m| {
                let wx = m.perms.contains('w') && m.perms.contains('x');
                let anonymous_code =
                    m.perms.contains('x') && !m.path.starts_with('/') && !m.path.starts_with("[v");
                wx || anonymous_code
            })
            .map(|m| format!("{} {} {}", m.range, m.perms, m.path))
            .collect();
        assert!(
            executable_data.is_empty(),
            "the web process has writable or anonymous executable memory: {executable_data:?}"
        );
        idle.passed().await
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// A program the app starts for the user — here the file manager, through `xdg-open`, as for
/// a link (the browser) — runs with the user's environment, not with the variables the app set
/// for its own WebKit and GTK: a WebKit browser started from a link would otherwise come up
/// without compositing and with a JavaScript heap sized for 512 MiB, a GTK program without GL.
/// A value the user set themselves is passed on. (Unix: the stand-in is a shell script.)
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_started_for_the_user_get_the_users_environment() {
    const NAME: &str = "opener_environment";
    let Some(pre) = prerequisites(NAME) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(120), async {
        // A stand-in `xdg-open` first on the app's PATH: it writes down its environment.
        let bin = artifacts_dir(NAME).join("bin");
        std::fs::create_dir_all(&bin)?;
        let seen = bin.join("environment.txt");
        let _ = std::fs::remove_file(&seen);
        let opener = bin.join("xdg-open");
        std::fs::write(&opener, format!("#!/bin/sh\nenv > '{}'\n", seen.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755))?;
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let users_heap = ("JSC_forceRAMSize", "1073741824");
        let idle = IdleApp::start_with(pre, NAME, &[("PATH", &path), users_heap]).await?;
        idle.app.button("Settings").await?.click().await?;
        idle.app.button("Open data folder").await?.click().await?;
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let env = loop {
            match std::fs::read_to_string(&seen) {
                Ok(env) if env.contains("PATH=") => break env,
                _ if std::time::Instant::now() > deadline => {
                    return Err("the stand-in xdg-open was not started".into())
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        for own in [
            "WEBKIT_DISABLE_COMPOSITING_MODE",
            "WEBKIT_DISABLE_DMABUF_RENDERER",
            "GDK_GL",
            "JSC_useJIT",
        ] {
            assert!(
                !env.lines().any(|l| l.starts_with(&format!("{own}="))),
                "{own} reached the program started for the user"
            );
        }
        let heap = format!("{}={}", users_heap.0, users_heap.1);
        assert!(
            env.lines().any(|l| l == heap),
            "the user's own {heap} did not reach it"
        );
        idle.passed().await
    })
    .await
    .expect("E2E timed out")
    .unwrap();
}

/// The real app on an empty data folder, its page showing (no workspace yet).
struct IdleApp {
    desktop: Desktop,
    env: AppEnv,
    app: agentdesk_tests::e2e::AppSession,
    /// The app's process (not its orphan watchdog).
    pid: u32,
    artifacts: std::path::PathBuf,
}

impl IdleApp {
    async fn start(
        pre: agentdesk_tests::e2e::Prerequisites,
        name: &str,
    ) -> Result<IdleApp, BoxError> {
        Self::start_with(pre, name, &[]).await
    }

    /// [`IdleApp::start`] with more variables for the app.
    async fn start_with(
        pre: agentdesk_tests::e2e::Prerequisites,
        name: &str,
        extra: &[(&str, &str)],
    ) -> Result<IdleApp, BoxError> {
        let app_bin = pre.app.clone();
        let artifacts = artifacts_dir(name);
        let desktop = Desktop::start(pre)?;
        let mut env = AppEnv::new(name)?;
        env.extra = extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let app = desktop.launch(&env, "app", &artifacts).await?;
        app.find("[data-testid=no-workspaces]").await?;
        let pid =
            agentdesk_tests::bench::find_app(&app_bin, &env.data_dir).ok_or("the app's process")?;
        Ok(IdleApp {
            desktop,
            env,
            app,
            pid,
            artifacts,
        })
    }

    /// The app's web process (WebKit's, a child of the app's).
    fn web_process(&self) -> Result<u32, BoxError> {
        use agentdesk_tests::bench::{proc_info, role, tree};
        tree(self.pid)
            .into_iter()
            .find(|p| proc_info(*p).is_some_and(|(name, ..)| role(&name) == "web"))
            .ok_or_else(|| "the app's web process".into())
    }

    /// Quits the app; the test passed, so its files may go.
    async fn passed(self) -> Result<(), BoxError> {
        let IdleApp { app, mut env, .. } = self;
        app.quit().await?;
        env.passed();
        Ok(())
    }
}
