//! How a waiting thread spends the time between polls: one policy, used by every primitive
//! as a type parameter (like spin-rs's `RelaxStrategy`), so contention can be tuned without
//! forking a lock.

/// A backoff policy: `pause` is called after each failed poll.
pub trait Backoff: Default {
    /// Waits a little; may wait longer each call.
    fn pause(&mut self);
    /// Nanoseconds this policy has waited so far (for timed operations). On the GPU the
    /// primitives measure time with `%globaltimer` instead; on the host (where `core` has no
    /// clock) this nominal sum is the clock.
    fn waited_ns(&self) -> u64;
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

/// Poll `POLLS` times back to back, then sleep for a quarter of the time waited so far, at
/// most `MAX_NS` nanoseconds: a sleep that grows with the wait itself, not with the number of
/// polls. The default of [`Semaphore`](crate::Semaphore) and
/// [`BinarySemaphore`](crate::BinarySemaphore).
///
/// PTX: nothing between the first `POLLS` polls; then `mov.u64 %globaltimer` (the time since
/// the first failed poll) and `nanosleep.u32` of `min(elapsed / 4, MAX_NS)`. The clock is read
/// at the first pause and once per sleep: an operation whose first poll succeeds reads no
/// clock (`Default` reads none).
///
/// libcu++ counterpart: `__cccl_thread_poll_with_backoff` (cuda/std/__thread/poll.h in
/// NVIDIA/cccl), which every waiting operation of `cuda::binary_semaphore`,
/// `cuda::counting_semaphore`, `cuda::barrier` and `cuda::atomic::wait` goes through: 16 polls
/// (`_LIBCUDACXX_POLLING_COUNT`), then `elapsed / 4`, capped at 1 ms. One difference: while
/// `elapsed / 4` is under 10 us, libcu++ calls its device `yield`, which is empty, so its
/// first 40 us of a wait are back-to-back polls (each reading the clock); this policy sleeps
/// the short `elapsed / 4` instead (as [`NanoSleep`] starts with short sleeps), which leaves
/// the polled line and the issue slots to the thread that will release.
///
/// Why a sleep proportional to the time waited: with thousands of waiters on one word (a lock
/// taken by every thread of the grid, the free/full counts of a queue), a cap of about 1 us
/// ([`NanoSleep`]'s default) keeps every waiter polling about once a microsecond, billions of
/// loads per second on one L2 line, and the releases and RMWs that would end the wait queue
/// behind them. A waiter that has already waited long sleeps long; the many waiters together
/// still poll often enough that a released unit is seen quickly. `MAX_NS` of 1 ms is also the
/// longest sleep `nanosleep` performs.
///
/// On the host (no clock in `core`) the time waited is nominal: each of the first `POLLS`
/// pauses counts 1 ns, each sleep what it asked for ([`sleep_ns`]: spin-loop hints, a thread
/// yield with `warp-emulation`, a loom yield under loom); timed waits expire on that sum.
///
/// ```
/// use ptx_sync::{Backoff, Elapsed};
/// let mut b = Elapsed::<2, 1000>::default();
/// for _ in 0..40 {
///     b.pause();
/// }
/// assert!(b.waited_ns() > 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Elapsed<const POLLS: u32 = 16, const MAX_NS: u32 = 1_000_000> {
    /// Pauses so far.
    pauses: u32,
    /// GPU: `%globaltimer` at the first pause. Host: the nominal nanoseconds waited so far.
    clock: u64,
}

