//! `Mutex<T, S, B>`: a lock around a `T`, with an RAII guard.
//!
//! Algorithm (GPU): the lanes of a warp that call [`Mutex::lock`] together elect their lowest
//! lane; only that leader competes for the lock word (test-and-test-and-set: `atom.cas.acquire`
//! then relaxed polling with backoff `B`). Once it holds the lock, ownership passes from lane to
//! lane inside the warp through a handoff word (`st.release.cta` / `ld.acquire.cta`), and only
//! the last lane releases the lock word (`st.release.<S>`). One trip through L2 then serves up
//! to 32 critical sections instead of one.
//!
//! Why this is correct under the PTX memory model: the leader's `atom.cas.acquire.<S>`
//! synchronizes with the previous owner's `st.release.<S>`; `bar.warp.sync` orders the leader's
//! reset of the handoff word before the other lanes poll it; each handoff is a release/acquire
//! pair at `.cta` scope (the lanes share a CTA); and causality order is transitive, so the final
//! `st.release.<S>` is cumulative over every lane's writes in the critical section.
//!
//! On the host (no warps) every thread is a warp of one, and this is a plain
//! test-and-test-and-set lock.

use crate::atomic::Atomic;
use crate::scope::{Cta, Gpu, Scope};
use crate::wait::{poll_until_for, Backoff, NanoSleep};
use crate::warp;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// A mutual-exclusion lock protecting a `T`, for threads within scope `S`, waiting with `B`.
///
/// All-zero bytes are an unlocked mutex (with a zeroed `T`), so a `Mutex` in memory the host
/// zeroed can be used through [`Mutex::from_ptr`].
///
/// Inside the critical section, do not use warp-collective operations (shuffles, votes,
/// `warp::sync`): the other lanes of the warp may be waiting for their turn.
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
    // The warp's handoff word sits on its own 128-byte line, away from the word other warps poll.
    _line0: [u32; 31],
    turn: Atomic<u32, Cta>,
    _line1: [u32; 31],
    data: UnsafeCell<T>,
    backoff: PhantomData<B>,
}

// SAFETY: the lock serializes all access to `data`.
unsafe impl<T: Send, S: Scope, B: Backoff> Sync for Mutex<T, S, B> {}
unsafe impl<T: Send, S: Scope, B: Backoff> Send for Mutex<T, S, B> {}

/// A data-less lock.
pub type SpinLock<S = Gpu, B = NanoSleep> = Mutex<(), S, B>;

/// Proof of holding a [`Mutex`]: derefs to the data; dropping it unlocks.
#[must_use = "the lock is released when the guard is dropped"]
pub struct MutexGuard<'a, T, S: Scope, B: Backoff> {
    mutex: &'a Mutex<T, S, B>,
    /// The lanes of this warp that entered `lock` together and take turns.
    mask: u32,
    lane: u32,
}

impl<T, S: Scope, B: Backoff> Mutex<T, S, B> {
    const_fn! {
    /// An unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Mutex {
            locked: Atomic::new(0),
            _line0: [0; 31],
            turn: Atomic::new(0),
            _line1: [0; 31],
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

    /// Takes the lock, waiting as long as it takes.
    #[inline(always)]
    pub fn lock(&self) -> MutexGuard<'_, T, S, B> {
        let mask = warp::active_mask();
        let lane = warp::lane();
        let leader = mask.trailing_zeros();
        if lane == leader {
            self.acquire_word();
            // Reset the handoff word before the other lanes look at it (ordered by the
            // warp barrier below): a stale value from an earlier warp must not name them.
            self.turn.store(leader, Relaxed);
        }
        warp::sync(mask);
        if lane != leader {
            // The turn comes from a lane of this same warp within a critical section or two:
            // poll without sleeping (a sleeping lane would wake long after its turn came).
            while self.turn.load(Acquire) != lane {
                crate::wait::spin_hint();
            }
        }
        MutexGuard {
            mutex: self,
            mask,
            lane,
        }
    }

    /// Takes the lock if it is free now (one `atom.cas.acquire`); never waits.
    #[inline(always)]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T, S, B>> {
        let lane = warp::lane();
        self.locked
            .compare_exchange(0, 1, Acquire, Relaxed)
            .ok()
            .map(|_| MutexGuard {
                mutex: self,
                mask: 1 << lane,
                lane,
            })
    }

    /// Takes the lock if it becomes free within about `ns` nanoseconds (`%globaltimer` on the
    /// GPU); `None` if it does not. Never hangs on a lock that is never released.
    #[inline(always)]
    pub fn try_lock_for(&self, ns: u64) -> Option<MutexGuard<'_, T, S, B>> {
        poll_until_for::<B, _>(ns, || self.try_lock()).ok()
    }

    /// Mutable access without locking: `&mut self` proves no one else can hold the lock.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// Consumes the mutex and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
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
        // The lanes above this one that entered `lock` with it are still waiting their turn.
        let later = self.mask & ((!0u64) << (self.lane + 1)) as u32;
        if later != 0 {
            self.mutex.turn.store(later.trailing_zeros(), Release);
        } else {
            self.mutex.locked.store(0, Release);
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
