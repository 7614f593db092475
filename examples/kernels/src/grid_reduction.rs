//! Example 4: a cooperative grid reduction: per-block partial sums, a `GridBarrier`, then every
//! block sums the partials. The app runs it in `app/examples/04-grid-reduction.rs`.

use ptx_sync::GridBarrier;
use ptx_sync::block::{dim_x, grid_x, index_x, thread_x};

/// Sums `input[0..n]` as `u64` in two phases. Phase 1: each block sums a grid-stride share
/// into `partials[block]` (a tree in dynamic shared memory: `block_dim * 8` bytes, block size
/// a power of two). Grid barrier. Phase 2: every block sums all the partials and writes its
/// total to `totals[block]`, so the app checks that every block saw every partial.
///
/// Why it is correct: `GridBarrier::sync` is `barrier.sync`, then thread 0's
/// `atom.add.release.gpu` on the barrier word, its `ld.acquire.gpu` polling until the last
/// block's arrival flips the phase bit, and `barrier.sync` again. Each block's `partials`
/// write is ordered before its release; the poller acquires every block's release (they form
/// one chain of RMWs), and the second `barrier.sync` passes that on to its block. The launch
/// is cooperative, so every block is resident and the barrier cannot deadlock.
///
/// # Safety
/// `input` holds `n` values, `partials` and `totals` one `u64` per block, `barrier` a zeroed
/// `u32`; the launch is cooperative, 1-D, with a power-of-two block size and `block_dim * 8`
/// bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn grid_sum(
    input: *const u32,
    n: u32,
    partials: *mut u64,
    totals: *mut u64,
    barrier: *mut u32,
) {
    let (t, block, blocks) = (thread_x(), index_x(), grid_x());
    let scratch = ptx_sync::block::dynamic_shared_memory().cast::<u64>();
    // SAFETY: the buffers and the launch are as the Safety section says.
    unsafe {
        let grid = GridBarrier::<ptx_sync::Spin>::from_ptr(barrier);
        let mut acc = 0u64;
        let mut i = block * dim_x() + t;
        while i < n {
            acc += u64::from(*input.add(i as usize));
            i += blocks * dim_x();
        }
        let partial = block_sum(scratch, acc);
        if t == 0 {
            partials.add(block as usize).write(partial);
        }

        grid.sync(); // every block's partial is written and visible

        let mut acc = 0u64;
        let mut b = t;
        while b < blocks {
            acc += partials.add(b as usize).read();
            b += dim_x();
        }
        let total = block_sum(scratch, acc);
        if t == 0 {
            totals.add(block as usize).write(total);
        }
    }
}

/// The sum of `value` over the block (its size a power of two), returned to every thread:
/// a tree in `scratch` (one `u64` per thread of shared memory), `barrier.sync` between levels.
///
/// # Safety
/// `scratch` holds `dim_x()` `u64`s; every thread of the block calls this.
#[inline(always)]
unsafe fn block_sum(scratch: *mut u64, value: u64) -> u64 {
    let t = thread_x() as usize;
    // SAFETY: the caller's contract; each thread writes only its own element between barriers.
    unsafe {
        scratch.add(t).write(value);
        let mut half = dim_x() as usize / 2;
        while half > 0 {
            ptx_sync::block::sync();
            if t < half {
                scratch
                    .add(t)
                    .write(scratch.add(t).read() + scratch.add(t + half).read());
            }
            half /= 2;
        }
        ptx_sync::block::sync();
        let sum = scratch.read();
        ptx_sync::block::sync(); // everyone has read it before the scratch is reused
        sum
    }
}
