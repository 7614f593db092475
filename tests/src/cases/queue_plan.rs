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
