//! What the Queue GPU cases do, as plain integer functions: which threads produce, which
//! values they push. Shared as source by the kernels (tests/kernels/src/queue.rs, through
//! `#[path]`) and the host side (tests/src/cases/queue.rs). `no_std`: `core` arithmetic only.

/// Slots of the global queue the blocks share.
pub const RING: usize = 1024;
/// Slots of each warp's own queue: fewer than a warp's producers, so they wait for the
/// consumers of their own warp.
pub const WARP_RING: usize = 8;
/// Slots of each block's queue in shared memory.
pub const BLOCK_RING: usize = 64;

/// The counters every queue case fills (u64 words): values popped, their sum, their xor,
/// values popped twice (their bit was already set in the bitmap of values seen), values
/// popped from another warp's or block's queue, values left in a queue at the end.
pub const COUNT: usize = 0;
/// See [`COUNT`].
pub const SUM: usize = 1;
/// See [`COUNT`].
pub const XOR: usize = 2;
/// See [`COUNT`].
pub const TWICE: usize = 3;
/// See [`COUNT`].
pub const ELSEWHERE: usize = 4;
/// See [`COUNT`].
pub const LEFT: usize = 5;
/// Counter words.
pub const COUNTERS: usize = 6;

/// Whether lane `lane` produces (pushes) in a warp split `split`, where the others consume:
/// 0 even lanes; 1 lanes 0-15; 2 lanes whose lane number has an even number of one bits (a
/// pattern with no stride). Each gives 16 producers and 16 consumers in a full warp, and 8
/// and 8 in a warp of 16 lanes (splits 0 and 2).
#[inline(always)]
pub fn produces(split: u32, lane: u32) -> bool {
    match split {
        0 => lane.is_multiple_of(2),
        1 => lane < 16,
        _ => lane.count_ones().is_multiple_of(2),
    }
}

/// The rank of lane `lane` among the producers (or among the consumers) of its warp.
#[inline(always)]
pub fn rank(split: u32, lane: u32) -> u32 {
    let me = produces(split, lane);
    (0..lane).filter(|&l| produces(split, l) == me).count() as u32
}

/// The value producer `p` pushes as its `i`-th of `iters`: every value of `0..producers *
/// iters` once.
#[inline(always)]
pub fn value(p: u32, i: u32, iters: u32) -> u32 {
    p * iters + i
}

/// The xor of `0..n`.
#[inline(always)]
pub fn xor_upto(n: u64) -> u64 {
    // x ^ (x+1) ^ ... pattern of period 4 for the xor of 0..=m.
    if n == 0 {
        return 0;
    }
    let m = n - 1;
    match m % 4 {
        0 => m,
        1 => 1,
        2 => m + 1,
        _ => 0,
    }
}

/// Queues of each warp in the shapes case.
pub const QUEUES_PER_WARP: usize = 8;
/// Slots of each of those queues: a whole warp, so the lanes of a queue (each pushes one value,
/// then pops one) never find it full.
pub const SHAPE_RING: usize = 32;
/// "No queue" in [`queue_of`].
pub const NONE: u32 = u32::MAX;

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

/// The queue (of its warp's [`QUEUES_PER_WARP`]; [`NONE`] for none) that lane `lane` of
/// global warp `warp` uses in iteration `it` of `shape`, the lock matrix's shapes
/// (patterns_locks_plan.rs `objects`) for queues: 0 lane `l` on `l % 2`; 1 on `(l + it) % 8`
/// (4 lanes a queue, a new partner set each iteration); 2 odd lanes only, on `(l / 2) % 2`;
/// 3 lane 0 only, on `it % 2`; 4 a data-dependent subset (`hash(16 (32 warp + l) + it)` odd),
/// on one of 3; 5 every lane on queue 0.
#[inline(always)]
pub fn queue_of(shape: u32, warp: u32, lane: u32, it: u32) -> u32 {
    match shape {
        0 => lane % 2,
        1 => (lane + it) % 8,
        2 if lane % 2 == 1 => (lane / 2) % 2,
        3 if lane == 0 => it % 2,
        4 => {
            let h = hash((warp * 32 + lane).wrapping_mul(16).wrapping_add(it));
            if h & 1 == 1 {
                (h >> 1) % 3
            } else {
                NONE
            }
        }
        5 => 0,
        _ => NONE,
    }
}

/// The value lane `lane` of global warp `warp` pushes in iteration `it` of `iters`: distinct
/// for every (warp, lane, iteration), so [`origin`] recovers them.
#[inline(always)]
pub fn shape_value(warp: u32, lane: u32, it: u32, iters: u32) -> u32 {
    (warp * 32 + lane) * iters + it
}

/// The (warp, lane, iteration) that pushed `v` (the inverse of [`shape_value`]).
#[inline(always)]
pub fn origin(v: u32, iters: u32) -> (u32, u32, u32) {
    (v / iters / 32, (v / iters) % 32, v % iters)
}
