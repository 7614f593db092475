//! The device clock: [`Instant`], nanoseconds of the GPU's global timer, for the deadlines of
//! timed waits (`wait_until`, `try_acquire_until`, `try_lock_until`, ...: libcu++'s
//! `try_wait_until` and `try_acquire_until` take a `time_point` the same way). Durations are
//! `core::time::Duration`.
//!
//! On the GPU, [`Instant::now`] is one `mov.u64 %r, %globaltimer;`: PTX ISA "Special
//! Registers": `%globaltimer` is "a predefined, 64-bit global nanosecond timer". It is one
//! timer for the whole GPU, so a deadline computed in one thread (or block) means the same
//! moment in every other thread of the launch; its resolution is about a microsecond on many
//! GPUs (it advances in steps), which is also the precision of every timed wait.
//!
//! On the host backend (no clock in `core`, and `cargo test` and loom must be deterministic)
//! the clock is **virtual**: a process-wide nanosecond counter that starts at 0 and advances
//! only while a timed wait waits, by the nanoseconds its backoff says it paused
//! ([`Backoff::waited_ns`](crate::wait::Backoff::waited_ns): nominal for the crate's policies, real
//! time for a policy that measures it, such as `ptx_sync_host::sys::HostBackoff`). A timed
//! wait on the host therefore:
//! - gets its budget when its first poll fails: the duration of `*_for(d)`, or `deadline -
//!   Instant::now()` for `*_until(deadline)` (0 for a deadline that is not later than now);
//! - gives up once its own backoff has waited that budget, however many other threads wait at
//!   the same time: the number of polls depends only on the budget and the policy, never on
//!   the scheduler, so host tests and loom models are reproducible;
//! - advances the shared clock by what it waited, so `Instant::now()` read after a wait (in
//!   any thread) is later than before it.
//!
//! Under loom the clock is one per OS thread (each model's threads share it; models that the
//! test harness runs side by side do not), so one model's waits cannot change another's budget.
//!
//! Arithmetic saturates and never panics: `Instant + Duration` stops at the largest instant
//! (`u64::MAX` ns, a deadline that never passes), a duration of more than `u64::MAX` ns counts
//! as `u64::MAX` ns, and [`duration_since`](Instant::duration_since) an instant that is later
//! is zero (as `std::time::Instant` does since Rust 1.60).
//!
//! ```
//! use core::time::Duration;
//! use ptx_sync::clock::Instant;
//! use ptx_sync::{Gpu, Latch, TimedOut};
//!
//! let latch: Latch<Gpu> = Latch::new(1);
//! let start = Instant::now();
//! let deadline = start + Duration::from_micros(50);
//! assert_eq!(latch.wait_until(deadline), Err(TimedOut)); // nobody counts down
//! assert!(start.elapsed() >= Duration::from_micros(50)); // the host clock advanced with it
//! latch.count_down();
//! assert_eq!(latch.wait_until(deadline), Ok(())); // open: the first poll succeeds
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`clock::Instant`](crate::clock::Instant): `now`, `+ Duration`, `duration_since`, `elapsed`, `from_nanos`, `as_nanos`; [`clock::nanos`](crate::clock::nanos) (saturating `Duration` to ns); `clock::global_timer_ns` (GPU only, also `wait::global_timer_ns`) | `mov.u64 %rd, %globaltimer;` (the host: a virtual clock that timed waits advance) | `cuda::std::chrono::system_clock::now()` on the device, `%globaltimer` |

use crate::backend::clock as backend;
use core::ops::{Add, AddAssign, Sub, SubAssign};
use core::time::Duration;

/// A moment on the device clock, in nanoseconds: `%globaltimer` on the GPU, the virtual clock
/// on the host (see the [module](self)). Only differences and comparisons between instants of
/// one clock mean anything.
///
/// | operation | PTX |
/// |-----------|-----|
/// | [`Instant::now`] | `mov.u64 %rd, %globaltimer;` |
/// | [`elapsed`](Instant::elapsed) | `mov.u64 %rd, %globaltimer;` and a subtraction |
/// | `+`, `-`, [`duration_since`](Instant::duration_since), comparisons | integer arithmetic |
///
/// ```
/// use core::time::Duration;
/// use ptx_sync::clock::Instant;
/// let t = Instant::from_nanos(1_000);
/// assert_eq!((t + Duration::from_nanos(500)).as_nanos(), 1_500);
/// assert_eq!((t + Duration::MAX).as_nanos(), u64::MAX); // saturates
/// assert_eq!(t.duration_since(Instant::from_nanos(400)), Duration::from_nanos(600));
/// assert_eq!(Instant::from_nanos(400).duration_since(t), Duration::ZERO);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(u64);

