//! The litmus suite's host logic, checked without a GPU: launches drawn from seeds (placement,
//! locations, block shuffle), what `check` refuses, the histogram bins, the oracle's verdicts
//! per variant, the report formats and the stress-parameter tally.

use ptx_sync_litmus::gpu::{decode, launch_words};
use ptx_sync_litmus::launch::{
    bin, Launch, GARBAGE_BIN, LAUNCH_WORDS, MAX_REGS, NO_FINAL, REGION_GAP,
};
use ptx_sync_litmus::oracle::{Class, Oracle, Variant};
use ptx_sync_litmus::plan::{
    check, draw, is_prime, kernel_name, launch_seed, prime_at_most, Geometry, Knobs, Rng,
    MAX_STRIDE, SCRATCH_WORDS,
};
use ptx_sync_litmus::report::{self, grouped, Outcome, Row};
use ptx_sync_litmus::tests::{shape, Shape, SHAPES};
use ptx_sync_litmus::tuning;
use std::collections::{BTreeMap, BTreeSet, HashSet};

const fn geometry(grid_blocks: u32, block_threads: u32) -> Geometry {
    Geometry {
        grid_blocks,
        block_threads,
    }
}

/// The geometries the placement tests draw on, with how many seeds each gets (fewer on the
/// largest, to keep the brute-force checks quick in debug builds).
const GEOMETRIES: &[(Geometry, u32)] = &[
    (geometry(264, 256), 1),
    (geometry(132, 128), 3),
    (geometry(66, 64), 4),
    (geometry(7, 96), 4),
];

/// Whether (`shape`, `variant`) can be placed on `g` at all: within one CTA every role needs a
/// warp of its own; across CTAs every role needs a block of its own.
fn placeable(s: &Shape, variant: Variant, g: Geometry) -> bool {
    let roles = s.threads.len() as u32;
    if variant.within_cta() {
        roles == 1 || g.block_threads / 32 >= roles
    } else {
        prime_at_most(g.grid_blocks).is_some_and(|p| p >= roles)
    }
}

/// Every placeable (shape, variant, geometry, seed) with its drawn launch.
fn drawn_launches() -> impl Iterator<Item = (&'static Shape, Variant, Geometry, Launch)> {
    let knobs = Knobs::default();
    SHAPES.iter().flat_map(move |s| {
        let knobs = knobs.clone();
        Variant::ALL.into_iter().flat_map(move |v| {
            let knobs = knobs.clone();
            GEOMETRIES
                .iter()
                .filter(move |(g, _)| placeable(s, v, *g))
                .flat_map(move |&(g, seeds)| {
                    let knobs = knobs.clone();
                    (0..seeds as u64).map(move |k| {
                        let seed = launch_seed(0x5eed, s.name, v, k);
                        (s, v, g, draw(s, v, g, &knobs, seed).unwrap())
                    })
                })
        })
    })
}

fn what(s: &Shape, v: Variant, g: Geometry, l: &Launch) -> String {
    format!(
        "{} {} on {}x{} (seed {:#x})",
        s.name,
        v.name(),
        g.grid_blocks,
        g.block_threads,
        l.seed
    )
}

/// For every (instance, role): the thread `(logical block, lane)` that plays it, by brute force
/// over every testing thread and role. Panics if a pair is played twice or not at all.
fn players(l: &Launch, what: &str) -> Vec<(u32, u32)> {
    let n = l.instances() as usize;
    let roles = l.roles as usize;
    let mut by = vec![(u32::MAX, u32::MAX); n * roles];
    for b in 0..l.testing_blocks {
        for lane in 0..l.block_threads {
            for r in 0..l.roles {
                let i = l.instance(b, lane, r) as usize;
                assert!(i < n, "{what}: instance {i} of {n} (block {b} lane {lane})");
                let slot = &mut by[i * roles + r as usize];
                assert_eq!(
                    *slot,
                    (u32::MAX, u32::MAX),
                    "{what}: role {r} of instance {i} played twice"
                );
                *slot = (b, lane);
            }
        }
    }
    assert!(
        by.iter().all(|&p| p != (u32::MAX, u32::MAX)),
        "{what}: some (instance, role) never played"
    );
    by
}

/// Whether `key` of the (few) items is pairwise distinct.
fn distinct<T: Copy, K: PartialEq>(items: &[T], key: impl Fn(T) -> K) -> bool {
    (0..items.len()).all(|a| (a + 1..items.len()).all(|b| key(items[a]) != key(items[b])))
}

/// Where the roles of every instance run: once each, in distinct CTAs (across) or in one CTA
/// and distinct warps (within).
fn assert_placement(l: &Launch, what: &str) {
    let roles = l.roles as usize;
    let w = l.block_threads as usize;
    for (i, p) in players(l, what).chunks(roles).enumerate() {
        if l.within_cta != 0 {
            assert!(
                p.iter().all(|&(b, _)| b as usize == i / w),
                "{what}: instance {i}'s roles not all in its own block: {p:?}"
            );
            assert!(
                distinct(p, |(_, lane)| lane / 32),
                "{what}: instance {i}'s roles share a warp: {p:?}"
            );
        } else {
            assert!(
                distinct(p, |(b, _)| b),
                "{what}: instance {i}'s roles share a CTA: {p:?}"
            );
        }
    }
}

