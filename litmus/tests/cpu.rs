//! The litmus suite's CPU side: the oracle tables, the SC enumeration, the classification and
//! the placement, checked without a GPU.

use ptx_sync_litmus::layout::{gcd, inverse, word, Permutation};
use ptx_sync_litmus::oracle::{Class, Oracle, Variant};
use ptx_sync_litmus::tests::{shape, SHAPES};
use std::collections::BTreeSet;

#[test]
fn every_weak_outcome_is_not_sequentially_consistent() {
    for s in SHAPES {
        let o = Oracle::new(s);
        assert_eq!(s.weak.len(), s.outcome_len(), "{}: outcome width", s.name);
        assert!(
            !o.sc_outcomes().contains(s.weak),
            "{}: the weak outcome is SC",
            s.name
        );
    }
}

#[test]
fn sc_outcomes_of_mp_and_sb_are_the_textbook_ones() {
    let set = |v: &[&[u32]]| v.iter().map(|o| o.to_vec()).collect::<BTreeSet<_>>();
    let mp = Oracle::new(shape("MP").unwrap());
    assert_eq!(mp.sc_outcomes(), &set(&[&[0, 0], &[0, 1], &[1, 1]]));
    let sb = Oracle::new(shape("SB").unwrap());
    assert_eq!(sb.sc_outcomes(), &set(&[&[0, 1], &[1, 0], &[1, 1]]));
    let iriw = Oracle::new(shape("IRIW").unwrap());
    assert_eq!(
        iriw.sc_outcomes().len(),
        15,
        "IRIW: 16 register combinations, one weak"
    );
    let coww = Oracle::new(shape("CoWW").unwrap());
    assert_eq!(coww.sc_outcomes(), &set(&[&[2]]));
}

#[test]
fn classification_follows_the_variant() {
    let mp = Oracle::new(shape("MP").unwrap());
    assert_eq!(mp.classify(&[1, 1], Variant::Synchronized), Class::Sc);
    assert_eq!(
        mp.classify(&[1, 0], Variant::Synchronized),
        Class::Forbidden
    );
    assert_eq!(mp.classify(&[1, 0], Variant::Relaxed), Class::WeakAllowed);
    assert_eq!(
        mp.classify(&[1, 0], Variant::CtaAcrossCtas),
        Class::WeakAllowed
    );
    assert_eq!(mp.classify(&[2, 0], Variant::Relaxed), Class::Impossible);
    // Coherence holds for relaxed accesses at one scope, not for .cta across CTAs.
    let corr = Oracle::new(shape("CoRR").unwrap());
    assert_eq!(corr.classify(&[1, 0], Variant::Relaxed), Class::Forbidden);
    assert_eq!(
        corr.classify(&[1, 0], Variant::CtaAcrossCtas),
        Class::WeakAllowed
    );
}

#[test]
fn every_shape_the_issue_lists_is_there() {
    for name in [
        "MP", "SB", "LB", "S", "R", "2+2W", "WRC", "ISA2", "IRIW", "RWC", "CoRR", "CoWW", "CoRW",
        "CoWR",
    ] {
        assert!(shape(name).is_some(), "{name} missing");
    }
}

#[test]
fn permutation_roles_are_bijections_in_distinct_ctas() {
    for (threads, block, roles) in [
        (132 * 256u64, 256u64, 2u32),
        (264 * 128, 128, 3),
        (132 * 256, 256, 4),
    ] {
        for seed in [0u64, 7, 12345] {
            let p = Permutation::new(threads, block, roles, seed).expect("a permutation");
            assert_eq!(gcd(p.multiplier, threads), 1);
            for r in 0..roles {
                let mut seen = vec![false; threads as usize];
                for i in 0..threads {
                    let t = p.thread(i, r) as usize;
                    assert!(!seen[t], "role {r}: thread {t} twice");
                    seen[t] = true;
                }
            }
            assert!(p.roles_in_distinct_ctas(roles));
        }
    }
    assert_eq!(
        Permutation::new(256, 256, 2, 0),
        None,
        "one block cannot separate two roles"
    );
}

#[test]
fn locations_are_at_least_a_stride_apart() {
    let (locations, stride) = (3u64, 64u64);
    let mut words: Vec<u64> = (0..1000)
        .flat_map(|i| (0..locations).map(move |l| word(i, l, locations, stride)))
        .collect();
    words.sort();
    assert!(words.windows(2).all(|w| w[1] - w[0] >= stride));
}

#[test]
fn inverse_undoes_the_multiplier() {
    let n = 132 * 256;
    let p = Permutation::new(n, 256, 2, 3).unwrap();
    let inv = inverse(p.multiplier, n);
    for t in [0u64, 1, 255, 256, 33791] {
        for r in 0..2u32 {
            let i = ((t + n - (r as u64 * p.shift) % n) % n * inv) % n;
            assert_eq!(p.thread(i, r), t);
        }
    }
}

#[test]
fn groups_give_each_instance_every_role_once_in_distinct_ctas() {
    use ptx_sync_litmus::layout::Groups;
    for (threads, block, roles) in [
        (132 * 256u64, 256u64, 2u32),
        (132 * 256, 256, 3),
        (132 * 256, 256, 4),
    ] {
        let g = Groups::new(threads, block, roles, 11).unwrap();
        let mut seen = vec![vec![None; roles as usize]; g.group as usize];
        for t in 0..threads {
            if let Some((i, r)) = g.role_of(t, roles) {
                assert!(
                    seen[i as usize][r as usize].is_none(),
                    "instance {i} role {r} twice"
                );
                seen[i as usize][r as usize] = Some(t / block);
            }
        }
        for (i, ctas) in seen.iter().enumerate() {
            let ctas: Vec<u64> = ctas.iter().map(|c| c.expect("every role played")).collect();
            for a in 0..ctas.len() {
                assert!(
                    ctas[a + 1..].iter().all(|c| *c != ctas[a]),
                    "instance {i}: roles share a CTA"
                );
            }
        }
    }
}
