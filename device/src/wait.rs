//! How a waiting thread spends the time between polls: one policy, used by every primitive
//! as a type parameter (like spin-rs's `RelaxStrategy`), so contention can be tuned without
//! forking a lock.
//!
//! Timed waits take a `core::time::Duration` (`*_for`) or an absolute
//! [`Instant`] (`*_until`); see [`clock`](crate::clock) for the clock on
//! the GPU (`%globaltimer`) and on the host (a virtual clock, for reproducible tests).
//!
//! ```
//! use ptx_sync::wait::{self, Backoff, NanoSleep, Spin};
//! use ptx_sync::{Atomic, Gpu, Mutex, Ordering::Acquire};
//!
//! // A short critical section: poll back to back instead of sleeping.
//! let m: Mutex<u32, Gpu, Spin> = Mutex::new(0);
//! std::thread::scope(|s| {
//!     for _ in 0..2 {
//!         s.spawn(|| *m.lock() += 1);
//!     }
//! });
//! assert_eq!(m.into_inner(), 2);
//!
//! // A policy of its own: at most 16 polls, then sleeps of 1 us (nanosleep.u32 on the GPU).
//! #[derive(Default)]
//! struct Patient(u64);
//! impl Backoff for Patient {
//!     fn pause(&mut self) {
//!         self.0 += 1;
//!         if self.0 > 16 {
//!             wait::sleep_ns(1_000);
//!         }
//!     }
//!     fn waited_ns(&self) -> u64 {
//!         self.0.saturating_sub(16) * 1_000
//!     }
//! }
//! let word = Atomic::<u32, Gpu>::new(5);
//! assert_eq!(wait::poll_until::<Patient, _>(|| Some(word.load(Acquire)).filter(|&v| v > 0)), 5);
//! let _default: NanoSleep = NanoSleep::default(); // 32 ns, doubling to 1024 ns
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`wait`](crate::wait): [`Backoff`], [`NanoSleep<MIN, MAX>`](crate::wait::NanoSleep) (the default), [`Elapsed<POLLS, SPIN_NS, MAX_NS>`](crate::wait::Elapsed) (libcu++'s policy: polls for 40 us, then sleeps a quarter of the time waited; the semaphores' default), [`Spin`], [`TimedOut`], [`wait::poll_until`](crate::wait::poll_until), [`wait::poll_until_for`](crate::wait::poll_until_for), [`wait::poll_until_deadline`](crate::wait::poll_until_deadline), [`wait::sleep_ns`](crate::wait::sleep_ns), `wait::global_timer_ns` (GPU only) | `nanosleep.u32`, `%globaltimer` | `__nanosleep(ns)`, `%globaltimer` through `asm` |

use crate::backend::wait as backend;
crate::backend::cfg_gpu! {
    pub use crate::clock::global_timer_ns;
}
use crate::clock::Instant;
use core::time::Duration;

/// A backoff policy: `pause` is called after each failed poll.
pub trait Backoff: Default {
    /// Waits a little; may wait longer each call.
    fn pause(&mut self);
    /// Nanoseconds this policy has waited so far (for timed operations). On the GPU the
    /// primitives measure time with `%globaltimer` instead; on the host (where `core` has no
    /// clock) this sum is the clock: a timed wait ends once it reaches the wait's budget, and
    /// it advances the virtual [`clock`](crate::clock) by as much.
    fn waited_ns(&self) -> u64;
    /// The wait lost a race for what it waited for (a counting semaphore's unit that another
    /// thread took first) and waits again. By default the policy starts over, as libcu++
    /// restarts its polling after a lost CAS; [`Elapsed`] keeps half of the time waited.
    #[inline(always)]
    fn lost_race(&mut self) {
        *self = Self::default();
    }
    /// Waits a little in a wait on a `Sys`-scope word, which may live in host memory: every
    /// poll of it can cross PCIe, and polls that come back to back from many blocks starve the
    /// host's own updates of the word. By default the same as [`pause`](Self::pause);
    /// [`Elapsed`] sleeps from the first pause on there.
    #[inline(always)]
    fn pause_sys(&mut self) {
        self.pause()
    }
}

