//! Typed results of a harness step and of a whole case.

use ptx_sync_host::cudarc::driver::DriverError;
use std::fmt;

/// Why a harness step stopped. Its `Display` is the message the runner prints, word for word
/// what the wrapped error says.
#[derive(Debug)]
pub enum Error {
    /// The host crate refused or the GPU failed.
    Host(ptx_sync_host::Error),
    /// A cudarc driver call made directly (a launch builder's `launch`) failed.
    Driver(DriverError),
    /// A check failed; the message says what was seen and what was expected.
    Check(String),
    /// Not a failure: the case does not apply here (e.g. it needs a newer GPU). `?` carries it
    /// out of helpers like any early exit; [`Outcome::from`] makes it [`Outcome::Skip`].
    Skip(String),
}

/// `Result` with [`Error`] unless another error type is named.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a case ends as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It passed; a short account of what it checked.
    Pass(String),
    /// It failed; why.
    Fail(String),
    /// It did not apply here; why.
    Skip(String),
}

/// Ends a case (or a helper) as skipped: `return skip("needs sm_90")`.
pub fn skip<T>(reason: impl fmt::Display) -> Result<T> {
    Err(Error::Skip(reason.to_string()))
}

impl From<Result<String>> for Outcome {
    fn from(r: Result<String>) -> Outcome {
        match r {
            Ok(detail) => Outcome::Pass(detail),
            Err(Error::Skip(reason)) => Outcome::Skip(reason),
            Err(e) => Outcome::Fail(e.to_string()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Host(e) => e.fmt(f),
            Error::Driver(e) => e.fmt(f),
            Error::Check(msg) | Error::Skip(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Host(e) => Some(e),
            Error::Driver(e) => Some(e),
            Error::Check(_) | Error::Skip(_) => None,
        }
    }
}

impl From<ptx_sync_host::Error> for Error {
    fn from(e: ptx_sync_host::Error) -> Error {
        Error::Host(e)
    }
}

impl From<DriverError> for Error {
    fn from(e: DriverError) -> Error {
        Error::Driver(e)
    }
}

impl From<String> for Error {
    fn from(msg: String) -> Error {
        Error::Check(msg)
    }
}

impl From<&str> for Error {
    fn from(msg: &str) -> Error {
        Error::Check(msg.to_string())
    }
}

/// A failure to start or wait for a process (the watchdog cases run the runner as a child).
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Check(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_keep_the_words() {
        assert_eq!(
            Outcome::from(Ok("3 checked".to_string())),
            Outcome::Pass("3 checked".into())
        );
        assert_eq!(
            Outcome::from(skip::<String>("needs sm_90")),
            Outcome::Skip("needs sm_90".into())
        );
        let host = ptx_sync_host::Error::Empty("threads");
        let words = host.to_string();
        assert_eq!(
            Outcome::from(Err::<String, _>(host.into())),
            Outcome::Fail(words)
        );
        assert_eq!(
            Outcome::from(Err::<String, _>("out[3] = 0x0".into())),
            Outcome::Fail("out[3] = 0x0".into())
        );
    }
}
