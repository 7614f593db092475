use crate::Arch;
use std::fmt;
use std::path::PathBuf;

/// Why a PTX build did not happen, in words that say what to do. `Debug` prints the same text
/// as `Display`, so `fn main() -> Result<(), ptx_sync_build::Error>` in a build script shows
/// the message, not a struct dump.
pub enum Error {
    /// No `Cargo.toml` in the kernel crate's directory.
    CrateNotFound(PathBuf),
    /// A builder setting or the environment is wrong (an unknown `$PTX_SYNC_ARCH`, ...).
    Config(String),
    /// rustc could not be asked about the toolchain, or a component install failed.
    Toolchain(String),
    /// Components the nvptx build needs are not installed.
    MissingComponents {
        /// The missing components.
        missing: Vec<String>,
        /// The command that installs them.
        command: String,
    },
    /// The nested `cargo build` failed.
    Cargo {
        /// The kernel crate.
        crate_dir: PathBuf,
        /// The arch it was built for.
        arch: Arch,
        /// The RUSTFLAGS it ran with.
        rustflags: String,
        /// What the output suggests, for known failures.
        hint: Option<String>,
        /// The end of cargo's output.
        output: String,
    },
    /// The build succeeded but left no PTX where rustc puts it.
    NoPtx(PathBuf),
    /// [`PtxBuilder::build`](crate::PtxBuilder::build) outside a build script.
    NotInBuildScript,
    /// A file operation failed.
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::CrateNotFound(dir) => write!(
                f,
                "kernel crate {} not found: no Cargo.toml there (PtxBuilder::new takes the kernel \
                 crate's directory, relative to the current one: the package directory in build.rs)",
                dir.display()
            ),
            Error::Config(why) | Error::Toolchain(why) => f.write_str(why),
            Error::MissingComponents { missing, command } => write!(
                f,
                "the Rust toolchain lacks {} (needed to build `core` for nvptx and link PTX); run:\n    {command}",
                missing.join(", ")
            ),
            Error::Cargo { crate_dir, arch, rustflags, hint, output } => {
                write!(
                    f,
                    "building {} to PTX for {arch} failed (RUSTFLAGS=\"{rustflags}\", RUSTC_BOOTSTRAP=1, \
                     --release --target {} -Zbuild-std=core)",
                    crate_dir.display(),
                    crate::TARGET
                )?;
                if let Some(hint) = hint {
                    write!(f, "\nhint: {hint}")?;
                }
                write!(f, ":\n{output}")
            }
            Error::NoPtx(path) => write!(
                f,
                "the build succeeded but {} is missing: is the kernel crate a cdylib \
                 ([lib] crate-type = [\"cdylib\"])?",
                path.display()
            ),
            Error::NotInBuildScript => f.write_str(
                "PtxBuilder::build is for build.rs ($OUT_DIR is not set); use PtxBuilder::compile elsewhere",
            ),
            Error::Io { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
