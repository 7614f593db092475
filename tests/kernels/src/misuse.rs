//! Kernels of the misuse tests (tests/src/cases/misuse.rs): a deadlock the watchdog must
//! catch, and the debug-build traps of over-released semaphores and over-counted latches
//! (Cargo.toml builds ptx-sync with `debug-assertions = true`).

use ptx_sync::{Barrier, Gpu, Latch, Semaphore, Sys};

/// Waits (`wait()`, no time limit) on the `Latch<Sys>` at `latch`, then sets `*passed = 1`.
/// A latch that nobody counts down deadlocks it; the host may open it (mapped memory).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_latch_never_opened(latch: *mut u32, passed: *mut u32) {
    Latch::<Sys>::from_ptr(latch).wait();
    *passed = 1;
}

/// `Semaphore<Gpu, 1>` at `count` (0): `release(1)`, then `release(extra)`; `*done = 1` after.
/// `extra = 1` exceeds MAX (a debug build traps), `extra = 0` is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_semaphore_over_release(
    count: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    let sem = Semaphore::<Gpu, 1>::from_ptr(count);
    sem.release(1);
    sem.release(extra);
    *done = 1;
}

/// `Latch<Gpu>` at `latch` (1): `count_down()`, then `count_down_n(extra)`; `*done = 1` after.
/// `extra = 1` counts below zero (a debug build traps), `extra = 0` is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_latch_count_below_zero(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    let latch = Latch::<Gpu>::from_ptr(latch);
    latch.count_down();
    latch.count_down_n(extra);
    *done = 1;
}

/// `extra = 1`: a `Barrier<Gpu>` as a kernel local (in `.local` memory, where the PTX ISA
/// leaves atomics undefined) arrives and waits: a debug build traps before touching it.
/// Both cases then count down the `Latch<Gpu>` at `latch` (1) and set `*done = 1`; `extra = 0`
/// is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_barrier_in_local_memory(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    if extra != 0 {
        let local = Barrier::<Gpu>::new(1);
        local.arrive_and_wait();
    }
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// `Semaphore<Gpu, 1>` at `count` (0): `init(1 + extra)`; `*done = 1` after. `extra = 1`
/// initializes it above MAX, which every build traps on (an always-on check), `extra = 0` is
/// the control (`*count` 1).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_semaphore_init_above_max(
    count: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    Semaphore::<Gpu, 1>::from_ptr(count).init(1 + extra);
    *done = 1;
}

/// A shared `BlockBarrier` initialized for `1 - extra` threads by thread 0: `extra = 1` is
/// `init(0)` (a debug build traps), `extra = 0` the control. Both then count down the
/// `Latch<Gpu>` at `latch` (1) and set `*done = 1`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_block_barrier_init_zero(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    ptx_sync::shared! {
        static BAR: ptx_sync::BlockBarrier;
    }
    BAR.get().init(1 - extra.min(1));
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// `extra = 1`: a `BlockBarrier` viewed over global memory (`latch`, 8-byte aligned: a device
/// allocation), where `mbarrier` would name another shared location (a debug build traps before
/// touching it). Both cases then count down the `Latch<Gpu>` at `latch` (1) and set `*done = 1`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_block_barrier_in_global_memory(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    if extra != 0 {
        ptx_sync::BlockBarrier::from_ptr(latch.cast::<u64>()).init(1);
    }
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}
