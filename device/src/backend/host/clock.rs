//! The host's virtual clock (see the `clock` module docs): a nanosecond counter that only
//! timed waits move on.

// A `core` atomic even under loom: the clock is bookkeeping, not part of any algorithm a
// model checks, and a loom atomic would add a location (and branches) to every model
// with a timed wait. It only ever increases, and nothing is concluded from its value
// except by the thread that reads it.
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

// Outside loom, one clock for the process.
#[cfg(not(loom))]
static NOW: AtomicU64 = AtomicU64::new(0);

// Under loom, one clock per OS thread: loom runs every thread of a model on the test's own
// OS thread, while the test harness runs other models on other OS threads at the same time.
// A process-wide clock let those models' timed waits move this model's clock between its
// `Instant::now()` and its first failed poll, so the budget, the number of polls and the
// explored path changed from one execution to the next ("Is the model fully
// deterministic?").
#[cfg(loom)]
extern crate std;
#[cfg(loom)]
std::thread_local! {
    static NOW: AtomicU64 = const { AtomicU64::new(0) };
}

#[inline(always)]
fn with_clock<R>(f: impl FnOnce(&AtomicU64) -> R) -> R {
    #[cfg(not(loom))]
    return f(&NOW);
    #[cfg(loom)]
    return NOW.with(f);
}

#[inline(always)]
pub(crate) fn now() -> u64 {
    with_clock(|c| c.load(Relaxed))
}

/// Moves the clock `ns` nanoseconds on (saturating).
#[inline(always)]
pub(crate) fn advance(ns: u64) {
    if ns == 0 {
        return;
    }
    with_clock(|c| {
        let mut t = c.load(Relaxed);
        // Saturating, so a huge budget cannot wrap the clock back to the past.
        while let Err(now) = c.compare_exchange_weak(t, t.saturating_add(ns), Relaxed, Relaxed) {
            t = now;
        }
    })
}
