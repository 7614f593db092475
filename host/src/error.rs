use cudarc::driver::DriverError;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// What went wrong, in words that say what to do about it.
#[derive(Debug)]
#[non_exhaustive]
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
    /// The PTX file exists but cannot be read as text: a directory, no permission, or bytes
    /// that are not UTF-8 (PTX is ASCII). Checked before the driver sees it.
    PtxUnreadable {
        /// The path given.
        path: PathBuf,
        /// Why reading it failed.
        source: std::io::Error,
    },
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
    /// the module's PTX declares them ([`Kernel::param_sizes`](crate::Kernel::param_sizes)).
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
    /// A cluster launch whose shape is wrong before any GPU is asked
    /// ([`ClusterConfig::check_shape`](crate::ClusterConfig::check_shape)): a zero dimension, or
    /// a grid that is not a whole number of clusters; `why` says which.
    ClusterShape {
        /// The launch asked for.
        config: crate::ClusterConfig,
        /// What is wrong with it, and what to change.
        why: String,
    },
    /// A request for zero elements or zero threads.
    Empty(&'static str),
    /// A buffer of `len` elements of `elem_bytes` bytes each would span more than `isize::MAX`
    /// bytes (or more than `usize` can count): more than any allocation can address. Refused
    /// before the driver is asked.
    TooLarge {
        /// What was being allocated, e.g. "device buffer".
        what: &'static str,
        /// Elements asked for.
        len: usize,
        /// `size_of` one element, in bytes.
        elem_bytes: usize,
    },
    /// A [`ManagedBuffer`](crate::ManagedBuffer) of more than
    /// [`ManagedBuffer::MAX_BYTES`](crate::ManagedBuffer::MAX_BYTES) (64 MiB): managed memory
    /// is for the words host threads and kernels synchronize on. Refused before the driver is
    /// asked.
    ManagedTooLarge {
        /// Elements asked for.
        len: usize,
        /// `size_of` one element, in bytes.
        elem_bytes: usize,
        /// The most bytes a buffer may hold.
        limit: usize,
    },
    /// There is no GPU of that ordinal ([`Device::open`](crate::Device::open),
    /// [`Device::open_list`](crate::Device::open_list)); checked against the driver's count
    /// before the ordinal reaches it.
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
    /// Host threads and this GPU's kernels may not access managed memory at the same time
    /// (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0), so a
    /// [`ManagedBuffer`](crate::ManagedBuffer) cannot hold words they share.
    NoConcurrentManagedAccess {
        /// The GPU (ordinal).
        gpu: usize,
    },
    /// The GPU did not finish within the limit (a deadlocked or runaway kernel). The kernel is
    /// still running and the driver cannot stop it, so the GPU is now stuck: every later call on
    /// it returns [`Error::Stuck`] at once, until that work ends (if it ever does: a kernel waiting
    /// on a word the host can still write). Drops never block on it: what cannot be freed without
    /// waiting (modules, pinned and peer memory) stays allocated while the GPU is stuck, and the
    /// process exits at once.
    Timeout {
        /// What was waited for.
        what: String,
        /// The limit that passed.
        limit: Duration,
        /// The GPU (ordinal) that is now stuck.
        gpu: usize,
    },
    /// Work on this GPU did not finish within a limit earlier ([`Error::Timeout`]) and is still
    /// running. The driver cannot end a running kernel, and resetting or destroying its context
    /// waits for it, so nothing more can run on this GPU in this process. Exit the process (it
    /// exits at once, and the driver ends the kernel), or run GPU work that may deadlock in a
    /// child process. If the stuck work ends after all, the GPU is usable again.
    Stuck {
        /// The GPU (ordinal).
        gpu: usize,
        /// What did not finish.
        what: String,
        /// The limit it did not finish within.
        limit: Duration,
        /// How long ago that limit ran out.
        stuck_for: Duration,
    },
    /// NVSHMEM's host library (`libnvshmem_host.so.3`) could not be opened, or lacks an entry
    /// point this crate calls (feature `nvshmem`).
    NvshmemNotFound {
        /// Every place looked at, and why each did not do.
        tried: Vec<String>,
        /// What to install or set.
        hint: String,
    },
    /// The NVSHMEM found is not the version the bindings were written for: a different major or
    /// minor version is refused (the device state's layout changes between them); the patch may
    /// differ.
    NvshmemVersion {
        /// The version the library reports (`nvshmemx_vendor_get_version_info`).
        found: (u32, u32, u32),
        /// The version the bindings were written for.
        expected: (u32, u32, u32),
        /// The library that reported it.
        library: PathBuf,
    },
    /// Setting up NVSHMEM failed: the environment that names this process's rank, the
    /// exchange of the unique ID among the PEs, or `nvshmemx_hostlib_init_attr`.
    NvshmemBootstrap {
        /// The step that failed, e.g. "reading the rank from the environment".
        what: String,
        /// What went wrong and what to do.
        detail: String,
    },
    /// The PEs did not all arrive within the bootstrap timeout: a PE that never started, started
    /// with another rendezvous, or crashed before joining.
    NvshmemBootstrapTimeout {
        /// This process's PE.
        pe: u32,
        /// PEs expected.
        n_pes: u32,
        /// What was being waited for.
        what: String,
        /// The limit that passed.
        limit: Duration,
    },
    /// An NVSHMEM call after initialization failed (`nvshmem_malloc` returning NULL, say), or
    /// one that is collective did not return within its limit, which leaves NVSHMEM unusable in
    /// this process.
    Nvshmem {
        /// The call and what it was for.
        what: String,
        /// What went wrong and what to do.
        detail: String,
    },
    /// Another PE's process exited while this one waited for it (a collective call or a kernel
    /// that synchronizes across PEs); NVSHMEM cannot go on without it.
    PeExited {
        /// The PE that exited.
        pe: u32,
        /// Its process id, as it wrote it to the rendezvous directory.
        pid: u32,
        /// What this process was waiting for.
        what: String,
    },
    /// A PE started by the local launcher did not succeed: it exited non-zero, was killed by a
    /// signal, or was ended by the launcher after another PE failed.
    PeFailed {
        /// The PE.
        pe: u32,
        /// How it ended, e.g. "exit status 3", "killed by signal 9 (by the launcher: PE 1
        /// failed first)".
        status: String,
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
            Error::PtxUnreadable { path, source } => {
                let hint = match source.kind() {
                    std::io::ErrorKind::InvalidData => "PTX is ASCII text: is this the .ptx file?",
                    std::io::ErrorKind::IsADirectory => "give the path of the .ptx file in it",
                    std::io::ErrorKind::PermissionDenied => "let this process read it",
                    _ => "give the path of a readable .ptx file",
                };
                write!(f, "cannot read PTX file {}: {source} ({hint})", path.display())
            }
            Error::KernelNotFound { module, name } => match bad_name(name) {
                Some(_) if name.is_empty() => {
                    write!(f, "the kernel name is empty: give the name of a kernel in {module}")
                }
                Some(why) => write!(f, "no kernel `{}` in {module} ({why})", name.escape_debug()),
                None => write!(
                    f,
                    "no kernel `{name}` in {module} (is it #[unsafe(no_mangle)] pub extern \"ptx-kernel\"?)"
                ),
            },
            Error::GlobalNotFound { module, name } => match bad_name(name) {
                Some(_) if name.is_empty() => {
                    write!(f, "the global name is empty: give the name of a global in {module}")
                }
                Some(why) => write!(f, "no global `{}` in {module} ({why})", name.escape_debug()),
                None => write!(
                    f,
                    "no global `{name}` in {module} (is it a #[unsafe(no_mangle)] static of the kernel crate?)"
                ),
            },
            Error::GlobalSize { name, expected, found } => write!(
                f,
                "global `{name}` is {}, but the host type is {}",
                counted(*found as u128, "byte"),
                counted(*expected as u128, "byte")
            ),
            Error::BadArguments { kernel, why } => write!(f, "arguments of `{kernel}`: {why}"),
            Error::GridTooLarge { kernel, requested_blocks, limit, block_threads } => write!(
                f,
                "cooperative launch of `{kernel}` with {} of {} exceeds the limit of {} \
                 ({} per SM x {}) that can be resident at once",
                counted(*requested_blocks as u128, "block"),
                counted(*block_threads as u128, "thread"),
                counted(limit.max_blocks as u128, "block"),
                limit.blocks_per_sm,
                counted(limit.sms as u128, "SM")
            ),
            Error::NoCooperativeLaunch { device } => write!(f, "{device} does not support cooperative launches"),
            Error::NoClusters { device, compute_capability: (major, minor) } => write!(
                f,
                "{device} is sm_{major}{minor} without cluster launches: thread-block clusters need sm_90 or newer"
            ),
            Error::BadCluster { kernel, config: c, why } => write!(
                f,
                "cluster launch of `{kernel}` with grid ({}, {}, {}), clusters of ({}, {}, {}), {} a block: {why}",
                c.grid_dim.0, c.grid_dim.1, c.grid_dim.2, c.cluster_dim.0, c.cluster_dim.1, c.cluster_dim.2,
                // In u128: the product of three u32s cannot overflow it.
                counted(c.block_dim.0 as u128 * c.block_dim.1 as u128 * c.block_dim.2 as u128, "thread")
            ),
            Error::ClusterShape { config: c, why } => write!(
                f,
                "cluster launch with grid ({}, {}, {}), clusters of ({}, {}, {}): {why}",
                c.grid_dim.0, c.grid_dim.1, c.grid_dim.2, c.cluster_dim.0, c.cluster_dim.1, c.cluster_dim.2
            ),
            Error::Empty(what) => write!(f, "{what} must not be zero"),
            Error::TooLarge { what, len, elem_bytes } => {
                let (n, each) = (counted(*len as u128, "element"), counted(*elem_bytes as u128, "byte"));
                let size = match len.checked_mul(*elem_bytes) {
                    Some(bytes) => format!("{bytes} bytes"),
                    None => "more bytes than a usize can count".into(),
                };
                write!(
                    f,
                    "{what} of {n} of {each} needs {size}, more than the {} (isize::MAX) one \
                     allocation can span: ask for fewer elements (is the length a subtraction that \
                     wrapped below zero, or a byte count given as an element count?)",
                    isize::MAX
                )
            }
            Error::ManagedTooLarge { len, elem_bytes, limit } => write!(
                f,
                "managed buffer of {} of {} needs {}, more than the {limit} ({} MiB) a \
                 ManagedBuffer may hold: managed memory is for the words host threads and \
                 kernels synchronize on (asking for more than the GPU has free can stall a GPU \
                 other processes share); keep bulk data in device memory (Device::zeros)",
                counted(*len as u128, "element"),
                counted(*elem_bytes as u128, "byte"),
                counted(*len as u128 * *elem_bytes as u128, "byte"),
                limit >> 20
            ),
            Error::NoSuchGpu { ordinal, count } => write!(
                f,
                "there is no GPU {ordinal}: this machine has {}",
                gpus(*count)
            ),
            Error::TooFewGpus { needed, count } => write!(
                f,
                "this needs {}, but this machine has {}",
                counted(*needed as u128, "GPU"),
                gpus(*count)
            ),
            Error::NoPeerAccess { gpu, peer, why } => write!(
                f,
                "kernels on GPU {gpu} cannot access the memory of GPU {peer}: {why}"
            ),
            Error::NotMapped { gpu, mapped } => write!(
                f,
                "the buffer is not mapped for GPU {gpu}, only for {} {}",
                if mapped.len() == 1 { "GPU" } else { "GPUs" },
                mapped.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(", ")
            ),
            Error::NoConcurrentManagedAccess { gpu } => write!(
                f,
                "GPU {gpu} has no concurrent managed access \
                 (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS is 0): host threads may not \
                 touch managed memory while a kernel runs, so they cannot share words in it with \
                 kernels. Use a MappedBuffer (pinned host memory) instead: loads and stores from \
                 both sides work there, and read-modify-writes from both sides on one word need \
                 Device::host_native_atomics (ptx_sync_host::sys)"
            ),
            Error::Timeout { what, limit, gpu } => write!(
                f,
                "{what} did not finish within {} (deadlocked kernel?); GPU {gpu} is now stuck: \
                 later calls on it return Error::Stuck until that work ends, and exiting the \
                 process ends it",
                seconds(*limit)
            ),
            Error::Stuck { gpu, what, limit, stuck_for } => write!(
                f,
                "GPU {gpu} is stuck: {what} did not finish within {} and is still running {} \
                 later. The driver cannot stop a running kernel, so nothing more can run on this \
                 GPU in this process: exit the process (the driver then ends the kernel), or run \
                 work that may deadlock in a child process",
                seconds(*limit),
                seconds(*stuck_for)
            ),
            Error::NvshmemNotFound { tried, hint } => {
                write!(f, "NVSHMEM's host library libnvshmem_host.so.3 was not found or is not usable")?;
                for t in tried {
                    write!(f, "\n  tried {t}")?;
                }
                write!(f, "\n{hint}")
            }
            Error::NvshmemVersion { found, expected, library } => write!(
                f,
                "{} is NVSHMEM {}.{}.{}, but these bindings were written for {}.{}.{} (the major \
                 and minor version must match): install nvidia-nvshmem-cu13=={}.{}.{} or point \
                 NVSHMEM_HOME at a {}.{}.x install",
                library.display(),
                found.0, found.1, found.2,
                expected.0, expected.1, expected.2,
                expected.0, expected.1, expected.2,
                expected.0, expected.1
            ),
            Error::NvshmemBootstrap { what, detail } => write!(f, "NVSHMEM bootstrap, {what}: {detail}"),
            Error::NvshmemBootstrapTimeout { pe, n_pes, what, limit } => write!(
                f,
                "PE {pe} of {n_pes}: {what} did not finish within {}: did every PE start, with \
                 the same rendezvous (PTX_SYNC_NVSHMEM_RENDEZVOUS or PTX_SYNC_NVSHMEM_ADDR) and \
                 the same number of PEs? (PTX_SYNC_NVSHMEM_TIMEOUT sets the limit in seconds)",
                seconds(*limit)
            ),
            Error::Nvshmem { what, detail } => write!(f, "{what}: {detail}"),
            Error::PeExited { pe, pid, what } => write!(
                f,
                "PE {pe} (process {pid}) exited while {what}: NVSHMEM cannot go on without it, \
                 so collective calls (frees, finalize) are skipped from now on; see PE {pe}'s own \
                 output for why it exited"
            ),
            Error::PeFailed { pe, status } => write!(f, "PE {pe} failed: {status}"),
        }
    }
}

