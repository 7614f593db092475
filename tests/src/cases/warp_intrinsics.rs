//! CUDA's warp intrinsics on the GPU (tests/kernels/src/warp_intrinsics.rs): `ballot`, `any`,
//! `all`, `uni`, `match_any(_u32)`, `match_all(_u32)`, `shfl_idx/up/down/xor` on u32, u64, f32
//! and f64, `leader`, and (sm_90) `elect_one`, with the full warp, the odd lanes only, and a
//! data-dependent subset and its complement at once. Every word every lane writes is compared
//! with what this file computes from the lanes' inputs (warp_intrinsics_plan.rs) by PTX's rules;
//! a shuffle whose source lane is outside the mask (undefined in PTX) is the only thing skipped,
//! and counted.

use super::warp_intrinsics_plan::*;
use crate::{skip, Ctx, GpuTest};
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
const BLOCKS: u32 = 132;
const THREADS: u32 = 256;

const NAMES: [&str; K] = [
    "ballot",
    "any",
    "all",
    "uni",
    "match_any_u32",
    "match_any",
    "match_all_u32",
    "match_all",
    "shfl_idx u32",
    "shfl_up u32",
    "shfl_down u32",
    "shfl_xor u32",
    "shfl_idx u64 (low word)",
    "shfl_idx u64 (high word)",
    "shfl_down f32",
    "shfl_xor f64 (low word)",
    "shfl_xor f64 (high word)",
    "called | leader",
];

/// PTX's source lane of `shfl.sync.<mode>` for `lane` with lane operand `b` and CUDA's
/// width-32 `c` (0x1f; 0 for up): `None` when out of range (the lane keeps its own value).
fn source(mode: &str, lane: u32, b: u32) -> Option<u32> {
    let b = (b & 31) as i32;
    let lane = lane as i32;
    let (j, in_range) = match mode {
        "idx" => (b, true),
        "up" => (lane - b, lane - b >= 0),
        "down" => (lane + b, lane + b <= 31),
        _ => (lane ^ b, true),
    };
    in_range.then_some(j as u32)
}

/// The expected words of thread `id` (lane `lane`) calling with `mask` in `mode`; `None` for a
/// word that is undefined (a shuffle reading a lane outside the mask).
fn expect(mode: u32, id: u32, lane: u32, mask: u32) -> [Option<u32>; K] {
    let base = id - lane;
    let members: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    let of = |l: u32| inputs(base + l);
    let lanes_where = |f: &dyn Fn(&Inputs) -> bool| {
        members
            .iter()
            .filter(|&&l| f(&of(l)))
            .fold(0u32, |m, &l| m | 1 << l)
    };
    let me = of(lane);
    let (up, down, xor) = deltas(mode);
    // The word `word_of` of the source lane, or this lane's own when out of range.
    let shfl = |m: &str, b: u32, word_of: &dyn Fn(&Inputs) -> u32| match source(m, lane, b) {
        None => Some(word_of(&me)),
        Some(j) if mask & (1 << j) != 0 => Some(word_of(&of(j))),
        Some(_) => None,
    };
    let all_of = |f: &dyn Fn(&Inputs) -> bool| lanes_where(f) == mask;
    let src = source_lane(id, mask);
    let d = lanes_where(&|i| i.pred_d);
    [
        Some(lanes_where(&|i| i.pred_a)),
        Some((lanes_where(&|i| i.pred_b) != 0) as u32),
        Some(all_of(&|i| i.pred_c) as u32),
        Some((d == 0 || d == mask) as u32),
        Some(lanes_where(&|i| i.key32 == me.key32)),
        Some(lanes_where(&|i| i.key64 == me.key64)),
        Some(if all_of(&|i| i.same32 == me.same32) {
            mask
        } else {
            0
        }),
        Some(if all_of(&|i| i.same64 == me.same64) {
            mask
        } else {
            0
        }),
        shfl("idx", src, &|i| i.word),
        shfl("up", up, &|i| i.word),
        shfl("down", down, &|i| i.word),
        shfl("bfly", xor, &|i| i.word),
        shfl("idx", src, &|i| i.wide as u32),
        shfl("idx", src, &|i| (i.wide >> 32) as u32),
        shfl("down", down, &|i| i.float.to_bits()),
        shfl("bfly", xor, &|i| i.double.to_bits() as u32),
        shfl("bfly", xor, &|i| (i.double.to_bits() >> 32) as u32),
        Some(CALLED_BIT | (lane == members[0]) as u32),
    ]
}

/// Runs `kernel` in `mode` over the plan's grid and returns each thread's `words` words.
fn launch_mode(ctx: &Ctx, name: &str, mode: u32, words: usize) -> Result<Vec<u32>> {
    let kernel = ctx.kernel(name)?;
    let gpu = &ctx.gpu;
    let out = gpu.zeros::<u32>((BLOCKS * THREADS) as usize * words)?;
    unsafe { launch!(kernel<<<BLOCKS, THREADS, 0, gpu>>>(mode, &out)) }?;
    gpu.wait(TIMEOUT)?;
    gpu.download(&out).map_err(Into::into)
}

