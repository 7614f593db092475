//! CUDA's warp intrinsics (`warp::ballot`, `any`, `all`, `uni`, `match_*`, `shfl_*`,
//! `elect_one`, `leader`) on emulated warps (`warp::emulation`: a std thread per lane): a full
//! warp, odd lanes only, a data-dependent subset and its complement running at the same time,
//! a partial last warp, and lanes that have returned. Every lane's every result is compared
//! with a value this file computes on its own from the lanes' inputs (PTX's rules written out
//! again here, not taken from the crate), and the number of checks is exact.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

mod common {
    pub mod lanes;
}

use common::lanes::thread;
use ptx_sync::warp::emulation::{self, converged, Thread, UNDEFINED_WORD};
use ptx_sync::warp::{self, ShuffleValue};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// Long enough for 80 lane threads on two cores, short enough that a deadlock fails quickly.
const LIMIT: Duration = Duration::from_secs(60);

/// Results per lane (see `run_ops`).
const K: usize = 18;

/// A lane's input word (no pattern in the lane number).
fn x(id: u32) -> u32 {
    id.wrapping_mul(0x9e37_79b9).rotate_left(11) ^ 0x5bd1_e995
}

/// Which lanes call together, and what the shuffles' lane operands are.
#[derive(Clone, Copy)]
struct Shape {
    name: &'static str,
    threads: u32,
    /// The group of lanes `t` calls with (0: `t` does not call).
    group: fn(Thread) -> u32,
    up: u32,
    down: u32,
    xor: u32,
}

fn hashed(id: u32) -> bool {
    id.wrapping_mul(0x85eb_ca6b).rotate_left(5) & 8 != 0
}

/// The lanes of `t`'s warp for which `f(id)` holds.
fn lanes_where(t: Thread, f: impl Fn(u32) -> bool) -> u32 {
    (0..32)
        .filter(|&l| t.warp_mask & (1 << l) != 0 && f(t.warp * 32 + l))
        .fold(0, |m, l| m | 1 << l)
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "full warps",
            threads: 64,
            group: |t| t.warp_mask,
            up: 1,
            down: 3,
            xor: 5,
        },
        Shape {
            name: "odd lanes",
            threads: 64,
            group: |t| {
                if t.lane % 2 == 1 {
                    0xaaaa_aaaa & t.warp_mask
                } else {
                    0
                }
            },
            up: 2,
            down: 4,
            xor: 6,
        },
        // Two groups of one warp at once, in two branches: sources outside a group are read.
        Shape {
            name: "hashed subset and its complement",
            threads: 64,
            group: |t| {
                let mine = hashed(t.id);
                lanes_where(t, |id| hashed(id) == mine)
            },
            up: 1,
            down: 2,
            xor: 1,
        },
        // Warp 2 has 16 lanes: `down` and `xor` read lanes it does not have.
        Shape {
            name: "partial last warp (80 threads)",
            threads: 80,
            group: |t| t.warp_mask,
            up: 3,
            down: 7,
            xor: 9,
        },
    ]
}

impl Shape {
    /// The threads of the launch that call, each as `(id, thread, its group's mask)`.
    fn callers(&self) -> impl Iterator<Item = (u32, Thread, u32)> + '_ {
        (0..self.threads).filter_map(|id| {
            let t = thread(self.threads, id);
            let mask = (self.group)(t);
            (mask != 0).then_some((id, t, mask))
        })
    }
}

/// The `n`-th lane of `mask` (n < its popcount).
fn nth_lane(mask: u32, n: u32) -> u32 {
    let mut m = mask;
    for _ in 0..n {
        m &= m - 1;
    }
    m.trailing_zeros()
}

/// The inputs of thread `id`, whose warp is `warp`.
struct In {
    pred_a: bool,
    pred_b: bool,
    pred_c: bool,
    pred_d: bool,
    key32: u32,
    key64: u64,
    same32: u32,
    same64: u64,
    word: u32,
    wide: u64,
    float: f32,
    double: f64,
    signed: i32,
}

