//! Kernels of the latch tests (tests/src/cases/latch.rs).

use crate::round_tag as tag;
use ptx_sync::{block, Atomic, Gpu, Latch, Ordering::*};

/// u32 words between two rounds' latches (one 128-byte line each).
pub const LATCH_STRIDE: usize = 32;

/// Fan-in through a fresh latch per round (needs every block resident: a cooperative launch).
/// The host prepares `latches[r * LATCH_STRIDE]` = `blocks` for even rounds (thread 0 of each
/// block counts down once after a block barrier, then waits) and `blocks * threads` for odd
/// rounds (every thread calls `arrive_and_wait`, warp-aggregated). Before arriving, every
/// thread writes `tag(r, its index)` into `values[r & 1]` (double-buffered: `2 * blocks *
/// threads` words); after the latch opens it reads the word of the same thread in every other
/// block. `stats` (u64): [0] wrong values seen, [1] values checked.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn latch_fan_in(
    latches: *mut u32,
    rounds: u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let (b, blocks) = (block::rank(), block::count());
    let n = (blocks * threads) as usize;
    let (mut errors, mut checks) = (0u32, 0u32);
    for r in 0..rounds {
        let latch = Latch::<Gpu>::from_ptr(latches.add(r as usize * LATCH_STRIDE));
        let buf = values.add((r & 1) as usize * n);
        let me = b * threads + t;
        *buf.add(me as usize) = tag(r, me);
        if r % 2 == 0 {
            block::sync();
            if t == 0 {
                latch.count_down();
                latch.wait();
            }
            block::sync();
        } else {
            latch.arrive_and_wait();
        }
        for k in 1..blocks {
            let other = ((b + k) % blocks) * threads + t;
            errors += (*buf.add(other as usize) != tag(r, other)) as u32;
            checks += 1;
        }
    }
    Atomic::<u64, Gpu>::from_ptr(stats).fetch_add(errors as u64, Relaxed);
    Atomic::<u64, Gpu>::from_ptr(stats.add(1)).fetch_add(checks as u64, Relaxed);
}
