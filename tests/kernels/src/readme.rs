//! The README's first-kernel example, compiled here so it stays true.

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use ptx_sync::{Atomic, Gpu, Ordering::*};

/// Sums `input` into `*total` and counts finished blocks; the last block to finish reads the
/// complete total and publishes it to `*result`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sum_then_publish(
    input: *const u32,
    n: u32,
    total: *mut u32,
    finished: *mut u32,
    result: *mut u32,
) {
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    let total = Atomic::<u32, Gpu>::from_ptr(total);
    if (i as u32) < n {
        total.red_add(*input.add(i as usize), Relaxed); // red.relaxed.gpu.add.u32
    }
    ptx_sync::block::sync(); // barrier.sync 0: the block's adds are done
    if _thread_idx_x() == 0 {
        let blocks = core::arch::nvptx::_grid_dim_x() as u32;
        // atom.acq_rel.gpu.add.u32: releases this block's adds, acquires the earlier blocks'.
        let before = Atomic::<u32, Gpu>::from_ptr(finished).fetch_add(1, AcqRel);
        if before == blocks - 1 {
            *result = total.load(Relaxed); // ld.relaxed.gpu.b32: every add is visible
        }
    }
}
