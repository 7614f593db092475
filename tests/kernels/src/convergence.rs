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
