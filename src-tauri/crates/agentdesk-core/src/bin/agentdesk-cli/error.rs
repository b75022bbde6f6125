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
    /// The stable code printed with the message (`invalid_input`, `not_found`, `engine`...).
    pub code: &'static str,
    pub exit: u8,
}

pub type CliResult<T> = Result<T, CliError>;

impl CliError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: "invalid_input",
            exit: EXIT_INVALID,
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: "not_found",
            exit: EXIT_NOT_FOUND,
        }
    }

    pub fn engine(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: "engine_unavailable",
            exit: EXIT_ENGINE,
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: "internal",
            exit: EXIT_INTERNAL,
        }
    }

    pub fn io(what: &str, e: std::io::Error) -> Self {
        Self::internal(format!("{what}: {e}"))
    }

    pub fn report(&self) -> ExitCode {
        eprintln!("error: {} [{}]", self.message, self.code);
        ExitCode::from(self.exit)
    }
}

fn code_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidInput => "invalid_input",
        ErrorCode::NotFound => "not_found",
        ErrorCode::Conflict => "conflict",
        ErrorCode::Storage => "storage",
        ErrorCode::Internal => "internal",
    }
}

impl From<CoreError> for CliError {
    fn from(e: CoreError) -> Self {
        if let CoreError::Engine(_) = e {
            return Self::engine(e.to_string());
        }
        let code = e.code();
        let exit = match code {
            ErrorCode::InvalidInput | ErrorCode::Conflict => EXIT_INVALID,
            ErrorCode::NotFound => EXIT_NOT_FOUND,
            ErrorCode::Storage | ErrorCode::Internal => EXIT_INTERNAL,
        };
        Self {
            message: e.to_string(),
            code: code_name(code),
            exit,
        }
    }
}
