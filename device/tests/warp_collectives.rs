//! The warp reductions (`warp::reduce_add/min/max/and/or/xor`), scans
//! (`warp::inclusive_scan_add`, `exclusive_scan_add`) and lane masks (`warp::lanemask_*`) on
//! emulated warps (`warp::emulation`: a std thread per lane), where every type takes the
//! shuffle tree that sm_70/sm_75 and the 64-bit and float types run on the GPU: full warps, a
//! partial last warp, a contiguous run of lanes, the odd lanes, the two ends of a warp, one
//! lane alone, and a data-dependent subset and its complement in two branches at once (each
//! with its own mask and its own order of calls). Every lane's every result is compared with
//! a value this file computes from the lanes' inputs by plain folds over the mask's lanes (not
//! the crate's tree), and the number of checks is exact.
//!
//! The float inputs are multiples of a power of two small enough that every sum is exact, so
//! the expected sums do not depend on the order of the additions.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

mod common {
    pub mod lanes;
}

use common::lanes::thread;
use ptx_sync::warp;
use ptx_sync::warp::emulation::{self, converged, Thread};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// Long enough for 80 lane threads on two cores, short enough that a deadlock fails quickly.
const LIMIT: Duration = Duration::from_secs(120);

/// Results per lane (see `NAMES`).
const K: usize = 43;

const NAMES: [&str; K] = [
    "reduce_add u32",
    "reduce_add i32",
    "reduce_add u64",
    "reduce_add i64",
    "reduce_add f32",
    "reduce_add f64",
    "reduce_min u32",
    "reduce_min i32",
    "reduce_min u64",
    "reduce_min i64",
    "reduce_max u32",
    "reduce_max i32",
    "reduce_max u64",
    "reduce_max i64",
    "reduce_and u32",
    "reduce_and i32",
    "reduce_and u64",
    "reduce_and i64",
    "reduce_or u32",
    "reduce_or i32",
    "reduce_or u64",
    "reduce_or i64",
    "reduce_xor u32",
    "reduce_xor i32",
    "reduce_xor u64",
    "reduce_xor i64",
    "inclusive_scan_add u32",
    "inclusive_scan_add i32",
    "inclusive_scan_add u64",
    "inclusive_scan_add i64",
    "inclusive_scan_add f32",
    "inclusive_scan_add f64",
    "exclusive_scan_add u32",
    "exclusive_scan_add i32",
    "exclusive_scan_add u64",
    "exclusive_scan_add i64",
    "exclusive_scan_add f32",
    "exclusive_scan_add f64",
    "lanemask_lt",
    "lanemask_le",
    "lanemask_eq",
    "lanemask_ge",
    "lanemask_gt",
];

/// A lane's input word (no pattern in the lane number).
fn x(id: u32) -> u32 {
    id.wrapping_mul(0x9e37_79b9).rotate_left(11) ^ 0x5bd1_e995
}

fn hashed(id: u32) -> bool {
    id.wrapping_mul(0x85eb_ca6b).rotate_left(5) & 8 != 0
}

/// What thread `id` brings: integers of every width and sign (large enough that sums wrap),
/// floats whose sums are exact, and words for the bitwise reductions that keep some bits in
/// every lane (AND) or clear some in every lane (OR), so neither result is all 0 or all 1.
#[derive(Clone, Copy)]
struct In {
    u: u32,
    i: i32,
    w: u64,
    s: i64,
    f: f32,
    d: f64,
    and32: u32,
    or32: u32,
    and64: u64,
    or64: u64,
}

fn inputs(id: u32) -> In {
    let (a, b) = (x(id), x(id ^ 0x5555));
    let w = u64::from(a) << 32 | u64::from(b);
    In {
        u: a,
        i: b as i32,
        w,
        s: (w as i64).rotate_left(7),
        // Multiples of 1/4 in -500..500: 32 of them sum exactly in an f32.
        f: ((a % 4001) as f32 - 2000.0) * 0.25,
        // Multiples of 2^-8 below 2^24 in magnitude: exact in an f64, summed or not.
        d: (f64::from(b) - 2_147_483_648.0) / 256.0,
        and32: a | 0x0f0f_0000,
        or32: a & 0x00f0_0f0f,
        and64: w | 0x0f00_0000_0000_f0f0,
        or64: w & 0x00ff_ff00_ff00_0f0f,
    }
}