// 1. Placement.

#[test]
fn drawn_launches_play_every_instance_role_once_in_distinct_ctas_or_warps() {
    let mut cells = 0;
    let mut across = 0;
    let mut within = 0;
    for (s, v, g, l) in drawn_launches() {
        let what = what(s, v, g, &l);
        assert_eq!(check(&l), Ok(()), "{what}");
        assert_eq!(l.roles as usize, s.threads.len(), "{what}");
        assert_eq!(l.within_cta != 0, v.within_cta(), "{what}");
        assert_eq!(
            (l.grid_blocks, l.block_threads),
            (g.grid_blocks, g.block_threads)
        );
        // Between half the grid and all of it; across CTAs, the prime at or below that.
        let least = if v.within_cta() {
            g.grid_blocks / 2
        } else {
            prime_at_most(g.grid_blocks / 2).unwrap_or(0)
        };
        assert!(
            l.testing_blocks >= least && l.testing_blocks <= g.grid_blocks,
            "{what}: {} testing blocks",
            l.testing_blocks
        );
        if !v.within_cta() {
            assert!(is_prime(l.testing_blocks), "{what}: {}", l.testing_blocks);
            across += 1;
        } else {
            within += 1;
        }
        assert_placement(&l, &what);
        cells += 1;
    }
    // 14 shapes x 4 variants on 4 geometries, less the within-CTA cells of 3- and 4-role shapes
    // on blocks of too few warps.
    assert!(cells > 400, "{cells} launches checked");
    assert!(
        across > 200 && within > 100,
        "{across} across, {within} within"
    );
}

#[test]
fn placement_is_what_the_formulas_say_for_a_hand_made_launch() {
    // T = 5 testing blocks of 64 threads, lane 0 steps 1 + (0 * 3 + 1) % 4 = 2 blocks.
    let l = Launch {
        grid_blocks: 6,
        block_threads: 64,
        testing_blocks: 5,
        block_mul: 1,
        step_mul: 3,
        step_add: 1,
        roles: 3,
        locations: 2,
        regs: 2,
        finals: [NO_FINAL; 2],
        loc_mul: [1, 1, 1],
        stride: 64,
        stress_lines: 1,
        stress_line_words: 32,
        scratch_words: SCRATCH_WORDS,
        ..Launch::default()
    };
    assert_eq!(check(&l), Ok(()));
    assert_eq!(l.block_step(0), 2);
    assert_eq!(l.block_step(1), 1, "1 + (1 * 3 + 1) % 4");
    assert_eq!(l.instance(0, 0, 0), 0);
    assert_eq!(l.instance(0, 0, 1), 2 * 64);
    assert_eq!(l.instance(0, 0, 2), 4 * 64);
    // Lane 7 steps 1 + (7 * 3 + 1) % 4 = 3 blocks: from block 4 to (4 + 3) mod 5 = 2, then to (4 + 6) mod 5 = 0.
    assert_eq!(l.block_step(7), 3);
    assert_eq!(l.instance(4, 7, 1), 2 * 64 + 7);
    assert_eq!(l.instance(4, 7, 2), 7);
    assert_placement(&l, "hand-made across");
    // Within one CTA of 2 warps: 2 roles, a warp apart.
    let within = Launch {
        within_cta: 1,
        lane_step: 32,
        roles: 2,
        ..l
    };
    assert_eq!(check(&within), Ok(()));
    assert_eq!(within.instance(3, 5, 0), 3 * 64 + 5);
    assert_eq!(within.instance(3, 5, 1), 3 * 64 + 37);
    assert_eq!(within.instance(3, 40, 1), 3 * 64 + 8);
}

// 2. Locations.

#[test]
fn locations_are_distinct_in_bounds_and_in_their_own_regions() {
    for (s, v, g, l) in drawn_launches() {
        let what = what(s, v, g, &l);
        let n = l.instances();
        let region = l.region_words();
        assert_eq!(region, n as u64 * l.stride as u64 + REGION_GAP, "{what}");
        assert!(l.test_words() <= g.max_test_words(), "{what}");
        assert!(
            (n as u64) * (l.regs as u64) <= g.max_out_words(),
            "{what}: registers"
        );
        // One bit per (region, slot): distinct slots of a region are at least a stride apart.
        let mut used = vec![false; (l.locations as u64 * n as u64) as usize];
        for i in 0..n {
            for loc in 0..l.locations {
                let word = l.word(i, loc);
                assert!(word < l.test_words(), "{what}: word {word} of {i}.{loc}");
                assert_eq!(
                    word / region,
                    loc as u64,
                    "{what}: {i}.{loc} outside its region"
                );
                let within = word % region;
                assert_eq!(within % l.stride as u64, 0, "{what}");
                assert!(within < n as u64 * l.stride as u64, "{what}: in the gap");
                let slot = &mut used[(loc as u64 * n as u64 + within / l.stride as u64) as usize];
                assert!(!*slot, "{what}: {i}.{loc} shares a slot");
                *slot = true;
            }
        }
        assert!(used.iter().all(|&u| u), "{what}: unused slots");
    }
}

