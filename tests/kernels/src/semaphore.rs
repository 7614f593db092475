//! Kernels of the semaphore tests (tests/src/cases/semaphore.rs).

use crate::Probe;
use core::time::Duration;
use ptx_sync::{wait::sleep_ns, Gpu, Ordering::*, Semaphore};

/// Every thread acquires a unit `iters` times and, holding it, probes how many hold one now
/// (and stays a little, so that holders overlap). `count` starts at `MAX` (the host sets it).
/// `stats`: [0] holders now, [32] most holders ever seen, [64] passes.
///
/// In its first round a holder also waits (at most 2 ms) until `MAX` threads hold a unit, so
/// that "all `MAX` units held at once" is a property of the semaphore, not of the schedule
/// (without the wait, one H100 run in several saw at most 31 of 32). A semaphore that hands
/// out fewer than `MAX` units still fails: its holders time out and the most seen stays low.
#[inline(always)]
unsafe fn stress<const MAX: u32>(count: *mut u32, stats: *mut u32, iters: u32) {
    let sem = Semaphore::<Gpu, MAX>::from_ptr(count);
    let probe = Probe::new(stats);
    for round in 0..iters {
        sem.acquire();
        probe.enter();
        if round == 0 {
            let _ = probe
                .holders
                .wait_until_for(Duration::from_millis(2), Relaxed, |h| h >= MAX);
        }
        sleep_ns(200);
        probe.leave();
        sem.release(1);
    }
}

/// [`stress`] for `Semaphore<Gpu, 4>`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore_stress_4(count: *mut u32, stats: *mut u32, iters: u32) {
    stress::<4>(count, stats, iters)
}

/// [`stress`] for `Semaphore<Gpu, 32>`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore_stress_32(
    count: *mut u32,
    stats: *mut u32,
    iters: u32,
) {
    stress::<32>(count, stats, iters)
}
