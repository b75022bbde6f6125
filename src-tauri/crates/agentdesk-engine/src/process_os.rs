//! The platform half of [`super::ChildProcess`]: how the engine child is started, contained and
//! killed. The stop ladder and the tasks around the child are the same on every platform.
//!
//! - **Unix**: the child leads a new process group and (Linux) gets `PR_SET_PDEATHSIG`; the
//!   ladder signals the whole group with kill(2). Written by hand rather than with
//!   process-wrap's `ProcessGroup`: that wrapper only sets the group (one call here) and
//!   signals it the same way, and needs PDEATHSIG, the graceful SIGTERM rung and the final
//!   group SIGKILL after the leader's exit added around it anyway.
//! - **Windows**: process-wrap's `JobObject` starts the child suspended, assigns it to a new Job
//!   Object with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` and only then resumes it, so everything
//!   the engine starts (the node behind a `cmd /C` npm shim, the agent's commands, MCP
//!   servers) is in the job from its first instruction. Killing the child terminates the whole
//!   job, and closing the job handle, which happens when the child is dropped or the app dies
//!   however it dies, kills whatever is left: the counterpart of the group SIGKILL plus
//!   PDEATHSIG. There is no SIGTERM, so the ladder skips its middle rung there. Only the wait
//!   task holds the job, so a kill is a request to that task: a `Drop` outside the runtime
//!   takes effect when the runtime next runs the task, or when the runtime is dropped (which
//!   drops the child and so closes the job), not synchronously as the Unix killpg does.

use std::ffi::OsString;
use std::io;
use std::process::ExitStatus;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use super::Sig;
use crate::error::EngineError;

/// The spawned child, as the wait task owns it.
#[derive(Debug)]
pub(super) struct OsChild {
    #[cfg(not(windows))]
    child: tokio::process::Child,
    /// A `JobObjectChild` around the tokio child: it owns the job's handle.
    #[cfg(windows)]
    child: Box<dyn process_wrap::tokio::ChildWrapper>,
}

/// The child's three pipes (each `None` if it was not piped).
pub(super) struct Pipes {
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
}

impl OsChild {
    /// Spawn `cmd` contained as the module docs say.
    #[cfg(not(windows))]
    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    pub(super) fn spawn(mut cmd: Command, parent_death_signal: bool) -> io::Result<Self> {
        #[cfg(unix)]
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        if parent_death_signal {
            set_parent_death_signal(&mut cmd);
        }
        Ok(Self {
            child: cmd.spawn()?,
        })
    }

    /// Spawn `cmd` in a kill-on-close Job Object (see the module docs).
    #[cfg(windows)]
    pub(super) fn spawn(cmd: Command, _parent_death_signal: bool) -> io::Result<Self> {
        use process_wrap::tokio::{CommandWrap, CreationFlags, JobObject, KillOnDrop};
        use windows::Win32::System::Threading::CREATE_NO_WINDOW;
        let mut wrapped = CommandWrap::from(cmd);
        // CREATE_NO_WINDOW: no console window flashes up for a console engine. Set through
        // CreationFlags because JobObject sets the creation flags itself (adding
        // CREATE_SUSPENDED) and would overwrite flags set on the command directly. KillOnDrop
        // is what makes JobObject set JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.
        wrapped
            .wrap(CreationFlags(CREATE_NO_WINDOW))
            .wrap(JobObject)
            .wrap(KillOnDrop);
        Ok(Self {
            child: wrapped.spawn()?,
        })
    }

    pub(super) fn id(&self) -> Option<u32> {
        self.child.id()
    }

    #[cfg(not(windows))]
    pub(super) fn take_pipes(&mut self) -> Pipes {
        Pipes {
            stdin: self.child.stdin.take(),
            stdout: self.child.stdout.take(),
            stderr: self.child.stderr.take(),
        }
    }

    #[cfg(windows)]
    pub(super) fn take_pipes(&mut self) -> Pipes {
        Pipes {
            stdin: self.child.stdin().take(),
            stdout: self.child.stdout().take(),
            stderr: self.child.stderr().take(),
        }
    }

    /// Wait for the child itself to exit. Cancel-safe: the wait task drops it to handle a kill
    /// request and calls it again.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// Kill without waiting: SIGKILL to the child on Unix (the group is signalled separately,
    /// see [`signal_group`]); on Windows, terminate the whole job.
    pub(super) fn start_kill(&mut self) -> io::Result<()> {
        self.child.start_kill()
    }
}

/// Signal the process group led by `pid` (Unix). Elsewhere a no-op: Windows kills through
/// [`OsChild::start_kill`], which ends the whole job.
#[cfg_attr(not(unix), allow(unused_variables))]
pub(super) fn signal_group(pid: u32, sig: Sig) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        let signo = match sig {
            Sig::Term => libc::SIGTERM,
            Sig::Kill => libc::SIGKILL,
        };
        // SAFETY: kill(2) with a negative pid signals the process group `pid`, which spawn
        // created with process_group(0). No memory is involved; ESRCH (group already gone)
        // is fine and ignored.
        unsafe {
            libc::kill(-pid, signo);
        }
    }
}