/// What lane `t` records, calling with `mask`; `reversed`: the calls in the opposite order
/// (the other branch of a divergent shape), the results in the same places.
fn run_ops(t: Thread, mask: u32, reversed: bool) -> [u64; K] {
    let v = inputs(t.id);
    let m = mask;
    let ops: [&dyn Fn() -> u64; K] = [
        &|| u64::from(warp::reduce_add(m, v.u)),
        &|| u64::from(warp::reduce_add(m, v.i) as u32),
        &|| warp::reduce_add(m, v.w),
        &|| warp::reduce_add(m, v.s) as u64,
        &|| u64::from(warp::reduce_add(m, v.f).to_bits()),
        &|| warp::reduce_add(m, v.d).to_bits(),
        &|| u64::from(warp::reduce_min(m, v.u)),
        &|| u64::from(warp::reduce_min(m, v.i) as u32),
        &|| warp::reduce_min(m, v.w),
        &|| warp::reduce_min(m, v.s) as u64,
        &|| u64::from(warp::reduce_max(m, v.u)),
        &|| u64::from(warp::reduce_max(m, v.i) as u32),
        &|| warp::reduce_max(m, v.w),
        &|| warp::reduce_max(m, v.s) as u64,
        &|| u64::from(warp::reduce_and(m, v.and32)),
        &|| u64::from(warp::reduce_and(m, v.and32 as i32) as u32),
        &|| warp::reduce_and(m, v.and64),
        &|| warp::reduce_and(m, v.and64 as i64) as u64,
        &|| u64::from(warp::reduce_or(m, v.or32)),
        &|| u64::from(warp::reduce_or(m, v.or32 as i32) as u32),
        &|| warp::reduce_or(m, v.or64),
        &|| warp::reduce_or(m, v.or64 as i64) as u64,
        &|| u64::from(warp::reduce_xor(m, v.u)),
        &|| u64::from(warp::reduce_xor(m, v.i) as u32),
        &|| warp::reduce_xor(m, v.w),
        &|| warp::reduce_xor(m, v.s) as u64,
        &|| u64::from(warp::inclusive_scan_add(m, v.u)),
        &|| u64::from(warp::inclusive_scan_add(m, v.i) as u32),
        &|| warp::inclusive_scan_add(m, v.w),
        &|| warp::inclusive_scan_add(m, v.s) as u64,
        &|| u64::from(warp::inclusive_scan_add(m, v.f).to_bits()),
        &|| warp::inclusive_scan_add(m, v.d).to_bits(),
        &|| u64::from(warp::exclusive_scan_add(m, v.u)),
        &|| u64::from(warp::exclusive_scan_add(m, v.i) as u32),
        &|| warp::exclusive_scan_add(m, v.w),
        &|| warp::exclusive_scan_add(m, v.s) as u64,
        &|| u64::from(warp::exclusive_scan_add(m, v.f).to_bits()),
        &|| warp::exclusive_scan_add(m, v.d).to_bits(),
        &|| u64::from(warp::lanemask_lt()),
        &|| u64::from(warp::lanemask_le()),
        &|| u64::from(warp::lanemask_eq()),
        &|| u64::from(warp::lanemask_ge()),
        &|| u64::from(warp::lanemask_gt()),
    ];
    let mut out = [0; K];
    for k in 0..K {
        let k = if reversed { K - 1 - k } else { k };
        out[k] = ops[k]();
    }
    out
}

