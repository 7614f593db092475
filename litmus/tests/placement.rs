//! Where a launch drawn from a seed puts things, checked without a GPU: every instance's roles
//! in distinct CTAs (or warps of one CTA), its locations in bounds and apart, the block
//! shuffle a permutation, the stress lines in the scratch area; and the geometries `draw`
//! refuses.

mod common;

use common::{assert_placement, geometry};
use ptx_sync_litmus::launch::{Launch, NO_FINAL, REGION_GAP};
use ptx_sync_litmus::oracle::Variant;
use ptx_sync_litmus::plan::{
    check, draw, is_prime, launch_seed, prime_at_most, Geometry, Knobs, SCRATCH_WORDS,
};
use ptx_sync_litmus::shapes::{shape, Shape, SHAPES};
use std::collections::BTreeSet;

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

// Placement.

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

// Locations.

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

// Block shuffle and stress lines.

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
