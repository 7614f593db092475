//! The host's virtual clock (see the `clock` module docs): a process-wide nanosecond counter
//! that only timed waits move on.

// A `core` atomic even under loom: the clock is bookkeeping, not part of any algorithm a
// model checks, and a loom atomic would add a location (and branches) to every model
// with a timed wait. It only ever increases, and nothing is concluded from its value
// except by the thread that reads it.
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

static NOW: AtomicU64 = AtomicU64::new(0);

#[inline(always)]
pub(crate) fn now() -> u64 {
    NOW.load(Relaxed)
}

/// Moves the clock `ns` nanoseconds on (saturating).
#[inline(always)]
pub(crate) fn advance(ns: u64) {
    if ns == 0 {
        return;
    }
    let mut t = NOW.load(Relaxed);
    // Saturating, so a huge budget cannot wrap the clock back to the past.
    while let Err(now) = NOW.compare_exchange_weak(t, t.saturating_add(ns), Relaxed, Relaxed) {
        t = now;
    }
}
