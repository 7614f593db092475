//! `Mutex<T, S, B>`: a lock around a `T`, with an RAII guard.
//!
//! Algorithm (GPU): the lanes of a warp that call [`Mutex::lock`] together are grouped by the
//! mutex they name (`activemask.b32`, then `match.any.sync.b64` on its address:
//! [`warp::peers`]). A lane alone on its mutex (a lock per hash bucket) polls the lock word
//! with the `atom.cas.acquire` itself, pausing with backoff `B` between attempts. A group
//! elects its lowest lane, and only that leader competes for the lock word
//! (test-and-test-and-set: `atom.cas.acquire`, then relaxed polling with backoff `B`). Once it holds the lock, the group's lanes take turns in ascending order,
//! handing over with `bar.warp.sync` over the group (no memory traffic), and only the group's
//! last lane releases the lock word (`st.release.<S>`). One trip through L2 then serves up to
//! 32 critical sections instead of one. Lanes on different mutexes form different groups, and
//! no warp barrier ever names a lane outside the caller's group, so a lock per hash bucket
//! behaves as 32 independent locks.
//!
//! Why this is correct under the PTX memory model: the leader's `atom.cas.acquire.<S>`
//! synchronizes with the previous owner's `st.release.<S>`; `bar.warp.sync` "guarantees memory
//! ordering among threads participating in the barrier" (PTX ISA, `bar.warp.sync`), so each
//! lane's critical section is ordered before the next lane's; and causality order is
//! transitive, so the final `st.release.<S>` is cumulative over every lane's writes.
//!
//! On the host every thread is a warp of one, alone on its mutex (a test-and-set lock with
//! backoff: what loom checks), except under `warp::emulation`, where device/tests/mutex.rs
//! runs the groups, leaders and turns with real lanes.
//!
//! ```
//! use ptx_sync::{Cta, Mutex};
//!
//! // A lock per bucket: threads on different buckets never wait for each other.
//! let buckets: [Mutex<u32, Cta>; 4] = core::array::from_fn(|_| Mutex::new(0));
//! std::thread::scope(|s| {
//!     for t in 0..8u32 {
//!         let buckets = &buckets;
//!         s.spawn(move || *buckets[(t % 4) as usize].lock() += t);
//!     }
//! });
//! let sums: Vec<u32> = buckets.into_iter().map(Mutex::into_inner).collect();
//! assert_eq!(sums, [4, 6, 8, 10]); // bucket b holds b + (b + 4)
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Mutex<T, S, B>`](crate::mutex::Mutex), [`MutexGuard`], [`SpinLock<S, B>`](crate::mutex::SpinLock) (`Mutex<(), S, B>`): `lock`, `try_lock`, `try_lock_for`, `try_lock_until`, `from_ptr`, `DATA_OFFSET`, `data_ptr` | `activemask.b32` + `match.any.sync.b64` (the lanes on the same mutex), `atom.acquire.S.cas.b32`, `ld.relaxed.S` polling with `nanosleep.u32`, `bar.warp.sync` (turns inside the warp), `st.release.S.b32` (unlock) | none in libcu++: a hand-written `atomicCAS` lock, or `cuda::binary_semaphore` used as one |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until_deadline, poll_until_for, Backoff, NanoSleep};
use crate::warp;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Mutex in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A mutual-exclusion lock protecting a `T`, for threads within scope `S`, waiting with `B`.
///
/// All-zero bytes are an unlocked mutex (with a zeroed `T`), so a `Mutex` in memory the host
/// zeroed can be used through [`Mutex::from_ptr`].
///
/// Layout (`repr(C)`, the same on the host and the GPU): the `u32` lock word, then the data at
/// [`Mutex::DATA_OFFSET`]. A `Mutex<u32>` is 8 bytes, so a table of 65,536 per-bucket locks
/// costs 512 KiB. Padding is opt-in with [`CachePadded`](crate::CachePadded):
/// `CachePadded<Mutex<T>>` gives the lock a line of its own, `Mutex<CachePadded<T>>` moves the
/// data off the line the waiters poll.
///
/// The lanes of a warp may lock the same mutex or different ones (a lock per hash bucket):
/// lanes are aggregated only with the lanes that lock the same mutex at the same time, and
/// taking a second lock inside a critical section works (in a fixed order across threads, as
/// with any locks). Inside the critical section, do not use warp-collective operations
/// (shuffles, votes, `warp::sync`): the other lanes on this mutex may be waiting for their
/// turn. Those lanes also leave together (a warp barrier over them in the guard's `drop`), so
/// every one of them must drop its guard: a guard kept forever (`mem::forget`) hangs them.
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`), as libcu++ guards the same case.
///
/// ```
/// use ptx_sync::{Gpu, Mutex};
/// let m: Mutex<u32, Gpu> = Mutex::new(0);
/// *m.lock() += 1;
/// assert_eq!(*m.try_lock().unwrap(), 1);
/// ```
#[repr(C)]
pub struct Mutex<T, S: Scope = Gpu, B: Backoff = NanoSleep> {
    locked: Atomic<u32, S>,
    data: UnsafeCell<T>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` is then the fields': `T: Send`).
    backoff: PhantomData<fn() -> B>,
}

// SAFETY: same unsafe impl as `std::sync::Mutex`: the lock lets one thread at a time reach
// `data`, so sharing the mutex hands `T` from thread to thread (`T: Send`) but never shares it.
unsafe impl<T: Send, S: Scope, B: Backoff> Sync for Mutex<T, S, B> {}

/// A data-less lock.
pub type SpinLock<S = Gpu, B = NanoSleep> = Mutex<(), S, B>;

/// Proof of holding a [`Mutex`]: derefs to the data; dropping it unlocks.
#[must_use = "the lock is released when the guard is dropped"]
pub struct MutexGuard<'a, T, S: Scope, B: Backoff> {
    mutex: &'a Mutex<T, S, B>,
    /// The lanes of this warp that entered `lock` together on this mutex and take turns (this
    /// lane alone for `try_lock` and the timed forms).
    mask: u32,
    lane: u32,
    /// Not `Send` (std's guards are not either): `drop` hands over to, or waits with, the
    /// lanes in `mask`, so it must run on the thread that locked.
    not_send: PhantomData<*const ()>,
}

// SAFETY: same unsafe impl as `std::sync::MutexGuard`: a shared guard gives out only `&T`.
unsafe impl<T: Sync, S: Scope, B: Backoff> Sync for MutexGuard<'_, T, S, B> {}

/// As std's `Mutex`: the data if [`try_lock`](Mutex::try_lock) takes the lock (one
/// `atom.cas`, released at once), `<locked>` if not.
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for Mutex<T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Some(guard) => d.field("data", &&*guard),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish_non_exhaustive()
    }
}

/// As std's `MutexGuard`: the data.
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for MutexGuard<'_, T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

impl<T, S: Scope, B: Backoff> Mutex<T, S, B> {
    const_fn! {
    /// An unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Mutex {
            locked: Atomic::new(0),
            data: UnsafeCell::new(value),
            backoff: PhantomData,
        }
    }
    }

    /// Views the mutex at `ptr` (for instance in zeroed global memory a kernel received).
    ///
    /// # Safety
    /// `ptr` points to a valid, aligned `Mutex<T, S, B>` (all-zero bytes are an unlocked one
    /// if all-zero bytes are a valid `T`) that lives for `'a`.
    pub unsafe fn from_ptr<'a>(ptr: *mut Self) -> &'a Self {
        // SAFETY: the caller's contract.
        unsafe { &*ptr }
    }