fn inputs(id: u32) -> In {
    let (v, warp) = (x(id), id / 32);
    In {
        pred_a: v & 1 != 0,
        pred_b: warp % 2 == 1 && v % 4 == 0,
        pred_c: warp % 2 == 0 || v % 8 != 0,
        pred_d: warp % 2 == 1 || v & 1 != 0,
        key32: v % 4,
        key64: u64::from(v % 3) << 40,
        same32: if warp % 2 == 0 { 42 } else { v % 2 },
        same64: if warp % 2 == 0 {
            1 << 40
        } else {
            u64::from(v % 2) << 40
        },
        word: v,
        wide: u64::from(v) << 32 | u64::from(id),
        float: id as f32 * 0.5,
        double: id as f64 * 0.25 + 0.125,
        signed: -(id as i32),
    }
}

fn some(m: Option<u32>) -> u64 {
    m.map_or(1 << 32, u64::from)
}

/// What lane `t` records, calling with `mask`.
fn run_ops(t: Thread, mask: u32, s: &Shape) -> [u64; K] {
    let i = inputs(t.id);
    let src = nth_lane(mask, i.word % mask.count_ones());
    [
        u64::from(warp::ballot(mask, i.pred_a)),
        u64::from(warp::any(mask, i.pred_b)),
        u64::from(warp::all(mask, i.pred_c)),
        u64::from(warp::uni(mask, i.pred_d)),
        u64::from(warp::match_any_u32(mask, i.key32)),
        u64::from(warp::match_any(mask, i.key64)),
        some(warp::match_all_u32(mask, i.same32)),
        some(warp::match_all(mask, i.same64)),
        u64::from(warp::shfl_idx(mask, i.word, src)),
        u64::from(warp::shfl_up(mask, i.word, s.up)),
        u64::from(warp::shfl_down(mask, i.word, s.down)),
        u64::from(warp::shfl_xor(mask, i.word, s.xor)),
        warp::shfl_idx(mask, i.wide, src),
        u64::from(warp::shfl_down(mask, i.float, s.down).to_bits()),
        warp::shfl_xor(mask, i.double, s.xor).to_bits(),
        u64::from(warp::shfl_up(mask, i.signed, s.up) as u32),
        u64::from(warp::leader(mask)),
        u64::from(warp::elect_one(mask)),
    ]
}

/// PTX's source lane for `shfl.sync` with CUDA's width-32 `c` (0x1f; 0 for up): `None` when
/// out of range (the lane keeps its own value).
fn source(mode: &str, lane: u32, b: u32) -> Option<u32> {
    let b = b & 31;
    let j = match mode {
        "idx" => b as i32,
        "up" => lane as i32 - b as i32,
        "down" => (lane + b) as i32,
        _ => (lane ^ b) as i32,
    };
    let in_range = if mode == "up" { j >= 0 } else { j <= 31 };
    in_range.then_some(j as u32)
}