/// The expected results of lane `t` calling with `mask`: folds over the inputs of the mask's
/// lanes, in lane order.
fn expect(t: Thread, mask: u32) -> [u64; K] {
    let lanes: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    let all: Vec<In> = lanes.iter().map(|l| inputs(t.warp * 32 + l)).collect();
    let upto: Vec<In> = lanes
        .iter()
        .filter(|&&l| l <= t.lane)
        .map(|l| inputs(t.warp * 32 + l))
        .collect();
    let below = &upto[..upto.len() - 1];
    let sums = |s: &[In]| {
        (
            s.iter().fold(0u32, |a, v| a.wrapping_add(v.u)),
            s.iter().fold(0i32, |a, v| a.wrapping_add(v.i)),
            s.iter().fold(0u64, |a, v| a.wrapping_add(v.w)),
            s.iter().fold(0i64, |a, v| a.wrapping_add(v.s)),
            // -0.0: the sum of nothing, as the crate documents for the lowest lane.
            s.iter().fold(-0.0f32, |a, v| a + v.f),
            s.iter().fold(-0.0f64, |a, v| a + v.d),
        )
    };
    let (au, ai, aw, as_, af, ad) = sums(&all);
    let (iu, ii, iw, is, if_, id) = sums(&upto);
    let (eu, ei, ew, es, ef, ed) = sums(below);
    let min = |f: &dyn Fn(&In) -> i128| all.iter().map(f).min().unwrap();
    let max = |f: &dyn Fn(&In) -> i128| all.iter().map(f).max().unwrap();
    let and = |f: &dyn Fn(&In) -> u64| all.iter().map(f).fold(u64::MAX, |a, b| a & b);
    let or = |f: &dyn Fn(&In) -> u64| all.iter().map(f).fold(0, |a, b| a | b);
    let xor = |f: &dyn Fn(&In) -> u64| all.iter().map(f).fold(0, |a, b| a ^ b);
    let l = t.lane;
    [
        u64::from(au),
        u64::from(ai as u32),
        aw,
        as_ as u64,
        u64::from(af.to_bits()),
        ad.to_bits(),
        min(&|v| v.u.into()) as u64,
        u64::from(min(&|v| v.i.into()) as i32 as u32),
        min(&|v| v.w.into()) as u64,
        min(&|v| v.s.into()) as i64 as u64,
        max(&|v| v.u.into()) as u64,
        u64::from(max(&|v| v.i.into()) as i32 as u32),
        max(&|v| v.w.into()) as u64,
        max(&|v| v.s.into()) as i64 as u64,
        and(&|v| v.and32.into()) & 0xffff_ffff,
        and(&|v| v.and32.into()) & 0xffff_ffff,
        and(&|v| v.and64),
        and(&|v| v.and64),
        or(&|v| v.or32.into()),
        or(&|v| v.or32.into()),
        or(&|v| v.or64),
        or(&|v| v.or64),
        xor(&|v| v.u.into()),
        xor(&|v| u64::from(v.i as u32)),
        xor(&|v| v.w),
        xor(&|v| v.s as u64),
        u64::from(iu),
        u64::from(ii as u32),
        iw,
        is as u64,
        u64::from(if_.to_bits()),
        id.to_bits(),
        u64::from(eu),
        u64::from(ei as u32),
        ew,
        es as u64,
        u64::from(ef.to_bits()),
        ed.to_bits(),
        (1u64 << l) - 1,
        (2u64 << l) - 1,
        1 << l,
        u64::from(u32::MAX << l),
        u64::from(u32::MAX << l) & !(1 << l),
    ]
}

/// Which lanes call together: `group(t)` is the mask `t` calls with (0: it does not call).
#[derive(Clone, Copy)]
struct Shape {
    name: &'static str,
    threads: u32,
    group: fn(Thread) -> u32,
}

/// The lanes of `t`'s warp in `bits`, if `t` is one of them.
fn if_in(t: Thread, bits: u32) -> u32 {
    let m = bits & t.warp_mask;
    if m & (1 << t.lane) != 0 {
        m
    } else {
        0
    }
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "full warps",
            threads: 64,
            group: |t| t.warp_mask,
        },
        // Warp 2 has 16 lanes: the upper half of every step but the last is empty.
        Shape {
            name: "partial last warp (80 threads)",
            threads: 80,
            group: |t| t.warp_mask,
        },
        Shape {
            name: "contiguous lanes 5..=22",
            threads: 64,
            group: |t| if_in(t, 0x007f_ffe0),
        },
        Shape {
            name: "odd lanes (80 threads)",
            threads: 80,
            group: |t| if_in(t, 0xaaaa_aaaa),
        },
        // The lowest and highest lane: only the last step joins them.
        Shape {
            name: "lanes 0 and 31",
            threads: 64,
            group: |t| if_in(t, 0x8000_0001),
        },
        Shape {
            name: "lane 13 alone",
            threads: 64,
            group: |t| if_in(t, 1 << 13),
        },
        // Two groups of one warp at once, in two branches (see the launch): every source
        // outside a group is a lane of the other group, at another collective.
        Shape {
            name: "hashed subset and its complement, divergent (80 threads)",
            threads: 80,
            group: |t| {
                let mine = hashed(t.id);
                (0..32)
                    .filter(|&l| t.warp_mask & (1 << l) != 0 && hashed(t.warp * 32 + l) == mine)
                    .fold(0, |m, l| m | 1 << l)
            },
        },
    ]
}