/// `B` for a wait at scope `S`: [`Backoff::pause_sys`] at `Sys`, [`Backoff::pause`] elsewhere.
pub(crate) struct AtScope<S: crate::scope::Scope, B: Backoff>(B, core::marker::PhantomData<S>);

impl<S: crate::scope::Scope, B: Backoff> Default for AtScope<S, B> {
    #[inline(always)]
    fn default() -> Self {
        AtScope(B::default(), core::marker::PhantomData)
    }
}

impl<S: crate::scope::Scope, B: Backoff> Backoff for AtScope<S, B> {
    #[inline(always)]
    fn pause(&mut self) {
        if S::KIND == crate::scope::ScopeKind::Sys {
            self.0.pause_sys()
        } else {
            self.0.pause()
        }
    }
    #[inline(always)]
    fn waited_ns(&self) -> u64 {
        self.0.waited_ns()
    }
    #[inline(always)]
    fn lost_race(&mut self) {
        self.0.lost_race()
    }
}

/// Poll again at once (a `nanosleep 0`-free busy loop). For very short waits.
#[derive(Default, Clone, Copy, Debug)]
pub struct Spin {
    polls: u64,
}

impl Backoff for Spin {
    #[inline(always)]
    fn pause(&mut self) {
        self.polls += 1;
        core::hint::spin_loop();
    }

    #[inline(always)]
    fn waited_ns(&self) -> u64 {
        self.polls
    }
}

/// Sleep between polls, doubling from `MIN` to `MAX` nanoseconds (PTX `nanosleep.u32`, sm_70+):
/// sleeping pollers leave memory bandwidth and issue slots to the thread that holds the lock.
#[derive(Clone, Copy, Debug)]
pub struct NanoSleep<const MIN: u32 = 32, const MAX: u32 = 1024> {
    next: u32,
    waited: u64,
}

impl<const MIN: u32, const MAX: u32> Default for NanoSleep<MIN, MAX> {
    #[inline(always)]
    fn default() -> Self {
        NanoSleep {
            next: MIN,
            waited: 0,
        }
    }
}

impl<const MIN: u32, const MAX: u32> Backoff for NanoSleep<MIN, MAX> {
    #[inline(always)]
    fn pause(&mut self) {
        sleep_ns(self.next);
        self.waited += self.next as u64;
        self.next = if self.next >= MAX / 2 {
            MAX
        } else {
            self.next * 2
        };
    }

    #[inline(always)]
    fn waited_ns(&self) -> u64 {
        self.waited
    }
}

/// libcu++'s waiting policy: poll back to back for the first `SPIN_NS` nanoseconds of a wait
/// (`POLLS` polls, then polls that each read the clock), then sleep for a quarter of the time
/// waited so far, at most `MAX_NS`: a sleep that grows with the wait itself, not with the
/// number of polls.
///
/// PTX: nothing between the first `POLLS` polls; then `mov.u64 %globaltimer` per poll (the
/// time since the first failed poll) and, once that passes `SPIN_NS`, `nanosleep.u32` of
/// `min(elapsed / 4, MAX_NS)`. An operation whose first poll succeeds reads no clock.
///
/// libcu++ counterpart: `__cccl_thread_poll_with_backoff` (cuda/std/__thread/poll.h in
/// NVIDIA/cccl), which every waiting operation of `cuda::binary_semaphore`,
/// `cuda::counting_semaphore`, `cuda::barrier` and `cuda::atomic::wait` goes through: 16 polls
/// (`_LIBCUDACXX_POLLING_COUNT`); then, while `elapsed / 4` is under 10 us, its device `yield`,
/// which is empty, so the first 40 us are back-to-back polls; then `elapsed / 4`, capped at
/// 1 ms. The SASS of libcu++'s `binary_semaphore::acquire` on sm_90 shows exactly that
/// (`NANOSLEEP` only past 40,000 ns of `SR_GLOBALTIMER`).
///
/// Why: a waiter that polls without sleeping sees a released unit within one L2 round trip,
/// which is what a lock handed from thread to thread needs; a waiter that has already waited
/// long (thousands of waiters on one word) sleeps long, so that the releases and RMWs that end
/// the wait do not queue behind its loads. `MAX_NS` of 1 ms is also the longest sleep
/// `nanosleep` performs. An earlier version slept `elapsed / 4` from the first pause on, which
/// made a lock far slower than libcu++'s (bench/NOTES.md, "Design measurements").
///
/// On the host (no clock in `core`) the time waited is nominal: each of the first `POLLS`
/// pauses counts 1 ns, each later spinning pause `SPIN_NS / 64 + 1` ns (so the spinning phase
/// lasts about 64 pauses), each sleep what it asked for ([`sleep_ns`]: spin-loop hints, a
/// thread yield with `warp-emulation`, a loom yield under loom); timed waits expire on that sum.
///
/// ```
/// use ptx_sync::{Backoff, Elapsed};
/// let mut b = Elapsed::<2, 100, 1000>::default();
/// for _ in 0..40 {
///     b.pause();
/// }
/// assert!(b.waited_ns() > 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Elapsed<
    const POLLS: u32 = 16,
    const SPIN_NS: u32 = 40_000,
    const MAX_NS: u32 = 1_000_000,
