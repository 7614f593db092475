//! The host logic of the primitive-shaped tests and the `Sys` MP (litmus/src/gpu/handoff.rs),
//! checked without a GPU: the sizes `scale` gives, and how the kernels' counters become rows
//! with the right verdicts.

use ptx_sync_litmus::gpu::handoff::{mp_bin, mp_outcomes, scaled, Plan, Side};
use ptx_sync_litmus::handoff_layout::NEIGHBOURS;
use ptx_sync_litmus::oracle::Class;
use ptx_sync_litmus::report::{Outcome, Row};

fn row(instances: u64, outcomes: Vec<Outcome>) -> Row {
    claim_or_control(true, instances, outcomes)
}

fn claim_or_control(claim: bool, instances: u64, outcomes: Vec<Outcome>) -> Row {
    Row {
        test: "t".into(),
        variant: "sync".into(),
        scope: "gpu".into(),
        placement: "p".into(),
        instances,
        outcomes,
        launches: 1,
        seconds: 0.0,
        claim,
    }
}

#[test]
fn scaled_rounds_and_never_reaches_zero() {
    assert_eq!(scaled(32, 1.0), 32);
    assert_eq!(scaled(32, 2.5), 80);
    assert_eq!(scaled(32, 0.01), 1);
    assert_eq!(scaled(32, 0.0), 1);
    assert_eq!(scaled(3, 0.5), 2); // 1.5 rounds up
}

#[test]
fn scale_one_on_an_h100_gives_the_documented_instance_counts() {
    let p = Plan::new(132, 1.0);
    assert_eq!(p.mutex_instances(), 132 * 256 * 32);
    assert_eq!(p.mutex_instances(), 1_081_344);
    assert_eq!(p.lock_instances(), 270_336);
    assert_eq!(p.token_channels(), 66 * 128);
    assert_eq!(p.token_instances(), 2_162_688);
    assert_eq!(p.latch_instances(), 132 * 256 * NEIGHBOURS as u64 * 32);
    assert_eq!(p.latch_instances(), 2_162_688);
    assert_eq!(p.barrier_instances(), 2_162_688);
    assert_eq!(p.sys_launch_instances(), 270_336);
    assert_eq!(p.sys_instances(), 540_672);
    // The brief: about 1e6 per row where the primitive allows, a few 1e5 for lock handoffs.
    for n in [
        p.mutex_instances(),
        p.token_instances(),
        p.latch_instances(),
        p.barrier_instances(),
    ] {
        assert!(n >= 1_000_000, "{n}");
    }
    assert!(p.lock_instances() >= 200_000 && p.sys_instances() >= 500_000);
}

#[test]
fn scale_multiplies_rounds_not_the_grid() {
    let one = Plan::new(132, 1.0);
    let ten = Plan::new(132, 10.0);
    assert_eq!((ten.blocks, ten.threads), (one.blocks, one.threads));
    assert_eq!(ten.mutex_instances(), 10 * one.mutex_instances());
    assert_eq!(ten.barrier_instances(), 10 * one.barrier_instances());
    // Sys: launches of the same size, ten times as many.
    assert_eq!(ten.sys_launch_instances(), one.sys_launch_instances());
    assert_eq!(ten.sys_instances(), 10 * one.sys_instances());
    // A tiny scale still runs every row, with smaller Sys launches.
    let tiny = Plan::new(132, 0.01);
    assert_eq!(tiny.mutex_iters, 1);
    assert_eq!((tiny.sys_per_thread, tiny.sys_launches), (1, 1));
    assert_eq!(tiny.sys_instances(), 132 * 128);
}

#[test]
fn a_grid_of_one_sm_still_pairs_producers_with_consumers() {
    let p = Plan::new(1, 1.0);
    assert_eq!(p.blocks, 2);
    assert_eq!(p.token_channels(), 128);
}

#[test]
fn handoff_counters_become_outcomes_and_verdicts() {
    let ok = Side::Primitive.outcomes(&[1000, 0, 0]);
    assert_eq!(
        ok,
        vec![Outcome {
            label: "ok".into(),
            count: 1000,
            class: Class::Sc
        }]
    );
    assert_eq!(row(1000, ok).verdict(), "ok: 0 forbidden");

    let stale = Side::Primitive.outcomes(&[998, 2, 0]);
    assert_eq!(stale[1].label, "stale");
    assert_eq!(stale[1].class, Class::Forbidden);
    let r = row(1000, stale);
    assert_eq!((r.forbidden(), r.verdict()), (2, "FORBIDDEN SEEN"));

    // A lost handoff is no outcome a correct primitive can give: the run is broken.
    let lost = Side::Primitive.outcomes(&[990, 0, 10]);
    assert_eq!(lost[1].class, Class::Impossible);
    assert_eq!(row(1000, lost).verdict(), "HARNESS ERROR");

    // Instances the kernel never counted show as a harness error too.
    assert_eq!(
        row(1001, Side::Primitive.outcomes(&[1000, 0, 0])).verdict(),
        "HARNESS ERROR"
    );
}

#[test]
fn a_relaxed_control_counts_stale_reads_as_its_weak_outcome() {
    // The same counters as the claim; stale is what the control is there to show.
    let stale = Side::Relaxed.outcomes(&[990, 10, 0]);
    assert_eq!(
        stale.iter().map(|o| o.class).collect::<Vec<_>>(),
        [Class::Sc, Class::WeakAllowed]
    );
    let r = claim_or_control(false, 1000, stale);
    assert_eq!((r.weak(), r.forbidden(), r.verdict()), (10, 0, "weak seen"));
    assert!(r.passed());

    let none = claim_or_control(false, 1000, Side::Relaxed.outcomes(&[1000, 0, 0]));
    assert_eq!(none.verdict(), "no weak seen");

    // A lost handoff is still a broken run: the relaxed algorithms hand every unit over.
    let lost = claim_or_control(false, 1000, Side::Relaxed.outcomes(&[990, 0, 10]));
    assert_eq!(lost.verdict(), "HARNESS ERROR");
    assert!(!lost.passed());
}

#[test]
fn mp_bins_classify_as_message_passing() {
    assert_eq!(
        [
            mp_bin(0, 0, false),
            mp_bin(0, 1, true),
            mp_bin(1, 0, true),
            mp_bin(1, 1, false)
        ],
        [0, 1, 2, 3]
    );
    assert_eq!(mp_bin(1, 1, true), 5, "a reader that waited for the flag");
    assert_eq!(mp_bin(2, 1, false), 4);
    assert_eq!(mp_bin(1, 7, true), 4);

    let out = mp_outcomes(&[3, 4, 0, 100, 0]);
    let labels: Vec<(&str, Class)> = out.iter().map(|o| (o.label.as_str(), o.class)).collect();
    assert_eq!(
        labels,
        [
            ("[0, 0]", Class::Sc),
            ("[0, 1]", Class::Sc),
            ("[1, 1], flag already set at the first poll", Class::Sc)
        ]
    );
    assert_eq!(row(107, out).verdict(), "ok: 0 forbidden");

    let weak = mp_outcomes(&[0, 0, 1, 9, 0]);
    assert_eq!(
        (weak[0].label.as_str(), weak[0].class),
        ("[1, 0]", Class::Forbidden)
    );
    assert_eq!(row(10, weak).verdict(), "FORBIDDEN SEEN");

    let garbage = mp_outcomes(&[0, 0, 0, 9, 1]);
    assert_eq!(garbage[1].class, Class::Impossible);
    assert_eq!(row(10, garbage).verdict(), "HARNESS ERROR");
}
