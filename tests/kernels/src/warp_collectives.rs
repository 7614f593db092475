//! Kernels of the warp-collectives test (tests/src/cases/warp_collectives.rs): every lane calls
//! each warp reduction and scan with its group's mask (the warp's lanes, the odd lanes, lanes
//! 5..=22, lanes 0 and 31, or a data-dependent subset and its complement in two branches) and
//! reads its lane masks, in blocks whose last warp may be partial; the host computes every
//! expected word itself. The inputs come from tests/src/cases/warp_collectives_plan.rs, shared
//! as source. And `BlockBarrier::arrive_n`: one lane arriving for its warp in a phase loop.

#[path = "../../src/cases/warp_collectives_plan.rs"]
#[allow(dead_code)] // the list of modes is the host's
mod plan;

use plan::*;
use ptx_sync::{block, warp};

/// Writes `v`'s two words (low first) at `o`. `v` passes through `black_box` first: rustc's
/// LLVM stores the low word of an `f64`'s bits as `st.b32 [o], %rd` straight from the register
/// the float add wrote, and ptxas before CUDA 13.5 (12.9 and 13.0 checked) compiles that store
/// as a float-to-integer conversion (`F2I.U32.F64.TRUNC`) rather than a truncation of the bits,
/// which wrote the `f64` sums' low words wrong. The builder warns of such stores.
#[inline(always)]
unsafe fn wide(o: *mut u32, v: u64) {
    let v = core::hint::black_box(v);
    o.write_volatile(v as u32);
    o.add(1).write_volatile((v >> 32) as u32);
}

/// The reductions of a lane calling with `mask`, into `o[0..33]`.
#[inline(always)]
unsafe fn reductions(mask: u32, i: &Inputs, o: *mut u32) {
    let m = mask;
    o.write_volatile(warp::reduce_add(m, i.u));
    o.add(1).write_volatile(warp::reduce_add(m, i.i) as u32);
    wide(o.add(2), warp::reduce_add(m, i.w));
    wide(o.add(4), warp::reduce_add(m, i.s) as u64);
    o.add(6).write_volatile(warp::reduce_add(m, i.f).to_bits());
    wide(o.add(7), warp::reduce_add(m, i.d).to_bits());
    o.add(9).write_volatile(warp::reduce_min(m, i.u));
    o.add(10).write_volatile(warp::reduce_min(m, i.i) as u32);
    wide(o.add(11), warp::reduce_min(m, i.w));
    wide(o.add(13), warp::reduce_min(m, i.s) as u64);
    o.add(15).write_volatile(warp::reduce_max(m, i.u));
    o.add(16).write_volatile(warp::reduce_max(m, i.i) as u32);
    wide(o.add(17), warp::reduce_max(m, i.w));
    wide(o.add(19), warp::reduce_max(m, i.s) as u64);
    o.add(21).write_volatile(warp::reduce_and(m, i.and32));
    o.add(22)
        .write_volatile(warp::reduce_and(m, i.and32 as i32) as u32);
    wide(o.add(23), warp::reduce_and(m, i.and64));
    o.add(25).write_volatile(warp::reduce_or(m, i.or32));
    o.add(26)
        .write_volatile(warp::reduce_or(m, i.or32 as i32) as u32);
    wide(o.add(27), warp::reduce_or(m, i.or64 as i64) as u64);
    o.add(29).write_volatile(warp::reduce_xor(m, i.u));
    o.add(30).write_volatile(warp::reduce_xor(m, i.i) as u32);
    wide(o.add(31), warp::reduce_xor(m, i.w));
}

/// The scans of a lane calling with `mask`, into `o[33..51]`.
#[inline(always)]
unsafe fn scans(mask: u32, i: &Inputs, o: *mut u32) {
    let m = mask;
    o.add(33).write_volatile(warp::inclusive_scan_add(m, i.u));
    o.add(34)
        .write_volatile(warp::inclusive_scan_add(m, i.i) as u32);
    wide(o.add(35), warp::inclusive_scan_add(m, i.w));
    wide(o.add(37), warp::inclusive_scan_add(m, i.s) as u64);
    o.add(39)
        .write_volatile(warp::inclusive_scan_add(m, i.f).to_bits());
    wide(o.add(40), warp::inclusive_scan_add(m, i.d).to_bits());
    o.add(42).write_volatile(warp::exclusive_scan_add(m, i.u));
    o.add(43)
        .write_volatile(warp::exclusive_scan_add(m, i.i) as u32);
    wide(o.add(44), warp::exclusive_scan_add(m, i.w));
    wide(o.add(46), warp::exclusive_scan_add(m, i.s) as u64);
    o.add(48)
        .write_volatile(warp::exclusive_scan_add(m, i.f).to_bits());
    wide(o.add(49), warp::exclusive_scan_add(m, i.d).to_bits());
}