impl Shape {
    /// The threads of the launch that call, each as `(thread, its group's mask)`.
    fn callers(&self) -> impl Iterator<Item = (Thread, u32)> + '_ {
        (0..self.threads).filter_map(|id| {
            let t = thread(self.threads, id);
            let mask = (self.group)(t);
            (mask != 0).then_some((t, mask))
        })
    }
}

#[test]
fn every_reduction_scan_and_lane_mask_in_every_calling_shape_is_exact() {
    let mut total = 0;
    for shape in shapes() {
        let n = shape.threads as usize;
        let got: Arc<Vec<AtomicU64>> = Arc::new((0..n * K).map(|_| AtomicU64::new(0)).collect());
        let called = Arc::new(AtomicU32::new(0));
        let (g, c) = (got.clone(), called.clone());
        emulation::launch(shape.threads, LIMIT, move |t| {
            let mask = (shape.group)(t);
            if mask == 0 {
                return;
            }
            // Two branches: the hashed lanes call in the opposite order. In the other shapes
            // a group's lanes are all on one side, so they agree on the order.
            let r = if hashed(t.id) && shape.name.contains("divergent") {
                converged(mask, || run_ops(t, mask, true))
            } else {
                converged(mask, || run_ops(t, mask, false))
            };
            for (k, v) in r.iter().enumerate() {
                g[t.id as usize * K + k].store(*v, Relaxed);
            }
            c.fetch_add(1, Relaxed);
        });
        let (mut checked, mut callers) = (0, 0);
        for (t, mask) in shape.callers() {
            callers += 1;
            let want = expect(t, mask);
            for k in 0..K {
                let v = got[t.id as usize * K + k].load(Relaxed);
                assert_eq!(
                    v, want[k],
                    "{}: thread {} (warp {} lane {}, mask {mask:#010x}): {} = {v:#x}, expected {:#x}",
                    shape.name, t.id, t.warp, t.lane, NAMES[k], want[k]
                );
                checked += 1;
            }
        }
        assert_eq!(
            called.load(Relaxed),
            callers,
            "{}: lanes that called",
            shape.name
        );
        assert_eq!(
            checked,
            callers as usize * K,
            "{}: results checked",
            shape.name
        );
        total += checked;
    }
    // Calling lanes: 64 + 80 + 2 x 18 + (32 + 8) odd + 2 x 2 ends + 2 alone + 80 divergent.
    assert_eq!(total, (64 + 80 + 36 + 40 + 4 + 2 + 80) * K);
}

/// The expected results tell the masks apart: lane 5 calling with five different masks
/// (the warp, lanes 5..=22, the odd lanes, itself alone, lanes 0, 5 and 31) expects a
/// different value of every reduction and scan under some two of them, so a reduction over
/// the whole warp (or a constant) cannot pass.
#[test]
fn the_expected_results_depend_on_the_mask() {
    let t = thread(64, 5);
    let masks = [u32::MAX, 0x007f_ffe0, 0xaaaa_aaaa, 0x0000_0020, 0x8000_0021];
    // Every result but the lane masks, which do not depend on the mask.
    for (k, name) in NAMES.iter().enumerate().take(K - 5) {
        let seen: std::collections::BTreeSet<u64> = masks
            .iter()
            .filter(|&&m| m & (1 << t.lane) != 0)
            .map(|&m| expect(t, m)[k])
            .collect();
        assert!(seen.len() > 1, "{name}: the same for every mask");
    }
    // AND keeps bits and OR leaves some clear over a full warp: neither is trivial.
    let full = expect(t, u32::MAX);
    assert!(
        full[14] != 0 && full[14] != 0xffff_ffff,
        "AND u32 {:#x}",
        full[14]
    );
    assert!(
        full[18] != 0 && full[18] != 0xffff_ffff,
        "OR u32 {:#x}",
        full[18]
    );
    assert!(full[16] != 0 && full[20] != u64::MAX, "AND/OR u64");
}

