//! What the warp-intrinsics kernels (tests/kernels/src/warp_intrinsics.rs) feed each lane, as
//! plain integer functions: which lanes call together in each mode, each lane's inputs, and
//! the shuffles' lane operands. Shared as source with the host side
//! (tests/src/cases/warp_intrinsics.rs), which computes every expected result on its own from
//! these inputs and PTX's rules. `no_std`: nothing but `core` arithmetic.

/// Result words per thread of `warp_intrinsics`.
pub const K: usize = 18;
/// Set in the last word (with `leader(mask)` in bit 0) by every lane that called; the others
/// leave all their words 0.
pub const CALLED_BIT: u32 = 0x100;

/// Modes: every lane with the full mask; the odd lanes only (0xaaaaaaaa, the even lanes skip
/// the calls); a data-dependent subset and its complement, each with its own mask, at the
/// same time.
pub const FULL: u32 = 0;
pub const ODD: u32 = 1;
pub const SPLIT: u32 = 2;
pub const MODES: [u32; 3] = [FULL, ODD, SPLIT];

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

/// The lanes thread `id` (at `lane` of a full warp) calls with in `mode`; 0 if it does not call.
#[inline(always)]
pub fn group(mode: u32, id: u32, lane: u32) -> u32 {
    match mode {
        FULL => u32::MAX,
        ODD if lane % 2 == 1 => 0xaaaa_aaaa,
        ODD => 0,
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
    }
}

/// The lane operands of `shfl_up`, `shfl_down` and `shfl_xor` in `mode` (even ones for the odd
/// lanes, so that every source of an in-range shuffle is in the mask there).
#[inline(always)]
pub fn deltas(mode: u32) -> (u32, u32, u32) {
    match mode {
        FULL => (1, 3, 5),
        ODD => (2, 4, 6),
        _ => (1, 2, 1),
    }
}

/// The `n`-th lane of `mask` (n below its popcount).
#[inline(always)]
pub fn nth_lane(mask: u32, n: u32) -> u32 {
    let mut m = mask;
    for _ in 0..n {
        m &= m - 1;
    }
    m.trailing_zeros()
}

/// `shfl_idx`'s source lane for thread `id` calling with `mask`: a lane of the mask.
#[inline(always)]
pub fn source_lane(id: u32, mask: u32) -> u32 {
    nth_lane(mask, x(id) % mask.count_ones())
}

/// The predicates and values thread `id` brings to the votes, matches and shuffles. Each is
/// uniform in some warps and mixed in others, so both outcomes of every vote and match occur.
pub struct Inputs {
    pub pred_a: bool,
    pub pred_b: bool,
    pub pred_c: bool,
    pub pred_d: bool,
    pub key32: u32,
    pub key64: u64,
    pub same32: u32,
    pub same64: u64,
    pub word: u32,
    pub wide: u64,
    pub float: f32,
    pub double: f64,
}

#[inline(always)]
pub fn inputs(id: u32) -> Inputs {
    let (v, warp) = (x(id), id / 32);
    Inputs {
        pred_a: v & 1 != 0,
        pred_b: warp % 2 == 1 && v % 4 == 0,
        pred_c: warp % 2 == 0 || v % 8 != 0,
        pred_d: warp % 2 == 1 || v & 1 != 0,
        key32: v % 4,
        key64: ((v % 3) as u64) << 40,
        same32: if warp % 2 == 0 { 42 } else { v % 2 },
        same64: if warp % 2 == 0 {
            1 << 40
        } else {
            ((v % 2) as u64) << 40
        },
        word: v,
        wide: (v as u64) << 32 | id as u64,
        float: id as f32 * 0.5,
        double: id as f64 * 0.25 + 0.125,
    }
}
