//! The shape that rustc 1.95 miscompiled into a hang with `_syncthreads()`
//! (../shared/facts/toolchain.md, rust-lang/rust#137086): thread 0 works, block barrier,
//! thread 0 spins on a flag, block barrier, in a loop. With `ptx_sync::block::sync()` (non-
//! `.aligned` `barrier.sync`) and -JumpThreading disabled it must run to completion.

use core::arch::nvptx::{_grid_dim_x, _thread_idx_x};
use ptx_sync::{block, Atomic, Gpu, Ordering::*};

/// A tiny grid barrier built from that shape: per round, thread 0 of each block arrives on
/// `arrived` and spins until all blocks have; `done` counts blocks that finished all rounds.
/// Needs every block resident at once (a cooperative launch).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn convergence_regression(
    arrived: *mut u32,
    rounds: u32,
    done: *mut u32,
) {
    let t = _thread_idx_x();
    let blocks = _grid_dim_x() as u32;
    let arrived = Atomic::<u32, Gpu>::from_ptr(arrived);
    for round in 0..rounds {
        if t == 0 {
            arrived.fetch_add(1, Release);
        }
        block::sync();
        if t == 0 {
            while arrived.load(Acquire) < (round + 1) * blocks {}
        }
        block::sync();
    }
    if t == 0 {
        Atomic::<u32, Gpu>::from_ptr(done).fetch_add(1, Relaxed);
    }
}

/// The same shape with `core::arch::nvptx::_syncthreads()` (`barrier.sync.aligned`), never run:
/// its PTX is the check (tests/tests/golden_ptx.rs). rustc 1.95 without
/// `-Zmir-enable-passes=-JumpThreading` copies each barrier into both arms of `if t == 0`,
/// and with `.aligned` thread 0 and its warp then wait at different instructions (a hang on the
/// H100). ptx-sync-build passes that flag to rustc older than 1.99; from 1.99 rustc no longer
/// jump-threads GPU code (it unrolls the loop instead: more barriers, each where both arms meet).
/// Either way no barrier may sit in one arm of the `if`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn convergence_syncthreads_shape(arrived: *mut u32, rounds: u32) {
    let t = _thread_idx_x();
    let blocks = _grid_dim_x() as u32;
    let arrived = Atomic::<u32, Gpu>::from_ptr(arrived);
    for round in 0..rounds {
        if t == 0 {
            arrived.fetch_add(1, Release);
        }
        core::arch::nvptx::_syncthreads();
        if t == 0 {
            while arrived.load(Acquire) < (round + 1) * blocks {}
        }
        core::arch::nvptx::_syncthreads();
    }
}
