//! `Semaphore<S, MAX, B>`: a counting semaphore (`cuda::counting_semaphore<Scope, MAX>`). With
//! `MAX == 1` it is [`BinarySemaphore`] (`cuda::binary_semaphore<Scope>`), which runs its own
//! algorithm (device/src/semaphore/one_unit.rs), as libcu++ specializes `__atomic_semaphore`
//! for 1.
//!
//! The count is one `u32` at scope `S`. Counting algorithm (`MAX > 1`), the shape of libcu++'s
//! `__atomic_semaphore` (cuda/std/__semaphore/atomic_semaphore.h in NVIDIA/cccl):
//!
//! - `acquire`: load the count (`ld.relaxed`); only if it is positive, `atom.acquire.cas` it
//!   from `c` to `c - 1`. A CAS that loses returns the count it found, and is retried at once
//!   while that count stays positive (another unit is there to take). At 0 the waiter polls
//!   with loads only, pausing with `B` ([`Elapsed`] by default: libcu++'s policy, back-to-back
//!   polls for 40 us, then sleeps that grow with the time waited; [`NanoSleep`](crate::wait::NanoSleep)
//!   is the alternative): many threads waiting on an empty count cost the L2 loads, not RMWs that cannot
//!   succeed (the L2 performs the RMWs on one word one at a time, the releases among them).
//! - `release(n)`: `red.release.add` (no old value to wait for). Debug builds use
//!   `atom.release.add` instead, whose old value they check against `MAX`.
//!
//! Why this is correct under the PTX memory model: the CAS that takes a unit is an acquire
//! pattern, and it reads the value written by a releasing `red`/`atom` `.release.add`, or by
//! RMWs after it in the word's modification order (other adds, other CASes): a write is
//! observed through a chain of atomic read-modify-writes (PTX ISA, "Memory Consistency Model":
//! observation order, release and acquire patterns), so the release synchronizes with the
//! acquire, and the releaser's writes (a slot it filled, a critical section) are visible to
//! the thread that takes the unit. The load before the CAS is relaxed: it only decides whether
//! to try, nothing is concluded from it; a failed CAS (relaxed) takes nothing. A unit is taken
//! only by a successful CAS from `c > 0` to `c - 1`, and RMWs on one word are atomic, so at
//! most `MAX` units are ever held when the count never exceeds `MAX`.
//!
//! ```
//! use ptx_sync::{Gpu, Semaphore};
//!
//! // A pool of 3 buffers shared by 8 threads: each takes one, uses it, gives it back.
//! let free: Semaphore<Gpu, 3> = Semaphore::new(3);
//! std::thread::scope(|s| {
//!     for _ in 0..8 {
//!         s.spawn(|| {
//!             free.acquire();
//!             // ... at most 3 threads are here at once ...
//!             free.release(1);
//!         });
//!     }
//! });
//! assert_eq!(free.available(), 3);
//! assert!(!Semaphore::<Gpu, 3>::new(0).try_acquire()); // no unit: fails without waiting
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Semaphore<S, MAX, B>`](crate::semaphore::Semaphore): `acquire`, `try_acquire`, `try_acquire_for`, `try_acquire_until`, `release(n)` | `ld.relaxed.S` then `atom.acquire.S.cas.b32` (acquire), `red.release.S.add.u32` (release) | `cuda::counting_semaphore<Scope, MAX>` |

mod one_unit;

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until_deadline, poll_until_for, AtScope, Backoff, Elapsed};
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;
use one_unit::EXCEEDS;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Semaphore in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A counting semaphore for threads within scope `S`, holding at most `MAX` units, waiting
/// with `B`. All-zero bytes are a semaphore with no free unit. `MAX == 1` is
/// [`BinarySemaphore`], with its own algorithm (see there).
///
/// libcu++ counterpart: `cuda::counting_semaphore<Scope, MAX>` (`cuda::binary_semaphore<Scope>`
/// for `MAX == 1`); `Semaphore<Gpu, N>` is `cuda::counting_semaphore<cuda::thread_scope_device, N>`.
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`), as libcu++ guards the same case.
///
/// ```
/// use ptx_sync::{Gpu, Semaphore};
/// let slots: Semaphore<Gpu, 4> = Semaphore::new(4);
/// slots.acquire();
/// assert!(slots.try_acquire());
/// slots.release(2);
/// assert_eq!(slots.available(), 4);
/// ```
#[repr(C)]
pub struct Semaphore<S: Scope = Gpu, const MAX: u32 = { u32::MAX }, B: Backoff = Elapsed> {
    count: Atomic<u32, S>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` and `Sync`, as its atomic word: always).
    backoff: PhantomData<fn() -> B>,
}

/// A semaphore with one unit: `cuda::binary_semaphore<Scope>` (`BinarySemaphore<Gpu>` is
/// `cuda::binary_semaphore<cuda::thread_scope_device>`), waiting with `B`.
///
/// It is [`Semaphore<S, 1, B>`](Semaphore) (the same type: code written for any
/// `Semaphore<S, MAX>` accepts it), whose operations run the one-unit algorithm of
/// [`binary_semaphore`](crate::binary_semaphore) when `MAX == 1`, a choice made at compile
/// time:
///
/// | Operation | PTX (`S` = `cta`, `cluster`, `gpu`) | PTX at `Sys` | libcu++ |
/// |-----------|------------------------|--------------|---------|
/// | `acquire` | `atom.acquire.S.exch.b32`; waiting: `ld.relaxed.S.b32` polls, `B`'s pauses (default: `mov.u64 %globaltimer`, `nanosleep.u32`), `atom.acquire.S.exch.b32` again after a 1 | the same, loading before the first exchange | `acquire()` |
/// | `try_acquire` | `atom.acquire.S.exch.b32` | `ld.relaxed.sys.b32`, then the exchange if it read 1 | `try_acquire()` |
/// | `try_acquire_for(d)`, `try_acquire_until(t)` | `acquire`'s, plus `mov.u64 %globaltimer` (the deadline) after each failed poll | the same | `try_acquire_for(duration)`, `try_acquire_until(time_point)` |
/// | `release(1)` | `st.release.S.b32` of 1; debug builds: `atom.release.S.exch.b32` (checks the old value) | the same | `release()` |
/// | `available` | `ld.relaxed.S.b32` | the same | none |
///
/// `release(0)` does nothing. `release(n)` with `n > 1`, or while the unit is free, exceeds
/// `MAX`: a debug build traps with a message (a panic on the host); a release build leaves
/// one free unit (the store of 1 saturates), where libcu++ asserts `update == 1`.
///
/// All-zero bytes are a semaphore whose unit is taken; `new(1)` or a first `release(1)` frees
/// it. It lives in shared or global memory (or mapped host memory for `Sys`), never in a
/// kernel's local variable (debug builds trap there).
///
/// ```
/// use ptx_sync::{BinarySemaphore, Gpu};
/// let lock: BinarySemaphore<Gpu> = BinarySemaphore::new(1);
/// lock.acquire(); // atom.acquire.gpu.exch.b32 returned 1
/// assert!(!lock.try_acquire());
/// lock.release(1); // st.release.gpu.b32
/// assert!(lock.try_acquire_for(core::time::Duration::from_micros(1)));
/// ```
pub type BinarySemaphore<S = Gpu, B = Elapsed> = Semaphore<S, 1, B>;

/// The free units now ([`available`](Semaphore::available): a `Relaxed` load) and `MAX`.
impl<S: Scope, const MAX: u32, B: Backoff> core::fmt::Debug for Semaphore<S, MAX, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Semaphore")
            .field("available", &self.available())
            .field("max", &MAX)
            .finish()
    }
}

