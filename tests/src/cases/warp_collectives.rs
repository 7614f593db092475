//! The warp reductions, scans and lane masks on the GPU (tests/kernels/src/warp_collectives.rs):
//! `reduce_add` (u32, i32, u64, i64, f32, f64), `reduce_min` / `reduce_max` (u32, i32, u64,
//! i64), `reduce_and` / `reduce_or` / `reduce_xor` (32- and 64-bit), `inclusive_scan_add` /
//! `exclusive_scan_add` (u32, i32, u64, i64, f32, f64), `lanemask_lt/le/eq/ge/gt`, with the
//! warp's lanes, the odd lanes, lanes 5..=22, lanes 0 and 31, and a data-dependent subset and
//! its complement in two branches, in blocks of 100 threads (the last warp of each has 4
//! lanes) and of 256. On sm_80+ the 32-bit integer reductions are `redux.sync`, everything
//! else the shuffle tree. Every word every lane writes is compared with what this file
//! computes from the lanes' inputs (warp_collectives_plan.rs) by plain folds over the mask's
//! lanes, and lanes that do not call must leave theirs 0: every word of the grid is checked.
//!
//! And `BlockBarrier::arrive_n` (sm_80+): one lane per warp arriving for its 32 lanes (or the
//! 4 of a partial warp) in a phase loop, alone and mixed with warps whose lanes arrive one by
//! one; every neighbour read after every phase, and the phase count at the end, exact.

use super::warp_collectives_plan::*;
use crate::{skip, Ctx, GpuTest};
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
/// (blocks, threads per block): partial last warps, then full ones.
const SHAPES: [(u32, u32); 2] = [(132, 100), (66, 256)];

const NAMES: [&str; K] = [
    "reduce_add u32",
    "reduce_add i32",
    "reduce_add u64 (low word)",
    "reduce_add u64 (high word)",
    "reduce_add i64 (low word)",
    "reduce_add i64 (high word)",
    "reduce_add f32",
    "reduce_add f64 (low word)",
    "reduce_add f64 (high word)",
    "reduce_min u32",
    "reduce_min i32",
    "reduce_min u64 (low word)",
    "reduce_min u64 (high word)",
    "reduce_min i64 (low word)",
    "reduce_min i64 (high word)",
    "reduce_max u32",
    "reduce_max i32",
    "reduce_max u64 (low word)",
    "reduce_max u64 (high word)",
    "reduce_max i64 (low word)",
    "reduce_max i64 (high word)",
    "reduce_and u32",
    "reduce_and i32",
    "reduce_and u64 (low word)",
    "reduce_and u64 (high word)",
    "reduce_or u32",
    "reduce_or i32",
    "reduce_or i64 (low word)",
    "reduce_or i64 (high word)",
    "reduce_xor u32",
    "reduce_xor i32",
    "reduce_xor u64 (low word)",
    "reduce_xor u64 (high word)",
    "inclusive_scan_add u32",
    "inclusive_scan_add i32",
    "inclusive_scan_add u64 (low word)",
    "inclusive_scan_add u64 (high word)",
    "inclusive_scan_add i64 (low word)",
    "inclusive_scan_add i64 (high word)",
    "inclusive_scan_add f32",
    "inclusive_scan_add f64 (low word)",
    "inclusive_scan_add f64 (high word)",
    "exclusive_scan_add u32",
    "exclusive_scan_add i32",
    "exclusive_scan_add u64 (low word)",
    "exclusive_scan_add u64 (high word)",
    "exclusive_scan_add i64 (low word)",
    "exclusive_scan_add i64 (high word)",
    "exclusive_scan_add f32",
    "exclusive_scan_add f64 (low word)",
    "exclusive_scan_add f64 (high word)",
    "lanemask_lt",
    "lanemask_le",
    "lanemask_eq",
    "lanemask_ge",
    "lanemask_gt",
    "called",
];

/// Sums over `s`: u32, i32, u64, i64 wrapping; f32, f64 from -0.0 (the sum of nothing, which
/// the crate documents for the lowest lane's exclusive scan; every sum of these inputs is
/// exact, so the order does not matter).
fn sums(s: &[Inputs]) -> (u32, i32, u64, i64, f32, f64) {
    (
        s.iter().fold(0u32, |a, v| a.wrapping_add(v.u)),
        s.iter().fold(0i32, |a, v| a.wrapping_add(v.i)),
        s.iter().fold(0u64, |a, v| a.wrapping_add(v.w)),
        s.iter().fold(0i64, |a, v| a.wrapping_add(v.s)),
        s.iter().fold(-0.0f32, |a, v| a + v.f),
        s.iter().fold(-0.0f64, |a, v| a + v.d),
    )
}

