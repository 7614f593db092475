//! The one-unit algorithm that [`Semaphore<S, 1, B>`](super::Semaphore) runs
//! ([`BinarySemaphore`](crate::semaphore::BinarySemaphore)): a child of `semaphore`, so the counting type
//! takes it from below and `binary_semaphore` only documents it and re-exports the type. Why it
//! is correct under the PTX memory model, and why `Sys` loads before it exchanges: the
//! [`binary_semaphore`](crate::binary_semaphore) module docs.

use crate::atomic::Atomic;
use crate::scope::{Scope, ScopeKind};
use crate::wait::{poll_after_miss, poll_until, AtScope, Backoff, Deadline};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// What a debug build reports for a release past `MAX`: both algorithms check it, the counting
/// one on the old value of its `atom.add`, this one on the old value of its exchange.
pub(super) const EXCEEDS: &core::ffi::CStr =
    c"ptx-sync: Semaphore::release: count would exceed MAX\n";

/// One attempt to take the unit where the word may be 0: load first at `Sys` (see the module
/// docs), exchange at once elsewhere.
#[inline(always)]
pub(super) fn try_acquire<S: Scope>(word: &Atomic<u32, S>) -> bool {
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
pub(super) fn acquire<S: Scope, B: Backoff>(word: &Atomic<u32, S>) {
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
pub(super) fn try_acquire_within<S: Scope, B: Backoff>(
    word: &Atomic<u32, S>,
    deadline: impl FnOnce() -> Deadline,
) -> bool {
    try_acquire(word)
        || poll_after_miss::<AtScope<S, B>, _>(deadline, || poll(word).then_some(())).is_ok()
}

/// `release(n)` (after the caller's debug check).
#[inline(always)]
pub(super) fn release<S: Scope>(word: &Atomic<u32, S>, n: u32) {
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
            crate::debug::trap(EXCEEDS);
        }
    } else {
        // Release: the next holder's exchange reads this 1, so every write before this
        // store (the critical section, the payload) is visible to it.
        word.store(1, Release);
    }
}
