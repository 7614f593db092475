// Shared by the kernels (tests/kernels) and the host checks (tests/src): the per-thread,
// per-iteration operand of the contention tests. `include!`d by both so they agree exactly.

/// splitmix64 finalizer: a cheap, well-spread function of (thread, iteration).
#[inline(always)]
pub fn mix(thread: u32, iter: u32) -> u64 {
    let mut z = ((thread as u64) << 32 | iter as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The float each thread adds per iteration: a multiple of 1/4 in [0.25, 2], so every partial
/// sum of a test's size is exact in f32 and f64 and the total does not depend on the order.
#[inline(always)]
pub fn float_step(thread: u32) -> f32 {
    ((thread % 8) + 1) as f32 * 0.25
}

/// Operation codes of the contention kernels.
pub mod op {
    pub const FETCH_ADD: u32 = 0;
    pub const FETCH_SUB: u32 = 1;
    pub const CAS_LOOP_ADD: u32 = 2;
    pub const FETCH_XOR: u32 = 3;
    pub const FETCH_MIN: u32 = 4;
    pub const FETCH_MAX: u32 = 5;
    pub const RED_ADD: u32 = 6;
    pub const SWAP: u32 = 7;
    pub const FETCH_OR_AND: u32 = 8;
    pub const FETCH_INC: u32 = 9;
    pub const FETCH_DEC: u32 = 10;
}

/// `FETCH_OR_AND`: the bit that thread `index` of a group of `n` threads owns, as `(word, bit)`:
/// bit `bit` of the group's set/clear word number `word`, with `bits` bits a word. No two
/// threads of a group own one bit, and a word's owners are spread over the whole group
/// (`index % words`): each word is contended by up to `bits` threads from across the group.
#[inline(always)]
pub fn or_and_slot(index: u32, n: u32, bits: u32) -> (u32, u32) {
    let words = n.div_ceil(bits);
    (index % words, index / words)
}

/// Words between two blocks' counters in the block-local placement (256 bytes for u64).
pub const BLOCK_STRIDE: usize = 32;
