//! Attachments in the real window: an image copied to the OS clipboard (xclip) and pasted with
//! a real Ctrl+V (xdotool), and a file dropped on the window by a real OS drag-and-drop (XDND
//! between two X clients under Xvfb: a small GTK drag source driven with xdotool), then sent to
//! the real pinned `claude` with the fake Messages API on 127.0.0.1, which must receive both
//! images byte for byte. Once in the light look and once in the dark one; screenshots in
//! `target/test-artifacts/chat_attach_{light,dark}/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use agentdesk_tests::e2e::{
    nothing_missing, prepare_claude_workspace, repo_root, AppSession, BoxError, Guarded, WindowTest,
};
use agentdesk_tests::fake_messages::{FakeMessages, Reply};
use agentdesk_tests::light_and_dark;
use agentdesk_tests::real::{RED_PNG, RED_PNG_B64};

const STREAM: Duration = Duration::from_secs(40);

/// A 3×2 blue PNG (the dropped file; the pasted one is the 2×2 red [`RED_PNG`]).
const BLUE_PNG: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0,
    0, 0, 18, 22, 241, 77, 0, 0, 0, 21, 73, 68, 65, 84, 8, 215, 99, 84, 72, 56, 192, 192, 192, 192,
    192, 192, 192, 196, 0, 3, 0, 22, 28, 1, 68, 59, 217, 11, 140, 0, 0, 0, 0, 73, 69, 78, 68, 174,
    66, 96, 130,
];

light_and_dark!(
    paste_and_os_drop_reach_the_model_light,
    paste_and_os_drop_reach_the_model_dark,
    "chat_attach",
    ("CLAUDE_BIN", "chat window E2E (attachments)", 120),
    scenario
);

/// The desktop tools: xclip (the clipboard), xdotool (keys, the mouse) and a Python with GTK 3
/// bindings (python3-gi, the drag source). Missing ones are a
/// loud SKIP locally and a failure under `CI=true`.
fn drag_tools(test: &str) -> Option<PathBuf> {
    let runs = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // The system Python: a version manager's (pyenv) usually lacks the GTK bindings.
    let python = ["/usr/bin/python3", "python3"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| runs(p, &["-c", "import gi; gi.require_version('Gtk', '3.0')"]));
    let mut missing = Vec::new();
    if !runs(Path::new("xclip"), &["-version"]) {
        missing.push("xclip");
    }
    // `--version` works without a display (`version` needs one).
    if !runs(Path::new("xdotool"), &["--version"]) {
        missing.push("xdotool");
    }
    if python.is_none() {
        missing.push("python3-gi (GTK 3 bindings)");
    }
    if nothing_missing(test, &missing) {
        python
    } else {
        None
    }
}

/// Standard base64 (what the Messages API carries), to compare with the bytes on disk.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The composer's attachment names, from their `Remove <name>` buttons.
async fn attachment_names(app: &AppSession) -> Result<Vec<String>, BoxError> {
    app.script_strings(
        "return [...document.querySelectorAll('[data-testid=composer] button[aria-label^=\"Remove \"]')]\
         .map((b) => b.getAttribute('aria-label').slice('Remove '.length))",
    )
    .await
}