/// The smallest distance, in words, between two locations of one instance.
fn closest_own_locations(l: &Launch) -> u64 {
    let mut min = u64::MAX;
    for i in 0..l.instances() {
        for a in 0..l.locations {
            for b in a + 1..l.locations {
                min = min.min(l.word(i, a).abs_diff(l.word(i, b)));
            }
        }
    }
    min
}

#[test]
fn locations_of_one_instance_are_at_least_64_words_apart_with_wide_strides() {
    let knobs = Knobs {
        strides: vec![64, 128],
    };
    let g = geometry(132, 128);
    for s in SHAPES.iter().filter(|s| s.locations() > 1) {
        for v in Variant::ALL {
            for k in 0..2 {
                let l = draw(s, v, g, &knobs, launch_seed(7, s.name, v, k)).unwrap();
                let what = what(s, v, g, &l);
                assert!(knobs.strides.contains(&l.stride), "{what}");
                let min = closest_own_locations(&l);
                assert!(min >= 64, "{what}: locations {min} words apart");
            }
        }
    }
}

/// One instance's locations are at least 64 words apart with the default strides (1 and 4
/// included), because regions are separated by `REGION_GAP` words. (Before the gap, a launch
/// at stride 1 put an instance's x and y 4 words apart: MP relaxed on 132 x 128, strides [1],
/// seed 0x3460a3cc, instance 5904.)
#[test]
fn locations_of_one_instance_are_at_least_64_words_apart_with_default_strides() {
    let g = geometry(132, 128);
    let knobs = Knobs::default();
    for s in SHAPES.iter().filter(|s| s.locations() > 1) {
        for v in Variant::ALL {
            for k in 0..4 {
                let l = draw(s, v, g, &knobs, launch_seed(7, s.name, v, k)).unwrap();
                let min = closest_own_locations(&l);
                assert!(
                    min >= 64,
                    "{}: locations {min} words apart",
                    what(s, v, g, &l)
                );
            }
        }
    }
}

#[test]
fn locations_of_one_instance_are_at_least_a_stride_apart() {
    let knobs = Knobs { strides: vec![1] };
    let g = geometry(132, 128);
    let s = shape("MP").unwrap();
    for k in 0..8 {
        let l = draw(
            s,
            Variant::Relaxed,
            g,
            &knobs,
            launch_seed(7, s.name, Variant::Relaxed, k),
        )
        .unwrap();
        assert_eq!(check(&l), Ok(()));
        assert!(closest_own_locations(&l) >= l.stride as u64);
    }
}

#[test]
fn draw_refuses_blocks_with_fewer_warps_than_roles() {
    // IRIW within one CTA needs 4 warps; 64-thread blocks have 2.
    let s = shape("IRIW").unwrap();
    let err = draw(
        s,
        Variant::CtaWithinCta,
        geometry(66, 64),
        &Knobs::default(),
        1,
    )
    .unwrap_err();
    assert!(
        err.starts_with("no valid launch of IRIW (cta-within-cta)"),
        "{err}"
    );
    assert!(err.contains("raise --threads"), "{err}");
}

#[test]
fn draw_refuses_grids_with_fewer_blocks_than_roles() {
    // IRIW across CTAs needs 4 testing blocks; a 1-SM GPU at 2 blocks per SM has 2.
    let s = shape("IRIW").unwrap();
    let err = draw(s, Variant::Relaxed, geometry(2, 256), &Knobs::default(), 1).unwrap_err();
    assert!(
        err.starts_with("no valid launch of IRIW (relaxed) on 2 blocks"),
        "{err}"
    );
}

// 3. Block shuffle and stress lines.

#[test]
fn logical_block_is_a_permutation_of_the_grid() {
    for (s, v, g, l) in drawn_launches() {
        let what = what(s, v, g, &l);
        let logical: Vec<u32> = (0..l.grid_blocks).map(|p| l.logical_block(p)).collect();
        let mut sorted = logical.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..l.grid_blocks).collect::<Vec<_>>(), "{what}");
        let testing = logical.iter().filter(|&&b| b < l.testing_blocks).count();
        assert_eq!(testing as u32, l.testing_blocks, "{what}");
    }
}

#[test]
fn stress_lines_lie_in_the_scratch_area() {
    for (s, v, g, l) in drawn_launches() {
        let what = what(s, v, g, &l);
        let mut lines = BTreeSet::new();
        for b in 0..l.grid_blocks {
            let w = l.stress_word(b);
            assert_eq!(w % l.stress_line_words, 0, "{what}");
            assert!(
                w + l.stress_line_words <= l.scratch_words,
                "{what}: line at {w}"
            );
            lines.insert(w);
        }
        assert!(lines.len() as u32 <= l.stress_lines, "{what}");
    }
}

// 4. What `check` refuses.

/// A valid launch of `name` (`variant`) on 132 x 128 to break.
fn valid(name: &str, variant: Variant) -> Launch {
    let s = shape(name).unwrap();
    let l = draw(s, variant, geometry(132, 128), &Knobs::default(), 12345).unwrap();
    assert_eq!(check(&l), Ok(()));
    l
}

fn refused(l: Launch, why: &str) {
    assert!(check(&l).is_err(), "check accepted {why}: {l:?}");
}

