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
            let (writer, guard) = tracing_appender::non_blocking(appender);
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

#[cfg(test)]
mod tests {
    use super::*;

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
