//! A block reduction the way CUDA writes it: a sum per warp by `warp::shfl_down`, one partial
//! per warp in shared memory, `block::sync`, then the first warp sums the partials.

use ptx_sync::{Atomic, Gpu, Ordering::Relaxed, block, index, shared, warp};

shared! {
    /// One partial sum per warp of the block (at most 32 warps: 1024 threads).
    static PARTIALS: [u64; 32];
}

/// The sum of `value` over the warp, in lane 0 (the other lanes hold partial sums): five
/// `shfl.sync.down` steps of a tree (each moves a `u64` as two 32-bit shuffles).
#[inline(always)]
fn warp_sum(mut value: u64) -> u64 {
    for delta in [16, 8, 4, 2, 1] {
        value += warp::shfl_down(u32::MAX, value, delta);
    }
    value
}

/// Sums `input[..n]` as `u64`: each thread its grid-stride share, then the block's sum into
/// `sums[block_rank]`, and every block's sum added to `*total` (`red.relaxed.gpu.add.u64`).
///
/// Why it is correct: in a warp, `shfl.sync` exchanges registers among all 32 lanes, so lane 0
/// ends with the warp's sum. Each warp's lane 0 writes its partial to `PARTIALS[warp]`, and
/// `barrier.sync` orders those writes before the first warp's reads of them. The second
/// `barrier.sync` keeps a later use of `PARTIALS` after those reads. The adds to `*total` are
/// atomic, so no block's sum is lost; the host reads the result after the launch.
///
/// # Safety
/// `input` holds `n` values, `sums` one `u64` per block, `total` one zeroed `u64`. The block
/// size is a multiple of 32 (whole warps: the shuffles name all 32 lanes).
pub unsafe fn block_sum(input: *const u32, n: usize, sums: *mut u64, total: *mut u64) {
    let mut acc = 0u64;
    for i in index::grid_stride(n) {
        // SAFETY: `i < n`.
        acc += u64::from(unsafe { *input.add(i) });
    }
    let partial = warp_sum(acc);
    let partials = PARTIALS.as_ptr().cast::<u64>();
    if index::lane() == 0 {
        // SAFETY: the block's own shared array; each warp writes its own element.
        unsafe { partials.add(index::warp_rank() as usize).write(partial) };
    }
    block::sync(); // every warp's partial is written
    if index::warp_rank() == 0 {
        let lane = index::lane();
        let mine = if lane < index::warp_count() {
            // SAFETY: written above by warp `lane`, ordered by the barrier.
            unsafe { partials.add(lane as usize).read() }
        } else {
            0
        };
        let sum = warp_sum(mine);
        if lane == 0 {
            // SAFETY: one `u64` per block.
            unsafe { sums.add(index::block_rank() as usize).write(sum) };
            // SAFETY: `total` is a valid `u64`, only ever updated atomically.
            unsafe { Atomic::<u64, Gpu>::from_ptr(total) }.red_add(sum, Relaxed);
        }
    }
    block::sync(); // the partials are read before anyone could write them again
}

#[cfg(test)]
mod tests {
    use super::block_sum;
    use ptx_sync::index::{KernelPtr, run_grid};

    /// Every block's sum and the total, exactly, for blocks of 1 to 32 warps and inputs
    /// shorter and longer than the grid.
    #[test]
    fn block_sums_and_total_are_exact() {
        for (blocks, threads, n) in [(1, 32, 5), (4, 64, 10_000), (3, 1024, 4096), (6, 96, 1)] {
            let input: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let mut sums = vec![u64::MAX; blocks as usize];
            let mut total = 0u64;
            let (ip, sp, tp) = (
                KernelPtr::new(input.as_ptr().cast_mut()),
                KernelPtr::new(sums.as_mut_ptr()),
                KernelPtr::new(&mut total as *mut u64),
            );
            run_grid(blocks, threads, || unsafe {
                block_sum(ip.get(), n, sp.get(), tp.get())
            });
            // What each block's threads cover in the grid-stride loop, summed here directly.
            let stride = (blocks * threads) as usize;
            for (b, got) in sums.iter().enumerate() {
                let want: u64 = (0..n)
                    .filter(|i| i % stride / threads as usize == b)
                    .map(|i| u64::from(input[i]))
                    .sum();
                assert_eq!(*got, want, "block {b} of {blocks} x {threads}, n = {n}");
            }
            let all: u64 = input.iter().map(|&v| u64::from(v)).sum();
            assert_eq!(total, all, "{blocks} x {threads}, n = {n}");
        }
    }
}