> {
    /// Pauses so far.
    pauses: u32,
    /// GPU: `%globaltimer` at the first pause. Host: the nominal nanoseconds waited so far.
    clock: u64,
}

impl<const POLLS: u32, const SPIN_NS: u32, const MAX_NS: u32> Backoff
    for Elapsed<POLLS, SPIN_NS, MAX_NS>
{
    #[inline(always)]
    fn pause(&mut self) {
        self.pauses = self.pauses.saturating_add(1);
        backend::elapsed::pause::<POLLS, SPIN_NS, MAX_NS>(self.pauses, &mut self.clock);
    }

    /// At `Sys` scope `Elapsed` waits exactly as [`NanoSleep`]'s default does (sleeps that
    /// double from 32 ns to 1 us, no clock). Measured on the H100 (no native host atomics),
    /// with `Elapsed`'s own schedule a `Semaphore<Sys>` in host memory fed by the host one unit
    /// at a time lost its units: 132 blocks waited 5 s in `try_acquire_for` while a released
    /// unit sat on the word, both with the 40 us of back-to-back polls and with sleeps from
    /// the first pause that grow past 1 us; `NanoSleep` passes. Why is not understood yet, so
    /// host memory gets the schedule that is known to work.
    #[inline(always)]
    fn pause_sys(&mut self) {
        self.pauses = self.pauses.saturating_add(1);
        let step = 16u32 << self.pauses.min(6);
        backend::elapsed::pause_sys(self.pauses, &mut self.clock, step);
    }

    /// Keeps half the time waited: a counting semaphore's waiter that saw units and lost
    /// them to other threads goes on polling sooner than its wait had grown to, but does not
    /// start over (on the H100, starting over made the MPMC queue rows 1.3-1.8x libcu++'s,
    /// halving 0.7-1.1x; semaphore rows at 132 x 256 threads 0.55 -> 0.20).
    #[inline(always)]
    fn lost_race(&mut self) {
        backend::elapsed::lost_race(self.pauses, &mut self.clock);
    }

    #[inline(always)]
    fn waited_ns(&self) -> u64 {
        backend::elapsed::waited_ns(self.pauses, self.clock)
    }
}

/// Suspends the thread for about `ns` nanoseconds (`nanosleep.u32`; the hardware may wake it
/// earlier or later, up to about twice as long). On the host: `ns / 8` spin-loop hints
/// (a thread yield with the `warp-emulation` feature).
#[inline(always)]
pub fn sleep_ns(ns: u32) {
    backend::sleep_ns(ns)
}

/// A timed wait ran out before its condition held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOut;

impl core::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("timed wait expired")
    }
}

