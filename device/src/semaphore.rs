//! `Semaphore<S, MAX, B>`: a counting semaphore (`cuda::counting_semaphore<Scope, MAX>`), and
//! `BinarySemaphore` (`cuda::binary_semaphore<Scope>`).
//!
//! The count is one `u32` at scope `S`. `acquire` is test-and-test-and-set: it reads the count
//! (relaxed) and only attempts `atom.cas.acquire` when a unit looks free, so waiters poll a
//! shared line instead of bouncing it with failed RMWs. `release(n)` is one `atom.add.release`.
//!
//! Why this is correct under the PTX memory model: the acquiring CAS reads the value written
//! by a releasing `atom.add.release` (or by RMWs after it in the word's modification order),
//! so the release synchronizes with the acquire (PTX ISA, "Memory Consistency Model": release
//! and acquire patterns, observation through read-modify-writes), and the releaser's writes are
//! visible to the next holder. A unit is taken only by a successful CAS from `c > 0` to
//! `c - 1`, so at most `MAX` units are ever held when the count never exceeds `MAX`.

use crate::atomic::Atomic;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_for, Backoff, NanoSleep};
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Semaphore in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A counting semaphore for threads within scope `S`, holding at most `MAX` units, waiting
/// with `B`. All-zero bytes are a semaphore with no free unit.
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
pub struct Semaphore<S: Scope = Gpu, const MAX: u32 = { u32::MAX }, B: Backoff = NanoSleep> {
    count: Atomic<u32, S>,
    backoff: PhantomData<B>,
}

/// A semaphore with one unit: `cuda::binary_semaphore`.
pub type BinarySemaphore<S = Gpu, B = NanoSleep> = Semaphore<S, 1, B>;

// SAFETY: all state is atomic.
unsafe impl<S: Scope, const MAX: u32, B: Backoff> Sync for Semaphore<S, MAX, B> {}
unsafe impl<S: Scope, const MAX: u32, B: Backoff> Send for Semaphore<S, MAX, B> {}

impl<S: Scope, const MAX: u32, B: Backoff> Semaphore<S, MAX, B> {
    /// The most units this semaphore can hold.
    pub const MAX: u32 = MAX;

    const_fn! {
    /// A semaphore with `initial` free units. Panics if `initial > MAX`.
    pub fn new(initial: u32) -> Self {
        assert!(initial <= MAX, "Semaphore::new: initial count above MAX");
        Semaphore {
            count: Atomic::new(initial),
            backoff: PhantomData,
        }
    }
    }

    /// Views the semaphore at `ptr` (a `u32` count; zeroed memory is a semaphore with no free
    /// unit, which a first `release(n)` fills).
    ///
    /// # Safety
    /// `ptr` is valid, 4-byte aligned, holds a count `<= MAX`, lives for `'a`, and is accessed
    /// only atomically meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(C)` with one `Atomic<u32, S>` (transparent over `u32`) and a ZST.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Takes one unit, waiting with `B` while none is free.
    #[inline(always)]
    pub fn acquire(&self) {
        crate::debug_check_not_local(self, LOCAL);
        poll_until::<B, _>(|| self.take().then_some(()));
    }

    /// Takes one unit if one is free now; never waits. A CAS that loses to another thread
    /// retries while units remain, so `false` means the count was 0.
    #[inline(always)]
    pub fn try_acquire(&self) -> bool {
        crate::debug_check_not_local(self, LOCAL);
        self.take()
    }

    /// Takes one unit if one is free now, without the debug check (which the waits do once,
    /// not per poll): test-and-test-and-set on the count.
    #[inline(always)]
    fn take(&self) -> bool {
        let mut c = self.count.load(Relaxed);
        while c > 0 {
            match self.count.compare_exchange(c, c - 1, Acquire, Relaxed) {
                Ok(_) => return true,
                Err(now) => c = now,
            }
        }
        false
    }

    /// Takes one unit if one becomes free within about `ns` nanoseconds; `false` if not.
    #[inline(always)]
    pub fn try_acquire_for(&self, ns: u64) -> bool {
        crate::debug_check_not_local(self, LOCAL);
        poll_until_for::<B, _>(ns, || self.take().then_some(())).is_ok()
    }

    /// Returns `n` units. In a debug build, a count that would exceed `MAX` traps with a
    /// message (a panic on the host).
    ///
    /// PTX: `atom.release.<scope>.add.u32`.
    #[inline(always)]
    pub fn release(&self, n: u32) {
        crate::debug_check_not_local(self, LOCAL);
        let prev = self.count.fetch_add(n, Release);
        if cfg!(debug_assertions) && (prev > MAX || n > MAX - prev) {
            crate::debug_trap(c"ptx-sync: Semaphore::release: count would exceed MAX\n");
        }
    }

    /// The free units now (a relaxed load: a hint, stale as soon as it is read).
    #[inline(always)]
    pub fn available(&self) -> u32 {
        self.count.load(Relaxed)
    }
}
