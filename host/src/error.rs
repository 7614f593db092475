use cudarc::driver::DriverError;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// What went wrong, in words that say what to do about it.
#[derive(Debug)]
pub enum Error {
    /// No usable CUDA driver: `libcuda.so` is missing or `cuInit` failed.
    NoDriver(String),
    /// A driver call failed; `what` says which step.
    Driver {
        /// The step that failed, e.g. "loading kernels.ptx".
        what: String,
        /// The driver's error code.
        source: DriverError,
    },
    /// The PTX file does not exist (checked before the driver is asked to load it).
    PtxNotFound(PathBuf),
    /// The module has no kernel of that name.
    KernelNotFound {
        /// The module that was searched: its file's path, or the name given to
        /// [`Device::load_ptx_str`](crate::Device::load_ptx_str).
        module: String,
        /// The kernel's (unmangled) name.
        name: String,
    },
    /// The module has no global variable (a kernel crate's `static`) of that name.
    GlobalNotFound {
        /// The module that was searched.
        module: String,
        /// The symbol asked for.
        name: String,
    },
    /// A global variable's size differs from the host type it is read or written as.
    GlobalSize {
        /// The symbol.
        name: String,
        /// `size_of` the host type, in bytes.
        expected: usize,
        /// The symbol's size in the module, in bytes.
        found: usize,
    },
    /// The arguments pushed do not match the kernel's parameters (in number or in size), as
    /// the driver reports them (`cuFuncGetParamInfo`, CUDA 12.4+ drivers).
    BadArguments {
        /// The kernel's name.
        kernel: String,
        /// What differs.
        why: String,
    },
    /// A cooperative launch asked for more blocks than can be resident at once.
    GridTooLarge {
        /// The kernel's name.
        kernel: String,
        /// Blocks asked for.
        requested_blocks: u32,
        /// What fits: blocks per SM, SMs, and their product `max_blocks`.
        limit: crate::CoopLimit,
        /// Threads per block asked for (the limit depends on it).
        block_threads: u32,
    },
    /// The device cannot launch cooperative kernels at all.
    NoCooperativeLaunch {
        /// The device's name.
        device: String,
    },
    /// The device cannot launch thread-block clusters (they need sm_90 or newer).
    NoClusters {
        /// The device's name.
        device: String,
        /// Its compute capability (major, minor).
        compute_capability: (u32, u32),
    },
    /// A cluster launch this kernel or device cannot have; `why` says which limit.
    BadCluster {
        /// The kernel's name.
        kernel: String,
        /// The launch asked for.
        config: crate::ClusterConfig,
        /// What is wrong with it.
        why: String,
    },
    /// A request for zero elements or zero threads.
    Empty(&'static str),
    /// There is no GPU of that ordinal ([`Device::open_list`](crate::Device::open_list)).
    NoSuchGpu {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many GPUs the driver sees (ordinals `0..count`).
        count: usize,
    },
    /// Fewer GPUs than the work needs ([`Device::open_at_least`](crate::Device::open_at_least)).
    TooFewGpus {
        /// GPUs needed.
        needed: usize,
        /// GPUs the driver sees.
        count: usize,
    },
    /// Kernels on `gpu` cannot address memory of `peer` ([`Device::enable_peer_access`](crate::Device::enable_peer_access)).
    NoPeerAccess {
        /// The GPU whose kernels would access the memory (ordinal).
        gpu: usize,
        /// The GPU that owns the memory (ordinal).
        peer: usize,
        /// Why not.
        why: String,
    },
    /// A buffer used on a GPU it is not mapped for ([`PortableBuffer::device_ptr`](crate::PortableBuffer::device_ptr)).
    NotMapped {
        /// The GPU asked about (ordinal).
        gpu: usize,
        /// The GPUs the buffer is mapped for (ordinals).
        mapped: Vec<usize>,
    },
    /// The GPU did not finish within the limit (a deadlocked or runaway kernel). The context
    /// cannot be reused: the kernel is still running.
    Timeout {
        /// What was waited for.
        what: String,
        /// The limit that passed.
        limit: Duration,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver(why) => write!(f, "no CUDA driver: {why}"),
            Error::Driver { what, source } => write!(f, "{what}: {}", describe(source)),
            Error::PtxNotFound(p) => write!(
                f,
                "PTX file {} not found (build it with ptx_sync_build::PtxBuilder in build.rs, \
                 or `cargo xtask build-ptx` in the ptx-sync repository)",
                p.display()
            ),
            Error::KernelNotFound { module, name } => write!(
                f,
                "no kernel `{name}` in {module} (is it #[unsafe(no_mangle)] pub extern \"ptx-kernel\"?)"
            ),
            Error::GlobalNotFound { module, name } => write!(
                f,
                "no global `{name}` in {module} (is it a #[unsafe(no_mangle)] static of the kernel crate?)"
            ),
            Error::GlobalSize { name, expected, found } => write!(
                f,
                "global `{name}` is {found} bytes, but the host type is {expected} bytes"
            ),
            Error::BadArguments { kernel, why } => write!(f, "arguments of `{kernel}`: {why}"),
            Error::GridTooLarge { kernel, requested_blocks, limit, block_threads } => write!(
                f,
                "cooperative launch of `{kernel}` with {requested_blocks} blocks of {block_threads} threads \
                 exceeds the limit of {} blocks ({} per SM x {} SMs) that can be resident at once",
                limit.max_blocks, limit.blocks_per_sm, limit.sms
            ),
            Error::NoCooperativeLaunch { device } => write!(f, "{device} does not support cooperative launches"),
            Error::NoClusters { device, compute_capability: (major, minor) } => write!(
                f,
                "{device} is sm_{major}{minor} without cluster launches: thread-block clusters need sm_90 or newer"
            ),
            Error::BadCluster { kernel, config: c, why } => write!(
                f,
                "cluster launch of `{kernel}` with grid ({}, {}, {}), clusters of ({}, {}, {}), {} threads a block: {why}",
                c.grid_dim.0, c.grid_dim.1, c.grid_dim.2, c.cluster_dim.0, c.cluster_dim.1, c.cluster_dim.2,
                c.block_dim.0 * c.block_dim.1 * c.block_dim.2
            ),
            Error::Empty(what) => write!(f, "{what} must not be zero"),
            Error::NoSuchGpu { ordinal, count } => write!(
                f,
                "there is no GPU {ordinal}: this machine has {}",
                gpus(*count)
            ),
            Error::TooFewGpus { needed, count } => write!(
                f,
                "this needs {needed} GPUs, but this machine has {}",
                gpus(*count)
            ),
            Error::NoPeerAccess { gpu, peer, why } => write!(
                f,
                "kernels on GPU {gpu} cannot access the memory of GPU {peer}: {why}"
            ),
            Error::NotMapped { gpu, mapped } => write!(
                f,
                "the buffer is not mapped for GPU {gpu}, only for GPU {}",
                mapped.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", ")
            ),
            Error::Timeout { what, limit } => {
                write!(f, "{what} did not finish within {:.1} s (deadlocked kernel?)", limit.as_secs_f64())
            }
        }
    }
}