impl<S: Scope, const MAX: u32, B: Backoff> Semaphore<S, MAX, B> {
    /// The most units this semaphore can hold (libcu++: `max()`).
    pub const MAX: u32 = MAX;

    const_fn! {
    /// A semaphore with `initial` free units. Panics if `initial > MAX`. Emits no PTX of its
    /// own (a plain initialization). libcu++: the `counting_semaphore(desired)` constructor.
    ///
    /// # Panics
    ///
    /// When `initial > MAX`, in every build (on the GPU the thread prints the message and traps; in
    /// a `const` context it is a compile error).
    pub fn new(initial: u32) -> Self {
        check!(initial <= MAX, "Semaphore::new: initial count above MAX");
        Semaphore {
            count: Atomic::new(initial),
            backoff: PhantomData,
        }
    }
    }

    /// Views the semaphore at `ptr` (a `u32` count; zeroed memory is a semaphore with no free
    /// unit, which a first `release(n)` fills). Emits no PTX (a cast). libcu++ has no
    /// counterpart (its semaphores are constructed in place).
    ///
    /// # Safety
    /// `ptr` is valid, 4-byte aligned, holds a count `<= MAX`, lives for `'a`, and is accessed
    /// only atomically meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(C)` with one `Atomic<u32, S>` (transparent over `u32`) and a ZST.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Takes one unit, waiting with `B` while none is free. libcu++: `acquire()`.
    ///
    /// PTX (`MAX > 1`): `ld.relaxed.<scope>.b32`, then `atom.acquire.<scope>.cas.b32` when the
    /// count is positive; waiting: `ld.relaxed` polls with `B`'s pauses (the default
    /// [`Elapsed`]: `%globaltimer`, then `nanosleep.u32` after 40 us). `MAX == 1`: see
    /// [`BinarySemaphore`] (`atom.acquire.<scope>.exch.b32`).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Relaxed, Semaphore};
    ///
    /// // At most two of six threads inside at once.
    /// let slots: Semaphore<Gpu, 2> = Semaphore::new(2);
    /// let (inside, peak) = (Atomic::<u32, Gpu>::new(0), Atomic::<u32, Gpu>::new(0));
    /// std::thread::scope(|s| {
    ///     for _ in 0..6 {
    ///         s.spawn(|| {
    ///             slots.acquire(); // ld.relaxed.gpu.b32, then atom.acquire.gpu.cas.b32
    ///             peak.fetch_max(inside.fetch_add(1, Relaxed) + 1, Relaxed);
    ///             inside.fetch_sub(1, Relaxed);
    ///             slots.release(1);
    ///         });
    ///     }
    /// });
    /// assert!(peak.load(Relaxed) <= 2); // never more holders than units
    /// assert_eq!(slots.available(), 2); // and every unit came back
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the semaphore is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn acquire(&self) {
        crate::debug::check_not_local(self, LOCAL);
        if MAX == 1 {
            one_unit::acquire::<S, B>(&self.count);
        } else {
            // One backoff for the acquire; a wait that saw units but lost them to other
            // threads tells it (`Backoff::lost_race`: libcu++ starts over, `Elapsed` keeps
            // half the time waited; see there for the measurements).
            if self.take() {
                return;
            }
            let mut backoff = AtScope::<S, B>::default();
            loop {
                let c = loop {
                    let c = self.count.load(Relaxed);
                    if c > 0 {
                        break c;
                    }
                    backoff.pause();
                };
                if self.take_from(c) {
                    return;
                }
                backoff.lost_race();
            }
        }
    }