    /// Byte offset of the data from the start of the mutex (for a host that reads or writes
    /// the data of a `Mutex` in device memory).
    pub const DATA_OFFSET: usize = core::mem::offset_of!(Self, data);

    /// A raw pointer to the data. Reading or writing through it without holding the lock is
    /// a data race, as with `std::sync::Mutex::data_ptr`.
    #[inline(always)]
    pub fn data_ptr(&self) -> *mut T {
        self.data.get()
    }

    /// Takes the lock, waiting as long as it takes.
    ///
    /// PTX: `activemask.b32` and `match.any.sync.b64` (the lanes on this mutex); a lane alone
    /// retries `atom.acquire.<scope>.cas.b32` with `B`'s pauses (`nanosleep.u32` for the
    /// default), a group's leader polls `ld.relaxed.<scope>.b32` between its CASes; the lanes
    /// of a group take turns with `bar.warp.sync`, and the last one's guard unlocks with
    /// `st.release.<scope>.b32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Mutex};
    ///
    /// let total: Mutex<u32, Gpu> = Mutex::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|| {
    ///             for _ in 0..1000 {
    ///                 // atom.acquire.gpu.cas.b32 takes the word; the guard's drop stores
    ///                 // st.release.gpu.b32, so the next holder sees this increment.
    ///                 *total.lock() += 1;
    ///             }
    ///         });
    ///     }
    /// });
    /// assert_eq!(total.into_inner(), 4000);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the mutex is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn lock(&self) -> MutexGuard<'_, T, S, B> {
        crate::debug::check_not_local(self, LOCAL);
        // The lanes locking this same mutex now; lanes on other mutexes are not waited for.
        let mask = warp::peers(self);
        let lane = warp::lane();
        if mask == 1 << lane {
            // Alone on this mutex (a lock per bucket, or a warp already apart): no turns.
            self.acquire_alone();
            return self.guard_alone(lane);
        }
        if lane == mask.trailing_zeros() {
            self.acquire_word();
        }
        // Lanes take turns in ascending order. Each holder ends its turn with a warp barrier
        // over itself and every later lane of the group (in `drop`); wait through one such
        // barrier for each earlier lane. The leader's is the first, so no lane enters before
        // the leader has the lock word.
        let mut earlier = mask & ((1u64 << lane) - 1) as u32;
        while earlier != 0 {
            let holder = earlier.trailing_zeros();
            warp::sync(mask & (u32::MAX << holder));
            earlier &= earlier - 1;
        }
        MutexGuard {
            mutex: self,
            mask,
            lane,
            not_send: PhantomData,
        }
    }

    /// Takes the lock if it is free now (one `atom.cas.acquire`); never waits. Not
    /// warp-aggregated: the guard is this lane's alone.
    ///
    /// PTX: `atom.acquire.<scope>.cas.b32`; the guard's drop `st.release.<scope>.b32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Mutex};
    ///
    /// let m: Mutex<u32, Gpu> = Mutex::new(7);
    /// std::thread::scope(|s| {
    ///     let held = m.lock();
    ///     // Another thread's attempt fails at once (its CAS reads 1) instead of waiting.
    ///     s.spawn(|| assert!(m.try_lock().is_none())).join().unwrap();
    ///     drop(held); // st.release.gpu.b32
    ///     s.spawn(|| assert_eq!(m.try_lock().map(|g| *g), Some(7))).join().unwrap();
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the mutex is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_lock_alone()
    }

    /// Takes the lock if it becomes free before `timeout` has passed since the first attempt
    /// failed; `None` if it does not (C++: `timed_mutex::try_lock_for`). Never hangs on a
    /// lock that is never released. A zero timeout is one attempt. Not warp-aggregated: the
    /// guard is this lane's alone. On the host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: `atom.acquire.<scope>.cas.b32` per attempt, `B`'s pauses between attempts
    /// (`nanosleep.u32` for the default), `mov.u64 %rd, %globaltimer;` after each failed one;
    /// unlock `st.release.<scope>.b32`.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, Mutex};
    /// let m: Mutex<u32, Gpu> = Mutex::new(0);
    /// let held = m.lock();
    /// assert!(m.try_lock_for(Duration::from_micros(10)).is_none());
    /// drop(held);
    /// assert!(m.try_lock_for(Duration::ZERO).is_some());
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the mutex is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock_for(&self, timeout: Duration) -> Option<MutexGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let lane = warp::lane();
        let taken = poll_until_for::<B, _>(timeout, || self.try_take().then_some(()));
        taken.ok().map(|()| self.guard_alone(lane))
    }

    /// Takes the lock if it becomes free before `deadline` on the [`clock`](crate::clock);
    /// `None` if it does not (C++: `timed_mutex::try_lock_until`). A deadline that has passed
    /// is one attempt.
    ///
    /// PTX: as [`try_lock_for`](Self::try_lock_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, Mutex};
    /// let m: Mutex<u32, Gpu> = Mutex::new(5);
    /// assert_eq!(m.try_lock_until(Instant::now()).map(|g| *g), Some(5));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the mutex is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock_until(&self, deadline: Instant) -> Option<MutexGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let lane = warp::lane();
        let taken = poll_until_deadline::<B, _>(deadline, || self.try_take().then_some(()));
        taken.ok().map(|()| self.guard_alone(lane))
    }

    /// [`try_lock`](Self::try_lock) without the debug check, which the timed wait does once,
    /// not per poll. The guard is this lane's alone: no turns.
    #[inline(always)]
    fn try_lock_alone(&self) -> Option<MutexGuard<'_, T, S, B>> {
        let lane = warp::lane();
        self.try_take().then(|| self.guard_alone(lane))
    }

    /// One attempt at the lock word: `atom.cas.acquire` from 0 to 1.
    #[inline(always)]
    fn try_take(&self) -> bool {
        // Acquire: it reads the previous holder's `st.release` of 0.
        self.locked.compare_exchange(0, 1, Acquire, Relaxed).is_ok()
    }

    /// The guard of a lock this lane took alone (no turns): a group of one, whose `drop` stores
    /// the unlock and passes no warp barrier. (A distinct `mask` of 0 for this case let the
    /// compiler drop two dead `bar.warp.sync` from the timed forms, but the extra branch it put
    /// into every `drop` slowed the per-bucket hash table down: bench/NOTES.md.)
    #[inline(always)]
    fn guard_alone(&self, lane: u32) -> MutexGuard<'_, T, S, B> {
        MutexGuard {
            mutex: self,
            mask: 1 << lane,
            lane,
            not_send: PhantomData,
        }
    }

    /// Mutable access without locking: `&mut self` proves no one else can hold the lock.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// Consumes the mutex and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }

    /// The lock word for a lane alone on this mutex: the compare-and-swap itself is the poll,
    /// with backoff `B` between attempts (test-and-set with backoff). A lock per hash bucket
    /// is rarely held, and briefly: a CAS takes it on the first L2 round trip after its
    /// release, where polling with loads needs a second trip for the CAS (BENCHMARKS.md,
    /// `hash_table` rows). A failed CAS writes nothing, so it does not bounce the line.
    #[inline(always)]
    fn acquire_alone(&self) {
        let mut backoff = B::default();
        while self
            .locked
            .compare_exchange(0, 1, Acquire, Relaxed)
            .is_err()
        {
            backoff.pause();
        }
    }

    /// Test-and-test-and-set on the lock word: RMWs only when it looked free, so pollers
    /// share the line in their caches instead of bouncing it.
    #[inline(always)]
    fn acquire_word(&self) {
        let mut backoff = B::default();
        // A CAS, not an exchange: a failed CAS writes nothing, so a loser leaves no store of
        // its own in the word's history (same cost on the GPU; loom can only model this form).
        while self
            .locked
            .compare_exchange(0, 1, Acquire, Relaxed)
            .is_err()
        {
            while self.locked.load(Relaxed) != 0 {
                backoff.pause();
            }
        }
    }
}

impl<T, S: Scope, B: Backoff> Drop for MutexGuard<'_, T, S, B> {
    #[inline(always)]
    fn drop(&mut self) {
        // This lane and the lanes after it that entered `lock` with it.
        let rest = self.mask & (u32::MAX << self.lane);
        if rest != 1 << self.lane {
            // Hand over: the later lanes are waiting at this same barrier.
            warp::sync(rest);
        } else {
            self.mutex.locked.store(0, Release);
        }
        // Leave together: the batch's lanes reach their next `lock` converged, so it is
        // aggregated again (otherwise they drift apart and later batches shrink to one lane).
        // The mutex rows of BENCHMARKS.md measure it (bench/NOTES.md, "Design measurements").
        if self.mask != 1 << self.lane {
            warp::sync(self.mask);
        }
    }
}

impl<T, S: Scope, B: Backoff> Deref for MutexGuard<'_, T, S, B> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T, S: Scope, B: Backoff> DerefMut for MutexGuard<'_, T, S, B> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.mutex.data.get() }
    }
}
