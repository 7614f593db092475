//! `Barrier<S, B>`: a reusable barrier for any set of threads within scope `S`
//! (`cuda::barrier<Scope>`), in any memory: shared memory for a block, global memory for a set
//! of blocks (`Barrier<Gpu>`), mapped memory for host and GPU (`Barrier<Sys>`).
//!
//! One `u64` word, laid out as libcu++ lays out `cuda::barrier` without a completion function:
//!
//! | bits     | what they hold |
//! |----------|----------------|
//! | 63       | the phase (a [`Token`] is the value of this bit its arrival saw) |
//! | 32..=62  | the arrival counter: `2^31 - expected` when a phase starts, plus `n` per arrival of `n` |
//! | 0..=31   | `2^31 - expected`, where the counter restarts ([`init_word`] is the fresh word) |
//!
//! An arrival of `n` is one `atom.acq_rel.add.u64` of `n << 32`. The arrival that brings the
//! counter to `2^31` carries into bit 63: that same RMW flips the phase, which is what releases
//! the waiters, and leaves the counter at 0. That arrival then restarts the counter with a
//! relaxed add of `(2^31 - expected) << 32`. Adds commute, so arrivals at the next phase that
//! land before the restart are still counted; and the next phase cannot complete before the
//! restart, because the thread that completed this phase is one of the next phase's arrivals
//! and arrives only after its restart. Waiters poll the phase bit with `ld.acquire`.
//!
//! Two operations must know that their arrival is the phase's last before the phase flips, so
//! they take another path: `arrive_and_wait_with`, whose completion step runs before any
//! waiter is released, and `arrive_and_drop`, whose thread does not arrive at the next phase:
//! had it completed a phase with the add above, the threads that add released could complete
//! the next phase before its restart (which would then flip the phase a second time and leave
//! the counter at 0, so the phase after that would never complete). libcu++'s
//! `arrive_and_drop` (a relaxed add to bits 0..=31, then the plain arrival) has that window.
//! These two load the word (`ld.acquire`) and, while the counter plus `n` is below `2^31`, add
//! their arrival with `atom.cas`, retrying with the value the CAS returns. An arrival that
//! finds the counter at `2^31 - n` is the last: every other arrival of the phase is already
//! counted, so no other thread writes the word before it does. It runs the completion step,
//! then flips the phase and restarts the counter with one `atom.acq_rel.add.u64` (a drop raises
//! the restart value by one in the same add). A drop that is not last adds `1` to bits 0..=31 in
//! the same CAS as its arrival: the restart that ends the phase reads them from the RMW that
//! completes the phase, which comes later in the word's coherence order, so the phase after
//! expects one thread fewer.
//!
//! A stale value cannot make an arrival that is not the last believe it is: a thread never
//! reads a value older than one it has already read or written (read-read and write-read
//! coherence), so it sees the word no earlier than the flip its previous wait saw, or its own
//! previous arrival. After that point the only values that are not an exact count of the
//! current phase lie between a flip and its restart, and there the counter holds only early
//! arrivals at the new phase, which together with this one are fewer than that phase's
//! expected count (its completer has not arrived yet), so below `2^31 - n`.
//!
//! Why this is correct under the PTX memory model (PTX ISA, "Memory Consistency Model"): every
//! arrival's `atom.acq_rel` is a release pattern on the word, and every write to the word after
//! the barrier's initialization is an atomic RMW. A waiter's `ld.acquire` that sees the flipped
//! bit reads the flipping RMW, or a later RMW (the restart, an early arrival) that read it
//! through a chain of RMWs; the flipping RMW itself read a chain that contains every arrival of
//! the phase. So every arrival precedes that read in observation order (a write precedes a read
//! that reads it directly or through atomic RMWs), and its release pattern synchronizes with
//! the waiter's acquire pattern: what each arriving thread wrote before arriving is visible to
//! the waiter. The flipping RMW is an acquire too, so the thread that completes the phase has
//! observed the others and does not poll; on the completion path, the `ld.acquire` (or the
//! failed CAS) that finds the counter at `2^31 - n` observes them the same way, so the
//! completion step sees their writes, and its own writes precede the flipping release in
//! program order. The restart is relaxed: it carries nothing a waiter needs; it only passes the
//! chain on.
//!
//! The phase is one bit: wait with a token of the current phase or the one before (as C++
//! requires); a token two phases old looks like the current phase.
//!
//! PTX per call (`S` the scope's qualifier):
//! - `arrive`, `arrive_and_wait`: `atom.acq_rel.S.add.u64` of `n << 32`; the arrival that
//!   completes the phase adds `atom.relaxed.S.add.u64` (the restart);
//! - `wait`, `wait_for`: `ld.acquire.S.b64` polling, with the backoff `B` between polls
//!   (`nanosleep.u32` for the default);
//! - `arrive_and_wait_with`, `arrive_and_drop`: `ld.acquire.S.b64`, then `atom.acq_rel.S.cas.b64`
//!   until it lands, or, by the phase's last arrival, one `atom.acq_rel.S.add.u64` (flip and
//!   restart);
//! - `arrive_and_wait(_with)` per warp: `activemask.b32`, `match.any.sync.b64`, `bar.warp.sync`.
//!
//! `arrive_and_wait(_with)` is warp-aggregated on the GPU, per barrier: the lanes that call it together
//! on the same barrier (`match.any.sync.b64` on its address: [`warp::peers`]) meet at
//! `bar.warp.sync` over that group, their leader arrives once for the group and polls, and a
//! second `bar.warp.sync` passes the result on (the same argument as in
//! [`Latch`](crate::Latch)). Lanes on other barriers are neither counted nor waited for.