    /// Takes one unit if one is free now; never waits. A CAS that loses to another thread
    /// retries while units remain, so `false` means the count was 0. libcu++: `try_acquire()`.
    ///
    /// PTX (`MAX > 1`): `ld.relaxed.<scope>.b32`, then `atom.acquire.<scope>.cas.b32` if the
    /// count is positive. `MAX == 1`: one `atom.acquire.<scope>.exch.b32` (see
    /// [`BinarySemaphore`]).
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the semaphore is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_acquire(&self) -> bool {
        crate::debug::check_not_local(self, LOCAL);
        if MAX == 1 {
            one_unit::try_acquire(&self.count)
        } else {
            self.take()
        }
    }

    /// Takes one unit if one is free now, without the debug check (which the waits do once,
    /// not per poll): the load first, the CAS only when a unit looks free.
    #[inline(always)]
    fn take(&self) -> bool {
        // Relaxed: only a hint of whether a CAS can succeed.
        self.take_from(self.count.load(Relaxed))
    }

    /// [`take`](Self::take) from a count `c` just read.
    #[inline(always)]
    fn take_from(&self, mut c: u32) -> bool {
        while c > 0 {
            // Acquire on the CAS that takes the unit: it reads the releasing add's value (or a
            // later RMW's), so the releaser's writes are visible. Relaxed on failure: a
            // failed CAS takes nothing.
            match self.count.compare_exchange(c, c - 1, Acquire, Relaxed) {
                Ok(_) => return true,
                Err(now) => c = now,
            }
        }
        false
    }

