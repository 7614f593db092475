//! NVSHMEM on the host (feature `nvshmem`): set up the world of PEs, allocate symmetric memory,
//! load kernels that call NVSHMEM, and start the PEs of one node.
//!
//! NVSHMEM runs one PE per process, one GPU per PE. Its host library, `libnvshmem_host.so.3`, is
//! opened at run time (there is no link-time dependency: found through
//! `ptx_sync_build::nvshmem::find_installed`, then `$PTX_SYNC_NVSHMEM_HOME`, then the dynamic
//! loader's search; [`Error::NvshmemNotFound`](crate::Error::NvshmemNotFound) lists each place
//! tried). Kernels call NVSHMEM through the device crate's `ptx_sync::nvshmem`, linked with
//! NVSHMEM's device bitcode when the kernel crate is built (`PtxBuilder::nvshmem(true)`).
//!
//! - [`Rank`]: which PE this process is, from the launcher's variables (ours, torchrun, Open MPI,
//!   PMI, PMIx, Slurm).
//! - [`UniqueId`] and [`Rendezvous`]: PE 0's unique ID, shared through a directory or over TCP.
//! - [`World`]: `nvshmemx_hostlib_init_attr` with that ID under a bootstrap timeout,
//!   [`World::alloc`] ([`SymmetricBuffer`]), [`World::load_ptx`] (registered with
//!   `nvshmemx_cumodule_init`), [`World::barrier_all`], [`World::wait`].
//! - [`run_local`] and [`LocalLauncher`]: one process per PE on this node.
//!
//! Kernels that synchronize across PEs (barriers, waits on another PE's signal) need every
//! block resident: launch them cooperatively (`launch!(cooperative ...)`), which is what
//! `nvshmemx_collective_launch` does.
//!
//! Nothing here waits forever: the bootstrap and every collective call have a limit
//! ([`Config::bootstrap_timeout`], [`Config::timeout`], `PTX_SYNC_NVSHMEM_TIMEOUT`), and a PE that
//! exits is noticed through its pid file in the rendezvous directory. Once a call did not
//! return, a PE exited or the GPU is stuck, drops skip the collective frees and the finalize,
//! which would hang: the process should then exit.
//!
//! NVLink multicast stays off: a [`World`] sets `NVSHMEM_DISABLE_NVLS=1` unless the variable is
//! set.

mod buffer;
mod launcher;
mod library;
mod rank;
mod uid;
mod world;

pub use buffer::SymmetricBuffer;
pub use launcher::{
    check_outcomes, run_local, LocalLauncher, PeOutcome, DEFAULT_GRACE, ONE_NODE_DEFAULTS,
};
pub use library::VERSION;
pub use rank::Rank;
pub use uid::{Rendezvous, UniqueId};
pub(crate) use world::left_unusable;
pub use world::{unique_id, Config, World, DEFAULT_TIMEOUT};

/// Ends this process at once with `code`: flushes stdout and stderr, then `_exit`, which runs
/// no exit handlers. Where NVSHMEM was left unusable (a PE exited during a collective call, or
/// a call never returned), a normal exit can hang: seen on a machine with two H100 GPUs, a PE
/// whose `nvshmem_barrier_all` was abandoned after its peer exited printed its last line and
/// then never exited. [`run_local`] leaves this way in that case.
pub fn exit_now(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    extern "C" {
        fn _exit(status: std::ffi::c_int) -> !;
    }
    // SAFETY: `_exit` ends the process; nothing runs after it.
    unsafe { _exit(code) }
}

/// Opens NVSHMEM's host library (once per process) and says where it is:
/// [`Error::NvshmemNotFound`](crate::Error::NvshmemNotFound) listing every place tried, or
/// [`Error::NvshmemVersion`](crate::Error::NvshmemVersion). Needs no GPU.
pub fn library_path() -> crate::Result<&'static std::path::Path> {
    library::open().map(|lib| lib.path.as_path())
}

/// The host library of the install `ptx_sync_build::nvshmem::find_installed` finds, or why
/// none.
pub(crate) fn builder_install() -> std::result::Result<std::path::PathBuf, String> {
    ptx_sync_build::nvshmem::find_installed()
        .map(|install| install.host_library())
        // Its message lists the places it looked, a line each: indented under ours.
        .map_err(|e| e.to_string().lines().collect::<Vec<_>>().join("\n      "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use std::time::Duration;

    /// The handles can move to and be shared with other threads (NVSHMEM's calls run on the
    /// world's own thread either way).
    #[test]
    fn handles_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<World>();
        send_sync::<SymmetricBuffer<u64>>();
        send_sync::<Config>();
        send_sync::<LocalLauncher>();
    }

    /// Each new error says what happened and what to do: 4 messages.
    #[test]
    fn error_messages() {
        let cases = [
            (
                Error::NvshmemBootstrapTimeout {
                    pe: 1,
                    n_pes: 2,
                    what: "nvshmemx_hostlib_init_attr (every PE joins it)".into(),
                    limit: Duration::from_secs(60),
                },
                "PE 1 of 2: nvshmemx_hostlib_init_attr (every PE joins it) did not finish within \
                 60.0 s: did every PE start, with the same rendezvous (PTX_SYNC_NVSHMEM_RENDEZVOUS \
                 or PTX_SYNC_NVSHMEM_ADDR) and the same number of PEs? (PTX_SYNC_NVSHMEM_TIMEOUT \
                 sets the limit in seconds)",
            ),
            (
                Error::Nvshmem {
                    what: "nvshmem_malloc of 8 bytes".into(),
                    detail: "returned NULL".into(),
                },
                "nvshmem_malloc of 8 bytes: returned NULL",
            ),
            (
                Error::PeExited {
                    pe: 0,
                    pid: 4242,
                    what: "PE 1 waited in nvshmem_barrier_all".into(),
                },
                "PE 0 (process 4242) exited while PE 1 waited in nvshmem_barrier_all: NVSHMEM \
                 cannot go on without it, so collective calls (frees, finalize) are skipped from \
                 now on; see PE 0's own output for why it exited",
            ),
            (
                Error::PeFailed {
                    pe: 3,
                    status: "killed by signal 9".into(),
                },
                "PE 3 failed: killed by signal 9",
            ),
        ];
        let mut checked = 0;
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
            checked += 1;
        }
        assert_eq!(checked, 4);
    }
}
