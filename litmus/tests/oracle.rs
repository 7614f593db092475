//! The oracle, checked without a GPU: the shape table, the SC enumeration, and how each
//! outcome is classified per variant (the weak outcome forbidden for the claims, allowed for
//! the controls).

use ptx_sync_litmus::oracle::{Class, Oracle, Variant};
use ptx_sync_litmus::shapes::{shape, SHAPES};
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
