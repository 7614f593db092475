use cudarc::driver::DriverError;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// What went wrong, in words that say what to do about it.
#[derive(Debug)]
pub enum Error {
    /// No usable CUDA driver: `libcuda.so` is missing or `cuInit` failed.
    NoDriver(String),
    /// A driver call failed; `what` says which step.
    Driver { what: String, source: DriverError },
    /// The PTX file does not exist (checked before the driver is asked to load it).
    PtxNotFound(PathBuf),
    /// The module has no kernel of that name.
    KernelNotFound { ptx: PathBuf, name: String },
    /// A cooperative launch asked for more blocks than can be resident at once.
    GridTooLarge {
        kernel: String,
        requested_blocks: u32,
        limit: crate::CoopLimit,
        block_threads: u32,
    },
    /// The device cannot launch cooperative kernels at all.
    NoCooperativeLaunch { device: String },
    /// A request for zero elements or zero threads.
    Empty(&'static str),
    /// The GPU did not finish within the limit (a deadlocked or runaway kernel). The context
    /// cannot be reused: the kernel is still running.
    Timeout { what: String, limit: Duration },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver(why) => write!(f, "no CUDA driver: {why}"),
            Error::Driver { what, source } => write!(f, "{what}: {source}"),
            Error::PtxNotFound(p) => {
                write!(f, "PTX file {} not found (build it with `cargo xtask build-ptx`)", p.display())
            }
            Error::KernelNotFound { ptx, name } => {
                write!(f, "no kernel `{name}` in {} (is it #[no_mangle] pub extern \"ptx-kernel\"?)", ptx.display())
            }
            Error::GridTooLarge { kernel, requested_blocks, limit, block_threads } => write!(
                f,
                "cooperative launch of `{kernel}` with {requested_blocks} blocks of {block_threads} threads \
                 exceeds the limit of {} blocks ({} per SM x {} SMs) that can be resident at once",
                limit.max_blocks, limit.blocks_per_sm, limit.sms
            ),
            Error::NoCooperativeLaunch { device } => write!(f, "{device} does not support cooperative launches"),
            Error::Empty(what) => write!(f, "{what} must not be zero"),
            Error::Timeout { what, limit } => {
                write!(f, "{what} did not finish within {:.1} s (deadlocked kernel?)", limit.as_secs_f64())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver { source, .. } => Some(source),
            _ => None,
        }
    }
}
