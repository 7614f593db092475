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
//! Some arrivals must know that they are the phase's last before the phase flips, so they take
//! another path: `arrive_and_wait_with` and every arrival at a barrier with a completion
//! ([`Barrier::with_completion`]), because the completion runs before any waiter is released;
//! and `arrive_and_drop`, whose thread does not arrive at the next phase:
//! had it completed a phase with the add above, the threads that add released could complete
//! the next phase before its restart (which would then flip the phase a second time and leave
//! the counter at 0, so the phase after that would never complete). libcu++'s
//! `arrive_and_drop` (a relaxed add to bits 0..=31, then the plain arrival) has that window.
//! These load the word (`ld.acquire`) and, while the counter plus `n` is below `2^31`, add
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
//! - `wait_for`, `wait_until`, `wait_parity_for`, `wait_parity_until`: the same polls, and
//!   `mov.u64 %rd, %globaltimer;` after each failed one (the deadline);
//! - `arrive_and_wait_with`, `arrive_and_drop`, and every arrival at a barrier with a
//!   completion: `ld.acquire.S.b64`, then `atom.acq_rel.S.cas.b64` until it lands, or, by the
//!   phase's last arrival, the completion, then one `atom.acq_rel.S.add.u64` (flip and
//!   restart);
//! - `arrive_and_wait(_with)` per warp: `activemask.b32`, `match.any.sync.b64`, `bar.warp.sync`.
//!
//! `arrive_and_wait(_with)` is warp-aggregated on the GPU, per barrier: the lanes that call it together
//! on the same barrier (`match.any.sync.b64` on its address: [`warp::peers`]) meet at
//! `bar.warp.sync` over that group, their leader arrives once for the group and polls, and a
//! second `bar.warp.sync` passes the result on (the same argument as in
//! [`Latch`](crate::latch::Latch)). Lanes on other barriers are neither counted nor waited for.
//!
//! ## A completion stored in the barrier
//!
//! `Barrier<S, B, F>` with `F` a [`Completion`] (any `FnMut()`), made by
//! [`Barrier::with_completion`], is libcu++'s `cuda::barrier<Scope, CompletionF>`: whichever
//! arrival completes a phase (`arrive`, `arrive_n`, `arrive_and_wait`, `arrive_and_wait_with`
//! or `arrive_and_drop`, split or not) runs `F` once, before it flips the phase, so the
//! completion's writes are visible to every thread that sees the phase complete (its writes
//! precede the flipping `atom.acq_rel` in program order: a release pattern the waiters'
//! `ld.acquire` synchronizes with). Runs of the completion never overlap, and each happens
//! before the next: every arrival at phase `k + 1` is an acquire RMW that reads the word after
//! phase `k`'s flip (it cannot be counted in phase `k`, which is full), and the run that ends
//! phase `k + 1` observes all of them. That is why the completion may be `FnMut` behind `&self`.
//! The default `F`, [`NoCompletion`], is zero-sized: the barrier stays one `u64` and its
//! arrivals stay one `atom.add`; a barrier with a completion takes the CAS path above for every
//! arrival (the price of knowing who is last), and is `8 + size_of::<F>()` bytes, the word
//! first.
//!
//! ```
//! use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
//! use ptx_sync::{Barrier, Gpu};
//!
//! // Three threads, two phases; the last arrival of each phase runs the completion.
//! let phases = AtomicU32::new(0);
//! let b = Barrier::<Gpu>::with_completion(3, || {
//!     phases.fetch_add(1, Relaxed);
//! });
//! std::thread::scope(|s| {
//!     for _ in 0..3 {
//!         s.spawn(|| {
//!             b.arrive_and_wait(); // ld.acquire.gpu.b64, atom.acq_rel.gpu.cas.b64 ...
//!             assert!(phases.load(Relaxed) >= 1); // the completion ran before the release
//!             b.arrive_and_wait();
//!         });
//!     }
//! });
//! assert_eq!(phases.load(Relaxed), 2);
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Barrier<S, B, F>`](crate::barrier::Barrier), [`Token`]: `arrive`, `arrive_n`, `wait`, `wait_for`, `wait_until`, `wait_parity(_for/_until)`, `arrive_and_wait(_with)`, `arrive_and_drop`; [`barrier::init_word`](crate::barrier::init_word) (one `u64`, libcu++'s layout); `with_completion` ([`barrier::Completion`](crate::barrier::Completion), stored after the word) | `atom.acq_rel.S.add.u64` (arrive; the last arrival's carry flips the phase bit), `atom.relaxed.S.add.u64` (the last arrival restarts the counter), `ld.acquire.S.b64` polling; completion steps (stored or per call) and drop: `ld.acquire.S.b64`, `atom.acq_rel.S.cas.b64`; per warp `match.any.sync.b64`, `bar.warp.sync` | `cuda::barrier<Scope>`, `cuda::barrier<Scope, CompletionF>` |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, Backoff, NanoSleep, TimedOut};
use crate::warp;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use core::time::Duration;

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
///
/// # Panics
///
/// When `expected` is 0 or above `2^31 - 1`, in every build (on the GPU the thread prints the
/// message and traps; in a `const` context it is a compile error).
pub const fn init_word(expected: u32) -> u64 {
    check!(
        expected > 0,
        "barrier::init_word: a barrier needs at least one thread"
    );
    check!(
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

/// The step a [`Barrier`] runs once per phase, in the arrival that completes the phase,
/// before any waiter is released (libcu++'s `CompletionF`). Implemented by every `FnMut()` and
/// by [`NoCompletion`].
///
/// The completion must not arrive at, drop from or wait on its own barrier (the phase is not
/// over while it runs), and on the GPU it runs in one thread: no warp or block collectives.
pub trait Completion {
    /// `true` only for [`NoCompletion`]: arrivals then take the one-`atom.add` path.
    #[doc(hidden)]
    const NONE: bool = false;
    /// Runs the step.
    fn complete(&mut self);
}

impl<F: FnMut()> Completion for F {
    #[inline(always)]
    fn complete(&mut self) {
        self()
    }
}

/// No completion step: the default of [`Barrier`]'s `F`, zero-sized (the barrier stays one
/// `u64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoCompletion;

