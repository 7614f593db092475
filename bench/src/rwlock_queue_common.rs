//! The shapes and data of the `rwlock/*` and `queue/turn_ring/*` rows, shared as source by the
//! host runner (bench/src/rwlock_queue.rs) and the Rust kernels (bench/kernels/src/
//! rwlock_queue.rs). The CUDA C++ side (bench/cpp/rwlock_queue.inc) repeats these constants
//! and functions line for line.

use crate::table::mix;

/// Operations per thread in the `rwlock/*` rows.
pub const RW_ITERS: u32 = 8;

/// Whether thread `g` writes (rather than reads) in iteration `it` of a row where `percent`
/// of the operations write: a hash, so the lanes of a warp mix reads and writes.
#[inline(always)]
pub fn rw_writes(g: u32, it: u32, percent: u32) -> bool {
    mix(g.wrapping_mul(64).wrapping_add(it) ^ 0x2545_f491) % 100 < percent
}

/// Slots of the `queue/turn_ring/*` ring: the `semaphore/mpmc_queue/*` rows' ring size, so the
/// two rows compare the same ring with and without the counting semaphores.
pub const TURN_RING: usize = 1024;
