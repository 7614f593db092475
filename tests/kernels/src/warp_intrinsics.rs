//! Kernels of the warp-intrinsics test (tests/src/cases/warp_intrinsics.rs): every lane calls
//! each vote, match and shuffle with its group's mask (the full warp, the odd lanes, or a
//! data-dependent subset and its complement at once) and writes what it got;
//! the host computes every expected word itself. The inputs come from
//! tests/src/cases/warp_intrinsics_plan.rs, shared as source.

#[path = "../../src/cases/warp_intrinsics_plan.rs"]
#[allow(dead_code)] // the list of modes is the host's
mod plan;

use plan::*;
use ptx_sync::warp;

/// What a lane calling with `mask` records in `o[0..K]`.
#[inline(always)]
unsafe fn record(mask: u32, id: u32, (up, down, xor): (u32, u32, u32), o: *mut u32) {
    let i = inputs(id);
    let src = source_lane(id, mask);
    let wide = warp::shfl_idx(mask, i.wide, src);
    let double = warp::shfl_xor(mask, i.double, xor).to_bits();
    let words = [
        warp::ballot(mask, i.pred_a),
        warp::any(mask, i.pred_b) as u32,
        warp::all(mask, i.pred_c) as u32,
        warp::uni(mask, i.pred_d) as u32,
        warp::match_any_u32(mask, i.key32),
        warp::match_any(mask, i.key64),
        warp::match_all_u32(mask, i.same32).unwrap_or(0),
        warp::match_all(mask, i.same64).unwrap_or(0),
        warp::shfl_idx(mask, i.word, src),
        warp::shfl_up(mask, i.word, up),
        warp::shfl_down(mask, i.word, down),
        warp::shfl_xor(mask, i.word, xor),
        wide as u32,
        (wide >> 32) as u32,
        warp::shfl_down(mask, i.float, down).to_bits(),
        double as u32,
        (double >> 32) as u32,
        CALLED_BIT | warp::leader(mask) as u32,
    ];
    for (k, w) in words.iter().enumerate() {
        o.add(k).write_volatile(*w);
    }
}

/// One launch of a `mode` of the plan; 1-D blocks of a multiple of 32 threads. `out`: `K`
/// words per thread, zeroed; a lane that does not call leaves its words 0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn warp_intrinsics(mode: u32, out: *mut u32) {
    let id = crate::global_id();
    let mask = group(mode, id, warp::lane());
    let o = out.add(id as usize * K);
    // In `SPLIT` every lane calls, the two groups of a warp each with its own mask, at once.
    if mask != 0 {
        record(mask, id, deltas(mode), o);
    }
}

/// `elect_one` (sm_90): every lane of a group calls it twice with the group's mask. `out[id]`:
/// `CALLED_BIT`, bit 0 the first election, bit 1 the second, bit 2 `leader(mask)`.
#[cfg(target_feature = "sm_90")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn warp_elect_one(mode: u32, out: *mut u32) {
    let id = crate::global_id();
    let mask = group(mode, id, warp::lane());
    if mask == 0 {
        return;
    }
    let first = warp::elect_one(mask) as u32;
    let second = warp::elect_one(mask) as u32;
    let leader = warp::leader(mask) as u32;
    out.add(id as usize)
        .write_volatile(CALLED_BIT | first | second << 1 | leader << 2);
}
