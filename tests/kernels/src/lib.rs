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
mod latch;
mod message;
mod misuse;
mod multi_gpu;
mod mutex;
mod patterns_arrive;
mod patterns_locks;
mod phases;
mod semaphore;
mod shared;
mod shared_static;
mod sys;
mod ticket;
mod timed;
mod warp_intrinsics;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: trap aborts the kernel; the host sees a launch failure.
    unsafe { core::arch::nvptx::trap() }
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

/// Independent arithmetic between a split arrive and wait (the barrier tests' "work").
#[inline(always)]
pub(crate) fn work(acc: u32) -> u32 {
    let mut a = acc;
    for _ in 0..16 {
        a = a.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    }
    a
}
