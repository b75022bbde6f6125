//! `tracing` to stderr and to a daily-rolling file in `<data dir>/logs`, a folder kept
//! bounded (`agentdesk_core::logs`: pruned at every start, and the appender keeps the newest
//! days while the app runs).

use std::path::PathBuf;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter, Layer};

/// The filter without `RUST_LOG`. Engine stderr (target `agentdesk_engine::stderr`, logged
/// at TRACE) stays out: it is kept,
/// redacted, as the run's diagnostics, and a chatty engine would otherwise fill the log file
/// with a line per streamed token.
pub const DEFAULT_FILTER: &str =
    "info,agentdesk=debug,agentdesk_engine::stderr=off,tao=warn,wry=warn";

/// Lines the file writer's queue holds before new ones are dropped (never blocking the thread
/// that logs: the UI's or a runtime worker). tracing-appender's default, 128,000, allocates
/// its whole queue up front and writes every slot (32 bytes each): 3.9 MB of the app's
/// resident memory from the first line to the last, as much as the window's own backing
/// store — found with a breakpoint on large `mmap`s (BENCHMARKS.md, issue 26). The app
/// writes a few lines a minute (9 in a 30-minute soak of eight streaming sessions); 8,192
/// lines (256 KB) still absorb a burst of `RUST_LOG=trace` while the writer thread catches up.
pub const FILE_QUEUE_LINES: usize = 8_192;

/// Install the subscriber. `RUST_LOG` overrides the default filter. Returns the file writer's
/// guard, which must live as long as the process.
pub fn init(log_dir: Option<PathBuf>) -> Option<WorkerGuard> {
    let filter =
        || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter());

    let (file, guard) = match log_dir.map(|dir| (std::fs::create_dir_all(&dir), dir)) {
        Some((Ok(()), dir)) => {
            let limits = agentdesk_core::logs::LogLimits::default();
            agentdesk_core::logs::prune_logs(&dir, limits, std::time::SystemTime::now());
            let appender = tracing_appender::rolling::Builder::new()
                .rotation(tracing_appender::rolling::Rotation::DAILY)
                .filename_prefix(agentdesk_core::logs::LOG_FILE_PREFIX)
                .max_log_files(limits.max_files)
                .build(&dir);
            let appender = match appender {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("Agent Desk: cannot log to {}: {e}", dir.display());
                    return init(None);
                }
            };
            let (writer, guard) = file_writer(appender);
            let layer = fmt::layer()
                .with_ansi(false)
                .with_writer(writer)
                .with_filter(filter());
            (Some(layer), Some(guard))
        }
        Some((Err(e), dir)) => {
            eprintln!(
                "Agent Desk: cannot create the log directory {}: {e}",
                dir.display()
            );
            (None, None)
        }
        None => (None, None),
    };

    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
    guard
}

/// The file layer's writer: a queue of [`FILE_QUEUE_LINES`] lines to a thread of its own.
fn file_writer<W: std::io::Write + Send + 'static>(
    file: W,
) -> (tracing_appender::non_blocking::NonBlocking, WorkerGuard) {
    tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(FILE_QUEUE_LINES)
        .lossy(true)
        .finish(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::io::Write;

    /// Counts the bytes allocated on each thread (tests run in parallel: only the counting
    /// thread's own allocations are seen).
    struct PerThread;

    thread_local! {
        static ALLOCATED: Cell<usize> = const { Cell::new(0) };
    }

    // SAFETY: every call is passed to the system allocator unchanged; the counter is a
    // const-initialised thread-local `Cell`, which allocates nothing.
    unsafe impl GlobalAlloc for PerThread {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = ALLOCATED.try_with(|n| n.set(n.get() + layout.size()));
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static COUNTED: PerThread = PerThread;

    fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = ALLOCATED.with(Cell::get);
        let out = f();
        (out, ALLOCATED.with(Cell::get) - before)
    }

    #[derive(Clone, Default)]
    struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_log_files_queue_is_small_and_still_writes_every_line() {
        let file = Lines::default();
        let ((mut writer, guard), bytes) = allocated_by(|| file_writer(file.clone()));
        // tracing-appender's default queue is 128,000 slots of 32 bytes (4 MB, all written
        // at once); this one is 8,192 (256 KB).
        assert!(
            bytes < 512 * 1024,
            "the file writer allocated {bytes} bytes"
        );
        let (_, default_bytes) = allocated_by(|| tracing_appender::non_blocking(Lines::default()));
        assert!(default_bytes > 8 * bytes, "{default_bytes} against {bytes}");
        for i in 0..1000 {
            writeln!(writer, "line {i}").unwrap();
        }
        drop(guard); // flushes what is queued
        let written = String::from_utf8(file.0.lock().unwrap().clone()).unwrap();
        assert_eq!(written.lines().count(), 1000);
        assert!(written.ends_with("line 999\n"));
    }

    #[test]
    fn the_default_filter_leaves_engine_stderr_out_and_keeps_our_own_logs() {
        let subscriber = tracing_subscriber::registry().with(
            fmt::layer()
                .with_writer(std::io::sink)
                .with_filter(EnvFilter::new(DEFAULT_FILTER)),
        );
        tracing::subscriber::with_default(subscriber, || {
            assert!(!tracing::enabled!(target: "agentdesk_engine::stderr", tracing::Level::TRACE));
            assert!(!tracing::enabled!(target: "agentdesk_engine::stderr", tracing::Level::WARN));
            assert!(tracing::enabled!(target: "agentdesk_engine::process", tracing::Level::DEBUG));
            assert!(tracing::enabled!(target: "agentdesk_core::runs", tracing::Level::INFO));
        });
    }
}