/// Polls `poll` until it returns `Some`, pausing with `B` between polls: the waiting loop
/// every primitive in this crate uses.
///
/// ```
/// use ptx_sync::{wait, Atomic, Gpu, NanoSleep, Ordering::Acquire};
/// let flag = Atomic::<u32, Gpu>::new(3);
/// let v = wait::poll_until::<NanoSleep, _>(|| Some(flag.load(Acquire)).filter(|&v| v != 0));
/// assert_eq!(v, 3);
/// ```
#[inline(always)]
pub fn poll_until<B: Backoff, R>(mut poll: impl FnMut() -> Option<R>) -> R {
    let mut backoff = B::default();
    loop {
        if let Some(r) = poll() {
            return r;
        }
        backoff.pause();
    }
}

/// [`poll_until`], giving up once `timeout` has passed since its first poll failed
/// (`%globaltimer` on the GPU; on the host the virtual clock of [`clock`](crate::clock): the
/// backoff's waiting time). `poll` runs at least once, so a zero `timeout` is one poll; a
/// timeout longer than `u64::MAX` ns saturates (it never passes).
///
/// PTX: `poll`'s instructions; once the first poll fails, `mov.u64 %rd, %globaltimer;` for
/// the deadline and one more per failed poll, with `B`'s pauses between polls (a poll that
/// succeeds at once reads no clock).
///
/// ```
/// use core::time::Duration;
/// use ptx_sync::{wait, Atomic, Gpu, NanoSleep, Ordering::Acquire};
/// let never = Atomic::<u32, Gpu>::new(0);
/// let r = wait::poll_until_for::<NanoSleep, _>(Duration::from_micros(10), || {
///     Some(()).filter(|_| never.load(Acquire) != 0)
/// });
/// assert_eq!(r, Err(wait::TimedOut));
/// ```
#[inline(always)]
pub fn poll_until_for<B: Backoff, R>(
    timeout: Duration,
    mut poll: impl FnMut() -> Option<R>,
) -> Result<R, TimedOut> {
    match poll() {
        Some(r) => Ok(r),
        None => poll_after_miss::<B, R>(Deadline::after(timeout), poll),
    }
}

/// [`poll_until`], giving up at `deadline` (libcu++'s `*_until`: an absolute time on the
/// [`clock`](crate::clock)). `poll` runs at least once: a deadline that has passed is exactly
/// one poll, then [`TimedOut`] unless that poll succeeded. (`poll_until_until` would be the
/// pattern's name; `poll_until` already names the condition.)
///
/// PTX: `poll`'s instructions; `mov.u64 %rd, %globaltimer;` after each failed poll, with `B`'s
/// pauses between polls.
///
/// ```
/// use ptx_sync::clock::Instant;
/// use ptx_sync::{wait, NanoSleep};
/// let mut polls = 0;
/// let past = Instant::now();
/// let r = wait::poll_until_deadline::<NanoSleep, ()>(past, || {
///     polls += 1;
///     None
/// });
/// assert_eq!((r, polls), (Err(wait::TimedOut), 1));
/// ```
#[inline(always)]
pub fn poll_until_deadline<B: Backoff, R>(
    deadline: Instant,
    mut poll: impl FnMut() -> Option<R>,
) -> Result<R, TimedOut> {
    match poll() {
        Some(r) => Ok(r),
        None => poll_after_miss::<B, R>(Deadline::at(deadline), poll),
    }
}

/// The rest of a timed wait whose first poll failed: check the deadline, pause, poll again.
/// `deadline` is evaluated only now, so a wait that succeeds at once reads no clock.
#[inline(always)]
pub(crate) fn poll_after_miss<B: Backoff, R>(
    deadline: impl FnOnce() -> Deadline,
    mut poll: impl FnMut() -> Option<R>,
) -> Result<R, TimedOut> {
    let mut deadline = deadline();
    let mut backoff = B::default();
    loop {
        if deadline.passed(&backoff) {
            return Err(TimedOut);
        }
        backoff.pause();
        if let Some(r) = poll() {
            return Ok(r);
        }
    }
}

/// The end of a timed wait. GPU: an absolute `%globaltimer` value. Host: a budget of the
/// backoff's own waiting time, charged to the virtual clock as it is spent (see
/// [`clock`](crate::clock) for why: reproducible under `cargo test` and loom).
pub(crate) use backend::Deadline;
