//! The shapes and data of the user-shaped rows (`binary_semaphore/lock/*`,
//! `semaphore/mpmc_queue/*`, `scan/decoupled_lookback/*`, `latch/per_tile/*`), shared as source
//! by the host runner (bench/src/user_shapes.rs) and the Rust kernels
//! (bench/kernels/src/user_shapes.rs). The CUDA C++ side (bench/cpp/user_shapes.inc) repeats
//! these constants and functions line for line.

use crate::table::mix;

/// Slots of the `semaphore/mpmc_queue/*` ring (the semaphores' `MAX`: `free` starts full).
pub const QUEUE_SLOTS: u32 = 1024;

/// Threads of a `scan/decoupled_lookback/*` block.
pub const SCAN_THREADS: u32 = 256;
/// Consecutive elements each scan thread sums.
pub const SCAN_ITEMS: u32 = 8;
/// Elements of one scan tile (one block's share).
pub const SCAN_TILE: u32 = SCAN_THREADS * SCAN_ITEMS;
/// Dynamic shared memory of a scan block, in u32 words: the tile, the block scan's double
/// buffer, then the tile index and the tile's exclusive prefix.
pub const SCAN_SMEM_WORDS: u32 = SCAN_TILE + 2 * SCAN_THREADS + 4;
/// A tile's status word, `status << 32 | value`: 0 (zeroed memory) is "not published yet";
/// this is "the tile's own sum (aggregate) is published".
pub const SCAN_AGGREGATE: u64 = 1 << 32;
/// "The tile's inclusive prefix (everything up to and including it) is published".
pub const SCAN_PREFIX: u64 = 2 << 32;

/// Blocks that share one tile (and its latch) in `latch/per_tile/*`.
pub const TILE_BLOCKS: u32 = 4;
/// Threads of a `latch/per_tile/*` block.
pub const TILE_THREADS: u32 = 256;

/// Element `i` of the scan's input (full 32-bit values: the sums wrap, exactly on both sides).
#[inline(always)]
pub fn scan_input(i: u32) -> u32 {
    mix(i ^ 0x5bd1_e995)
}

/// Value `i` of the latch rows: tile `t`'s block `p`, thread `x`, contributes
/// `tile_value((t * TILE_BLOCKS + p) * TILE_THREADS + x)`.
#[inline(always)]
pub fn tile_value(i: u32) -> u32 {
    mix(i)
}
