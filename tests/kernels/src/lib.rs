//! Kernels loaded by the GPU integration tests (`tests/src/cases/*`). Built only for
//! nvptx64-nvidia-cuda by `cargo xtask`; the PTX is `ptx_sync_test_kernels.ptx`.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

mod atomic_types;
mod atomics;
mod barrier;
mod barrier_completion;
mod bulk_copy;
mod cluster;
mod convergence;
mod flag;
mod harness;
mod host_api;
mod index;
mod latch;
mod managed;
mod message;
mod misuse;
mod misuse_faults;
mod misuse_storms;
mod misuse_stuck;
mod multi_gpu;
mod mutex;
mod patterns_arrive;
mod patterns_locks;
mod phases;
mod print;
mod queue;
mod rwlock;
mod semaphore;
mod shared;
mod shared_static;
mod sys;
mod ticket;
mod timed;
mod warp_collectives;
mod warp_intrinsics;

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // Prints "panicked at file:line:col: message" on the GPU, then traps: the host sees the
    // launch fail and the message on its stdout.
    ptx_sync::report_panic(info)
}

/// Global thread index in a 1-D launch.
#[inline(always)]
pub(crate) fn global_id() -> u32 {
    use core::arch::nvptx::*;
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as u32 }
}

/// An order chosen at run time from `code`: every `.sem` arm of the wrappers survives into the
/// PTX and is exercised by the same kernel.
#[inline(always)]
pub(crate) fn rmw_order(code: u32) -> ptx_sync::Ordering {
    use ptx_sync::Ordering;
    match code % 5 {
        0 => Ordering::Relaxed,
        1 => Ordering::Acquire,
        2 => Ordering::Release,
        3 => Ordering::AcqRel,
        _ => Ordering::SeqCst,
    }
}

/// What thread (or payload word) `i` writes in round `r` of the latch and message tests:
/// different in every round, no pattern in `i`.
#[inline(always)]
pub(crate) fn round_tag(r: u32, i: u32) -> u32 {
    r.wrapping_mul(0x9e37_79b9) ^ i
}

/// The lock tests' holder probe, over `stats` (u32 words): `[0]` holders now, `[32]` most
/// holders ever seen, `[64]` critical sections run.
pub(crate) struct Probe<'a> {
    pub(crate) holders: &'a ptx_sync::Atomic<u32, ptx_sync::Gpu>,
    most: &'a ptx_sync::Atomic<u32, ptx_sync::Gpu>,
    passes: &'a ptx_sync::Atomic<u32, ptx_sync::Gpu>,
}

impl Probe<'_> {
    /// The probe over `stats` (`[0..65]`, device memory).
    #[inline(always)]
    pub(crate) unsafe fn new(stats: *mut u32) -> Self {
        use ptx_sync::{Atomic, Gpu};
        Probe {
            holders: Atomic::<u32, Gpu>::from_ptr(stats),
            most: Atomic::<u32, Gpu>::from_ptr(stats.add(32)),
            passes: Atomic::<u32, Gpu>::from_ptr(stats.add(64)),
        }
    }

    /// A holder enters: one more holder now, and the most seen.
    #[inline(always)]
    pub(crate) fn enter(&self) {
        use ptx_sync::Ordering::Relaxed;
        self.most
            .fetch_max(self.holders.fetch_add(1, Relaxed) + 1, Relaxed);
    }

    /// A holder leaves: one more section run, one holder fewer.
    #[inline(always)]
    pub(crate) fn leave(&self) {
        use ptx_sync::Ordering::Relaxed;
        self.passes.fetch_add(1, Relaxed);
        self.holders.fetch_sub(1, Relaxed);
    }
}

/// Independent arithmetic between a split arrive and wait (the barrier tests' "work").
#[inline(always)]
pub(crate) fn work(acc: u32) -> u32 {
    let mut a = acc;
    for _ in 0..16 {
        a = a.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    }
    a
}
