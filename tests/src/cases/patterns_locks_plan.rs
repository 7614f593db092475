//! What the lock half of the calling-pattern matrix does, as plain integer functions: which
//! objects each thread locks in each shape, and the bucket table's keys. Shared as source by
//! the kernels (tests/kernels/src/patterns_locks.rs, through `#[path]`) and the host side that
//! recomputes every expected count (tests/src/cases/patterns_locks.rs), so the two cannot
//! drift apart. `no_std`: nothing but `core` arithmetic.

/// Object slots of a shapes launch (global memory) or of each block (shared memory).
pub const NOBJ: usize = 32;
/// "No object" in [`objects`].
pub const NONE: u32 = u32::MAX;
/// `shape` argument of the global-memory kernels: make every object an unlocked lock.
pub const INIT: u32 = 100;
/// `shape` argument of the global-memory kernels: read back every object's data and state.
pub const PROBE: u32 = 101;

/// Buckets of the table.
pub const BUCKETS: usize = 1 << 16;
/// Key slots per bucket (the host checks that no bucket receives more distinct keys).
pub const SLOTS: usize = 8;
/// Distinct keys (cold).
pub const KEYS: u32 = 1 << 15;
/// Hot keys (`0..HOT`), drawn for one insert in 8.
pub const HOT: u32 = 16;

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

/// The objects (first, and second taken inside the first; [`NONE`] for none) that the thread
/// of block rank `t` and global id `g` locks in iteration `it` of `shape`:
/// 0 lane `l` on `l % 2`; 1 lane `l` on `(l + it) % 32`; 2 odd lanes only, on `(l / 2) % 2`;
/// 3 lane 0 only, on `warp % 2`; 4 a data-dependent subset (`hash(16 g + it)` odd), on one of
/// 3; 5 every thread on object 0; 6 nested: `l % 2`, then `2 + l % 3`.
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

/// The key of insert `i`: one in 8 is one of [`HOT`] hot keys, the rest one of [`KEYS`].
#[inline(always)]
pub fn key_of(i: u32) -> u32 {
    let h = hash(i);
    if h & 7 == 0 {
        (h >> 3) % HOT
    } else {
        (h >> 3) % KEYS
    }
}

/// The bucket of `key`.
#[inline(always)]
pub fn bucket_of(key: u32) -> usize {
    (hash(key ^ 0x9e37_79b9) as usize) % BUCKETS
}