/// The expected results of lane `t` calling with `mask`, from every lane's inputs.
fn expect(t: Thread, mask: u32, s: &Shape) -> [u64; K] {
    let lanes: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    let of = |l: u32| inputs(t.warp * 32 + l);
    let where_ = |f: &dyn Fn(&In) -> bool| {
        lanes
            .iter()
            .filter(|&&l| f(&of(l)))
            .fold(0u32, |m, &l| m | 1 << l)
    };
    let me = of(t.lane);
    let ballot_a = where_(&|i| i.pred_a);
    let any_b = where_(&|i| i.pred_b) != 0;
    let all_c = where_(&|i| i.pred_c) == mask;
    let d = where_(&|i| i.pred_d);
    let uni_d = d == 0 || d == mask;
    let match32 = where_(&|i| i.key32 == me.key32);
    let match64 = where_(&|i| i.key64 == me.key64);
    let all32 = (where_(&|i| i.same32 == me.same32) == mask).then_some(mask);
    let all64 = (where_(&|i| i.same64 == me.same64) == mask).then_some(mask);
    // A 32-bit word of lane `j`'s value, `own` when out of range, the emulation's marker
    // when lane j does not take part.
    let read = |mode: &str, b: u32, own: u32, word_of: &dyn Fn(&In) -> u32| -> u32 {
        match source(mode, t.lane, b) {
            None => own,
            Some(j) if mask & (1 << j) != 0 => word_of(&of(j)),
            Some(_) => UNDEFINED_WORD,
        }
    };
    let src = nth_lane(mask, me.word % mask.count_ones());
    let wide = |i: &In| i.wide;
    let lo = read("idx", src, wide(&me) as u32, &|i| wide(i) as u32);
    let hi = read("idx", src, (wide(&me) >> 32) as u32, &|i| {
        (wide(i) >> 32) as u32
    });
    let dbl = me.double.to_bits();
    let dlo = read("bfly", s.xor, dbl as u32, &|i| i.double.to_bits() as u32);
    let dhi = read("bfly", s.xor, (dbl >> 32) as u32, &|i| {
        (i.double.to_bits() >> 32) as u32
    });
    [
        u64::from(ballot_a),
        u64::from(any_b),
        u64::from(all_c),
        u64::from(uni_d),
        u64::from(match32),
        u64::from(match64),
        some(all32),
        some(all64),
        u64::from(read("idx", src, me.word, &|i| i.word)),
        u64::from(read("up", s.up, me.word, &|i| i.word)),
        u64::from(read("down", s.down, me.word, &|i| i.word)),
        u64::from(read("bfly", s.xor, me.word, &|i| i.word)),
        u64::from(hi) << 32 | u64::from(lo),
        u64::from(read("down", s.down, me.float.to_bits(), &|i| {
            i.float.to_bits()
        })),
        u64::from(dhi) << 32 | u64::from(dlo),
        u64::from(read("up", s.up, me.signed as u32, &|i| i.signed as u32)),
        u64::from(t.lane == lanes[0]),
        u64::from(t.lane == lanes[0]),
    ]
}

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
    "shfl_idx u64",
    "shfl_down f32",
    "shfl_xor f64",
    "shfl_up i32",
    "leader",
    "elect_one",
];