    /// Takes one unit if one becomes free before `timeout` has passed since the first attempt
    /// failed; `false` if not (libcu++: `try_acquire_for(duration)`). A zero timeout is one
    /// attempt. On the host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: [`acquire`](Self::acquire)'s (the waiting policy `B`'s pauses between polls), plus
    /// `mov.u64 %rd, %globaltimer;` after each failed poll (the deadline).
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, Semaphore};
    /// let s: Semaphore<Gpu, 4> = Semaphore::new(0);
    /// assert!(!s.try_acquire_for(Duration::from_micros(10)));
    /// s.release(1);
    /// assert!(s.try_acquire_for(Duration::ZERO));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the semaphore is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_acquire_for(&self, timeout: Duration) -> bool {
        crate::debug::check_not_local(self, LOCAL);
        if MAX == 1 {
            one_unit::try_acquire_within::<S, B>(&self.count, crate::wait::Deadline::after(timeout))
        } else {
            poll_until_for::<AtScope<S, B>, _>(timeout, || self.take().then_some(())).is_ok()
        }
    }

    /// Takes one unit if one becomes free before `deadline` on the [`clock`](crate::clock);
    /// `false` if not (libcu++: `try_acquire_until(time_point)`). A deadline that has passed is
    /// one attempt.
    ///
    /// PTX: as [`try_acquire_for`](Self::try_acquire_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, Semaphore};
    /// let s: Semaphore<Gpu, 4> = Semaphore::new(1);
    /// let past = Instant::now();
    /// assert!(s.try_acquire_until(past)); // one attempt, and a unit is there
    /// assert!(!s.try_acquire_until(past));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the semaphore is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_acquire_until(&self, deadline: Instant) -> bool {
        crate::debug::check_not_local(self, LOCAL);
        if MAX == 1 {
            one_unit::try_acquire_within::<S, B>(&self.count, crate::wait::Deadline::at(deadline))
        } else {
            poll_until_deadline::<AtScope<S, B>, _>(deadline, || self.take().then_some(())).is_ok()
        }
    }

    /// Returns `n` units. In a debug build, a count that would exceed `MAX` traps with a
    /// message (a panic on the host). libcu++: `release(update)`.
    ///
    /// PTX (`MAX > 1`): `red.release.<scope>.add.u32`; debug builds `atom.release.<scope>.add.u32`
    /// (the old value is checked against `MAX`). `MAX == 1`: `st.release.<scope>.b32` of 1
    /// (see [`BinarySemaphore`]).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Relaxed, Semaphore};
    ///
    /// // A producer publishes three items, one unit each; the consumer takes them in turn.
    /// let items: Semaphore<Gpu, 8> = Semaphore::new(0);
    /// let buf: [Atomic<u32, Gpu>; 3] = core::array::from_fn(|_| Atomic::new(0));
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         for (i, slot) in buf.iter().enumerate() {
    ///             slot.store(100 + i as u32, Relaxed);
    ///             // red.release.gpu.add.u32 (atom.release in a debug build): the unit
    ///             // carries the store above to whoever takes it.
    ///             items.release(1);
    ///         }
    ///     });
    ///     for (i, slot) in buf.iter().enumerate() {
    ///         items.acquire(); // the (i + 1)-th unit: item i is visible
    ///         assert_eq!(slot.load(Relaxed), 100 + i as u32);
    ///     }
    /// });
    /// assert_eq!(items.available(), 0);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the release takes
    /// the count above `MAX` (for `MAX == 1`: `n > 1`, or the unit is already free); on the
    /// GPU it also traps when the semaphore is in local memory (a kernel's local variable). Release
    /// builds do not check: a counting semaphore's count then exceeds `MAX`, a binary one stays at
    /// one free unit.
    #[inline(always)]
    pub fn release(&self, n: u32) {
        crate::debug::check_not_local(self, LOCAL);
        if MAX == 1 {
            one_unit::release(&self.count, n);
        } else if cfg!(debug_assertions) {
            // Release: the acquirer's CAS reads this add's value (or a later RMW's), so the
            // writes before it are visible to the thread that takes a unit.
            let prev = self.count.fetch_add(n, Release);
            if prev > MAX || n > MAX - prev {
                crate::debug::trap(EXCEEDS);
            }
        } else {
            // The same release add, without waiting for the old value.
            self.count.red_add(n, Release);
        }
    }

    /// The most units this semaphore can hold, [`MAX`](Self::MAX) (libcu++: `max()`).
    pub const fn max() -> u32 {
        MAX
    }

    /// Sets the free units to `initial`, in a kernel (a relaxed store). Only while no thread
    /// uses the semaphore (before the threads that use it are told so, e.g. across a block or
    /// grid barrier). Panics (traps on the GPU) if `initial > MAX`.
    ///
    /// PTX: `st.relaxed.<scope>.b32`.
    ///
    /// # Panics
    ///
    /// When `initial > MAX`, in every build (on the GPU the thread prints the message and traps).
    /// In a debug build on the GPU it also traps with a message when the semaphore is in local
    /// memory (a kernel's local variable).
    #[inline(always)]
    pub fn init(&self, initial: u32) {
        check!(initial <= MAX, "Semaphore::init: initial count above MAX");
        crate::debug::check_not_local(self, LOCAL);
        self.count.store(initial, Relaxed);
    }

    /// The free units now (a relaxed load: a hint, stale as soon as it is read).
    ///
    /// PTX: `ld.relaxed.<scope>.b32`. libcu++ has no counterpart.
    #[inline(always)]
    pub fn available(&self) -> u32 {
        self.count.load(Relaxed)
    }
}
