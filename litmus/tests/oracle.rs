//! The litmus suite's CPU side: the oracle tables, the SC enumeration, the classification and
//! the placement, checked without a GPU.

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
