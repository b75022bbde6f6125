//! The CLI's one error type: what to print (`error: <message> [<code>]`) and which exit code
//! to return (documented in `--help`).

use std::process::ExitCode;

use agentdesk_core::CoreError;
use agentdesk_protocol::ui::ErrorCode;

pub const EXIT_FAILED: u8 = 1;
pub const EXIT_INTERRUPTED: u8 = 3;
pub const EXIT_INVALID: u8 = 4;
pub const EXIT_NOT_FOUND: u8 = 5;
pub const EXIT_ENGINE: u8 = 6;
pub const EXIT_INTERNAL: u8 = 7;

#[derive(Debug)]
pub struct CliError {
    pub message: String,
    /// The stable code printed with the message: an [`ErrorCode`]'s name, or `interrupted`.
    pub code: &'static str,
    pub exit: u8,
}

pub type CliResult<T> = Result<T, CliError>;

impl CliError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::InvalidInput, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::from_code(ErrorCode::Internal, message)
    }

    /// An error of a given code, with the exit code the table gives it.
    pub fn from_code(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: code.as_str(),
            exit: exit_code(code),
        }
    }

    pub fn io(what: &str, e: std::io::Error) -> Self {
        Self::internal(format!("{what}: {e}"))
    }

    pub fn report(&self) -> ExitCode {
        // Error messages quote engine output and stored text: shown, never interpreted.
        eprintln!(
            "error: {} [{}]",
            crate::escape::visible(&self.message),
            self.code
        );
        ExitCode::from(self.exit)
    }
}

/// The exit code for each error code: the one table behind the codes `--help` documents.
pub fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidInput | ErrorCode::Conflict => EXIT_INVALID,
        ErrorCode::NotFound => EXIT_NOT_FOUND,
        ErrorCode::EngineMissing
        | ErrorCode::EngineNotLoggedIn
        | ErrorCode::EngineVersionUnsupported
        | ErrorCode::EngineFailed
        | ErrorCode::Remote => EXIT_ENGINE,
        // Nothing was done to the run: like Ctrl-C, it can be sent again.
        ErrorCode::ShuttingDown => EXIT_INTERRUPTED,
        // A wait gave up: the run did not complete. Git refused (a hook, a conflict):
        // nothing was done.
        ErrorCode::TimedOut | ErrorCode::GitFailed | ErrorCode::MergeConflict => EXIT_FAILED,
        ErrorCode::Busy
        | ErrorCode::StorageCorrupt
        | ErrorCode::StorageFull
        | ErrorCode::StorageReadOnly
        | ErrorCode::Storage
        | ErrorCode::Internal => EXIT_INTERNAL,
    }
}

impl From<CoreError> for CliError {
    fn from(e: CoreError) -> Self {
        Self::from_code(e.code(), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_code_has_its_documented_exit_code() {
        let expect = |c: ErrorCode| match c.as_str() {
            "invalid_input" | "conflict" => 4,
            "not_found" => 5,
            s if s.starts_with("engine_") || s == "remote" => 6,
            "shutting_down" => 3,
            "timed_out" | "git_failed" | "merge_conflict" => 1,
            _ => 7,
        };
        for &c in ErrorCode::ALL {
            assert_eq!(exit_code(c), expect(c), "{c:?}");
        }
        let e = CliError::from(CoreError::Engine(agentdesk_engine::EngineError::NotFound {
            program: "claude".into(),
            hint: "install it".into(),
            searched: vec![],
        }));
        assert_eq!((e.code, e.exit), ("engine_missing", EXIT_ENGINE));
        let busy = CliError::from(CoreError::Busy("held".into()));
        assert_eq!((busy.code, busy.exit), ("busy", EXIT_INTERNAL));
    }
}