async fn wait_for_attachments(app: &AppSession, n: usize) -> Result<Vec<String>, BoxError> {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let names = attachment_names(app).await?;
        if names.len() >= n {
            return Ok(names);
        }
        if std::time::Instant::now() > deadline {
            let refused = app
                .client
                .execute(
                    "return [...document.querySelectorAll('[data-testid=composer] .refused')].map((e) => e.textContent)",
                    vec![],
                )
                .await?;
            return Err(
                format!("{n} attachments wanted, have {names:?}; refused: {refused}").into(),
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Copy `png` to the OS clipboard (xclip owns the CLIPBOARD selection, as a screenshot tool
/// would) and paste it into the message box with a real Ctrl+V from the X server. The guard
/// keeps xclip serving the selection until the import is done.
async fn os_paste(app: &AppSession, display: &str, png_file: &Path) -> Result<Guarded, BoxError> {
    let clip = Command::new("xclip")
        .args(["-quiet", "-selection", "clipboard", "-t", "image/png", "-i"])
        .arg(png_file)
        .env("DISPLAY", display)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let clip = Guarded::new("xclip", clip);
    // xclip owns the selection once its window exists; it has no "ready" signal.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let owner = Command::new("xclip")
            .args(["-o", "-selection", "clipboard", "-t", "TARGETS"])
            .env("DISPLAY", display)
            .output()?;
        if String::from_utf8_lossy(&owner.stdout).contains("image/png") {
            break;
        }
        if std::time::Instant::now() > deadline {
            return Err("xclip did not take the clipboard".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.find("textarea[aria-label=Message]")
        .await?
        .click()
        .await?;
    let status = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(["key", "ctrl+v"])
        .status()?;
    if !status.success() {
        return Err(format!("xdotool: {status}").into());
    }
    Ok(clip)
}

/// A real XDND drag of `file` from a GTK drag-source window onto the middle of the app window.
fn os_drag(display: &str, python: &Path, file: &Path) -> Result<(), BoxError> {
    // The source sits in the screen's right margin (the app window is 1200 px wide at 0,0).
    let (sx, sy) = (1200, 700);
    let mut cmd = Command::new(python);
    cmd.arg(repo_root().join("tests/support/drag_source.py"))
        .arg(file)
        .args([sx.to_string(), sy.to_string()])
        .env("DISPLAY", display)
        .env("NO_AT_BRIDGE", "1")
        .stderr(Stdio::inherit());
    let (source, stdout) = Guarded::spawn_reading("drag source", cmd)?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(15))?;
    if ready != "ready" {
        return Err(format!("drag source said {ready:?}").into());
    }
    // Press on the source, move past GTK's drag threshold, travel onto the app in steps (each
    // an XDND position message the app answers), and release there.
    let (gx, gy) = (sx + 40, sy + 40);
    let status = Command::new("xdotool")
        .env("DISPLAY", display)
        .args([
            "mousemove",
            &gx.to_string(),
            &gy.to_string(),
            "sleep",
            "0.2",
        ])
        .args(["mousedown", "1", "sleep", "0.1"])
        .args(["mousemove", &(gx - 10).to_string(), &(gy - 10).to_string()])
        .args(["sleep", "0.1", "mousemove", "1000", "600", "sleep", "0.2"])
        .args(["mousemove", "700", "450", "sleep", "0.2"])
        .args(["mousemove", "600", "400", "sleep", "0.4"])
        .args(["mouseup", "1"])
        .status()?;
    if !status.success() {
        return Err(format!("xdotool: {status}").into());
    }
    let ended = rx.recv_timeout(Duration::from_secs(10))?;
    if !ended.starts_with("dropped") {
        return Err(format!("drag source said {ended:?}").into());
    }
    drop(source);
    Ok(())
}

async fn scenario(mut w: WindowTest<'_>) -> Result<(), BoxError> {
    let Some(python) = drag_tools(w.test) else {
        return Ok(());
    };
    let fake = FakeMessages::start().await?;
    let ws = prepare_claude_workspace(&w.env, w.bin.clone(), fake.base_url()).await?;
    // The files live outside the workspace, like screenshots in ~/Pictures.
    let pictures = w.env.root.join("pictures");
    std::fs::create_dir_all(&pictures)?;
    let dropped = pictures.join("blue-square.png");
    std::fs::write(&dropped, BLUE_PNG)?;
    let artifacts = &w.artifacts;
    let shot = |name: &str| artifacts.join(format!("{name}.png"));

    let app = w.desktop.launch(&w.env, "app", artifacts).await?;
    app.collect_js_errors().await?;
    let message = app.open_new_session(artifacts).await?;

    // Paste an image copied to the OS clipboard: it becomes a thumbnail with a remove button.
    let copied = pictures.join("copied.png");
    std::fs::write(&copied, RED_PNG)?;
    let pasted = os_paste(&app, w.desktop.display_name(), &copied).await;
    let clip = app.on_error(artifacts, pasted).await?;
    let names = wait_for_attachments(&app, 1).await;
    let names = app.on_error(artifacts, names).await?;
    drop(clip);
    assert_eq!(names, ["pasted-image.png"]);
    app.screenshot(&shot("01-pasted")).await?;

    // Drop a file from another X client: the app gets its path and imports it.
    let dragged = os_drag(w.desktop.display_name(), &python, &dropped);
    app.on_error(artifacts, dragged).await?;
    let names = wait_for_attachments(&app, 2).await;
    let names = app.on_error(artifacts, names).await?;
    assert_eq!(names, ["pasted-image.png", "blue-square.png"]);
    app.screenshot(&shot("02-dropped")).await?;

    // Send: the model receives both images, byte for byte.
    fake.push(Reply::text(&["A red square ", "and a blue one."]));
    message.send_keys("What is in these pictures?").await?;
    app.button("Send").await?.click().await?;
    app.run_ends(artifacts, "Completed", STREAM).await?;
    app.wait_for_timeline("and a blue one.", STREAM).await?;
    let request = fake.model_requests().pop().ok_or("no model request")?;
    let images: Vec<String> = request
        .blocks_of("image")
        .iter()
        .map(|b| b["source"]["data"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(base64(RED_PNG), RED_PNG_B64, "the test's own encoder");
    assert_eq!(
        images,
        [base64(RED_PNG), base64(BLUE_PNG)],
        "the images the model got"
    );
    assert!(
        request.transcript().contains("What is in these pictures?"),
        "{}",
        request.transcript()
    );
    // The sent message shows both pictures; the composer is empty again.
    let thumbs = app
        .client
        .execute(
            "return document.querySelectorAll('[role=log] img').length",
            vec![],
        )
        .await?;
    assert_eq!(thumbs, serde_json::json!(2), "thumbnails in the timeline");
    assert!(attachment_names(&app).await?.is_empty());
    assert!(ws.work.join("README.md").exists());
    app.screenshot(&shot("03-sent")).await?;
    app.quit().await?;
    w.env.passed();
    Ok(())
}