fn intrinsics(ctx: &Ctx) -> Result<String> {
    let (mut checked, mut undefined, mut callers) = (0u64, 0u64, 0u64);
    let mut outcomes = [[0u64; 2]; 4]; // any, all, uni, match_all_u32: false / true
    for mode in MODES {
        let got = launch_mode(ctx, "warp_intrinsics", mode, K)?;
        for id in 0..BLOCKS * THREADS {
            let lane = id % 32;
            let mask = group(mode, id, lane);
            let words = &got[id as usize * K..][..K];
            if mask == 0 {
                if let Some(k) = words.iter().position(|&w| w != 0) {
                    return Err(format!(
                        "mode {mode}: thread {id} (lane {lane}) does not call, yet wrote {} = {:#x}",
                        NAMES[k], words[k]
                    ).into());
                }
                checked += K as u64;
                continue;
            }
            callers += 1;
            let want = expect(mode, id, lane, mask);
            for k in 0..K {
                match want[k] {
                    None => undefined += 1,
                    Some(w) if w == words[k] => checked += 1,
                    Some(w) => {
                        return Err(format!(
                            "mode {mode}: thread {id} (warp {} lane {lane}, mask {mask:#010x}): {} = {:#x}, expected {w:#x}",
                            id / 32, NAMES[k], words[k]
                        ).into())
                    }
                }
            }
            for (o, k) in outcomes.iter_mut().zip([1, 2, 3, 6]) {
                o[(words[k] != 0) as usize] += 1;
            }
        }
    }
    let total = MODES.len() as u64 * (BLOCKS * THREADS) as u64 * K as u64;
    if checked + undefined != total {
        return Err(format!("{checked} words checked + {undefined} undefined != {total}").into());
    }
    if outcomes.iter().any(|o| o[0] == 0 || o[1] == 0) {
        return Err(format!(
            "an outcome never occurred (any, all, uni, match_all: [false, true] lanes): {outcomes:?}"
        ).into());
    }
    Ok(format!(
        "{BLOCKS} blocks x {THREADS} threads, full warps / odd lanes / a hashed subset and its \
         complement at once ({callers} calling lanes): {checked} of {checked} defined words \
         exact (votes, matches, shuffles of u32/u64/f32/f64, leader; lanes that do not call \
         left theirs 0); {undefined} shuffle results from lanes outside the mask (undefined in \
         PTX) not compared; lanes seeing false/true: any {:?}, all {:?}, uni {:?}, match_all {:?}",
        outcomes[0], outcomes[1], outcomes[2], outcomes[3]
    ))
}

fn elect(ctx: &Ctx) -> Result<String> {
    ctx.require_sm90("elect.sync needs")?;
    if let Err(why) = ctx.kernel("warp_elect_one") {
        return skip(format!(
            "warp_elect_one: {why} (the PTX was built for an arch below sm_90)"
        ));
    }
    let (mut groups, mut lowest, mut lanes) = (0u64, 0u64, 0u64);
    for mode in MODES {
        let got = launch_mode(ctx, "warp_elect_one", mode, 1)?;
        for warp in 0..BLOCKS * THREADS / 32 {
            let base = warp * 32;
            let mut seen = 0u32;
            for lane in 0..32 {
                let mask = group(mode, base + lane, lane);
                if mask == 0 || seen & (1 << lane) != 0 {
                    continue;
                }
                seen |= mask;
                groups += 1;
                let (mut first, mut second) = (0u32, 0u32);
                for l in (0..32).filter(|l| mask & (1 << l) != 0) {
                    let w = got[(base + l) as usize];
                    let leader = (l == mask.trailing_zeros()) as u32;
                    if w & !7 != CALLED_BIT || (w >> 2) & 1 != leader {
                        return Err(format!(
                            "mode {mode}: warp {warp} lane {l} (mask {mask:#010x}) wrote {w:#x}: \
                             not called, or leader wrong"
                        )
                        .into());
                    }
                    first |= (w & 1) << l;
                    second |= ((w >> 1) & 1) << l;
                    lanes += 1;
                }
                if first.count_ones() != 1 || second != first {
                    return Err(format!(
                        "mode {mode}: warp {warp}, mask {mask:#010x}: elected {first:#010x}, then {second:#010x} (want one lane, the same twice)"
                    ).into());
                }
                lowest += (first == 1 << mask.trailing_zeros()) as u64;
            }
        }
    }
    Ok(format!(
        "{groups} groups ({lanes} lanes; full warps, odd lanes, hashed subset and complement): \
         each elected exactly one of its lanes, the same one twice, {groups} of {groups} \
         checked; the hardware elected the group's lowest lane in {lowest} of them"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "warp_intrinsics_votes_matches_shuffles" => intrinsics,
        "warp_elect_one" => elect,
    ]
}