/// The lane masks and the called word, into `o[51..57]`.
#[inline(always)]
unsafe fn lane_masks(o: *mut u32) {
    o.add(51).write_volatile(warp::lanemask_lt());
    o.add(52).write_volatile(warp::lanemask_le());
    o.add(53).write_volatile(warp::lanemask_eq());
    o.add(54).write_volatile(warp::lanemask_ge());
    o.add(55).write_volatile(warp::lanemask_gt());
    o.add(56).write_volatile(CALLED_BIT);
}

/// One launch of a `mode` of the plan; 1-D blocks of any size (the last warp of a block may be
/// partial). `out`: `K` words per thread, zeroed; a lane that does not call leaves its words 0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn warp_collectives(mode: u32, out: *mut u32) {
    let id = crate::global_id();
    let lane = warp::lane();
    let lanes = warp_lanes(block::dim_x(), block::thread_x());
    let mask = group(mode, id, lane, lanes);
    if mask == 0 {
        return;
    }
    let o = out.add(id as usize * K);
    let i = inputs(id);
    // In `SPLIT` the two groups of a warp run different code: the hashed lanes scan first.
    if mode == SPLIT && hashed(id) {
        scans(mask, &i, o);
        reductions(mask, &i, o);
    } else {
        reductions(mask, &i, o);
        scans(mask, &i, o);
    }
    lane_masks(o);
}

/// `BlockBarrier::arrive_n` in a phase loop. The `BlockBarrier` sits at the start of the
/// dynamic shared memory, `2 * threads` u32 slots after it (launch with `16 + 8 * threads`
/// bytes); it expects every thread of the block. In each of `rounds` phases every thread
/// writes its slot of the phase's half of the double buffer, then its warp arrives: in
/// `mode` 0 the warp's lowest lane with `arrive_n(lanes of the warp)` (32, or the remainder
/// of a partial warp) after a `warp::sync` of its lanes; in `mode` 1 the even warps so and the
/// odd warps' lanes one `arrive()` each. Every thread then waits for the phase
/// (`wait_parity`) and reads the slot of a thread in another warp (`t + 33`), which must hold
/// this phase's value. `out[3 * thread]`: phases checked, stale reads, and for thread 0 of a
/// block, 1 if the barrier completed exactly `rounds` phases (the last one done, the next one
/// not: an arrival that counted too much completes extra phases).
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier_arrive_n(mode: u32, rounds: u32, out: *mut u32) {
    let smem = block::dynamic_shared_memory();
    let bar = ptx_sync::BlockBarrier::from_ptr(smem.cast());
    let buf = smem.add(16).cast::<u32>();
    let (t, n) = (block::thread_x(), block::dim_x());
    if t == 0 {
        bar.init(n);
    }
    block::sync();
    let lanes = warp_lanes(n, t);
    let whole_warp = mode == 0 || (t / 32) % 2 == 0;
    let (mut checks, mut stale) = (0u32, 0u32);
    for r in 0..rounds {
        let slots = buf.add((r & 1) as usize * n as usize);
        slots.add(t as usize).write_volatile(crate::round_tag(r, t));
        if whole_warp {
            // The warp's writes before its one arrival, which releases them.
            warp::sync(lanes);
            if warp::leader(lanes) {
                let _ = bar.arrive_n(lanes.count_ones());
            }
        } else {
            let _ = bar.arrive();
        }
        bar.wait_parity(r & 1 == 1);
        let k = (t + 33) % n;
        stale += (slots.add(k as usize).read_volatile() != crate::round_tag(r, k)) as u32;
        checks += 1;
    }
    block::sync();
    let o = out.add(3 * (block::index_x() * n + t) as usize);
    o.write_volatile(checks);
    o.add(1).write_volatile(stale);
    if t == 0 {
        let last = rounds.wrapping_sub(1) & 1 == 1;
        let exact = bar.try_wait_parity(last) && !bar.try_wait_parity(!last);
        o.add(2).write_volatile(exact as u32);
    }
}
