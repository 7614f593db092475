//! What the host and the kernels exchange, checked without a GPU: the launch words a kernel
//! reads, the histogram bins it counts outcomes into, and the kernel names the host loads.

mod common;

use common::geometry;
use ptx_sync_litmus::gpu::{decode, launch_words};
use ptx_sync_litmus::launch::{bin, GARBAGE_BIN, LAUNCH_WORDS};
use ptx_sync_litmus::oracle::Variant;
use ptx_sync_litmus::plan::{draw, kernel_name, Knobs, SCRATCH_WORDS};
use ptx_sync_litmus::shapes::{shape, SHAPES};
use std::collections::BTreeSet;

// Launch words.

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

// Histogram bins.

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

// Kernel names.

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