/// The expected words of thread `id` (at `lane`) calling with `mask`.
fn expect(id: u32, lane: u32, mask: u32) -> [u32; K] {
    let base = id - lane;
    let members: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    let all: Vec<Inputs> = members.iter().map(|&l| inputs(base + l)).collect();
    let upto: Vec<Inputs> = members
        .iter()
        .filter(|&&l| l <= lane)
        .map(|&l| inputs(base + l))
        .collect();
    let below = &upto[..upto.len() - 1];
    let (au, ai, aw, as_, af, ad) = sums(&all);
    let (iu, ii, iw, is, if_, id_) = sums(&upto);
    let (eu, ei, ew, es, ef, ed) = sums(below);
    let min_u = all.iter().map(|v| v.u).min().unwrap();
    let min_i = all.iter().map(|v| v.i).min().unwrap();
    let min_w = all.iter().map(|v| v.w).min().unwrap();
    let min_s = all.iter().map(|v| v.s).min().unwrap();
    let max_u = all.iter().map(|v| v.u).max().unwrap();
    let max_i = all.iter().map(|v| v.i).max().unwrap();
    let max_w = all.iter().map(|v| v.w).max().unwrap();
    let max_s = all.iter().map(|v| v.s).max().unwrap();
    let and32 = all.iter().fold(u32::MAX, |a, v| a & v.and32);
    let and64 = all.iter().fold(u64::MAX, |a, v| a & v.and64);
    let or32 = all.iter().fold(0, |a, v| a | v.or32);
    let or64 = all.iter().fold(0, |a, v| a | v.or64);
    let xor_u = all.iter().fold(0, |a, v| a ^ v.u);
    let xor_i = all.iter().fold(0, |a, v| a ^ v.i);
    let xor_w = all.iter().fold(0, |a, v| a ^ v.w);
    let lo = |v: u64| v as u32;
    let hi = |v: u64| (v >> 32) as u32;
    [
        au,
        ai as u32,
        lo(aw),
        hi(aw),
        lo(as_ as u64),
        hi(as_ as u64),
        af.to_bits(),
        lo(ad.to_bits()),
        hi(ad.to_bits()),
        min_u,
        min_i as u32,
        lo(min_w),
        hi(min_w),
        lo(min_s as u64),
        hi(min_s as u64),
        max_u,
        max_i as u32,
        lo(max_w),
        hi(max_w),
        lo(max_s as u64),
        hi(max_s as u64),
        and32,
        and32,
        lo(and64),
        hi(and64),
        or32,
        or32,
        lo(or64),
        hi(or64),
        xor_u,
        xor_i as u32,
        lo(xor_w),
        hi(xor_w),
        iu,
        ii as u32,
        lo(iw),
        hi(iw),
        lo(is as u64),
        hi(is as u64),
        if_.to_bits(),
        lo(id_.to_bits()),
        hi(id_.to_bits()),
        eu,
        ei as u32,
        lo(ew),
        hi(ew),
        lo(es as u64),
        hi(es as u64),
        ef.to_bits(),
        lo(ed.to_bits()),
        hi(ed.to_bits()),
        (1u32 << lane).wrapping_sub(1),
        u32::MAX >> (31 - lane),
        1 << lane,
        u32::MAX << lane,
        !(u32::MAX >> (31 - lane)),
        CALLED_BIT,
    ]
}

