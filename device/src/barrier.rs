//! `Barrier<S, B>`: a reusable barrier for any set of threads within scope `S`
//! (`cuda::barrier<Scope>`), in any memory: shared memory for a block, global memory for a set
//! of blocks (`Barrier<Gpu>`), mapped memory for host and GPU (`Barrier<Sys>`).
//!
//! Three `u32`s: `pending` (arrivals still expected in this phase), `expected` (the phase
//! size, lowered by `arrive_and_drop`) and `phase` (a counter). An arrival is
//! `atom.add.acq_rel` of `-1` on `pending`; the thread that brings it to 0 runs the
//! completion step, refills `pending`, and opens the phase with `st.release` of `phase + 1`.
//! Waiters poll `phase` with `ld.acquire`.
//!
//! Why this is correct under the PTX memory model: the arrivals form a chain of RMWs on
//! `pending`, each a release, and the last one is also an acquire, so it observes every
//! earlier arrival's writes; its `st.release` of `phase` then carries them (causality order
//! is transitive) to every waiter whose `ld.acquire` reads the new phase (PTX ISA, "Memory
//! Consistency Model"). The refill of `pending` is ordered before that release, so a thread
//! that arrives in the next phase (after having seen the new phase) finds it refilled.
//!
//! `arrive_and_wait` is warp-aggregated on the GPU, per barrier: the lanes that call it
//! together on the same barrier (`match.any.sync.b64` on its address: [`warp::peers`]) meet at
//! `bar.warp.sync` over that group, their leader arrives once for the group and polls, and a
//! second `bar.warp.sync` passes the result on (the same argument as in
//! [`Latch`](crate::Latch)). Lanes on other barriers are neither counted nor waited for.

use crate::atomic::Atomic;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_for, Backoff, NanoSleep, TimedOut};
use crate::warp;
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Barrier in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A reusable barrier for `expected` threads within scope `S`, waiting with `B`.
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`), as libcu++ guards the same case.
///
/// ```
/// use ptx_sync::{Barrier, Cta};
/// let b: Barrier<Cta> = Barrier::new(1);
/// let token = b.arrive();      // a barrier of one opens at once
/// b.wait(token);
/// b.arrive_and_wait_with(|| {}); // the last arriver runs the completion step
/// ```
#[repr(C)]
pub struct Barrier<S: Scope = Gpu, B: Backoff = NanoSleep> {
    pending: Atomic<u32, S>,
    expected: Atomic<u32, S>,
    phase: Atomic<u32, S>,
    backoff: PhantomData<B>,
}

/// The phase an arrival belongs to: pass it to [`Barrier::wait`].
#[must_use = "wait for the phase with Barrier::wait"]
#[derive(Debug)]
pub struct Token(u32, bool);

// SAFETY: all state is atomic.
unsafe impl<S: Scope, B: Backoff> Sync for Barrier<S, B> {}
unsafe impl<S: Scope, B: Backoff> Send for Barrier<S, B> {}

impl<S: Scope, B: Backoff> Barrier<S, B> {
    const_fn! {
    /// A barrier for `expected` threads (at least 1).
    pub fn new(expected: u32) -> Self {
        assert!(expected > 0, "Barrier::new: a barrier needs at least one thread");
        Barrier {
            pending: Atomic::new(expected),
            expected: Atomic::new(expected),
            phase: Atomic::new(0),
            backoff: PhantomData,
        }
    }
    }

    /// Views the barrier at `ptr`: three `u32`s, `[expected, expected, 0]` for a fresh barrier
    /// of `expected` threads (see [`Barrier::init`]).
    ///
    /// # Safety
    /// `ptr` is valid for three `u32`s, 4-byte aligned, lives for `'a`, and is accessed only
    /// through this type meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(C)` of three `Atomic<u32, S>` (transparent over `u32`) and a ZST.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Resets the barrier in place for `expected` threads. Call it from one thread, before
    /// any thread uses the barrier, and make it visible to them (a block barrier such as
    /// `block::sync()` for shared memory, or a kernel boundary).
    #[inline(always)]
    pub fn init(&self, expected: u32) {
        assert!(
            expected > 0,
            "Barrier::init: a barrier needs at least one thread"
        );
        self.pending.store(expected, Relaxed);
        self.expected.store(expected, Relaxed);
        self.phase.store(0, Relaxed);
    }

    /// Arrives at the current phase without waiting; returns the phase's token.
    #[inline(always)]
    pub fn arrive(&self) -> Token {
        self.arrive_n(1, || {})
    }

    /// Waits until the phase of `token` has completed.
    #[inline(always)]
    pub fn wait(&self, token: Token) {
        crate::debug_check_not_local(self, LOCAL);
        poll_until::<B, _>(|| (self.phase.load(Acquire) != token.0).then_some(()));
    }

    /// [`wait`](Self::wait) for at most about `ns` nanoseconds.
    #[inline(always)]
    pub fn wait_for(&self, token: &Token, ns: u64) -> Result<(), TimedOut> {
        crate::debug_check_not_local(self, LOCAL);
        poll_until_for::<B, _>(ns, || (self.phase.load(Acquire) != token.0).then_some(()))
    }

    /// Arrives and waits for the others.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        self.arrive_and_wait_with(|| {})
    }

    /// Arrives and waits; the last thread to arrive runs `completion` before any thread is
    /// released (so its writes are visible to all of them).
    #[inline(always)]
    pub fn arrive_and_wait_with(&self, completion: impl FnOnce()) {
        let group = warp::peers(self);
        warp::sync(group);
        if warp::lane() == group.trailing_zeros() {
            let token = self.arrive_n(group.count_ones(), completion);
            // The arrival that completed the phase opened it itself, after its acquire-RMW
            // observed every other arrival: it has nothing to wait for.
            if !token.1 {
                self.wait(token);
            }
        }
        warp::sync(group);
    }

    /// Arrives at the current phase and leaves the barrier: later phases expect one thread
    /// fewer.
    #[inline(always)]
    pub fn arrive_and_drop(&self) {
        // Ordered before this thread's release-arrival, so the phase's last arriver (whose
        // acquire-RMW observes that arrival) refills `pending` with the lowered count.
        self.expected.fetch_sub(1, Relaxed);
        let _ = self.arrive_n(1, || {});
    }

    #[inline(always)]
    fn arrive_n(&self, n: u32, completion: impl FnOnce()) -> Token {
        crate::debug_check_not_local(self, LOCAL);
        // The phase cannot move before this arrival (it needs it), so this is our phase.
        let phase = self.phase.load(Relaxed);
        let prev = self.pending.fetch_sub(n, AcqRel);
        let completed = prev == n;
        if completed {
            completion();
            self.pending.store(self.expected.load(Relaxed), Relaxed);
            self.phase.store(phase.wrapping_add(1), Release);
        } else if cfg!(debug_assertions) && prev < n {
            crate::debug_trap(c"ptx-sync: Barrier: more arrivals than expected in one phase\n");
        }
        Token(phase, completed)
    }
}
