//! A histogram of bytes with an atomic counter per bucket: each block counts into its own 256
//! counters in shared memory (`Atomic<u32, Cta>`: contention stays in the block), then adds
//! them to the global histogram (`Atomic<u32, Gpu>`).

use ptx_sync::{Atomic, Cta, Gpu, Ordering::Relaxed, block, index, shared};

shared! {
    /// The block's counters, one per byte value.
    static BINS: [Atomic<u32, Cta>; 256];
}

/// Counts the bytes of `input[..n]` into `bins[..256]` (added to what is there).
///
/// Why it is correct: the block's threads zero its counters, and `barrier.sync` orders the
/// zeroing before any count. Counting is `atom.relaxed.cta.add`: atomic, so no count is lost,
/// and `.cta` is enough since only the block's threads touch its counters. The second
/// `barrier.sync` orders every count before the reads that flush the counters, each with one
/// `red.relaxed.gpu.add` into the global bucket (atomic across blocks; the host reads after
/// the launch). The third keeps a later use of the counters after those reads.
///
/// # Safety
/// `input` holds `n` bytes, `bins` 256 `u32`s (zeroed, or a histogram to add to).
pub unsafe fn byte_histogram(input: *const u8, n: usize, bins: *mut u32) {
    // SAFETY: the counters are initialized below (a store) before any other use.
    let local = unsafe { BINS.get() };
    let (me, threads) = (index::thread_rank() as usize, index::block_size() as usize);
    let mut b = me;
    while b < 256 {
        local[b].store(0, Relaxed);
        b += threads;
    }
    block::sync(); // zeroed before anyone counts
    for i in index::grid_stride(n) {
        // SAFETY: `i < n`.
        let byte = unsafe { *input.add(i) };
        local[byte as usize].fetch_add(1, Relaxed); // atom.relaxed.cta.add.u32
    }
    block::sync(); // every count is in
    let mut b = me;
    while b < 256 {
        let count = local[b].load(Relaxed);
        if count != 0 {
            // SAFETY: `bins` holds 256 counters, only ever updated atomically.
            unsafe { Atomic::<u32, Gpu>::from_ptr(bins.add(b)) }.red_add(count, Relaxed);
        }
        b += threads;
    }
    block::sync(); // flushed before the counters could be reused
}

#[cfg(test)]
mod tests {
    use super::byte_histogram;
    use ptx_sync::index::{Dim3, KernelPtr, run_grid};

    /// Skewed bytes (a third of them 0x2a) over several block shapes, against a count made
    /// here; a second launch adds to the first's counts.
    #[test]
    fn every_byte_is_counted_once() {
        for (blocks, threads, n) in [
            (1, Dim3::from(1), 300),
            (4, Dim3::from(128), 50_000),
            (3, Dim3::from((16, 8)), 1000),
            (2, Dim3::from(512), 7),
        ] {
            let input: Vec<u8> = (0..n as u32)
                .map(|i| {
                    if i % 3 == 0 {
                        0x2a
                    } else {
                        (i.wrapping_mul(2_654_435_761) >> 24) as u8
                    }
                })
                .collect();
            let mut bins = vec![0u32; 256];
            let (ip, bp) = (
                KernelPtr::new(input.as_ptr().cast_mut()),
                KernelPtr::new(bins.as_mut_ptr()),
            );
            let mut want = [0u32; 256];
            for _ in 0..2 {
                run_grid(blocks, threads, || unsafe {
                    byte_histogram(ip.get(), n, bp.get())
                });
                input.iter().for_each(|&b| want[b as usize] += 1);
                assert_eq!(bins, want, "{blocks} blocks x {threads:?}, n = {n}");
            }
        }
    }
}