/// Whether the brute-force placement check rejects `l` (so its acceptances mean something).
fn placement_rejected(l: &Launch) -> bool {
    std::panic::catch_unwind(|| assert_placement(l, "expected to fail")).is_err()
}

#[test]
fn check_refuses_a_block_step_that_repeats_a_cta() {
    // WRC (3 roles) on T = 132 testing blocks (not prime): a step of 66 puts role 2 back in
    // role 0's block.
    let l = Launch {
        testing_blocks: 132,
        step_mul: 0,
        step_add: 65,
        loc_mul: [1, 1, 1],
        ..valid("WRC", Variant::Synchronized)
    };
    assert_eq!(l.block_step(0), 66);
    assert_eq!(l.instance(0, 0, 0), l.instance(0, 0, 2));
    assert!(placement_rejected(&l));
    let err = check(&l).unwrap_err();
    assert!(err.contains("repeats a CTA"), "{err}");
    // One lane's step is enough: only lane 17 steps 66 (step_mul 1, step_add 48 -> 1 + 65).
    let one_lane = Launch {
        testing_blocks: 132,
        step_mul: 1,
        step_add: 48,
        ..l
    };
    assert_eq!(one_lane.block_step(17), 66);
    assert_ne!(one_lane.block_step(16), 66);
    refused(one_lane, "lane 17 stepping half of 132 blocks");
    // A prime T accepts the same steps.
    let prime = Launch {
        testing_blocks: 131,
        ..one_lane
    };
    assert_eq!(check(&prime), Ok(()));
    assert_placement(&prime, "WRC on 131 blocks");
    // Two roles never repeat a CTA: any step in 1..T works, prime or not.
    let two = Launch {
        testing_blocks: 132,
        step_mul: 0,
        step_add: 65,
        loc_mul: [1, 1, 1],
        ..valid("MP", Variant::Synchronized)
    };
    assert_eq!(check(&two), Ok(()));
    assert_placement(&two, "MP on 132 blocks");
    // Fewer testing blocks than roles.
    refused(
        Launch {
            testing_blocks: 2,
            ..valid("IRIW", Variant::Relaxed)
        },
        "2 blocks for 4 roles",
    );
}

#[test]
fn check_refuses_a_lane_step_that_puts_roles_in_one_warp() {
    let base = valid("MP", Variant::CtaWithinCta);
    assert_eq!(base.within_cta, 1);
    for step in [0, 1, 31, 128, 129, 160 - 1] {
        let l = Launch {
            lane_step: step,
            ..base
        };
        let err = check(&l).unwrap_err();
        assert!(err.contains("share a warp"), "step {step}: {err}");
        assert!(placement_rejected(&l), "step {step}");
    }
    for step in [32, 64, 96, 160] {
        let l = Launch {
            lane_step: step,
            ..base
        };
        assert_eq!(check(&l), Ok(()), "lane step {step}");
        assert_placement(&l, "MP within one CTA");
    }
    // IRIW: 4 roles in 4 warps of 128 threads: only steps of 1 or 3 warps work.
    let iriw = valid("IRIW", Variant::CtaWithinCta);
    assert!([32, 96].contains(&iriw.lane_step), "{}", iriw.lane_step);
    let two_warps = Launch {
        lane_step: 64,
        ..iriw
    };
    refused(two_warps, "IRIW with a 2-warp lane step");
    assert!(placement_rejected(&two_warps));
}

#[test]
fn check_refuses_malformed_launches() {
    let base = valid("S", Variant::Synchronized);
    assert_eq!((base.regs, base.finals), (1, [0, NO_FINAL]));
    let finals = [0, 1];
    refused(
        Launch {
            regs: 3,
            finals,
            ..base
        },
        "3 registers + 2 finals",
    );
    refused(
        Launch {
            regs: MAX_REGS + 1,
            finals: [NO_FINAL; 2],
            ..base
        },
        "5 registers",
    );
    assert_eq!(
        check(&Launch {
            regs: 2,
            finals,
            ..base
        }),
        Ok(()),
        "2 registers + 2 finals"
    );
    refused(
        Launch {
            finals: [2, NO_FINAL],
            ..base
        },
        "a final location past the shape's",
    );
    refused(
        Launch {
            block_mul: 2,
            ..base
        },
        "block_mul 2 of 132 blocks",
    );
    refused(
        Launch {
            block_mul: 33,
            ..base
        },
        "block_mul 33 of 132 blocks",
    );
    refused(
        Launch {
            block_mul: 0,
            ..base
        },
        "block_mul 0",
    );
    refused(Launch { stride: 0, ..base }, "stride 0");
    refused(
        Launch {
            stride: MAX_STRIDE + 1,
            ..base
        },
        "a stride past the buffer",
    );
    let n = base.instances();
    refused(
        Launch {
            loc_mul: [base.loc_mul[0], 2, base.loc_mul[2]],
            ..base
        },
        "a location multiplier sharing a factor with the instances",
    );
    refused(
        Launch {
            loc_mul: [n, 1, 1],
            ..base
        },
        "a location multiplier of n",
    );
    refused(
        Launch {
            block_threads: 100,
            ..base
        },
        "100 threads",
    );
    refused(
        Launch {
            block_threads: 0,
            ..base
        },
        "0 threads",
    );
    refused(
        Launch {
            block_threads: 2048,
            ..base
        },
        "2048 threads",
    );
    refused(
        Launch {
            testing_blocks: 0,
            ..base
        },
        "no testing block",
    );
    refused(
        Launch {
            testing_blocks: 133,
            ..base
        },
        "more testing blocks than the grid",
    );
    refused(Launch { roles: 0, ..base }, "no role");
    refused(Launch { roles: 5, ..base }, "5 roles");
    refused(
        Launch {
            locations: 4,
            ..base
        },
        "4 locations",
    );
    refused(
        Launch {
            stress_lines: 0,
            ..base
        },
        "no stress line",
    );
    refused(
        Launch {
            stress_line_words: 0,
            ..base
        },
        "empty stress lines",
    );
    refused(
        Launch {
            stress_line_words: SCRATCH_WORDS + 1,
            ..base
        },
        "a stress line past the scratch area",
    );
}

