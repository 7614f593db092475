//! Waiting on the GPU: `nanosleep.u32`, and time measured with `%globaltimer`.

use crate::backend::clock::global_timer_ns;
use crate::clock::{nanos, Instant};
use crate::wait::Backoff;
use core::time::Duration;

/// `nanosleep.u32`.
#[inline(always)]
pub(crate) fn sleep_ns(ns: u32) {
    // SAFETY: nanosleep has no memory effects; not `nomem` so it stays inside the loop.
    unsafe { core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nostack)) };
}

/// `Elapsed`'s schedule, with `clock` the `%globaltimer` reading at the first pause.
pub(crate) mod elapsed {
    use super::{global_timer_ns, sleep_ns};

    #[inline(always)]
    pub(crate) fn pause<const POLLS: u32, const SPIN_NS: u32, const MAX_NS: u32>(
        pauses: u32,
        clock: &mut u64,
    ) {
        if pauses == 1 {
            *clock = global_timer_ns();
        }
        if pauses <= POLLS {
            return; // poll again at once
        }
        let elapsed = global_timer_ns().saturating_sub(*clock);
        if elapsed >= SPIN_NS as u64 {
            sleep_ns((elapsed / 4).min(MAX_NS as u64) as u32);
        }
    }

    #[inline(always)]
    pub(crate) fn pause_sys(pauses: u32, clock: &mut u64, step: u32) {
        if pauses == 1 {
            *clock = global_timer_ns(); // for `waited_ns` only
        }
        sleep_ns(step);
    }

    #[inline(always)]
    pub(crate) fn lost_race(pauses: u32, clock: &mut u64) {
        if pauses > 0 {
            let now = global_timer_ns();
            *clock += now.saturating_sub(*clock) / 2;
        }
    }

    #[inline(always)]
    pub(crate) fn waited_ns(pauses: u32, clock: u64) -> u64 {
        match pauses {
            0 => 0,
            _ => global_timer_ns().saturating_sub(clock),
        }
    }
}

/// The end of a timed wait: an absolute `%globaltimer` value.
pub(crate) struct Deadline {
    end: u64,
}

impl Deadline {
    /// `timeout` from now (a closure for `poll_after_miss`).
    #[inline(always)]
    pub(crate) fn after(timeout: Duration) -> impl FnOnce() -> Deadline {
        move || Deadline {
            end: global_timer_ns().saturating_add(nanos(timeout)),
        }
    }

    /// At `deadline` (a closure for `poll_after_miss`).
    #[inline(always)]
    pub(crate) fn at(deadline: Instant) -> impl FnOnce() -> Deadline {
        move || Deadline {
            end: deadline.as_nanos(),
        }
    }

    /// Whether the deadline has passed (reads `%globaltimer`).
    #[inline(always)]
    pub(crate) fn passed<B: Backoff>(&mut self, _backoff: &B) -> bool {
        global_timer_ns() >= self.end
    }

    /// The nanoseconds left before the deadline, at most `u32::MAX` (the GPU's
    /// `mbarrier.try_wait` suspend-time hint); 0 once it has passed.
    // `mbarrier` (its only caller, `BlockBarrier`'s timed waits) is sm_80+.
    #[cfg(target_feature = "sm_80")]
    #[inline(always)]
    pub(crate) fn left_ns(&self) -> u32 {
        self.end
            .saturating_sub(global_timer_ns())
            .min(u32::MAX as u64) as u32
    }
}
