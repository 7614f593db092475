//! Launches are drawn from seeds: the same seed draws the same launch, distinct cells get
//! distinct seeds; the generator and the prime helpers behind the draws.

mod common;

use common::geometry;
use ptx_sync_litmus::oracle::Variant;
use ptx_sync_litmus::plan::{draw, is_prime, launch_seed, prime_at_most, Knobs, Rng};
use ptx_sync_litmus::shapes::{shape, SHAPES};
use std::collections::HashSet;

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