// 5. Histogram bins.

#[test]
fn bins_decode_back_to_their_outcomes() {
    for len in 1..=4usize {
        let mut bins = BTreeSet::new();
        for code in 0..4u32.pow(len as u32) {
            let v: Vec<u32> = (0..len).map(|k| (code >> (2 * k)) & 3).collect();
            let b = bin(&v);
            assert!(b < 4u32.pow(len as u32) && b != GARBAGE_BIN, "{v:?} -> {b}");
            assert_eq!(decode(b, len), Some(v.clone()), "bin {b} of {len}");
            bins.insert(b);
            // Any value above 3, anywhere, is garbage.
            for k in 0..len {
                for bad in [4, 5, 255, u32::MAX] {
                    let mut w = v.clone();
                    w[k] = bad;
                    assert_eq!(bin(&w), GARBAGE_BIN, "{w:?}");
                }
            }
        }
        assert_eq!(bins.len(), 4usize.pow(len as u32), "distinct bins of {len}");
        assert_eq!(decode(GARBAGE_BIN, len), None);
        if len < 4 {
            assert_eq!(
                decode(4u32.pow(len as u32), len),
                None,
                "past the bins of {len}"
            );
        }
    }
    assert_eq!(bin(&[1, 0]), 1);
    assert_eq!(bin(&[0, 1]), 4);
    assert_eq!(bin(&[3, 3, 3, 3]), 255);
    assert_eq!(bin(&[]), 0);
}

#[test]
fn every_shapes_weak_outcome_has_a_bin() {
    for s in SHAPES {
        let b = bin(s.weak);
        assert_ne!(b, GARBAGE_BIN, "{}", s.name);
        assert_eq!(
            decode(b, s.outcome_len()).as_deref(),
            Some(s.weak),
            "{}",
            s.name
        );
    }
}

// 6. Seeds and launch words.

#[test]
fn launch_seeds_are_deterministic_and_distinct() {
    let mp = shape("MP").unwrap();
    assert_eq!(
        launch_seed(1, "MP", Variant::Synchronized, 3),
        launch_seed(1, "MP", Variant::Synchronized, 3)
    );
    assert_ne!(
        launch_seed(1, "MP", Variant::Synchronized, 3),
        launch_seed(2, "MP", Variant::Synchronized, 3),
        "base seed"
    );
    let mut all = HashSet::new();
    for s in SHAPES {
        for v in Variant::ALL {
            for k in 0..32 {
                let seed = launch_seed(0xfeed, s.name, v, k);
                assert!(
                    all.insert(seed),
                    "{} {} launch {k}: {seed:#x} repeats",
                    s.name,
                    v.name()
                );
            }
        }
    }
    let g = geometry(132, 128);
    let knobs = Knobs::default();
    let seed = launch_seed(9, mp.name, Variant::Relaxed, 0);
    let a = draw(mp, Variant::Relaxed, g, &knobs, seed).unwrap();
    assert_eq!(a, draw(mp, Variant::Relaxed, g, &knobs, seed).unwrap());
    assert_eq!(a.seed, seed);
    let mut launches = vec![a];
    for k in 1..16 {
        let l = draw(mp, Variant::Relaxed, g, &knobs, seed.wrapping_add(k)).unwrap();
        assert!(!launches.contains(&l), "seed + {k} draws an earlier launch");
        launches.push(l);
    }
}

#[test]
fn launch_words_are_the_fields_in_order() {
    assert_eq!(LAUNCH_WORDS, 28);
    let mp = shape("MP").unwrap();
    let l = draw(
        mp,
        Variant::Synchronized,
        geometry(132, 128),
        &Knobs::default(),
        0xdead_beef,
    )
    .unwrap();
    let w = launch_words(&l);
    assert_eq!(w.len(), LAUNCH_WORDS);
    assert_eq!(w[0], 0xdead_beef);
    assert_eq!(w[0], l.seed);
    assert_eq!(
        &w[1..4],
        &[l.grid_blocks, l.block_threads, l.testing_blocks]
    );
    assert_eq!(&w[10..13], &l.loc_mul);
    assert_eq!(w[13], l.stride);
    assert_eq!(&w[17..19], &l.finals);
    assert_eq!(w[LAUNCH_WORDS - 1], l.scratch_words);
    assert_eq!(w[LAUNCH_WORDS - 1], SCRATCH_WORDS);
}