use crate::atomic::Atomic;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_for, Backoff, NanoSleep, TimedOut};
use crate::warp;
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Barrier in local memory (a kernel's local variable): put it in shared or global memory\n";

/// What a debug build reports for an arrival of more threads than a phase still expects.
const OVER: &core::ffi::CStr = c"ptx-sync: Barrier: more arrivals than expected in one phase\n";

/// Bit 63: the phase.
const PHASE: u64 = 1 << 63;
/// Bits 0..=31: `2^31 - expected`, where the counter restarts.
const RESTART: u64 = 0xFFFF_FFFF;
/// Bits 32..=62: the arrival counter.
const COUNTER: u64 = !PHASE & !RESTART;
/// The counter value that completes a phase (it carries into the phase bit).
const FULL: u64 = 1 << 31;

/// The word of a fresh barrier for `expected` threads (at least 1, below `2^31`): the arrival
/// counter and the restart value both at `2^31 - expected`, phase 0.
///
/// What [`Barrier::new`] and [`Barrier::init`] store, and what host code writes into the `u64`
/// a kernel views with [`Barrier::from_ptr`]:
///
/// ```
/// use ptx_sync::barrier::init_word;
/// assert_eq!(init_word(3), 0x7FFF_FFFD_7FFF_FFFD);
/// ```
pub const fn init_word(expected: u32) -> u64 {
    assert!(
        expected > 0,
        "barrier::init_word: a barrier needs at least one thread"
    );
    assert!(
        (expected as u64) < FULL,
        "barrier::init_word: a barrier holds at most 2^31 - 1 threads"
    );
    word_of(expected)
}

/// [`init_word`] without its checks.
const fn word_of(expected: u32) -> u64 {
    let restart = FULL - expected as u64;
    (restart << 32) | restart
}

/// A reusable barrier for `expected` threads within scope `S`, waiting with `B`.
///
/// One `u64` (8 bytes, 8-byte aligned): see the [module](self) for its layout and algorithm.
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
#[repr(C, align(8))]
pub struct Barrier<S: Scope = Gpu, B: Backoff = NanoSleep> {
    word: Atomic<u64, S>,
    backoff: PhantomData<B>,
}

/// The phase an arrival belongs to: pass it to [`Barrier::wait`].
#[must_use = "wait for the phase with Barrier::wait"]
#[derive(Debug)]
pub struct Token(u64, bool);

impl Token {
    /// The parity of the token's phase (for [`Barrier::wait_parity`]).
    pub fn parity(&self) -> bool {
        self.0 != 0
    }
}

// SAFETY: all state is atomic.
unsafe impl<S: Scope, B: Backoff> Sync for Barrier<S, B> {}
unsafe impl<S: Scope, B: Backoff> Send for Barrier<S, B> {}

impl<S: Scope, B: Backoff> Barrier<S, B> {
    const_fn! {
    /// A barrier for `expected` threads (at least 1, below `2^31`).
    pub fn new(expected: u32) -> Self {
        assert!(expected > 0, "Barrier::new: a barrier needs at least one thread");
        assert!(
            (expected as u64) < FULL,
            "Barrier::new: a barrier holds at most 2^31 - 1 threads"
        );
        Barrier {
            word: Atomic::new(word_of(expected)),
            backoff: PhantomData,
        }
    }
    }

    /// Views the barrier at `ptr`: one `u64`, [`init_word(expected)`](init_word) for a fresh
    /// barrier of `expected` threads (or see [`Barrier::init`]).
    ///
    /// # Safety
    /// `ptr` is valid for one `u64`, 8-byte aligned (a `u64` allocation, or a byte offset that
    /// is a multiple of 8 in one), lives for `'a`, and is accessed only through this type
    /// meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u64) -> &'a Self {
        debug_assert!(
            ptr.is_aligned(),
            "Barrier::from_ptr: the word must be 8-byte aligned"
        );
        // SAFETY: `repr(C, align(8))` of one `Atomic<u64, S>` (transparent over `u64`) and a
        // ZST; the caller guarantees validity and alignment.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Resets the barrier in place for `expected` threads (at least 1, below `2^31`). Call it
    /// from one thread, before any thread uses the barrier, and make it visible to them (a
    /// block barrier such as `block::sync()` for shared memory, or a kernel boundary).
    #[inline(always)]
    pub fn init(&self, expected: u32) {
        assert!(
            expected > 0,
            "Barrier::init: a barrier needs at least one thread"
        );
        assert!(
            (expected as u64) < FULL,
            "Barrier::init: a barrier holds at most 2^31 - 1 threads"
        );
        self.word.store(word_of(expected), Relaxed);
    }

    /// The most threads a barrier can expect: `2^31 - 1` (the arrival counter's 31 bits).
    /// libcu++: `barrier::max()`.
    pub const fn max() -> u32 {
        (FULL - 1) as u32
    }

    /// Arrives at the current phase without waiting; returns the phase's token.
    ///
    /// PTX: `atom.acq_rel.<scope>.add.u64`; the arrival that completes the phase adds
    /// `atom.relaxed.<scope>.add.u64` (the counter's restart).
    #[inline(always)]
    pub fn arrive(&self) -> Token {
        self.arrive_counted(1)
    }

    /// Counts `n` arrivals at once (libcu++: `arrive(update)`), without waiting; returns the
    /// phase's token. `n` must be at least 1 and at most the arrivals still missing in the
    /// phase (a debug build traps on more); `n == 0` panics (a trap on the GPU) with a message.
    ///
    /// PTX: as [`arrive`](Self::arrive), adding `n << 32`.
    #[inline(always)]
    pub fn arrive_n(&self, n: u32) -> Token {
        assert!(n > 0, "Barrier::arrive_n: counts at least one arrival");
        self.arrive_counted(n)
    }

    /// Waits until the phase whose parity is `parity` has completed (libcu++:
    /// `barrier_wait_parity`, `mbarrier.try_wait.parity`): phase `k` has parity `k % 2 == 1`,
    /// the first phase is even (`false`). A thread that keeps its own phase count waits with
    /// it instead of a [`Token`].
    ///
    /// PTX: `ld.acquire.<scope>.b64` polling, with `B` between polls.
    #[inline(always)]
    pub fn wait_parity(&self, parity: bool) {
        crate::debug_check_not_local(self, LOCAL);
        poll_until::<B, _>(|| self.try_wait_parity(parity).then_some(()));
    }

    /// Whether the phase of parity `parity` has completed (one poll of
    /// [`wait_parity`](Self::wait_parity)).
    ///
    /// PTX: `ld.acquire.<scope>.b64`.
    #[inline(always)]
    pub fn try_wait_parity(&self, parity: bool) -> bool {
        // The phase bit is the parity of the current phase; the phase of parity `parity` is
        // over once the bit differs from it (one bit: a phase two back looks like the current one).
        (self.word.load(Acquire) & PHASE != 0) != parity
    }

    /// Waits until the phase of `token` has completed. `token` is of the current phase or
    /// the one before (the phase is one bit: an older token looks like the current phase).
    ///
    /// PTX: `ld.acquire.<scope>.b64` polling, with `B` between polls.
    #[inline(always)]
    pub fn wait(&self, token: Token) {
        crate::debug_check_not_local(self, LOCAL);
        poll_until::<B, _>(|| (self.word.load(Acquire) & PHASE != token.0).then_some(()));
    }

    /// [`wait`](Self::wait) for at most about `ns` nanoseconds.
    #[inline(always)]
    pub fn wait_for(&self, token: &Token, ns: u64) -> Result<(), TimedOut> {
        crate::debug_check_not_local(self, LOCAL);
        poll_until_for::<B, _>(ns, || {
            (self.word.load(Acquire) & PHASE != token.0).then_some(())
        })
    }

    /// Arrives and waits for the others.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        self.arrive_and_wait_by(|n| self.arrive_counted(n))
    }

    /// Arrives and waits; the last thread to arrive runs `completion` before any thread is
    /// released (so its writes are visible to all of them).
    ///
    /// PTX: `ld.acquire.<scope>.b64` and `atom.acq_rel.<scope>.cas.b64` until the arrival
    /// lands; the last arrival runs `completion`, then flips the phase and restarts the counter
    /// with one `atom.acq_rel.<scope>.add.u64`.
    #[inline(always)]
    pub fn arrive_and_wait_with(&self, completion: impl FnOnce()) {
        self.arrive_and_wait_by(|n| self.arrive_knowing_last(n, 0, completion))
    }

    /// Arrives at the current phase and leaves the barrier: later phases expect one thread
    /// fewer.
    ///
    /// PTX: as [`arrive_and_wait_with`](Self::arrive_and_wait_with), without a completion
    /// step or a wait.
    #[inline(always)]
    pub fn arrive_and_drop(&self) {
        let _ = self.arrive_knowing_last(1, 1, || {});
    }

    /// `arrive_and_wait(_with)`, warp-aggregated per barrier: `arrive(n)` arrives for the `n`
    /// lanes of this warp that call it together on this barrier.
    #[inline(always)]
    fn arrive_and_wait_by(&self, arrive: impl FnOnce(u32) -> Token) {
        let group = warp::peers(self);
        warp::sync(group);
        if warp::lane() == group.trailing_zeros() {
            let token = arrive(group.count_ones());
            // The arrival that completed the phase opened it itself, after its acquire-RMW
            // observed every other arrival: it has nothing to wait for.
            if !token.1 {
                self.wait(token);
            }
        }
        warp::sync(group);
    }

    /// An arrival of `n` by one atomic add; the one that completes the phase restarts the
    /// counter.
    #[inline(always)]
    fn arrive_counted(&self, n: u32) -> Token {
        crate::debug_check_not_local(self, LOCAL);
        let add = (n as u64) << 32;
        let old = self.word.fetch_add(add, AcqRel);
        let new = old.wrapping_add(add);
        let completed = (old ^ new) & PHASE != 0;
        if completed {
            // The counter carried exactly into the phase bit unless `n` was more than the
            // arrivals still missing.
            if cfg!(debug_assertions) && new & COUNTER != 0 {
                crate::debug_trap(OVER);
            }
            // Commutes with early arrivals at the next phase (see the module docs).
            let _ = self.word.fetch_add((old & RESTART) << 32, Relaxed);
        }
        Token(old & PHASE, completed)
    }

    /// An arrival of `n` that knows whether it is the phase's last before the phase flips:
    /// the last runs `completion`, then flips the phase and restarts the counter in one RMW.
    /// `drop` (0 or 1) threads leave the barrier from the next phase on.
    #[inline(always)]
    fn arrive_knowing_last(&self, n: u32, drop: u64, completion: impl FnOnce()) -> Token {
        crate::debug_check_not_local(self, LOCAL);
        let add = (n as u64) << 32;
        // Read no earlier than this thread last saw the word (read-read coherence): the flip
        // its last wait saw, or its own last arrival. Between a flip and its restart the
        // counter holds only early arrivals at the new phase, fewer than `FULL - n`, so only
        // an exact count of the phase can look complete.
        let mut v = self.word.load(Acquire);
        let last = loop {
            let counter = (v & COUNTER) >> 32;
            if counter + n as u64 == FULL {
                // Every other arrival of the phase is in `v`: nobody else writes the word
                // before this thread does.
                break v;
            }
            if cfg!(debug_assertions) && counter + n as u64 > FULL {
                crate::debug_trap(OVER);
            }
            match self
                .word
                .compare_exchange_weak(v, v.wrapping_add(add + drop), AcqRel, Acquire)
            {
                Ok(_) => return Token(v & PHASE, false),
                Err(now) => v = now,
            }
        };
        completion();
        // `add` carries the counter into the phase bit (flip, counter 0); then the restart,
        // raised by the drop, as the counter and as the restart value. (A restart of `FULL`
        // means no thread is left: the counter stays 0 rather than flip the phase back.)
        let restart = (last & RESTART) + drop;
        let step = add + ((restart << 32) & COUNTER) + drop;
        let old = self.word.fetch_add(step, AcqRel);
        if cfg!(debug_assertions) && old != last {
            crate::debug_trap(OVER);
        }
        Token(last & PHASE, true)
    }
}
