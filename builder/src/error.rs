use crate::Arch;
use std::fmt;
use std::path::PathBuf;

/// Why a PTX build did not happen, in words that say what to do. `Debug` prints the same text
/// as `Display`, so `fn main() -> Result<(), ptx_sync_build::Error>` in a build script shows
/// the message, not a struct dump.
#[non_exhaustive]
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
    /// No usable NVSHMEM install was found ([`nvshmem::Search`](crate::nvshmem::Search)).
    NvshmemNotFound {
        /// Each place looked at, with why it was passed over.
        tried: Vec<String>,
        /// What to install, or which variable to set.
        hint: String,
    },
    /// An NVSHMEM install of another major.minor than the one the bindings were written for.
    NvshmemVersion {
        /// The install's version (`include/non_abi/nvshmem_version.h`).
        found: (u32, u32, u32),
        /// [`nvshmem::VERSION`](crate::nvshmem::VERSION).
        expected: (u32, u32, u32),
        /// The install's root.
        root: PathBuf,
    },
    /// An NVSHMEM install lacks a file a build or its host program uses, or its version
    /// header is unreadable.
    NvshmemInvalid {
        /// The install's root.
        root: PathBuf,
        /// What is wrong (the missing file, relative to the root).
        why: String,
    },
    /// Downloading the pinned NVSHMEM wheel failed (after nothing usable was found).
    NvshmemFetch {
        /// The wheel's file name.
        wheel: String,
        /// The cache dir it was to be extracted into.
        cache: PathBuf,
        /// Why it failed (python3's last lines).
        why: String,
        /// The places looked at before downloading, with why each was passed over.
        tried: Vec<String>,
    },
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
            Error::NvshmemNotFound { tried, hint } => {
                let (a, b, c) = crate::nvshmem::VERSION;
                write!(f, "NVSHMEM {a}.{b}.{c} was not found; tried:")?;
                for place in tried {
                    write!(f, "\n  {place}")?;
                }
                write!(f, "\n{hint}")
            }
            Error::NvshmemVersion { found, expected, root } => write!(
                f,
                "NVSHMEM at {} is {}.{}.{}, but ptx-sync's bindings are written for {}.{}.x \
                 (the device bitcode, the host library and the bindings must agree): point ${} \
                 at an NVSHMEM {}.{} install or run `{}`",
                root.display(),
                found.0,
                found.1,
                found.2,
                expected.0,
                expected.1,
                crate::nvshmem::HOME_ENV,
                expected.0,
                expected.1,
                crate::nvshmem::pip_install()
            ),
            Error::NvshmemInvalid { root, why } => write!(
                f,
                "NVSHMEM at {} is not usable: {why} (expected an install's root, the directory \
                 holding include/ and lib/; `{}` installs a complete one)",
                root.display(),
                crate::nvshmem::pip_install()
            ),
            Error::NvshmemFetch { wheel, cache, why, tried } => {
                write!(f, "NVSHMEM was not found")?;
                if !tried.is_empty() {
                    write!(f, " (tried:")?;
                    for place in tried {
                        write!(f, "\n  {place}")?;
                    }
                    write!(f, ")")?;
                }
                write!(
                    f,
                    "\nand downloading {wheel} from PyPI into {} failed: {why}\n{}",
                    cache.display(),
                    crate::nvshmem::install_hint()
                )
            }
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

/// For `?` on `"sm_80".parse::<Arch>()` in a function returning [`Error`]: an
/// [`Error::Config`] with the parse error's text.
impl From<crate::ParseArchError> for Error {
    fn from(e: crate::ParseArchError) -> Error {
        Error::Config(e.to_string())
    }
}
