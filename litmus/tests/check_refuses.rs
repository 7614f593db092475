//! What `plan::check` refuses (the launches the kernels must never see), each refusal
//! cross-checked against the brute-force placement check.

mod common;

use common::{assert_placement, geometry};
use ptx_sync_litmus::launch::{Launch, MAX_REGS, NO_FINAL};
use ptx_sync_litmus::oracle::Variant;
use ptx_sync_litmus::plan::{check, draw, Knobs, MAX_STRIDE, SCRATCH_WORDS};
use ptx_sync_litmus::shapes::shape;

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