#[test]
fn rng_stays_in_range_and_is_reproducible() {
    let mut a = Rng::new(42);
    let mut b = Rng::new(42);
    for _ in 0..1000 {
        let x = a.range(32, 96);
        assert_eq!(x, b.range(32, 96));
        assert!((32..=96).contains(&x));
        assert!(a.below(7) < 7);
        b.below(7);
        assert!([1, 4, 64].contains(&a.pick(&[1, 4, 64])));
        b.pick(&[1, 4, 64]);
    }
    assert_eq!(a.range(5, 5), 5);
    assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
}

#[test]
fn primes() {
    let small: Vec<u32> = (0..40).filter(|&n| is_prime(n)).collect();
    assert_eq!(small, [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]);
    assert!(is_prime(131) && !is_prime(132) && !is_prime(121) && is_prime(263));
    assert_eq!(prime_at_most(0), None);
    assert_eq!(prime_at_most(1), None);
    assert_eq!(prime_at_most(2), Some(2));
    assert_eq!(prime_at_most(132), Some(131));
    assert_eq!(prime_at_most(264), Some(263));
    assert_eq!(prime_at_most(66), Some(61));
}

// 7. Kernel names.

#[test]
fn kernel_names() {
    let name = |s: &str, v| kernel_name(shape(s).unwrap(), v);
    assert_eq!(name("2+2W", Variant::Synchronized), "litmus_2p2w_sync_gpu");
    assert_eq!(name("MP", Variant::Relaxed), "litmus_mp_relaxed_gpu");
    assert_eq!(name("IRIW", Variant::CtaAcrossCtas), "litmus_iriw_sync_cta");
    assert_eq!(name("IRIW", Variant::CtaWithinCta), "litmus_iriw_sync_cta");
    assert_eq!(name("CoWW", Variant::CtaWithinCta), "litmus_coww_sync_cta");
    let names: BTreeSet<String> = SHAPES
        .iter()
        .flat_map(|s| Variant::ALL.map(|v| kernel_name(s, v)))
        .collect();
    // Three kernels per shape: the two .cta variants share one.
    assert_eq!(names.len(), 3 * SHAPES.len());
    assert!(names
        .iter()
        .all(|n| n.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')));
}

// 8. The oracle.

#[test]
fn oracle_forbids_and_allows_the_weak_outcome_per_variant() {
    let weak = |s: &str, v| {
        let shape = shape(s).unwrap();
        Oracle::new(shape).classify(shape.weak, v)
    };
    assert_eq!(weak("CoWW", Variant::CtaAcrossCtas), Class::Forbidden);
    assert_eq!(weak("CoRR", Variant::CtaAcrossCtas), Class::WeakAllowed);
    assert_eq!(weak("MP", Variant::Relaxed), Class::WeakAllowed);
    assert_eq!(weak("MP", Variant::CtaAcrossCtas), Class::WeakAllowed);
    for s in SHAPES {
        let o = Oracle::new(s);
        for v in [Variant::CtaWithinCta, Variant::Synchronized] {
            assert!(o.forbids_weak(v), "{} {}", s.name, v.name());
            assert_eq!(
                o.classify(s.weak, v),
                Class::Forbidden,
                "{} {}",
                s.name,
                v.name()
            );
        }
        assert_eq!(
            o.forbids_weak(Variant::Relaxed),
            s.coherence,
            "{} relaxed",
            s.name
        );
        if !s.coherence {
            assert_eq!(
                o.classify(s.weak, Variant::CtaAcrossCtas),
                Class::WeakAllowed,
                "{}",
                s.name
            );
        }
        for v in Variant::ALL {
            for sc in o.sc_outcomes() {
                assert_eq!(o.classify(sc, v), Class::Sc, "{} {sc:?}", s.name);
            }
            let impossible = vec![3; s.outcome_len()];
            if !o.sc_outcomes().contains(&impossible) && impossible != s.weak {
                assert_eq!(o.classify(&impossible, v), Class::Impossible, "{}", s.name);
            }
        }
    }
    let coherence: Vec<&str> = SHAPES
        .iter()
        .filter(|s| s.coherence)
        .map(|s| s.name)
        .collect();
    assert_eq!(coherence, ["CoRR", "CoWW", "CoRW", "CoWR"]);
    for name in coherence {
        assert_eq!(weak(name, Variant::Relaxed), Class::Forbidden, "{name}");
    }
    assert!(Variant::Relaxed.is_control() && Variant::CtaAcrossCtas.is_control());
    assert!(!Variant::Synchronized.is_control() && !Variant::CtaWithinCta.is_control());
}

// 9. The report.

fn outcome(label: &str, count: u64, class: Class) -> Outcome {
    Outcome {
        label: label.into(),
        count,
        class,
    }
}

fn row(claim: bool, instances: u64, outcomes: Vec<Outcome>) -> Row {
    Row {
        test: "MP".into(),
        variant: if claim { "sync" } else { "relaxed" }.into(),
        scope: "gpu".into(),
        placement: "across CTAs".into(),
        instances,
        outcomes,
        launches: 3,
        seconds: 1.5,
        claim,
    }
}

#[test]
fn verdicts() {
    let ok = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 60, Class::Sc),
            outcome("[1, 1]", 40, Class::Sc),
        ],
    );
    assert_eq!(ok.verdict(), "ok: 0 forbidden");
    assert!(ok.passed());
    assert_eq!((ok.weak(), ok.forbidden(), ok.impossible()), (0, 0, 0));

    let forbidden = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 99, Class::Sc),
            outcome("[1, 0]", 1, Class::Forbidden),
        ],
    );
    assert_eq!(forbidden.verdict(), "FORBIDDEN SEEN");
    assert!(!forbidden.passed());
    assert_eq!((forbidden.weak(), forbidden.forbidden()), (1, 1));

    let impossible = row(
        true,
        100,
        vec![
            outcome("[0, 0]", 99, Class::Sc),
            outcome("value > 3", 1, Class::Impossible),
        ],
    );
    assert_eq!(impossible.verdict(), "HARNESS ERROR");
    assert!(!impossible.passed());
    // Impossible outranks forbidden.
    let both = row(
        true,
        3,
        vec![
            outcome("[2, 0]", 1, Class::Impossible),
            outcome("[1, 0]", 1, Class::Forbidden),
            outcome("[0, 0]", 1, Class::Sc),
        ],
    );
    assert_eq!(both.verdict(), "HARNESS ERROR");

    for instances in [99, 101, 0] {
        let short = row(true, instances, vec![outcome("[0, 0]", 100, Class::Sc)]);
        assert_eq!(short.verdict(), "HARNESS ERROR", "{instances}");
        assert!(!short.passed());
    }

    let weak = row(
        false,
        1_000_000,
        vec![
            outcome("[0, 0]", 999_750, Class::Sc),
            outcome("[1, 0]", 250, Class::WeakAllowed),
        ],
    );
    assert_eq!(weak.verdict(), "weak seen");
    assert!(weak.passed());
    assert_eq!(weak.weak(), 250);
    assert!((weak.weak_per_million() - 250.0).abs() < 1e-9);

    let quiet = row(false, 10, vec![outcome("[0, 0]", 10, Class::Sc)]);
    assert_eq!(quiet.verdict(), "no weak seen");
    assert!(quiet.passed());
    assert_eq!(quiet.weak_per_million(), 0.0);

    let rate = row(
        false,
        3_000,
        vec![
            outcome("[0, 0]", 2_999, Class::Sc),
            outcome("[1, 0]", 1, Class::WeakAllowed),
        ],
    );
    assert!((rate.weak_per_million() - 1e6 / 3000.0).abs() < 1e-9);
    assert_eq!(row(false, 0, vec![]).weak_per_million(), 0.0);
    assert_eq!(row(false, 0, vec![]).verdict(), "no weak seen");
}