fn collectives(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("warp_collectives")?;
    let gpu = &ctx.gpu;
    let (mut checked, mut callers, mut launches) = (0u64, 0u64, 0u64);
    let mut partial_callers = 0u64; // lanes of partial warps that called
    let mut total = 0u64;
    for (blocks, threads) in SHAPES {
        let n = blocks * threads;
        total += MODES.len() as u64 * n as u64 * K as u64;
        for mode in MODES {
            let out = gpu.zeros::<u32>(n as usize * K)?;
            unsafe { launch!(kernel<<<blocks, threads, 0, gpu>>>(mode, &out)) }?;
            gpu.wait(TIMEOUT)?;
            let got = gpu.download(&out)?;
            launches += 1;
            for id in 0..n {
                let (tid, lane) = (id % threads, id % threads % 32);
                let lanes = warp_lanes(threads, tid);
                let mask = group(mode, id, lane, lanes);
                let words = &got[id as usize * K..][..K];
                if mask == 0 {
                    if let Some(k) = words.iter().position(|&w| w != 0) {
                        return Err(format!(
                            "{blocks} x {threads}, mode {mode}: thread {id} (lane {lane}) does not call, yet wrote {} = {:#x}",
                            NAMES[k], words[k]
                        )
                        .into());
                    }
                    checked += K as u64;
                    continue;
                }
                callers += 1;
                partial_callers += (lanes != u32::MAX) as u64;
                let want = expect(id, lane, mask);
                // Every wrong word of the first thread with one, so a failure shows its pattern.
                let wrong: Vec<String> = (0..K)
                    .filter(|&k| words[k] != want[k])
                    .map(|k| format!("{} = {:#x}, expected {:#x}", NAMES[k], words[k], want[k]))
                    .collect();
                if !wrong.is_empty() {
                    return Err(format!(
                        "{blocks} x {threads}, mode {mode}: thread {id} (lane {lane}, mask {mask:#010x}): {} of {K} words wrong: {}",
                        wrong.len(),
                        wrong.join("; ")
                    )
                    .into());
                }
                checked += K as u64;
            }
        }
    }
    if checked != total {
        return Err(format!("{checked} words checked of {total}").into());
    }
    // Every mode: 5 in blocks of 100 and 256; partial warps in each mode of the 100-thread
    // blocks but the one whose lanes (5..=22) a 4-lane warp does not have.
    if launches != 10 || partial_callers == 0 {
        return Err(format!("{launches} launches, {partial_callers} partial-warp callers").into());
    }
    Ok(format!(
        "{SHAPES:?} (blocks, threads), 5 masks each (warp, odd lanes, 5..=22, 0 and 31, a \
         hashed subset and its complement in two branches): {callers} calling lanes \
         ({partial_callers} of them in partial warps), {checked} of {total} words exact \
         (6 reductions x 32/64-bit and float types, 2 scans x 6 types, 5 lane masks; lanes \
         that do not call left theirs 0)"
    ))
}

fn arrive_n(ctx: &Ctx) -> Result<String> {
    if ctx.gpu.compute_capability() < (8, 0) {
        return skip("BlockBarrier (mbarrier) needs sm_80");
    }
    let kernel = ctx.kernel("block_barrier_arrive_n")?;
    let gpu = &ctx.gpu;
    const ROUNDS: u32 = 1_000;
    let (mut checks, mut blocks_exact) = (0u64, 0u64);
    let mut want_checks = 0u64;
    let mut want_blocks = 0u64;
    for (blocks, threads) in SHAPES {
        for mode in [0u32, 1] {
            let n = blocks * threads;
            let out = gpu.zeros::<u32>(3 * n as usize)?;
            let smem = 16 + 8 * threads;
            unsafe { launch!(kernel<<<blocks, threads, smem, gpu>>>(mode, ROUNDS, &out)) }?;
            gpu.wait(TIMEOUT)?;
            let got = gpu.download(&out)?;
            for id in 0..n {
                let w = &got[3 * id as usize..][..3];
                if w[0] != ROUNDS || w[1] != 0 {
                    return Err(format!(
                        "{blocks} x {threads}, mode {mode}: thread {id}: {} phases checked (of {ROUNDS}), {} stale neighbour reads",
                        w[0], w[1]
                    )
                    .into());
                }
                checks += u64::from(w[0]);
                if id % threads == 0 {
                    if w[2] != 1 {
                        return Err(format!(
                            "{blocks} x {threads}, mode {mode}: block {}: the barrier did not complete exactly {ROUNDS} phases",
                            id / threads
                        )
                        .into());
                    }
                    blocks_exact += 1;
                }
            }
            want_checks += u64::from(n) * u64::from(ROUNDS);
            want_blocks += u64::from(blocks);
        }
    }
    if checks != want_checks || blocks_exact != want_blocks {
        return Err(format!(
            "{checks} of {want_checks} neighbour checks, {blocks_exact} of {want_blocks} blocks"
        )
        .into());
    }
    Ok(format!(
        "{SHAPES:?} (blocks, threads), {ROUNDS} phases of a BlockBarrier of every thread: each \
         warp's lowest lane arriving for the warp with arrive_n(32), or arrive_n(4) for the \
         partial warp of a 100-thread block, alone and mixed with warps whose lanes arrive one \
         by one: {checks} of {want_checks} neighbour reads fresh after their phase, and \
         {blocks_exact} of {want_blocks} barriers at exactly {ROUNDS} completed phases"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "warp_collectives_reductions_scans_lanemasks" => collectives,
        "block_barrier_arrive_n" => arrive_n,
    ]
}