/// "1 GPU (ordinal 0)", "2 GPUs (ordinals 0 to 1)", "no GPU".
fn gpus(count: usize) -> String {
    match count {
        0 => "no GPU".into(),
        1 => "1 GPU (ordinal 0)".into(),
        n => format!("{n} GPUs (ordinals 0 to {})", n - 1),
    }
}

/// `CUDA_ERROR_X (the driver's description)`. cudarc's own `Display` asks `libcuda.so` for
/// the description and panics where the library is missing, so that is checked first.
fn describe(e: &DriverError) -> String {
    static LIB: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library.
    let present = *LIB.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() });
    match present.then(|| e.error_string()) {
        Some(Ok(text)) => format!("{:?} ({})", e.0, text.to_string_lossy()),
        _ => format!("{:?}", e.0),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CoopLimit;

    #[test]
    fn grid_too_large_names_the_limit() {
        let e = Error::GridTooLarge {
            kernel: "smoke_iota".into(),
            requested_blocks: 2113,
            limit: CoopLimit {
                blocks_per_sm: 16,
                sms: 132,
                max_blocks: 2112,
            },
            block_threads: 128,
        };
        let msg = e.to_string();
        for part in [
            "smoke_iota",
            "2113 blocks",
            "128 threads",
            "limit of 2112 blocks",
            "16 per SM",
            "132 SMs",
        ] {
            assert!(msg.contains(part), "`{part}` missing from: {msg}");
        }
    }

    #[test]
    fn messages_say_what_and_how_long() {
        let t = Error::Timeout {
            what: "the GPU work".into(),
            limit: Duration::from_millis(2500),
        };
        assert_eq!(
            t.to_string(),
            "the GPU work did not finish within 2.5 s (deadlocked kernel?)"
        );
        let k = Error::KernelNotFound {
            module: "k.ptx (embedded)".into(),
            name: "nope".into(),
        };
        assert_eq!(
            k.to_string(),
            "no kernel `nope` in k.ptx (embedded) (is it #[unsafe(no_mangle)] pub extern \"ptx-kernel\"?)"
        );
        let p = Error::PtxNotFound("/x/k.ptx".into()).to_string();
        assert!(p.starts_with("PTX file /x/k.ptx not found"), "{p}");
        assert!(p.contains("ptx_sync_build::PtxBuilder"), "{p}");
        assert_eq!(
            Error::Empty("buffer length").to_string(),
            "buffer length must not be zero"
        );
        assert!(Error::NoDriver("x".into())
            .to_string()
            .starts_with("no CUDA driver"));
    }

    #[test]
    fn global_errors_name_the_symbol_and_sizes() {
        let e = Error::GlobalNotFound {
            module: "kernels.ptx".into(),
            name: "COUNTER".into(),
        };
        assert_eq!(
            e.to_string(),
            "no global `COUNTER` in kernels.ptx (is it a #[unsafe(no_mangle)] static of the kernel crate?)"
        );
        let e = Error::GlobalSize {
            name: "COUNTER".into(),
            expected: 8,
            found: 4,
        };
        assert_eq!(
            e.to_string(),
            "global `COUNTER` is 4 bytes, but the host type is 8 bytes"
        );
        let e = Error::BadArguments {
            kernel: "k".into(),
            why: "2 given, it takes 3".into(),
        };
        assert_eq!(e.to_string(), "arguments of `k`: 2 given, it takes 3");
    }

    #[test]
    fn driver_errors_keep_their_source() {
        use std::error::Error as _;
        let e = Error::Driver {
            what: "launch".into(),
            source: DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_LAUNCH_FAILED),
        };
        assert!(e.source().is_some());
        assert!(e
            .to_string()
            .starts_with("launch: CUDA_ERROR_LAUNCH_FAILED"));
    }
}