#[test]
fn grouped_thousands() {
    assert_eq!(grouped(1234567), "1,234,567");
    assert_eq!(grouped(123456789), "123,456,789");
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(999), "999");
    assert_eq!(grouped(1000), "1,000");
    assert_eq!(grouped(100000), "100,000");
    assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
}

fn sample_rows() -> Vec<Row> {
    let mut mutex = row(
        true,
        8,
        vec![
            outcome("ok", 8, Class::Sc),
            outcome("stale", 0, Class::Forbidden),
        ],
    );
    mutex.test = "mutex handoff".into();
    mutex.placement = "host + GPU, \"pinned\"".into();
    vec![
        row(
            false,
            1_000_000,
            vec![
                outcome("[0, 0]", 999_000, Class::Sc),
                outcome("[1, 0]", 1_000, Class::WeakAllowed),
            ],
        ),
        row(true, 2_000, vec![outcome("[1, 1]", 2_000, Class::Sc)]),
        mutex,
    ]
}

/// Splits one CSV line into fields (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes: {line}");
    fields
}

#[test]
fn csv_has_a_header_and_one_quoted_line_per_row() {
    let rows = sample_rows();
    let csv = report::csv(&rows);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + rows.len(), "{csv}");
    assert!(csv.ends_with('\n'));
    let header = csv_fields(lines[0]);
    assert_eq!(header[0], "test");
    assert_eq!(header.last().unwrap(), "outcomes");
    for line in &lines[1..] {
        assert_eq!(csv_fields(line).len(), header.len(), "{line}");
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let first = csv_fields(lines[1]);
    assert_eq!(first[col("instances")], "1000000");
    assert_eq!(first[col("weak")], "1000");
    assert_eq!(first[col("weak_per_million")], "1000.000");
    assert_eq!(first[col("claim")], "false");
    assert_eq!(first[col("verdict")], "weak seen");
    assert_eq!(
        first[col("outcomes")],
        "[0, 0]: 999000; [1, 0]: 1000 (weak)"
    );
    assert!(lines[1].contains("\"[0, 0]: 999000; [1, 0]: 1000 (weak)\""));
    let mutex = csv_fields(lines[3]);
    assert_eq!(mutex[col("test")], "mutex handoff");
    assert_eq!(mutex[col("placement")], "host + GPU, \"pinned\"");
    assert!(
        lines[3].contains("\"host + GPU, \"\"pinned\"\"\""),
        "{}",
        lines[3]
    );
    assert_eq!(mutex[col("outcomes")], "ok: 8; stale: 0 (FORBIDDEN)");
    assert_eq!(mutex[col("verdict")], "ok: 0 forbidden");
}