/// "2.5 s"; "no limit" for `Duration::MAX`.
fn seconds(d: Duration) -> String {
    if d == Duration::MAX {
        "no limit".into()
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// The size in bytes of `len` elements of `T`, or [`Error::TooLarge`] where it overflows `usize`
/// or exceeds `isize::MAX`, the most one allocation can span (Rust's slices and the driver's
/// allocators alike). Every allocator here calls it before asking the driver: cudarc multiplies
/// the length by the element size without checking, so a wrapped product would allocate a few
/// bytes behind a buffer whose `len()` is huge.
pub(crate) fn byte_len<T>(len: usize, what: &'static str) -> Result<usize> {
    bytes_of(len, std::mem::size_of::<T>(), what)
}

/// [`byte_len`] for an element size known at run time.
pub(crate) fn bytes_of(len: usize, elem_bytes: usize, what: &'static str) -> Result<usize> {
    match len.checked_mul(elem_bytes) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(bytes),
        _ => Err(Error::TooLarge {
            what,
            len,
            elem_bytes,
        }),
    }
}

/// "1 byte", "0 bytes", "2 bytes": `n` and `unit`, plural unless `n` is 1 (every unit these
/// messages count takes an "s"). `u128` holds any count here, products of `u32`s included.
pub(crate) fn counted(n: u128, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// Why no kernel or global can have `name`, where that is the reason it was not found: the
/// driver takes names as C strings, and PTX has no empty identifier.
pub(crate) fn bad_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("the name is empty")
    } else if name.contains('\0') {
        Some("a name cannot contain a NUL byte")
    } else {
        None
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

/// `CUDA_ERROR_X (the driver's description)`. cudarc asks `libcuda.so` for the description
/// and panics where the library is missing or lacks `cuGetErrorString`, so that is checked
/// first.
pub(crate) fn describe(e: &DriverError) -> String {
    match crate::loader::check_library()
        .is_ok()
        .then(|| e.error_string())
    {
        Some(Ok(text)) => format!("{:?} ({})", e.0, text.to_string_lossy()),
        _ => format!("{:?}", e.0),
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver { source, .. } => Some(source),
            Error::PtxUnreadable { source, .. } => Some(source),
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
            gpu: 1,
        };
        assert_eq!(
            t.to_string(),
            "the GPU work did not finish within 2.5 s (deadlocked kernel?); GPU 1 is now stuck: \
             later calls on it return Error::Stuck until that work ends, and exiting the process \
             ends it"
        );
        let s = Error::Stuck {
            gpu: 0,
            what: "the GPU work".into(),
            limit: Duration::from_secs(2),
            stuck_for: Duration::from_millis(300),
        };
        assert_eq!(
            s.to_string(),
            "GPU 0 is stuck: the GPU work did not finish within 2.0 s and is still running 0.3 s \
             later. The driver cannot stop a running kernel, so nothing more can run on this GPU \
             in this process: exit the process (the driver then ends the kernel), or run work \
             that may deadlock in a child process"
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

    use crate::test_rng::Rng;

    /// The checked size never panics and refuses exactly the products past `isize::MAX`
    /// (overflowing ones included), for the edge values and 20,000 random pairs: lengths and
    /// element sizes each drawn from the whole range, from around the limit, or small.
    #[test]
    fn byte_len_refuses_exactly_past_isize_max() {
        const LIMIT: u128 = isize::MAX as u128;
        let mut checks = 0;
        let mut check = |len: usize, elem: usize| {
            let exact = len as u128 * elem as u128; // cannot overflow u128
            match bytes_of(len, elem, "buffer") {
                Ok(bytes) => assert!(exact <= LIMIT && bytes as u128 == exact, "{len} x {elem}"),
                Err(Error::TooLarge {
                    what: "buffer",
                    len: l,
                    elem_bytes: e,
                }) => {
                    assert!(exact > LIMIT && (l, e) == (len, elem), "{len} x {elem}")
                }
                Err(other) => panic!("{len} x {elem}: {other}"),
            }
            checks += 1;
        };
        let elems = [
            0,
            1,
            2,
            3,
            4,
            8,
            12,
            16,
            24,
            4096,
            1 << 32,
            isize::MAX as usize,
            usize::MAX,
        ];
        let mut edges = vec![
            0,
            1,
            2,
            255,
            isize::MAX as usize,
            isize::MAX as usize + 1,
            usize::MAX,
        ];
        for &e in &elems[1..] {
            let (max_ok, wraps) = (isize::MAX as usize / e, usize::MAX / e);
            edges.extend([
                max_ok,
                max_ok + 1,
                wraps,
                wraps.saturating_add(1),
                wraps.saturating_add(2),
            ]);
        }
        for &len in &edges {
            for &elem in &elems {
                check(len, elem);
            }
        }
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let draw = |rng: &mut Rng| match rng.next() % 3 {
            0 => rng.next() as usize,
            1 => (isize::MAX as usize / (1 + (rng.next() % 64) as usize))
                .wrapping_add((rng.next() % 5) as usize)
                .wrapping_sub(2),
            _ => (rng.next() % 4097) as usize,
        };
        for _ in 0..20_000 {
            let (len, elem) = (draw(&mut rng), draw(&mut rng));
            check(len, elem);
        }
        // The typed helper is the same check at size_of::<T>().
        assert!(byte_len::<u64>(isize::MAX as usize / 8, "b").is_ok());
        assert!(matches!(
            byte_len::<u64>(usize::MAX / 8 + 2, "device buffer"),
            Err(Error::TooLarge { what: "device buffer", len, elem_bytes: 8 }) if len == usize::MAX / 8 + 2
        ));
        assert!(byte_len::<[u8; 0]>(usize::MAX, "b").is_ok()); // zero-sized: 0 bytes
        checks += 3;
        assert_eq!(checks, edges.len() * elems.len() + 20_000 + 3);
    }

    /// Names no kernel or global can have: empty, or holding a NUL byte (also random ones);
    /// every other name, however odd, goes to the driver to answer.
    #[test]
    fn names_refused_before_the_driver() {
        let mut checks = 0;
        for name in ["", "\0", "k\0x", "\0k", "k\0"] {
            assert!(bad_name(name).is_some(), "{name:?}");
            checks += 1;
        }
        let huge = "k".repeat(1 << 20);
        for name in [
            "k",
            "misuse_fill",
            "ядро",
            "🦀",
            "a b",
            "$x%",
            huge.as_str(),
        ] {
            assert_eq!(bad_name(name), None, "{name:?}");
            checks += 1;
        }
        let alphabet: Vec<char> = "ab_$%.\0é🦀".chars().collect();
        let mut rng = Rng(0xfeed_f00d_dead_beef);
        for _ in 0..5000 {
            let len = (rng.next() % 24) as usize;
            let name: String = (0..len)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                .collect();
            let bad = name.is_empty() || name.contains('\0');
            assert_eq!(bad_name(&name).is_some(), bad, "{name:?}");
            checks += 1;
        }
        let k = |name: &str| {
            Error::KernelNotFound {
                module: "m.ptx".into(),
                name: name.into(),
            }
            .to_string()
        };
        let g = |name: &str| {
            Error::GlobalNotFound {
                module: "m.ptx".into(),
                name: name.into(),
            }
            .to_string()
        };
        assert_eq!(
            k(""),
            "the kernel name is empty: give the name of a kernel in m.ptx"
        );
        assert_eq!(
            k("k\0x"),
            "no kernel `k\\0x` in m.ptx (a name cannot contain a NUL byte)"
        );
        assert_eq!(
            g(""),
            "the global name is empty: give the name of a global in m.ptx"
        );
        assert_eq!(
            g("\0"),
            "no global `\\0` in m.ptx (a name cannot contain a NUL byte)"
        );
        assert_eq!(
            g("ядро"),
            "no global `ядро` in m.ptx (is it a #[unsafe(no_mangle)] static of the kernel crate?)"
        );
        checks += 5;
        assert_eq!(checks, 5 + 7 + 5000 + 5);
    }

    /// Counts read right at 0, 1 and many.
    #[test]
    fn messages_count_in_words() {
        let mut checks = 0;
        let mut check = |e: Error, want: &str| {
            assert_eq!(e.to_string(), want);
            checks += 1;
        };
        check(
            Error::TooFewGpus {
                needed: 1,
                count: 0,
            },
            "this needs 1 GPU, but this machine has no GPU",
        );
        check(
            Error::TooFewGpus {
                needed: 3,
                count: 2,
            },
            "this needs 3 GPUs, but this machine has 2 GPUs (ordinals 0 to 1)",
        );
        check(
            Error::GlobalSize {
                name: "B".into(),
                expected: 1,
                found: 4,
            },
            "global `B` is 4 bytes, but the host type is 1 byte",
        );
        check(
            Error::GridTooLarge {
                kernel: "k".into(),
                requested_blocks: 1,
                limit: CoopLimit {
                    blocks_per_sm: 0,
                    sms: 1,
                    max_blocks: 0,
                },
                block_threads: 1,
            },
            "cooperative launch of `k` with 1 block of 1 thread exceeds the limit of 0 blocks \
             (0 per SM x 1 SM) that can be resident at once",
        );
        check(
            Error::NotMapped {
                gpu: 3,
                mapped: vec![1],
            },
            "the buffer is not mapped for GPU 3, only for GPU 1",
        );
        check(
            Error::TooLarge {
                what: "device buffer",
                len: 1,
                elem_bytes: usize::MAX,
            },
            &format!(
                "device buffer of 1 element of {} bytes needs {} bytes, more than the {} \
                 (isize::MAX) one allocation can span: ask for fewer elements (is the length a \
                 subtraction that wrapped below zero, or a byte count given as an element count?)",
                usize::MAX,
                usize::MAX,
                isize::MAX
            ),
        );
        check(
            Error::BadCluster {
                kernel: "k".into(),
                config: crate::ClusterConfig::linear(1, 1, 1, 0),
                why: "w".into(),
            },
            "cluster launch of `k` with grid (1, 1, 1), clusters of (1, 1, 1), 1 thread a block: w",
        );
        // A block whose thread count overflows u32 is still counted exactly (it used to
        // overflow in the message itself).
        let mut big = crate::ClusterConfig::linear(1, 1, u32::MAX, 0);
        big.block_dim = (u32::MAX, u32::MAX, 2);
        let msg = Error::BadCluster {
            kernel: "k".into(),
            config: big,
            why: "w".into(),
        }
        .to_string();
        assert!(
            msg.contains(&format!(
                "{} threads a block",
                u32::MAX as u128 * u32::MAX as u128 * 2
            )),
            "{msg}"
        );
        checks += 1;
        assert_eq!(checks, 8);
    }
}