impl Instant {
    /// The current time: `%globaltimer` on the GPU, the virtual clock on the host.
    ///
    /// PTX: `mov.u64 %rd, %globaltimer;`.
    #[inline(always)]
    pub fn now() -> Instant {
        Instant(backend::now())
    }

    /// The instant `ns` nanoseconds after the clock's zero (to pass deadlines through memory
    /// or kernel arguments). Emits nothing.
    #[inline(always)]
    pub const fn from_nanos(ns: u64) -> Instant {
        Instant(ns)
    }

    /// Nanoseconds since the clock's zero (the `%globaltimer` value on the GPU). Emits nothing.
    #[inline(always)]
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    #[inline(always)]
    pub const fn duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }

    /// The time from `earlier` to `self`, or `None` if `earlier` is later.
    #[inline(always)]
    pub const fn checked_duration_since(self, earlier: Instant) -> Option<Duration> {
        match self.0.checked_sub(earlier.0) {
            Some(ns) => Some(Duration::from_nanos(ns)),
            None => None,
        }
    }

    /// The time since `self` ([`Instant::now`] minus `self`; zero if `self` is in the future).
    ///
    /// PTX: `mov.u64 %rd, %globaltimer;`.
    #[inline(always)]
    pub fn elapsed(self) -> Duration {
        Instant::now().duration_since(self)
    }

    /// `self + d`, or `None` past the largest instant.
    #[inline(always)]
    pub const fn checked_add(self, d: Duration) -> Option<Instant> {
        match checked_nanos(d) {
            Some(n) => match self.0.checked_add(n) {
                Some(ns) => Some(Instant(ns)),
                None => None,
            },
            None => None,
        }
    }

    /// `self - d`, or `None` before the clock's zero.
    #[inline(always)]
    pub const fn checked_sub(self, d: Duration) -> Option<Instant> {
        match checked_nanos(d) {
            Some(n) => match self.0.checked_sub(n) {
                Some(ns) => Some(Instant(ns)),
                None => None,
            },
            None => None,
        }
    }
}

crate::backend::cfg_gpu! {
    /// Nanoseconds from the GPU's global timer (`%globaltimer`), what [`Instant::now`] reads; also
    /// `wait::global_timer_ns`, for timed waits. GPU only.
    ///
    /// PTX: `mov.u64 %rd, %globaltimer;`. Neither `pure` nor `nomem`: each call reads the timer
    /// again, and the polls around it stay on their side of the read.
    #[inline(always)]
    pub fn global_timer_ns() -> u64 {
        backend::global_timer_ns()
    }
}

/// `d` in nanoseconds, `u64::MAX` for a duration longer than that (about 584 years): what every
/// timed wait does with its duration.
///
/// ```
/// use core::time::Duration;
/// assert_eq!(ptx_sync::clock::nanos(Duration::from_micros(3)), 3_000);
/// assert_eq!(ptx_sync::clock::nanos(Duration::MAX), u64::MAX);
/// ```
#[inline(always)]
pub const fn nanos(d: Duration) -> u64 {
    match checked_nanos(d) {
        Some(ns) => ns,
        None => u64::MAX,
    }
}

/// `d` in nanoseconds, `None` past `u64::MAX`. In u64 arithmetic: `Duration::as_nanos` is a
/// `u128`, which nvptx computes with a much longer sequence.
#[inline(always)]
const fn checked_nanos(d: Duration) -> Option<u64> {
    match d.as_secs().checked_mul(1_000_000_000) {
        Some(s) => s.checked_add(d.subsec_nanos() as u64),
        None => None,
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    /// Saturates at the largest instant (a deadline that never passes).
    #[inline(always)]
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(nanos(d)))
    }
}

impl AddAssign<Duration> for Instant {
    #[inline(always)]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;
    /// Saturates at the clock's zero.
    #[inline(always)]
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(nanos(d)))
    }
}

impl SubAssign<Duration> for Instant {
    #[inline(always)]
    fn sub_assign(&mut self, d: Duration) {
        *self = *self - d;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    /// [`duration_since`](Instant::duration_since): zero if `earlier` is later.
    #[inline(always)]
    fn sub(self, earlier: Instant) -> Duration {
        self.duration_since(earlier)
    }
}