impl Completion for NoCompletion {
    const NONE: bool = true;
    #[inline(always)]
    fn complete(&mut self) {}
}

/// A reusable barrier for `expected` threads within scope `S`, waiting with `B`, running the
/// completion `F` once per phase ([`NoCompletion`] by default).
///
/// One `u64` (8 bytes, 8-byte aligned) without a completion: see the [module](self) for its
/// layout and algorithm; with one, the word then `F`.
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
pub struct Barrier<S: Scope = Gpu, B: Backoff = NanoSleep, F: Completion = NoCompletion> {
    word: Atomic<u64, S>,
    /// Run only by the arrival that completes a phase (see the module docs for why those runs
    /// are ordered one after the other).
    completion: UnsafeCell<F>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` is then the fields': `F: Send`).
    backoff: PhantomData<fn() -> B>,
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

// SAFETY: same rule as `std::sync::Mutex<F>`'s `Sync`: the word is atomic, and the completion
// runs in whichever thread completes a phase, one thread at a time, each run happening before
// the next (module docs). Sharing the barrier hands `F` from thread to thread (`F: Send`) but
// never shares it (`F: Sync` is not needed).
unsafe impl<S: Scope, B: Backoff, F: Completion + Send> Sync for Barrier<S, B, F> {}

/// The word, decoded from one `Relaxed` load (a snapshot, stale as soon as it is read): the
/// phase's parity, the arrivals the phase still waits for and the threads a phase expects
/// (fewer after `arrive_and_drop`). The completion is not shown (it may be running).
impl<S: Scope, B: Backoff, F: Completion> core::fmt::Debug for Barrier<S, B, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let w = self.word.load(Relaxed);
        let expected = FULL - (w & RESTART);
        let counter = (w & COUNTER) >> 32;
        // A counter of 0: the phase just completed and its restart add has not landed yet.
        let pending = if counter == 0 {
            expected
        } else {
            FULL - counter
        };
        f.debug_struct("Barrier")
            .field("parity", &(w & PHASE != 0))
            .field("pending", &pending)
            .field("expected", &expected)
            .finish_non_exhaustive()
    }
}

impl<S: Scope, B: Backoff> Barrier<S, B> {
    const_fn! {
    /// A barrier for `expected` threads (at least 1, below `2^31`).
    ///
    /// # Panics
    ///
    /// When `expected` is 0 or above `2^31 - 1`, in every build (on the GPU the thread prints the
    /// message and traps; in a `const` context it is a compile error).
    pub fn new(expected: u32) -> Self {
        check!(expected > 0, "Barrier::new: a barrier needs at least one thread");
        check!(
            (expected as u64) < FULL,
            "Barrier::new: a barrier holds at most 2^31 - 1 threads"
        );
        Barrier {
            word: Atomic::new(word_of(expected)),
            completion: UnsafeCell::new(NoCompletion),
            backoff: PhantomData,
        }
    }
    }

    const_fn! {
    /// A barrier for `expected` threads (at least 1, below `2^31`) whose phases end with
    /// `completion` (libcu++: `cuda::barrier<Scope, CompletionF>(expected, completion)`): the
    /// arrival that completes a phase runs it once, before any waiter is released.
    ///
    /// Where it lives: as any barrier, in shared or global memory. On the GPU, one thread
    /// writes it into place (`ptr.write(Barrier::with_completion(n, f))`) and the others see
    /// it after a block barrier or a release/acquire handoff, as after [`init`](Self::init).
    /// The host backend runs it from any thread (`F: Send` for a shared barrier).
    ///
    /// ```
    /// use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
    /// use ptx_sync::{Barrier, Cta};
    /// let phases = AtomicU32::new(0);
    /// let b = Barrier::<Cta>::with_completion(2, || {
    ///     phases.fetch_add(1, Relaxed);
    /// });
    /// let t = b.arrive(); // not the last: no completion yet
    /// assert_eq!(phases.load(Relaxed), 0);
    /// b.arrive_and_wait(); // the last arrival runs it, then opens the phase
    /// b.wait(t);
    /// assert_eq!(phases.load(Relaxed), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// When `expected` is 0 or above `2^31 - 1`, in every build (on the GPU the thread prints the
    /// message and traps; in a `const` context it is a compile error).
    pub fn with_completion<F: Completion>(expected: u32, completion: F) -> Barrier<S, B, F> {
        check!(expected > 0, "Barrier::with_completion: a barrier needs at least one thread");
        check!(
            (expected as u64) < FULL,
            "Barrier::with_completion: a barrier holds at most 2^31 - 1 threads"
        );
        Barrier {
            word: Atomic::new(word_of(expected)),
            completion: UnsafeCell::new(completion),
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
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not 8-byte
    /// aligned; release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u64) -> &'a Self {
        debug_check!(
            ptr.is_aligned(),
            "Barrier::from_ptr: the word must be 8-byte aligned"
        );
        // SAFETY: `repr(C, align(8))` of one `Atomic<u64, S>` (transparent over `u64`) and a
        // ZST; the caller guarantees validity and alignment.
        unsafe { &*ptr.cast::<Self>() }
    }
}

impl<S: Scope, B: Backoff, F: Completion> Barrier<S, B, F> {
    /// Resets the barrier in place for `expected` threads (at least 1, below `2^31`). Call it
    /// from one thread, before any thread uses the barrier, and make it visible to them (a
    /// block barrier such as `block::sync()` for shared memory, or a kernel boundary).
    ///
    /// # Panics
    ///
    /// When `expected` is 0 or above `2^31 - 1`, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    pub fn init(&self, expected: u32) {
        check!(
            expected > 0,
            "Barrier::init: a barrier needs at least one thread"
        );
        check!(
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

    /// Arrives at the current phase without waiting; returns the phase's token. At a barrier
    /// with a completion, the arrival that completes the phase runs it first.
    ///
    /// PTX: `atom.acq_rel.<scope>.add.u64`; the arrival that completes the phase adds
    /// `atom.relaxed.<scope>.add.u64` (the counter's restart). With a completion:
    /// `ld.acquire.<scope>.b64`, `atom.acq_rel.<scope>.cas.b64` until it lands, or, when last,
    /// the completion and one `atom.acq_rel.<scope>.add.u64`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Barrier, Gpu, Ordering::Relaxed};
    ///
    /// // Two producers arrive and move on; the consumer waits for the phase.
    /// let produced: Barrier<Gpu> = Barrier::new(3);
    /// let items = Atomic::<u32, Gpu>::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..2 {
    ///         s.spawn(|| {
    ///             items.fetch_add(1, Relaxed);
    ///             // atom.acq_rel.gpu.add.u64: releases the add above, waits for nothing.
    ///             let _ = produced.arrive();
    ///         });
    ///     }
    ///     let token = produced.arrive();
    ///     produced.wait(token); // ld.acquire.gpu.b64 polls until the phase bit flips
    ///     assert_eq!(items.load(Relaxed), 2);
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the arrival finds
    /// more arrivals than the phase expects (not every surplus is caught: an arrival after the
    /// phase completed counts towards the next one); on the GPU it also traps when the barrier is
    /// in local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn arrive(&self) -> Token {
        self.arrive_any(1)
    }

