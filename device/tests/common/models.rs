//! Loom models of the primitives: every interleaving (up to loom's bounds) of 2-3 threads
//! running the SAME algorithm the GPU runs, over loom's atomics (`--cfg loom` swaps the host
//! backend). Data written under a lock or before an arrival lives in `loom::cell::UnsafeCell`,
//! so loom also reports any access not ordered by happens-before: that is how a missing
//! release or acquire shows up. Each subject's test file holds its models (`mod models`);
//! `RUSTFLAGS="--cfg loom" cargo test -p ptx-sync --release --test '*'` runs them all.
// Each test target uses the part its models need.
#![allow(dead_code)]

use loom::cell::UnsafeCell;

/// Explores with a preemption bound, which keeps 3-thread models to seconds while still
/// covering every schedule with up to that many forced switches.
pub fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(3, f)
}

/// 3-thread models with fewer forced switches (a bound of 3 takes minutes to hours there;
/// most concurrency bugs need only one or two preemptions to show, per the CHESS results
/// loom's bound is modelled on).
pub fn model_bounded(preemptions: u8, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions as usize);
    // Waiting threads yield on every poll; each yield is a branch loom must explore.
    b.max_branches = 100_000;
    b.check(f);
}

pub fn bump(cell: &UnsafeCell<u32>) {
    cell.with_mut(|p| unsafe { *p += 1 });
}

pub fn read(cell: &UnsafeCell<u32>) -> u32 {
    cell.with(|p| unsafe { *p })
}
