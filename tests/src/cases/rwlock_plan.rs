//! What the RwLock GPU cases do, as plain integer functions: which threads write or read in
//! which iteration, and which locks each thread uses in each shape. Shared as source by the
//! kernels (tests/kernels/src/rwlock.rs, through `#[path]`) and the host side that recomputes
//! every expected count (tests/src/cases/rwlock.rs), so the two cannot drift apart. `no_std`:
//! nothing but `core` arithmetic.

/// Locks of a shapes launch (global memory) or of each block (shared memory).
pub const NOBJ: usize = 32;
/// "No lock" in [`objects`].
pub const NONE: u32 = u32::MAX;
/// A writer in a lock's holders word (readers count 1 each, below it).
pub const WRITER: u32 = 1 << 16;

/// The per-lock counters (u32 words), each `NOBJ` words long: reads run, torn reads (the four
/// data words disagreed), exclusion violations (a reader found a writer inside, or a writer
/// found anyone), most readers inside at once, holders now (readers + `WRITER` x writers).
pub const READS: usize = 0;
/// See [`READS`].
pub const TORN: usize = 1;
/// See [`READS`].
pub const BAD: usize = 2;
/// See [`READS`].
pub const MOST: usize = 3;
/// See [`READS`].
pub const HOLDERS: usize = 4;
/// Counter words per lock.
pub const COUNTERS: usize = 5;

/// 32-bit integer hash (lowbias32).
#[inline(always)]
pub fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Whether global thread `g` writes (rather than reads) in iteration `it`, for a mix where
/// `writes_in_16` of 16 operations write: lanes of one warp mostly split between the two.
#[inline(always)]
pub fn writes(g: u32, it: u32, writes_in_16: u32) -> bool {
    hash(g.wrapping_mul(64).wrapping_add(it) ^ 0x2545_f491) % 16 < writes_in_16
}

/// The writes of every mix in the shapes cases (one in four).
pub const SHAPES_WRITES_IN_16: u32 = 4;

/// The locks (first, and second taken inside the first, always to write; [`NONE`] for none)
/// that the thread of block rank `t` and global id `g` uses in iteration `it` of `shape`:
/// 0 lane `l` on `l % 2`; 1 lane `l` on `(l + it) % 32`; 2 odd lanes only, on `(l / 2) % 2`;
/// 3 lane 0 only, on `warp % 2`; 4 a data-dependent subset (`hash(16 g + it)` odd), on one of
/// 3; 5 every thread on lock 0; 6 nested: `l % 2`, then `2 + l % 3`.
#[inline(always)]
pub fn objects(shape: u32, t: u32, g: u32, it: u32) -> (u32, u32) {
    let lane = t % 32;
    match shape {
        0 => (lane % 2, NONE),
        1 => ((lane + it) % 32, NONE),
        2 if lane % 2 == 1 => ((lane / 2) % 2, NONE),
        3 if lane == 0 => ((t / 32) % 2, NONE),
        4 => {
            let h = hash(g.wrapping_mul(16).wrapping_add(it));
            if h & 1 == 1 {
                ((h >> 1) % 3, NONE)
            } else {
                (NONE, NONE)
            }
        }
        5 => (0, NONE),
        6 => (lane % 2, 2 + lane % 3),
        _ => (NONE, NONE),
    }
}

/// The writes of the bucket table (one operation in four inserts, the others read).
pub const TABLE_WRITES_IN_16: u32 = 4;

/// Words of one bucket of the table: `SLOTS` (key + 1 or 0, count) pairs, then the bucket's
/// insert total, which a writer updates in a separate store after the pair (so a reader that
/// overlapped a writer would find the pairs' counts and the total disagreeing).
pub const BUCKET_WORDS: usize = 2 * TABLE_SLOTS + 1;

/// Key slots per bucket of the table: the lock matrix's (patterns_locks_plan.rs `SLOTS`).
pub const TABLE_SLOTS: usize = 8;

/// Whether table operation `i` inserts (rather than reads its key's bucket).
#[inline(always)]
pub fn table_writes(i: u32) -> bool {
    writes(i, 0, TABLE_WRITES_IN_16)
}