    /// Counts `n` arrivals at once (libcu++: `arrive(update)`), without waiting; returns the
    /// phase's token. `n` must be at least 1 and at most the arrivals still missing in the
    /// phase (a debug build traps on more); `n == 0` panics (a trap on the GPU) with a message.
    ///
    /// PTX: as [`arrive`](Self::arrive), adding `n << 32`.
    ///
    /// # Panics
    ///
    /// When `n == 0`, in every build (on the GPU the thread prints the message and traps). In a
    /// debug build, panics (on the GPU: prints the message and traps) when the arrival finds more
    /// arrivals than the phase expects (not every surplus is caught: an arrival after the phase
    /// completed counts towards the next one); on the GPU it also traps when the barrier is in
    /// local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn arrive_n(&self, n: u32) -> Token {
        check!(n > 0, "Barrier::arrive_n: counts at least one arrival");
        self.arrive_any(n)
    }

    /// Waits until the phase whose parity is `parity` has completed (libcu++:
    /// `barrier_wait_parity`, `mbarrier.try_wait.parity`): phase `k` has parity `k % 2 == 1`,
    /// the first phase is even (`false`). A thread that keeps its own phase count waits with
    /// it instead of a [`Token`].
    ///
    /// PTX: `ld.acquire.<scope>.b64` polling, with `B` between polls.
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_parity(&self, parity: bool) {
        crate::debug::check_not_local(self, LOCAL);
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
    ///
    /// ```
    /// use ptx_sync::{Atomic, Barrier, Cta, Ordering::Relaxed};
    ///
    /// // Split phase: arrive, do work that needs nobody else, then wait.
    /// let b: Barrier<Cta> = Barrier::new(2);
    /// let halves = [Atomic::<u32, Cta>::new(0), Atomic::new(0)];
    /// std::thread::scope(|s| {
    ///     for me in 0..2 {
    ///         let (b, halves) = (&b, &halves);
    ///         s.spawn(move || {
    ///             halves[me].store(me as u32 + 1, Relaxed);
    ///             let token = b.arrive(); // atom.acq_rel.cta.add.u64
    ///             // ... work that needs nothing from the other thread ...
    ///             b.wait(token); // ld.acquire.cta.b64: the other thread's store is visible
    ///             assert_eq!(halves[1 - me].load(Relaxed), 2 - me as u32);
    ///         });
    ///     }
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait(&self, token: Token) {
        crate::debug::check_not_local(self, LOCAL);
        poll_until::<B, _>(|| (self.word.load(Acquire) & PHASE != token.0).then_some(()));
    }

    /// [`wait`](Self::wait), giving up once `timeout` has passed since the first poll failed:
    /// `Err(TimedOut)` (libcu++: `try_wait_for`). A zero timeout is one poll. The token stays
    /// valid: wait again with it.
    ///
    /// PTX: `ld.acquire.<scope>.b64` polling with `B`'s pauses, `mov.u64 %rd, %globaltimer;`
    /// after each failed poll.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Barrier, Gpu, TimedOut};
    /// let b: Barrier<Gpu> = Barrier::new(2);
    /// let t = b.arrive();
    /// assert_eq!(b.wait_for(&t, Duration::from_micros(10)), Err(TimedOut));
    /// let _ = b.arrive(); // the second arrival completes the phase
    /// assert_eq!(b.wait_for(&t, Duration::ZERO), Ok(()));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_for(&self, token: &Token, timeout: Duration) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_for::<B, _>(timeout, || {
            (self.word.load(Acquire) & PHASE != token.0).then_some(())
        })
    }

    /// [`wait`](Self::wait) until `deadline` on the [`clock`](crate::clock): `Err(TimedOut)`
    /// after it (libcu++: `try_wait_until`). A deadline that has passed is one poll.
    ///
    /// PTX: as [`wait_for`](Self::wait_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Barrier, Gpu, TimedOut};
    /// let b: Barrier<Gpu> = Barrier::new(2);
    /// let t = b.arrive();
    /// assert_eq!(b.wait_until(&t, Instant::now()), Err(TimedOut));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_until(&self, token: &Token, deadline: Instant) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_deadline::<B, _>(deadline, || {
            (self.word.load(Acquire) & PHASE != token.0).then_some(())
        })
    }

    /// [`wait_parity`](Self::wait_parity), giving up once `timeout` has passed since the first
    /// poll failed (libcu++: `try_wait_parity_for`).
    ///
    /// PTX: as [`wait_for`](Self::wait_for).
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Barrier, Gpu, TimedOut};
    /// let b: Barrier<Gpu> = Barrier::new(1);
    /// assert_eq!(b.wait_parity_for(false, Duration::from_micros(1)), Err(TimedOut));
    /// b.arrive_and_wait(); // phase 0 (even) completes
    /// assert_eq!(b.wait_parity_for(false, Duration::ZERO), Ok(()));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_parity_for(&self, parity: bool, timeout: Duration) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_for::<B, _>(timeout, || self.try_wait_parity(parity).then_some(()))
    }

    /// [`wait_parity`](Self::wait_parity) until `deadline` (libcu++:
    /// `try_wait_parity_until`). A deadline that has passed is one poll.
    ///
    /// PTX: as [`wait_for`](Self::wait_for).
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the barrier is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_parity_until(&self, parity: bool, deadline: Instant) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_deadline::<B, _>(deadline, || self.try_wait_parity(parity).then_some(()))
    }

    /// Arrives and waits for the others (at a barrier with a completion, the last arrival
    /// runs it before anyone is released).
    ///
    /// PTX: [`arrive`](Self::arrive)'s and [`wait`](Self::wait)'s (none for the arrival that
    /// completes the phase); per warp `activemask.b32`, `match.any.sync.b64`, `bar.warp.sync`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Barrier, Gpu, Ordering::Relaxed};
    ///
    /// // Two phases: every thread writes its slot, then every thread reads all of them.
    /// let b: Barrier<Gpu> = Barrier::new(4);
    /// let slots: [Atomic<u32, Gpu>; 4] = core::array::from_fn(|_| Atomic::new(0));
    /// std::thread::scope(|s| {
    ///     for i in 0..4 {
    ///         let (b, slots) = (&b, &slots);
    ///         s.spawn(move || {
    ///             slots[i].store(i as u32 + 1, Relaxed);
    ///             // atom.acq_rel.gpu.add.u64, then ld.acquire.gpu.b64 polls: every store
    ///             // before an arrival is visible after the wait.
    ///             b.arrive_and_wait();
    ///             assert_eq!(slots.iter().map(|x| x.load(Relaxed)).sum::<u32>(), 10);
    ///             b.arrive_and_wait(); // the barrier is reusable: a second phase
    ///         });
    ///     }
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the arrival finds
    /// more arrivals than the phase expects (not every surplus is caught: an arrival after the
    /// phase completed counts towards the next one); on the GPU it also traps when the barrier is
    /// in local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        self.arrive_and_wait_by(|n| self.arrive_any(n))
    }

    /// Arrives and waits; the last thread to arrive runs `completion` (then the barrier's
    /// own [`Completion`], if it has one) before any thread is released, so its writes are
    /// visible to all of them.
    ///
    /// PTX: `ld.acquire.<scope>.b64` and `atom.acq_rel.<scope>.cas.b64` until the arrival
    /// lands; the last arrival runs `completion`, then flips the phase and restarts the counter
    /// with one `atom.acq_rel.<scope>.add.u64`.
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the arrival finds
    /// more arrivals than the phase expects (not every surplus is caught: an arrival after the
    /// phase completed counts towards the next one); on the GPU it also traps when the barrier is
    /// in local memory (a kernel's local variable). Release builds check neither. A panic in
    /// `completion` is the caller's own.
    #[inline(always)]
    pub fn arrive_and_wait_with(&self, completion: impl FnOnce()) {
        self.arrive_and_wait_by(|n| self.arrive_knowing_last(n, 0, completion))
    }

    /// Arrives at the current phase and leaves the barrier: later phases expect one thread
    /// fewer. A drop that completes the phase runs the barrier's completion.
    ///
    /// PTX: as [`arrive_and_wait_with`](Self::arrive_and_wait_with), without a wait.
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the arrival finds
    /// more arrivals than the phase expects (not every surplus is caught: an arrival after the
    /// phase completed counts towards the next one); on the GPU it also traps when the barrier is
    /// in local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn arrive_and_drop(&self) {
        let _ = self.arrive_knowing_last(1, 1, || {});
    }

    /// An arrival of `n`: one add without a completion, the path that knows it is last with
    /// one.
    #[inline(always)]
    fn arrive_any(&self, n: u32) -> Token {
        if F::NONE {
            self.arrive_counted(n)
        } else {
            self.arrive_knowing_last(n, 0, || {})
        }
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
        crate::debug::check_not_local(self, LOCAL);
        let add = (n as u64) << 32;
        let old = self.word.fetch_add(add, AcqRel);
        let new = old.wrapping_add(add);
        let completed = (old ^ new) & PHASE != 0;
        if completed {
            // The counter carried exactly into the phase bit unless `n` was more than the
            // arrivals still missing.
            if cfg!(debug_assertions) && new & COUNTER != 0 {
                crate::debug::trap(OVER);
            }
            // Commutes with early arrivals at the next phase (see the module docs).
            let _ = self.word.fetch_add((old & RESTART) << 32, Relaxed);
        }
        Token(old & PHASE, completed)
    }

    /// An arrival of `n` that knows whether it is the phase's last before the phase flips:
    /// the last runs `step`, then the barrier's completion, then flips the phase and restarts
    /// the counter in one RMW. `drop` (0 or 1) threads leave the barrier from the next phase on.
    #[inline(always)]
    fn arrive_knowing_last(&self, n: u32, drop: u64, step: impl FnOnce()) -> Token {
        crate::debug::check_not_local(self, LOCAL);
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
                crate::debug::trap(OVER);
            }
            match self
                .word
                .compare_exchange_weak(v, v.wrapping_add(add + drop), AcqRel, Acquire)
            {
                Ok(_) => return Token(v & PHASE, false),
                Err(now) => v = now,
            }
        };
        step();
        if !F::NONE {
            // SAFETY: only the arrival that completes a phase gets here, and every earlier run
            // happened before this point (module docs): no other reference to `F` is live.
            unsafe { (*self.completion.get()).complete() };
        }
        // `add` carries the counter into the phase bit (flip, counter 0); then the restart,
        // raised by the drop, as the counter and as the restart value. (A restart of `FULL`
        // means no thread is left: the counter stays 0 rather than flip the phase back.)
        let restart = (last & RESTART) + drop;
        let step = add + ((restart << 32) & COUNTER) + drop;
        let old = self.word.fetch_add(step, AcqRel);
        if cfg!(debug_assertions) && old != last {
            crate::debug::trap(OVER);
        }
        Token(last & PHASE, true)
    }
}
