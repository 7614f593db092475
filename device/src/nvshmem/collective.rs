//! Collectives across PEs: [`barrier_all`] / [`barrier`] (complete this PE's remote
//! operations, then synchronize), [`sync_all`] / [`team_sync`] (synchronize only), each in a
//! thread, `_warp` and `_block` form.
//!
//! Who calls: the thread form is called by one thread of each PE of the team, the `_warp`
//! form by every lane of one warp of each PE (converged), the `_block` form by every thread
//! of one block of each PE, each PE the same collectives in the same order. These functions
//! are safe: a PE that does not take part (or a PE whose calling warp or block is not running
//! because the launch is not cooperative: NVSHMEM asks for a collective launch of kernels that
//! synchronize across PEs) makes the others wait forever, which is a hang, not undefined
//! behavior; the host's watchdog reports it. Two threads of one PE calling the thread form
//! at once break the barrier's counting (it no longer synchronizes), so give it one caller.
//!
//! The team forms ([`barrier`], [`team_sync`] and theirs) return `int` in C, always 0 in
//! NVSHMEM 3.4.5; they are declared with it and it is dropped.

gpu_only! {
    use super::Team;

    /// Completes the calling thread's puts, remote atomics and signals (as
    /// [`quiet`](super::quiet)), then waits until every PE has called it: after it returns, what
    /// any PE wrote before its call (its own memory and, through NVSHMEM, others') is visible to
    /// the calling thread. Calls `nvshmem_barrier_all`.
    #[inline(always)]
    pub fn barrier_all() {
        extern "C" {
            fn nvshmem_barrier_all();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmem_barrier_all() }
    }

    /// [`barrier_all`] by one whole warp of each PE (every lane, converged). Calls
    /// `nvshmemx_barrier_all_warp`.
    #[inline(always)]
    pub fn barrier_all_warp() {
        extern "C" {
            fn nvshmemx_barrier_all_warp();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmemx_barrier_all_warp() }
    }

    /// [`barrier_all`] by one whole block of each PE (every thread). Calls
    /// `nvshmemx_barrier_all_block`.
    #[inline(always)]
    pub fn barrier_all_block() {
        extern "C" {
            fn nvshmemx_barrier_all_block();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmemx_barrier_all_block() }
    }

    /// Waits until every PE has called it, and completes nothing: remote operations still in
    /// flight stay so ([`quiet`](super::quiet) first, or use [`barrier_all`]). Memory this PE's
    /// thread wrote itself before the call is visible to the other PEs after theirs.
    /// Calls `nvshmem_sync_all`.
    #[inline(always)]
    pub fn sync_all() {
        extern "C" {
            fn nvshmem_sync_all();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmem_sync_all() }
    }

    /// [`sync_all`] by one whole warp of each PE (every lane, converged). Calls
    /// `nvshmemx_sync_all_warp`.
    #[inline(always)]
    pub fn sync_all_warp() {
        extern "C" {
            fn nvshmemx_sync_all_warp();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmemx_sync_all_warp() }
    }

    /// [`sync_all`] by one whole block of each PE (every thread). Calls
    /// `nvshmemx_sync_all_block`.
    #[inline(always)]
    pub fn sync_all_block() {
        extern "C" {
            fn nvshmemx_sync_all_block();
        }
        // SAFETY: a missing participant is a hang, not undefined behavior.
        unsafe { nvshmemx_sync_all_block() }
    }

    /// [`barrier_all`] among the PEs of `team`: completes the calling thread's remote operations,
    /// then waits for every PE of the team. Calls `nvshmem_barrier`.
    #[inline(always)]
    pub fn barrier(team: Team) {
        extern "C" {
            fn nvshmem_barrier(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmem_barrier(team.raw());
        }
    }

    /// [`barrier`] by one whole warp of each PE of `team`. Calls `nvshmemx_barrier_warp`.
    #[inline(always)]
    pub fn barrier_warp(team: Team) {
        extern "C" {
            fn nvshmemx_barrier_warp(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmemx_barrier_warp(team.raw());
        }
    }

    /// [`barrier`] by one whole block of each PE of `team`. Calls `nvshmemx_barrier_block`.
    #[inline(always)]
    pub fn barrier_block(team: Team) {
        extern "C" {
            fn nvshmemx_barrier_block(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmemx_barrier_block(team.raw());
        }
    }

    /// [`sync_all`] among the PEs of `team`: waits for every PE of the team, completes nothing.
    /// Calls `nvshmem_team_sync`.
    #[inline(always)]
    pub fn team_sync(team: Team) {
        extern "C" {
            fn nvshmem_team_sync(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmem_team_sync(team.raw());
        }
    }

    /// [`team_sync`] by one whole warp of each PE of `team`. Calls `nvshmemx_team_sync_warp`.
    #[inline(always)]
    pub fn team_sync_warp(team: Team) {
        extern "C" {
            fn nvshmemx_team_sync_warp(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmemx_team_sync_warp(team.raw());
        }
    }

    /// [`team_sync`] by one whole block of each PE of `team`. Calls `nvshmemx_team_sync_block`.
    #[inline(always)]
    pub fn team_sync_block(team: Team) {
        extern "C" {
            fn nvshmemx_team_sync_block(team: i32) -> core::ffi::c_int;
        }
        // SAFETY: a predefined team; a missing participant is a hang, not undefined behavior.
        // The C function returns `int` (device/nvshmem_coll_defines.cuh), always 0 in 3.4.5:
        // declared as it is, so the call matches the definition it links to, and dropped.
        unsafe {
            nvshmemx_team_sync_block(team.raw());
        }
    }
}