impl<const POLLS: u32, const MAX_NS: u32> Backoff for Elapsed<POLLS, MAX_NS> {
    #[inline(always)]
    fn pause(&mut self) {
        self.pauses = self.pauses.saturating_add(1);
        #[cfg(target_arch = "nvptx64")]
        {
            if self.pauses == 1 {
                self.clock = global_timer_ns();
            }
            if self.pauses <= POLLS {
                return; // poll again at once
            }
            let elapsed = global_timer_ns().saturating_sub(self.clock);
            sleep_ns((elapsed / 4).min(MAX_NS as u64) as u32);
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            if self.pauses <= POLLS {
                self.clock += 1;
                sleep_ns(0); // one spin-loop hint, or a yield (warp emulation, loom)
                return;
            }
            let step = (self.clock / 4).min(MAX_NS as u64) as u32;
            sleep_ns(step);
            // At least 1 ns per pause, so that a timed wait always expires.
            self.clock += step.max(1) as u64;
        }
    }

    #[inline(always)]
    fn waited_ns(&self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        return match self.pauses {
            0 => 0,
            _ => global_timer_ns().saturating_sub(self.clock),
        };
        #[cfg(not(target_arch = "nvptx64"))]
        return self.clock;
    }
}

/// Suspends the thread for about `ns` nanoseconds (`nanosleep.u32`; the hardware may wake it
/// earlier or later, up to about twice as long). On the host: `ns / 8` spin-loop hints
/// (a thread yield with the `warp-emulation` feature).
#[inline(always)]
pub fn sleep_ns(ns: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: nanosleep has no memory effects; not `nomem` so it stays inside the loop.
    unsafe {
        core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nostack))
    };
    #[cfg(all(
        not(target_arch = "nvptx64"),
        not(loom),
        not(feature = "warp-emulation")
    ))]
    for _ in 0..ns / 8 + 1 {
        core::hint::spin_loop();
    }
    // Emulated warps run dozens of lane threads on a few cores: a waiting lane gives its core
    // to the lane it waits for.
    #[cfg(all(not(target_arch = "nvptx64"), not(loom), feature = "warp-emulation"))]
    {
        let _ = ns;
        std::thread::yield_now();
    }
    // loom explores every interleaving: a waiting thread must yield, or the model never ends.
    #[cfg(loom)]
    {
        let _ = ns;
        loom::thread::yield_now();
    }
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

/// [`poll_until`], giving up after about `ns` nanoseconds (`%globaltimer` on the GPU; on the
/// host, the backoff's nominal waiting time). `poll` runs at least once.
///
/// ```
/// use ptx_sync::{wait, Atomic, Gpu, NanoSleep, Ordering::Acquire};
/// let never = Atomic::<u32, Gpu>::new(0);
/// let r = wait::poll_until_for::<NanoSleep, _>(10_000, || Some(()).filter(|_| never.load(Acquire) != 0));
/// assert_eq!(r, Err(wait::TimedOut));
/// ```
#[inline(always)]
pub fn poll_until_for<B: Backoff, R>(
    ns: u64,
    mut poll: impl FnMut() -> Option<R>,
) -> Result<R, TimedOut> {
    let deadline = Deadline::after(ns);
    let mut backoff = B::default();
    loop {
        if let Some(r) = poll() {
            return Ok(r);
        }
        if deadline.passed(&backoff) {
            return Err(TimedOut);
        }
        backoff.pause();
    }
}

/// Nanoseconds from the GPU's global timer (`%globaltimer`), for timed waits.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}

/// A deadline for timed waits: `%globaltimer` on the GPU, the backoff's nominal sum on the host.
pub(crate) struct Deadline {
    #[cfg(target_arch = "nvptx64")]
    end: u64,
    #[cfg(not(target_arch = "nvptx64"))]
    budget: u64,
}

impl Deadline {
    #[inline(always)]
    pub(crate) fn after(ns: u64) -> Deadline {
        #[cfg(target_arch = "nvptx64")]
        return Deadline {
            end: global_timer_ns().saturating_add(ns),
        };
        #[cfg(not(target_arch = "nvptx64"))]
        return Deadline { budget: ns };
    }

    #[inline(always)]
    pub(crate) fn passed<B: Backoff>(&self, backoff: &B) -> bool {
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = backoff;
            global_timer_ns() >= self.end
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            backoff.waited_ns() >= self.budget
        }
    }
}
