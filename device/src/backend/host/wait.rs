//! Waiting on the host: spin-loop hints or yields for sleeps, and the virtual clock, which
//! counts the time a backoff says it waited (so tests and loom models are reproducible).

use crate::clock::{nanos, Instant};
use crate::wait::Backoff;
use core::time::Duration;

/// `ns / 8` spin-loop hints (a thread yield with `warp-emulation`, a loom yield under loom).
#[inline(always)]
pub(crate) fn sleep_ns(ns: u32) {
    crate::loom::pause(ns);
}

/// `Elapsed`'s schedule, with `clock` the nominal nanoseconds waited so far.
pub(crate) mod elapsed {
    use super::sleep_ns;

    #[inline(always)]
    pub(crate) fn pause<const POLLS: u32, const SPIN_NS: u32, const MAX_NS: u32>(
        pauses: u32,
        clock: &mut u64,
    ) {
        if pauses <= POLLS || *clock < SPIN_NS as u64 {
            *clock += if pauses <= POLLS {
                1
            } else {
                SPIN_NS as u64 / 64 + 1
            };
            sleep_ns(0); // one spin-loop hint, or a yield (warp emulation, loom)
            return;
        }
        let step = (*clock / 4).min(MAX_NS as u64) as u32;
        sleep_ns(step);
        // At least 1 ns per pause, so that a timed wait always expires.
        *clock += step.max(1) as u64;
    }

    #[inline(always)]
    pub(crate) fn pause_sys(_pauses: u32, clock: &mut u64, step: u32) {
        sleep_ns(step);
        *clock += step as u64;
    }

    #[inline(always)]
    pub(crate) fn lost_race(_pauses: u32, clock: &mut u64) {
        *clock /= 2;
    }

    #[inline(always)]
    pub(crate) fn waited_ns(_pauses: u32, clock: u64) -> u64 {
        clock
    }
}

/// The end of a timed wait: a budget of the backoff's own waiting time, charged to the
/// virtual clock as it is spent (see the `clock` module docs for why: reproducible under
/// `cargo test` and loom).
pub(crate) struct Deadline {
    budget: u64,
    /// The backoff's waiting time already added to the virtual clock.
    charged: u64,
}

impl Deadline {
    /// `timeout` from now (a closure for `poll_after_miss`).
    #[inline(always)]
    pub(crate) fn after(timeout: Duration) -> impl FnOnce() -> Deadline {
        move || Deadline {
            budget: nanos(timeout),
            charged: 0,
        }
    }

    /// At `deadline` (a closure for `poll_after_miss`).
    #[inline(always)]
    pub(crate) fn at(deadline: Instant) -> impl FnOnce() -> Deadline {
        move || Deadline {
            budget: deadline
                .as_nanos()
                .saturating_sub(Instant::now().as_nanos()),
            charged: 0,
        }
    }

    /// Whether the backoff has waited the budget; charges the clock with what it waited since
    /// the last call.
    #[inline(always)]
    pub(crate) fn passed<B: Backoff>(&mut self, backoff: &B) -> bool {
        let waited = backoff.waited_ns();
        crate::backend::clock::advance(waited.saturating_sub(self.charged));
        self.charged = self.charged.max(waited);
        waited >= self.budget
    }
}