/// CreateProcess takes at most 32,767 UTF-16 units of command line, quoting included.
pub(super) const WINDOWS_MAX_COMMAND_LINE: usize = 32_767;

/// An upper bound of the command line Windows builds from `program` and `args` (each quoted,
/// quotes and backslashes escaped, separated by a space), in UTF-16 units.
pub(super) fn windows_command_line_len(program: &std::path::Path, args: &[OsString]) -> usize {
    std::iter::once(program.as_os_str())
        .chain(args.iter().map(OsString::as_os_str))
        .map(|a| {
            let text = a.to_string_lossy();
            let escapes = text.chars().filter(|c| matches!(c, '"' | '\\')).count();
            text.encode_utf16().count() + escapes + 3
        })
        .sum()
}

/// Refuse, with what to do, a command line Windows would refuse with a bare error code (the
/// system prompt already goes through a file: what is left is long settings such as many
/// extra folders or tool names).
pub(super) fn check_command_line(
    program: &std::path::Path,
    args: &[OsString],
) -> Result<(), EngineError> {
    let len = windows_command_line_len(program, args);
    if len <= WINDOWS_MAX_COMMAND_LINE {
        return Ok(());
    }
    Err(EngineError::Spawn {
        program: program.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "the command line would be {len} characters; Windows allows {WINDOWS_MAX_COMMAND_LINE} (shorten the profile's long settings: extra folders, tool lists, engine options)"
            ),
        ),
    })
}

#[cfg(target_os = "linux")]
fn set_parent_death_signal(cmd: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec, where only async-signal-safe
    // calls are allowed. It calls prctl(2) and getppid(2), both async-signal-safe, and builds
    // io::Errors from raw OS codes, which does not allocate. It touches no locks or memory
    // shared with the parent's other threads.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl: then the signal never comes.
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Whether a process with this id runs now (another user's counts: it exists).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether a process with this id runs now.
#[cfg(windows)]
pub fn process_alive(pid: u32) -> bool {
    use windows::Win32::Foundation::CloseHandle;
    use windows::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    /// GetExitCodeProcess's code while the process runs.
    const STILL_ACTIVE: u32 = 259;
    // SAFETY: OpenProcess returns a handle we own; it is only queried, then closed once.
    unsafe {
        let Ok(handle) = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) else {
            return false;
        };
        let mut code = 0u32;
        let queried = GetExitCodeProcess(handle, &mut code).is_ok();
        let _ = CloseHandle(handle);
        queried && code == STILL_ACTIVE
    }
}

/// The process's resident memory in bytes (the engine alone, not what it started), or
/// `None` when it cannot be read (gone, another platform).
#[cfg(target_os = "linux")]
pub fn resident_bytes(pid: u32) -> Option<u64> {
    // statm's second field: resident pages.
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages.saturating_mul(u64::try_from(page).ok().filter(|p| *p > 0)?))
}

/// The process's resident memory in bytes, or `None` when it cannot be read.
#[cfg(target_os = "macos")]
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let pid = libc::c_int::try_from(pid).ok()?;
    let mut info = std::mem::MaybeUninit::<libc::proc_taskinfo>::zeroed();
    let size = libc::c_int::try_from(std::mem::size_of::<libc::proc_taskinfo>()).ok()?;
    // SAFETY: the buffer is a zeroed proc_taskinfo of the size passed; the call writes at
    // most that many bytes and returns how many it wrote.
    let written = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTASKINFO,
            0,
            info.as_mut_ptr().cast(),
            size,
        )
    };
    if written != size {
        return None;
    }
    // SAFETY: fully written by the call above (checked by its return value).
    Some(unsafe { info.assume_init() }.pti_resident_size)
}

/// The process's working set in bytes, or `None` when it cannot be read.
#[cfg(windows)]
pub fn resident_bytes(pid: u32) -> Option<u64> {
    use windows::Win32::Foundation::CloseHandle;
    use windows::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
    use windows::Win32::System::Threading::{OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    let size = u32::try_from(std::mem::size_of::<PROCESS_MEMORY_COUNTERS>()).ok()?;
    // SAFETY: OpenProcess returns a handle we own; it is only queried, then closed once; the
    // counters are written into a struct of the size passed.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid).ok()?;
        let mut counters = PROCESS_MEMORY_COUNTERS {
            cb: size,
            ..Default::default()
        };
        let read = GetProcessMemoryInfo(handle, &mut counters, size).is_ok();
        let _ = CloseHandle(handle);
        read.then_some(counters.WorkingSetSize as u64)
    }
}

/// Other systems: not measured (no limit applies).
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
pub fn resident_bytes(_pid: u32) -> Option<u64> {
    None
}

#[cfg(all(test, windows))]
#[path = "process_os_tests.rs"]
mod tests;
