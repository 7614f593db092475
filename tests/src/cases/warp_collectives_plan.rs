//! What the warp-collectives kernels (tests/kernels/src/warp_collectives.rs) feed each lane,
//! as plain integer functions: which lanes call together in each mode (in blocks whose last
//! warp may be partial), each lane's inputs, and where each result goes. Shared as source with
//! the host side (tests/src/cases/warp_collectives.rs), which computes every expected result
//! on its own from these inputs. `no_std`: nothing but `core` arithmetic.

/// Result words per thread of `warp_collectives` (see the host's `NAMES`).
pub const K: usize = 57;
/// The last word of every lane that called; the others leave all their words 0.
pub const CALLED_BIT: u32 = 0x100;

/// Modes: the warp's lanes (all 32, or the lanes of a partial warp); the odd lanes; the
/// contiguous lanes 5..=22; the two ends, lanes 0 and 31; a data-dependent subset and its
/// complement at once, in two branches.
pub const FULL: u32 = 0;
pub const ODD: u32 = 1;
pub const RANGE: u32 = 2;
pub const ENDS: u32 = 3;
pub const SPLIT: u32 = 4;
pub const MODES: [u32; 5] = [FULL, ODD, RANGE, ENDS, SPLIT];

/// The lanes of warp `tid / 32` of a 1-D block of `threads` (all 32 but in a partial last
/// warp).
#[inline(always)]
pub fn warp_lanes(threads: u32, tid: u32) -> u32 {
    let n = (threads - tid / 32 * 32).min(32);
    if n == 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// A thread's input word (no pattern in the thread number).
#[inline(always)]
pub fn x(id: u32) -> u32 {
    id.wrapping_mul(0x9e37_79b9).rotate_left(11) ^ 0x5bd1_e995
}

/// The data-dependent subset of [`SPLIT`].
#[inline(always)]
pub fn hashed(id: u32) -> bool {
    id.wrapping_mul(0x85eb_ca6b).rotate_left(5) & 8 != 0
}

/// The mask thread `id` (at `lane` of a warp whose lanes are `lanes`) calls with in `mode`; 0
/// if it does not call.
#[inline(always)]
pub fn group(mode: u32, id: u32, lane: u32, lanes: u32) -> u32 {
    let bits = match mode {
        FULL => u32::MAX,
        ODD => 0xaaaa_aaaa,
        RANGE => 0x007f_ffe0,
        ENDS => 0x8000_0001,
        _ => {
            let (base, mine) = (id - lane, hashed(id));
            let mut m = 0;
            for l in 0..32 {
                if hashed(base + l) == mine {
                    m |= 1 << l;
                }
            }
            m
        }
    };
    let m = bits & lanes;
    if m & (1 << lane) != 0 {
        m
    } else {
        0
    }
}

/// What thread `id` brings: integers of every width and sign (large enough that sums wrap),
/// floats whose sums are exact in any order (so the expected sums do not depend on the order
/// the tree adds in), and words for the bitwise reductions that keep some bits in every lane
/// (AND) or clear some in every lane (OR).
pub struct Inputs {
    pub u: u32,
    pub i: i32,
    pub w: u64,
    pub s: i64,
    pub f: f32,
    pub d: f64,
    pub and32: u32,
    pub or32: u32,
    pub and64: u64,
    pub or64: u64,
}

#[inline(always)]
pub fn inputs(id: u32) -> Inputs {
    let (a, b) = (x(id), x(id ^ 0x5555));
    let w = (a as u64) << 32 | b as u64;
    Inputs {
        u: a,
        i: b as i32,
        w,
        s: (w as i64).rotate_left(7),
        // Multiples of 1/4 in -500..500: 32 of them sum exactly in an f32.
        f: ((a % 4001) as f32 - 2000.0) * 0.25,
        // Multiples of 2^-8 below 2^23 in magnitude: 32 of them sum exactly in an f64.
        d: (b as f64 - 2_147_483_648.0) / 256.0,
        and32: a | 0x0f0f_0000,
        or32: a & 0x00f0_0f0f,
        and64: w | 0x0f00_0000_0000_f0f0,
        or64: w & 0x00ff_ff00_ff00_0f0f,
    }
}