#[test]
fn every_intrinsic_in_every_calling_shape_gives_exactly_the_ptx_result() {
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
            let r = converged(mask, || run_ops(t, mask, &shape));
            for (k, v) in r.iter().enumerate() {
                g[t.id as usize * K + k].store(*v, Relaxed);
            }
            c.fetch_add(1, Relaxed);
        });
        let mut checked = 0;
        let mut callers = 0;
        for (id, t, mask) in shape.callers() {
            callers += 1;
            let want = expect(t, mask, &shape);
            for k in 0..K {
                let v = got[id as usize * K + k].load(Relaxed);
                assert_eq!(
                    v, want[k],
                    "{}: thread {id} (warp {} lane {}, mask {mask:#010x}): {} = {v:#x}, expected {:#x}",
                    shape.name, t.warp, t.lane, NAMES[k], want[k]
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
    // 64 + 32 + 64 + 80 calling lanes, 18 results each.
    assert_eq!(total, (64 + 32 + 64 + 80) * K);
}

/// The expected results are not all alike: each shape has both outcomes of every vote and
/// match, in-range and out-of-range shuffles, so a constant answer cannot pass.
#[test]
fn the_shapes_exercise_both_outcomes() {
    for shape in shapes() {
        let mut seen = [[false; 2]; 4];
        let mut own = 0;
        let mut moved = 0;
        for (id, t, mask) in shape.callers() {
            let e = expect(t, mask, &shape);
            seen[0][(e[1] != 0) as usize] = true; // any
            seen[1][(e[2] != 0) as usize] = true; // all
            seen[2][(e[3] != 0) as usize] = true; // uni
            seen[3][(e[6] != 1 << 32) as usize] = true; // match_all_u32
            let mine = x(id) as u64;
            if e[9] == mine {
                own += 1;
            } else {
                moved += 1;
            }
        }
        assert_eq!(
            seen, [[true; 2]; 4],
            "{}: any/all/uni/match_all outcomes",
            shape.name
        );
        assert!(
            own > 0 && moved > 0,
            "{}: shfl_up own {own}, moved {moved}",
            shape.name
        );
    }
}

/// PTX's vote, match, shuffle and elect wait only for the lanes of the mask that have not
/// exited: lanes 16..32 return at once, lanes 0..16 call with the full mask.
#[test]
fn lanes_that_returned_are_left_out_of_votes_matches_shuffles_and_elect() {
    let bad = Arc::new(AtomicU32::new(0));
    let checks = Arc::new(AtomicU32::new(0));
    let (b, c) = (bad.clone(), checks.clone());
    emulation::launch(32, LIMIT, move |t| {
        if t.lane >= 16 {
            return;
        }
        let m = u32::MAX;
        let results = [
            (warp::ballot(m, true), 0xffff),
            (warp::any(m, t.lane == 15) as u32, 1),
            (warp::all(m, true) as u32, 1),
            (warp::match_any_u32(m, 7), 0xffff),
            (warp::match_all_u32(m, 7).unwrap_or(0), 0xffff),
            (warp::shfl_idx(m, t.lane, 3), 3),
            (warp::shfl_idx(m, t.lane, 20), UNDEFINED_WORD),
            (
                warp::shfl_down(m, t.lane, 8),
                if t.lane < 8 {
                    t.lane + 8
                } else {
                    UNDEFINED_WORD
                },
            ),
            (warp::elect_one(m) as u32, (t.lane == 0) as u32),
        ];
        for (got, want) in results {
            c.fetch_add(1, Relaxed);
            if got != want {
                b.fetch_add(1, Relaxed);
                eprintln!("lane {}: {got:#x}, expected {want:#x}", t.lane);
            }
        }
    });
    assert_eq!(checks.load(Relaxed), 16 * 9);
    assert_eq!(bad.load(Relaxed), 0);
}

/// A warp sum the way CUDA code writes it: a `shfl_down` tree leaves it in lane 0, a
/// `shfl_xor` butterfly in every lane; u64 values, so every step is two shuffles.
#[test]
fn warp_sums_by_shfl_down_tree_and_shfl_xor_butterfly() {
    let trees = Arc::new((0..64).map(|_| AtomicU64::new(0)).collect::<Vec<_>>());
    let flies = Arc::new((0..64).map(|_| AtomicU64::new(0)).collect::<Vec<_>>());
    let (tr, fl) = (trees.clone(), flies.clone());
    emulation::launch(64, LIMIT, move |t| {
        let v = u64::from(x(t.id)) << 8;
        let (mut tree, mut fly) = (v, v);
        for d in [16, 8, 4, 2, 1] {
            tree += warp::shfl_down(u32::MAX, tree, d);
            fly += warp::shfl_xor(u32::MAX, fly, d);
        }
        tr[t.id as usize].store(tree, Relaxed);
        fl[t.id as usize].store(fly, Relaxed);
    });
    for w in 0..2u32 {
        let want: u64 = (0..32).map(|l| u64::from(x(w * 32 + l)) << 8).sum();
        assert_eq!(
            trees[w as usize * 32].load(Relaxed),
            want,
            "warp {w}: tree in lane 0"
        );
        for l in 0..32 {
            let got = flies[(w * 32 + l) as usize].load(Relaxed);
            assert_eq!(got, want, "warp {w} lane {l}: butterfly");
        }
    }
}

/// Lanes at two different collectives with the same mask never meet: on the GPU a hang, here
/// a failure at the launch's limit that names the instruction.
#[test]
#[should_panic(expected = "still waits for lanes")]
fn lanes_at_different_votes_fail_at_the_limit() {
    emulation::launch(2, Duration::from_millis(300), |t| {
        if t.lane == 0 {
            warp::any(0b11, true);
        } else {
            warp::all(0b11, true);
        }
    });
}

#[test]
#[should_panic(expected = "does not name the calling lane")]
fn a_shuffle_whose_mask_leaves_out_the_caller_fails() {
    emulation::launch(2, LIMIT, |t| {
        warp::shfl_xor(0b01, t.lane, 1);
    });
}

/// Outside `emulation::launch` a thread is a warp of one, lane 0, as in a build without the
/// `warp-emulation` feature (the same functions answer): every collective sees only itself.
#[test]
fn a_thread_outside_a_launch_is_a_warp_of_one() {
    assert_eq!(warp::lane(), 0);
    assert_eq!(warp::active_mask(), 1);
    assert_eq!(warp::ballot(1, true), 1);
    assert_eq!(warp::ballot(1, false), 0);
    assert!(warp::any(1, true) && !warp::any(1, false));
    assert!(warp::all(1, true) && !warp::all(1, false));
    assert!(warp::uni(1, true) && warp::uni(1, false));
    assert_eq!(warp::match_any(1, 9), 1);
    assert_eq!(warp::match_any_u32(1, 9), 1);
    assert_eq!(warp::match_all(1, 9), Some(1));
    assert_eq!(warp::match_all_u32(1, 9), Some(1));
    // The only lane reads itself, whatever the source.
    assert_eq!(warp::shfl_idx(1, 7u32, 0), 7);
    assert_eq!(warp::shfl_up(1, 7u32, 1), 7);
    assert_eq!(warp::shfl_down(1, 1.5f32, 1), 1.5);
    assert_eq!(warp::shfl_xor(1, u64::MAX - 1, 1), u64::MAX - 1);
    assert_eq!(warp::shfl_idx(1, -3i64, 0), -3);
    assert!(warp::elect_one(1));
    assert!(warp::leader(1));
    assert!(!warp::leader(0b10));
    warp::sync(1);
}

/// Every `ShuffleValue` type moves its bits unchanged through the emulated lanes.
#[test]
fn every_shuffle_value_type_moves_its_bits() {
    fn rotate<T: ShuffleValue + PartialEq + std::fmt::Debug>(t: Thread, v: impl Fn(u32) -> T) {
        let got = warp::shfl_idx(u32::MAX, v(t.lane), (t.lane + 1) % 32);
        assert_eq!(got, v((t.lane + 1) % 32), "lane {}", t.lane);
    }
    emulation::launch(32, LIMIT, |t| {
        rotate(t, |l| l * 0x0101_0101);
        rotate(t, |l| -(l as i32) * 1000);
        rotate(t, |l| l as f32 * -0.75);
        rotate(t, |l| u64::from(l) << 40 | 0xffff);
        rotate(t, |l| -(i64::from(l) << 35));
        rotate(t, |l| f64::from(l) * 1e300);
    });
}

/// The emulation itself: a misused collective fails with a message instead of hanging.
#[test]
#[should_panic(expected = "which have returned")]
fn a_warp_barrier_waiting_for_a_returned_lane_fails_with_its_name() {
    emulation::launch(2, LIMIT, |t| {
        if t.lane == 0 {
            ptx_sync::warp::sync(0b11);
        }
    });
}

#[test]
#[should_panic(expected = "still running")]
fn a_deadlocked_launch_fails_at_its_limit() {
    let never = Arc::new(AtomicU32::new(0));
    emulation::launch(1, Duration::from_millis(300), move |_| {
        while never.load(Relaxed) == 0 {
            std::thread::yield_now();
        }
    });
}
