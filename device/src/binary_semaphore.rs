//! `BinarySemaphore<S, B>`: a semaphore of one unit (`cuda::binary_semaphore<Scope>`), with
//! its own algorithm: libcu++'s `__atomic_semaphore<Scope, 1>` shape
//! (cuda/std/__semaphore/atomic_semaphore.h in NVIDIA/cccl).
//!
//! One `u32` word at scope `S`: 1 = the unit is free, 0 = taken.
//!
//! - `acquire`: `atom.acquire.exch` of 0; the unit is this thread's when the exchange returns
//!   a 1. Otherwise wait: poll the word with `ld.relaxed` (pausing with `B`, by default
//!   [`Elapsed`]: back-to-back polls for 40 us, then sleeps of a quarter of the time waited)
//!   until it reads 1, then exchange again. Waiters poll with loads, not RMWs
//!   (loads of one line are cheaper for the L2 to serve than RMWs, which it performs one at
//!   a time), and only the threads that saw the 1 exchange. `try_acquire`: one exchange.
//! - `release`: `st.release` of 1: a plain store, nothing to wait for (release builds). There
//!   is no count to add to: the word is either 0 or 1.
//!
//! Compared with the counting algorithm (`Semaphore<S, MAX>`, `MAX > 1`: load, CAS from `c` to
//! `c - 1`, release by `atom.add`), taking the unit needs no prior load to know what to
//! compare with, and giving it back is a store the releaser does not wait on.
//!
//! Why this is correct under the PTX memory model:
//! - Mutual exclusion: the unit exists only as a 1 in the word. A 1 is written only by a
//!   release (or the initial value), and taken only by an exchange that reads it and writes 0
//!   in the same atomic RMW, so two exchanges cannot both read one 1: after the first, the
//!   word's modification order holds its 0. An exchange that reads 0 writes 0 over 0 and
//!   changes nothing, so a loser never erases a unit.
//! - Publication: the exchange that returns 1 is an acquire pattern (`.acquire` on the RMW),
//!   and it reads the value written by the releasing `st.release` (a release pattern), which
//!   is morally strong with it (both atomic, same scope `S` covering both threads): the
//!   release synchronizes with the acquire (PTX ISA, "Memory Consistency Model": release and
//!   acquire patterns, synchronizes-with, causality order), so everything the releaser wrote
//!   before `release` (a critical section, a filled buffer) is visible to the new holder. The
//!   polling load is relaxed: it only decides when to try; the exchange that follows is the
//!   acquire. Neither operation needs more: the taker publishes nothing by taking, the
//!   releaser reads nothing by releasing (`AcqRel` would only add a fence).
//!
//! `Sys` scope: on a GPU without native host atomics (`hostNativeAtomicSupported == 0`, as on the
//! PCIe H100 measured), a GPU RMW on a word of host memory is not atomic with respect to the host's
//! accesses (DEVELOPMENT.md, Known limits: host and GPU RMWs on one word at the same time lose
//! updates), so a host store landing inside it may be overwritten. A GPU thread that exchanged
//! first would risk exactly that in a host/GPU ping-pong: its failing exchange writing 0 over the
//! host's releasing 1, a lost unit and a hang. So at `Sys` scope `acquire` and `try_acquire` load
//! first and exchange only after reading 1, as the counting algorithm does: the host has stored its
//! 1 and, in a protocol where one side releases and the other acquires, does not write the word
//! again before the unit comes back (`host/src/sys.rs` lists such protocols). A `Sys` semaphore is
//! rarely contended; the extra load costs little there.
//!
//! Warp aggregation: none, deliberately. [`Mutex`](crate::Mutex) hands its lock lane to lane
//! inside a warp (`warp::peers`, then `bar.warp.sync` turns) because a guard ties every
//! critical section to the lane that took the lock, and all grouped lanes leave together. A
//! semaphore has no owner: the unit is often released by another thread than the one that
//! took it (a producer releases what a consumer acquires, a ping-pong across blocks), so a
//! lane could not hand "its" unit to the next lane of its group, and lanes held back waiting
//! for their turn inside the warp could wait on a release that only they can cause. libcu++
//! does not aggregate its semaphores either. Use [`Mutex`](crate::Mutex) for a lock.
//!
//! ```
//! use ptx_sync::{Atomic, BinarySemaphore, Gpu, Ordering::Relaxed};
//!
//! // The unit as a lock around a read-modify-write that is not atomic by itself.
//! let unit: BinarySemaphore<Gpu> = BinarySemaphore::new(1);
//! let count = Atomic::<u32, Gpu>::new(0);
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..500 {
//!                 unit.acquire(); // atom.acquire.gpu.exch.b32 of 0 returned 1
//!                 let v = count.load(Relaxed);
//!                 count.store(v + 1, Relaxed);
//!                 unit.release(1); // st.release.gpu.b32 of 1 (an exchange in a debug build)
//!             }
//!         });
//!     }
//! });
//! assert_eq!(count.load(Relaxed), 2000);
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`BinarySemaphore<S, B>`](crate::BinarySemaphore) (= `Semaphore<S, 1, B>`, libcu++'s own algorithm) | `atom.acquire.S.exch.b32` of 0 (acquire; `ld.relaxed` polls while taken), `st.release.S.b32` of 1 (release) | `cuda::binary_semaphore<Scope>` |

use crate::atomic::Atomic;
use crate::scope::{Gpu, Scope, ScopeKind};
use crate::semaphore::{Semaphore, EXCEEDS};
use crate::wait::{poll_after_miss, poll_until, AtScope, Backoff, Deadline, Elapsed};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// A semaphore with one unit: `cuda::binary_semaphore<Scope>` (`BinarySemaphore<Gpu>` is
/// `cuda::binary_semaphore<cuda::thread_scope_device>`), waiting with `B`.
///
/// It is [`Semaphore<S, 1, B>`](Semaphore) (the same type: code written for any
/// `Semaphore<S, MAX>` accepts it), whose operations run the one-unit algorithm of this
/// module when `MAX == 1`, a choice made at compile time:
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

/// One attempt to take the unit where the word may be 0: load first at `Sys` (see the module
/// docs), exchange at once elsewhere.
#[inline(always)]
pub(crate) fn try_acquire<S: Scope>(word: &Atomic<u32, S>) -> bool {
    if S::KIND == ScopeKind::Sys {
        poll(word)
    } else {
        exchange(word)
    }
}

/// Takes the unit if the exchange finds it: `atom.acquire.exch` of 0, taken when it returned
/// a unit.
#[inline(always)]
fn exchange<S: Scope>(word: &Atomic<u32, S>) -> bool {
    // Acquire: when this reads a 1, it reads the releaser's `st.release` (or the initial
    // value), so the releaser's earlier writes are visible from here on.
    word.swap(0, Acquire) != 0
}

/// One poll of a waiter: a relaxed load, and the exchange only when it reads a free unit.
#[inline(always)]
fn poll<S: Scope>(word: &Atomic<u32, S>) -> bool {
    // Relaxed: a hint of when to exchange; the exchange is the acquire.
    word.load(Relaxed) != 0 && exchange(word)
}

/// `acquire` (after the caller's debug check): one exchange, then polling with loads.
#[inline(always)]
pub(crate) fn acquire<S: Scope, B: Backoff>(word: &Atomic<u32, S>) {
    if try_acquire(word) {
        return;
    }
    // A fresh backoff for each wait for a 1, as libcu++ restarts its polling after every lost
    // exchange: the time waited counts from the last release this thread saw, so under
    // contention (releases every few hundred ns) waiters keep polling instead of growing
    // `Elapsed`'s sleep past the lock's idle time (bench/NOTES.md, "Design measurements", has
    // the three schedules measured side by side with libcu++).
    loop {
        poll_until::<AtScope<S, B>, _>(|| (word.load(Relaxed) != 0).then_some(()));
        if exchange(word) {
            return;
        }
    }
}

/// `try_acquire_for` / `try_acquire_until` (after the caller's debug check): one attempt as
/// `try_acquire` makes it, then, only if it failed, the deadline and polling with loads.
#[inline(always)]
pub(crate) fn try_acquire_within<S: Scope, B: Backoff>(
    word: &Atomic<u32, S>,
    deadline: impl FnOnce() -> Deadline,
) -> bool {
    try_acquire(word)
        || poll_after_miss::<AtScope<S, B>, _>(deadline, || poll(word).then_some(())).is_ok()
}

/// `release(n)` (after the caller's debug check).
#[inline(always)]
pub(crate) fn release<S: Scope>(word: &Atomic<u32, S>, n: u32) {
    if n == 0 {
        return;
    }
    if cfg!(debug_assertions) || crate::loom::RELEASE_BY_EXCHANGE {
        // Debug builds: an exchange instead of the store, to learn whether the unit was
        // already free. The value it replaces is the word's latest in its modification order
        // (an RMW is atomic), so the check is exact: no false alarm and no miss, which a load
        // before a store could not promise under concurrent acquires. The exchange's
        // `.release` makes it a release pattern as the store is, so the code synchronizes
        // exactly as in a release build; it costs an RMW round trip, in debug builds only.
        //
        // loom runs this form too (its models are release builds): see
        // `crate::loom::RELEASE_BY_EXCHANGE`.
        if n > 1 || word.swap(1, Release) != 0 {
            crate::debug_trap(EXCEEDS);
        }
    } else {
        // Release: the next holder's exchange reads this 1, so every write before this
        // store (the critical section, the payload) is visible to it.
        word.store(1, Release);
    }
}