#[test]
fn json_carries_the_extra_members_and_balances() {
    let rows = sample_rows();
    let extra = [
        ("device", report::json_str("H100 \"SXM\"")),
        ("seed", "42".to_string()),
    ];
    let json = report::json(&rows, &extra);
    assert!(json.contains("\"device\": \"H100 \\\"SXM\\\"\","), "{json}");
    assert!(json.contains("\"seed\": 42,"), "{json}");
    assert!(json.contains("\"rows\": ["));
    assert!(json.contains("\"weak_per_million\": 1000.000"));
    assert!(json.contains("\"class\": \"WeakAllowed\""));
    assert!(json.contains("\"placement\": \"host + GPU, \\\"pinned\\\"\""));
    assert_eq!(json.matches("\"test\":").count(), rows.len());
    // Braces and brackets balance outside strings, and never close more than they opened.
    let (mut depth, mut in_str, mut escaped) = (Vec::new(), false, false);
    for c in json.chars() {
        if in_str {
            match (c, escaped) {
                (_, true) => escaped = false,
                ('\\', false) => escaped = true,
                ('"', false) => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => depth.push(c),
            '}' => assert_eq!(depth.pop(), Some('{'), "{json}"),
            ']' => assert_eq!(depth.pop(), Some('['), "{json}"),
            _ => {}
        }
    }
    assert!(depth.is_empty() && !in_str, "{json}");
    // No trailing comma before a closing bracket or brace.
    let squeezed: String = json.split_whitespace().collect();
    assert!(
        !squeezed.contains(",]") && !squeezed.contains(",}"),
        "{json}"
    );
    assert_eq!(
        report::json(&[], &[]),
        "{\n  \"rows\": [\n  ]\n}\n",
        "empty report"
    );
    assert_eq!(report::json_str("a\nb\\\u{1}"), "\"a\\nb\\\\\\u0001\"");
}

#[test]
fn markdown_table_has_a_header_a_separator_and_one_line_per_row() {
    let rows = sample_rows();
    let md = report::markdown_table(&rows);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 2 + rows.len(), "{md}");
    let columns = lines[0].matches('|').count();
    assert!(lines[0].starts_with("| test | variant |"));
    assert!(lines[1].starts_with("|---|"));
    assert_eq!(lines[1].matches('|').count(), columns);
    for line in &lines[2..] {
        assert_eq!(line.matches('|').count(), columns, "{line}");
    }
    assert!(lines[2].contains("| 1,000,000 |"), "{}", lines[2]);
    assert!(lines[2].contains("| 1000.0 | weak seen |"), "{}", lines[2]);
    let table = report::table(&rows);
    assert_eq!(table.lines().count(), 1 + rows.len());
}

// 10. Weak rates by stress parameter.

#[test]
fn by_parameter_sums_per_value() {
    let a = Launch {
        stress_iters: 64,
        stress_pattern: 1,
        stride: 4,
        rendezvous: 1,
        ..Launch::default()
    };
    let b = Launch {
        stress_iters: 64,
        stress_pattern: 2,
        stride: 128,
        rendezvous: 1,
        ..Launch::default()
    };
    let c = Launch {
        stress_iters: 1024,
        stress_pattern: 2,
        stride: 4,
        rendezvous: 0,
        ..Launch::default()
    };
    let launches = [(a, 100, 1), (b, 200, 20), (c, 1000, 300)];
    let t = tuning::by_parameter(&launches);
    let get = |name: &'static str, value: u32| t.get(&(name, value)).copied();
    assert_eq!(get("stress_iters", 64), Some((300, 21)));
    assert_eq!(get("stress_iters", 1024), Some((1000, 300)));
    assert_eq!(get("stress_iters", 0), None);
    assert_eq!(get("stress_pattern", 1), Some((100, 1)));
    assert_eq!(get("stress_pattern", 2), Some((1200, 320)));
    assert_eq!(get("stride", 4), Some((1100, 301)));
    assert_eq!(get("stride", 128), Some((200, 20)));
    assert_eq!(get("rendezvous", 1), Some((300, 21)));
    assert_eq!(get("rendezvous", 0), Some((1000, 300)));
    // Fields all 0 in every launch: one group holding everything.
    assert_eq!(get("stress_lines", 0), Some((1300, 321)));
    assert_eq!(get("pre_stress_pattern", 0), Some((1300, 321)));
    // Each parameter's groups add up to the total.
    let mut per: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for ((name, _), (i, w)) in &t {
        let e = per.entry(*name).or_default();
        e.0 += i;
        e.1 += w;
    }
    assert_eq!(per.len(), tuning::PARAMETERS.len());
    assert!(per.values().all(|&s| s == (1300, 321)), "{per:?}");
    assert!(tuning::by_parameter(&[]).is_empty());
    let md = tuning::markdown(&launches);
    assert!(
        md.contains("| stress_iters | 64 | 300 | 21 | 70000.0 |"),
        "{md}"
    );
    assert_eq!(md.lines().count(), 2 + t.len());
}
