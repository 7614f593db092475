//! Example 1, the README's first kernel (`sum_then_publish`): every block adds its inputs, the
//! last block to finish publishes the sum. The app runs it in `app/examples/01-sum-then-publish.rs`.
//!
//! The kernel below is, to the byte, the one README.md and device/README.md show
//! (`tests/tests/readme.rs` checks it).

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use ptx_sync::{Atomic, Gpu, Ordering::*};

/// Sums `input` into `*total`; the last block to finish publishes the complete sum.
///
/// Why it is correct: `barrier.sync` orders each block's `red.relaxed` adds before its thread 0
/// increments `finished` with `atom.acq_rel.gpu`. Those increments form one chain of RMWs, so
/// the last one (the block that reads `blocks - 1`) acquires every earlier block's release and
/// with it every add: its relaxed load of `total` sees the complete sum.
///
/// # Safety
/// `input` holds `n` values; `total`, `finished` and `result` are zeroed `u32`s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sum_then_publish(
    input: *const u32,
    n: u32,
    total: *mut u32,
    finished: *mut u32,
    result: *mut u32,
) {
    // Edition 2024: the unsafe operations of an `unsafe fn` need their own `unsafe` block.
    unsafe {
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
}