/// Outside `emulation::launch` a thread is a warp of one, lane 0: every reduction and scan
/// of its own value is that value (the exclusive scan the identity), as on a GPU lane whose
/// mask is itself.
#[test]
fn a_thread_outside_a_launch_is_a_warp_of_one() {
    assert_eq!(warp::reduce_add(1, 7u32), 7);
    assert_eq!(warp::reduce_add(1, -7i64), -7);
    assert_eq!(warp::reduce_add(1, 1.5f32), 1.5);
    assert_eq!(warp::reduce_min(1, -3i32), -3);
    assert_eq!(warp::reduce_max(1, 9u64), 9);
    assert_eq!(warp::reduce_and(1, 0xf0u32), 0xf0);
    assert_eq!(warp::reduce_or(1, 0xf0i64), 0xf0);
    assert_eq!(warp::reduce_xor(1, 0xf0u32), 0xf0);
    assert_eq!(warp::inclusive_scan_add(1, 4u32), 4);
    assert_eq!(warp::exclusive_scan_add(1, 4u32), 0);
    assert_eq!(
        warp::exclusive_scan_add(1, 4.0f64).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(
        [
            warp::lanemask_lt(),
            warp::lanemask_le(),
            warp::lanemask_eq(),
            warp::lanemask_ge(),
            warp::lanemask_gt()
        ],
        [0, 1, 1, u32::MAX, u32::MAX - 1]
    );
}

/// A warp-wide stream compaction, as kernels use the scan: each lane keeps some items, the
/// exclusive scan of the counts is where its items go, the reduction is how many there are.
/// Lanes of a partial warp (48 threads), so the second warp has 16.
#[test]
fn compaction_by_exclusive_scan_and_reduce_fills_every_slot_once() {
    let slots = Arc::new(
        (0..2 * 32 * 4)
            .map(|_| AtomicU32::new(u32::MAX))
            .collect::<Vec<_>>(),
    );
    let totals = Arc::new((0..2).map(|_| AtomicU32::new(0)).collect::<Vec<_>>());
    let (s, tt) = (slots.clone(), totals.clone());
    emulation::launch(48, LIMIT, move |t| {
        let count = x(t.id) % 4; // 0 to 3 items
        let offset = warp::exclusive_scan_add(t.warp_mask, count);
        let total = warp::reduce_add(t.warp_mask, count);
        for j in 0..count {
            let slot = &s[(t.warp * 128 + offset + j) as usize];
            assert_eq!(
                slot.swap(t.id << 8 | j, Relaxed),
                u32::MAX,
                "slot taken twice"
            );
        }
        if warp::leader(t.warp_mask) {
            tt[t.warp as usize].store(total, Relaxed);
        }
    });
    for w in 0..2u32 {
        let lanes = if w == 0 { 32 } else { 16 };
        let want: u32 = (0..lanes).map(|l| x(w * 32 + l) % 4).sum();
        assert_eq!(totals[w as usize].load(Relaxed), want, "warp {w}: total");
        let filled: Vec<u32> = (0..128)
            .map(|i| slots[(w * 128 + i) as usize].load(Relaxed))
            .take_while(|&v| v != u32::MAX)
            .collect();
        assert_eq!(filled.len() as u32, want, "warp {w}: slots filled");
        // In lane order, each lane's items in order.
        let mut expected = Vec::new();
        for l in 0..lanes {
            let id = w * 32 + l;
            expected.extend((0..x(id) % 4).map(|j| id << 8 | j));
        }
        assert_eq!(filled, expected, "warp {w}: slot contents");
    }
}
