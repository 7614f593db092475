//! The auto traits (`Send`, `Sync`) of every public type, pinned at compile time: a change that
//! lets a type cross or be shared between threads where its rules forbid it (or forbids it where
//! they allow it) stops this file from compiling, and the error names the type.
//!
//! A positive pin is a trait bound (`is_send::<T>()`). A negative pin names
//! `<T as AmbiguousIfSend<_>>::check`: the trait has one impl for every type and a second one for
//! `Send` types, so the `_` is undecidable ("type annotations needed") exactly when `T: Send`.
//!
//! The rules: std's for locks and guards (`Mutex<T>` is `Sync` when `T: Send`, since the lock
//! hands `T` from thread to thread one at a time; a guard is `Sync` only when `T: Sync`, and never
//! `Send`: its `drop` hands over to, or waits with, the lanes it recorded at lock time, so it
//! must run on the locking thread); core's for atomics (`Send` and `Sync` whatever they hold or
//! point to); and the waiting policy `B` never decides, because each waiter makes its own `B`
//! on its own thread and no primitive stores one.
//!
//! GPU-only types (`GridBarrier`, `BlockBarrier`) are pinned next to their definitions, where the
//! nvptx build checks them.
#![cfg(not(loom))]

use core::cell::Cell;
use core::marker::PhantomData;
use ptx_sync::atomic::vector::{
    AtomicBf16x4, AtomicBf16x8, AtomicF16x4, AtomicF16x8, AtomicF32x2, AtomicF32x4,
};
use ptx_sync::barrier::{Completion, NoCompletion};
use ptx_sync::index::KernelPtr;
use ptx_sync::shared::Shared;
use ptx_sync::shared_static::{HostStorage, SharedStatic};
use ptx_sync::{
    shared, Atomic, AtomicBf16x2, AtomicBool, AtomicF16, AtomicF32, AtomicFlag, AtomicI8,
    AtomicPtr, AtomicU64, AtomicUsize, Backoff, Barrier, Bf16, BinarySemaphore, CachePadded,
    Cluster, Cta, Elapsed, F16x2, Global, Gpu, Latch, Mutex, MutexGuard, NanoSleep, Queue, RwLock,
    RwLockReadGuard, RwLockWriteGuard, ScopeKind, Semaphore, Spin, SpinLock, Sys, TicketGuard,
    TicketLock, TimedOut, Token,
};
use std::rc::Rc;

fn is_send<T: ?Sized + Send>() {}
fn is_sync<T: ?Sized + Sync>() {}

/// Implemented once for every type, and a second time (with `M = Yes`) for `Send` types.
trait AmbiguousIfSend<M> {
    fn check() {}
}
impl<T: ?Sized> AmbiguousIfSend<()> for T {}
impl<T: ?Sized + Send> AmbiguousIfSend<Yes> for T {}

/// Implemented once for every type, and a second time (with `M = Yes`) for `Sync` types.
trait AmbiguousIfSync<M> {
    fn check() {}
}
impl<T: ?Sized> AmbiguousIfSync<()> for T {}
impl<T: ?Sized + Sync> AmbiguousIfSync<Yes> for T {}

/// The marker of the second impls.
struct Yes;

/// `pins! { Type: Send + !Sync; ... }`: each type's two auto traits, `Send` first; `!` pins
/// the trait's absence. Also defines `PINNED`, the pinned types in order.
macro_rules! pins {
    ($($t:ty: $send:tt $($send_trait:ident)? + $sync:tt $($sync_trait:ident)?;)*) => {
        $(
            const _: fn() = || {
                pins!(@send $t, $send $($send_trait)?);
                pins!(@sync $t, $sync $($sync_trait)?);
            };
        )*
        /// Every pinned type (two pins each), in order.
        const PINNED: &[&str] = &[$(stringify!($t)),*];
    };
    (@send $t:ty, Send) => { is_send::<$t>() };
    (@send $t:ty, ! Send) => { let _ = <$t as AmbiguousIfSend<_>>::check; };
    (@sync $t:ty, Sync) => { is_sync::<$t>() };
    (@sync $t:ty, ! Sync) => { let _ = <$t as AmbiguousIfSync<_>>::check; };
}

/// A waiting policy that is neither `Send` nor `Sync` (as one holding a raw pointer would be).
#[derive(Default)]
struct LocalBackoff(PhantomData<*const ()>);

impl Backoff for LocalBackoff {
    fn pause(&mut self) {}
    fn waited_ns(&self) -> u64 {
        0
    }
}

/// `Sync` but not `Send`, as std's `MutexGuard` is.
#[allow(dead_code)] // only the type is used
struct SyncOnly(PhantomData<*const ()>);
// SAFETY: it holds nothing; the test needs a type that is `Sync` and not `Send`.
unsafe impl Sync for SyncOnly {}

/// A completion that is `Send` and not `Sync` (a phase counter in a `Cell`).
#[allow(dead_code)] // only the type is used
struct CountPhases(Cell<u32>);
impl Completion for CountPhases {
    fn complete(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

/// A completion that is `Sync` and not `Send`.
#[allow(dead_code)] // only the type is used
struct SyncOnlyCompletion(SyncOnly);
impl Completion for SyncOnlyCompletion {
    fn complete(&mut self) {}
}

/// A completion that is neither (it shares an `Rc` with its creator's thread).
#[allow(dead_code)] // only the type is used
struct RcCompletion(Rc<Cell<u32>>);
impl Completion for RcCompletion {
    fn complete(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

shared! {
    static TILE: [u32; 4];
}

pins! {
    // Locks (std's rule: the lock hands `T` between threads one at a time, so `T: Send` is
    // enough for both traits; `T: Sync` is not needed and not enough).
    // Plain data: shareable and movable.
    Mutex<u64>: Send + Sync;
    // A `Cell` behind the lock: only one thread at a time reaches it.
    Mutex<Cell<u64>>: Send + Sync;
    // `Sync` but not `Send`: the lock would hand it to another thread.
    Mutex<SyncOnly>: !Send + !Sync;
    // An `Rc`: two threads could clone it through the lock, one after the other, leaving clones
    // on two threads.
    Mutex<Rc<u64>>: !Send + !Sync;
    // The waiting policy is a type, not a stored value: it does not decide.
    Mutex<u64, Cta, LocalBackoff>: Send + Sync;
    // A data-less lock over a non-`Send` policy is still shareable.
    SpinLock<Sys, LocalBackoff>: Send + Sync;
    // Guards (std's rule): `Sync` iff `T: Sync`; never `Send`, as `drop` runs on the locking
    // thread (it hands over to, or waits with, the lanes recorded at lock time).
    // A guard of plain data may be shared (`&guard` only reads `u64`s).
    MutexGuard<'static, u64, Gpu, NanoSleep>: !Send + Sync;
    // Sharing `&guard` would share the `Cell` itself between threads.
    MutexGuard<'static, Cell<u64>, Gpu, NanoSleep>: !Send + !Sync;
    // `T: Sync` is enough for the guard's `Sync` (it gives out only `&T`).
    MutexGuard<'static, SyncOnly, Gpu, NanoSleep>: !Send + Sync;
    // The policy does not decide for guards either.
    MutexGuard<'static, u64, Gpu, LocalBackoff>: !Send + Sync;
    // As `Mutex<u64>`.
    TicketLock<u64>: Send + Sync;
    // As `Mutex<Cell<u64>>`.
    TicketLock<Cell<u64>>: Send + Sync;
    // As `Mutex<SyncOnly>`.
    TicketLock<SyncOnly>: !Send + !Sync;
    // As `Mutex<Rc<u64>>`.
    TicketLock<Rc<u64>>: !Send + !Sync;
    // As `Mutex<u64, Cta, LocalBackoff>`.
    TicketLock<u64, Cta, LocalBackoff>: Send + Sync;
    // As `MutexGuard<u64>` (the guard serves the next ticket from the thread that held it).
    TicketGuard<'static, u64, Gpu, NanoSleep>: !Send + Sync;
    // As `MutexGuard<Cell<u64>>`.
    TicketGuard<'static, Cell<u64>, Gpu, NanoSleep>: !Send + !Sync;
    // As `MutexGuard<SyncOnly>`.
    TicketGuard<'static, SyncOnly, Gpu, NanoSleep>: !Send + Sync;
    // As `MutexGuard<u64, Gpu, LocalBackoff>`.
    TicketGuard<'static, u64, Gpu, LocalBackoff>: !Send + Sync;
    // Reader-writer locks (std's rule for `RwLock<T>`: `Send` when `T: Send`, `Sync` when
    // `T: Send + Sync`, since readers share `&T` across threads at once).
    // Plain data.
    RwLock<u64>: Send + Sync;
    // A `Cell`: readers on two threads would share it.
    RwLock<Cell<u64>>: Send + !Sync;
    // `Sync` but not `Send`: a writer on another thread would get `&mut` to it.
    RwLock<SyncOnly>: !Send + !Sync;
    // An `Rc`: neither.
    RwLock<Rc<u64>>: !Send + !Sync;
    // The policy does not decide.
    RwLock<u64, Cta, LocalBackoff>: Send + Sync;
    // Guards (std's rule): `Sync` iff `T: Sync`; never `Send` (`drop` leaves with, or hands
    // over to, the lanes recorded at lock time, on the locking thread).
    // A read guard of plain data.
    RwLockReadGuard<'static, u64, Gpu, NanoSleep>: !Send + Sync;
    // Sharing `&guard` would share the `Cell`.
    RwLockReadGuard<'static, Cell<u64>, Gpu, NanoSleep>: !Send + !Sync;
    // `T: Sync` is enough (it gives out only `&T`).
    RwLockReadGuard<'static, SyncOnly, Gpu, NanoSleep>: !Send + Sync;
    // The policy does not decide.
    RwLockReadGuard<'static, u64, Gpu, LocalBackoff>: !Send + Sync;
    // A write guard of plain data: `&guard` only reads.
    RwLockWriteGuard<'static, u64, Gpu, NanoSleep>: !Send + Sync;
    // As the read guard's.
    RwLockWriteGuard<'static, Cell<u64>, Gpu, NanoSleep>: !Send + !Sync;
    // As the read guard's.
    RwLockWriteGuard<'static, SyncOnly, Gpu, NanoSleep>: !Send + Sync;

    // Queues (crossbeam's `ArrayQueue` rule): values move from the pushing thread to the
    // popping one, never shared, so `T: Send` decides both traits.
    // Plain data.
    Queue<u64, 4>: Send + Sync;
    // A `Cell` moves through the queue whole; no two threads reach it at once.
    Queue<Cell<u64>, 4>: Send + Sync;
    // `Sync` but not `Send`: another thread would pop it.
    Queue<SyncOnly, 4>: !Send + !Sync;
    // An `Rc`: a clone left behind and one popped elsewhere.
    Queue<Rc<u64>, 4>: !Send + !Sync;
    // The policy does not decide.
    Queue<u64, 4, Cta, LocalBackoff>: Send + Sync;

    // Counters (all state atomic): shareable and movable whatever the policy.
    // The default semaphore.
    Semaphore: Send + Sync;
    // A non-`Send` policy does not decide.
    Semaphore<Sys, 8, LocalBackoff>: Send + Sync;
    // The default binary semaphore.
    BinarySemaphore: Send + Sync;
    // A non-`Send` policy does not decide.
    BinarySemaphore<Cta, LocalBackoff>: Send + Sync;
    // The default latch.
    Latch: Send + Sync;
    // A non-`Send` policy does not decide.
    Latch<Gpu, LocalBackoff>: Send + Sync;

    // Barriers: the completion `F` runs in whichever thread completes a phase, one run after
    // the other, so it is handed between threads as a `Mutex<F>`'s data is: `F: Send` decides
    // both traits, `F: Sync` is not needed.
    // No completion.
    Barrier: Send + Sync;
    // A non-`Send` policy does not decide.
    Barrier<Cta, LocalBackoff>: Send + Sync;
    // A function pointer as the completion.
    Barrier<Gpu, NanoSleep, fn()>: Send + Sync;
    // A `Send`, non-`Sync` completion: runs never overlap.
    Barrier<Gpu, NanoSleep, CountPhases>: Send + Sync;
    // A `Sync`, non-`Send` completion: another thread would run it.
    Barrier<Gpu, NanoSleep, SyncOnlyCompletion>: !Send + !Sync;
    // A completion sharing an `Rc`: another thread would touch the count.
    Barrier<Gpu, NanoSleep, RcCompletion>: !Send + !Sync;
    // The phase an arrival belongs to: a plain value.
    Token: Send + Sync;
    // The empty completion.
    NoCompletion: Send + Sync;

    // Atomics (core's rule: `Send` and `Sync` whatever they hold; every access is atomic).
    // 32-bit.
    Atomic<u32, Gpu>: Send + Sync;
    // 64-bit at system scope.
    AtomicU64<Sys>: Send + Sync;
    // 128-bit.
    Atomic<u128, Sys>: Send + Sync;
    // Floats.
    AtomicF32<Cta>: Send + Sync;
    // Narrow.
    AtomicI8<Cluster>: Send + Sync;
    // Half floats.
    AtomicF16<Gpu>: Send + Sync;
    // Packed half floats.
    AtomicBf16x2<Gpu>: Send + Sync;
    // Pointer-sized.
    AtomicUsize<Gpu>: Send + Sync;
    // A 4-byte bool.
    AtomicBool<Gpu>: Send + Sync;
    // The pointer is a value, whatever it points to (core's `AtomicPtr<T>` for every `T`).
    AtomicPtr<Cell<u64>, Gpu>: Send + Sync;
    // Even to a non-`Send` pointee.
    AtomicPtr<Rc<u64>, Sys>: Send + Sync;
    // A flag over an atomic word.
    AtomicFlag<Gpu>: Send + Sync;
    // The vector atomics: each lane atomic.
    AtomicF32x2<Gpu>: Send + Sync;
    // As `AtomicF32x2`.
    AtomicF32x4<Sys>: Send + Sync;
    // As `AtomicF32x2`.
    AtomicF16x4<Gpu>: Send + Sync;
    // As `AtomicF32x2`.
    AtomicF16x8<Gpu>: Send + Sync;
    // As `AtomicF32x2`.
    AtomicBf16x4<Gpu>: Send + Sync;
    // As `AtomicF32x2`.
    AtomicBf16x8<Cta>: Send + Sync;

    // Padding follows `T` (crossbeam's `CachePadded`).
    // Plain data.
    CachePadded<u64>: Send + Sync;
    // A `Cell`: movable, not shareable.
    CachePadded<Cell<u64>>: Send + !Sync;
    // An `Rc`: neither.
    CachePadded<Rc<u64>>: !Send + !Sync;
    // A padded lock is the lock's.
    CachePadded<Mutex<Cell<u64>>>: Send + Sync;

    // Addresses in a state space are raw pointers (every access is `unsafe`): `*mut T`'s rule.
    // A `.shared` address.
    Shared<u32>: !Send + !Sync;
    // A `.global` address.
    Global<Atomic<u32, Gpu>>: !Send + !Sync;
    // A `shared!` variable's handle: a zero-sized constant that every thread names anyway.
    SharedStatic<TILE::Symbol>: Send + Sync;
    // A `shared!` variable's host storage, a `static`: `Sync` for any `T`, since it gives out
    // only raw pointers (as a `static mut` does); `Send` follows `T`.
    HostStorage<Cell<u64>>: Send + Sync;
    // The host grid runner's kernel argument: an address that every thread of the grid gets,
    // as every GPU thread gets its kernel's arguments; every access through it is `unsafe`.
    KernelPtr<Cell<u64>>: Send + Sync;

    // Plain values.
    // Scopes (sealed, zero-sized).
    Gpu: Send + Sync;
    // The scope's kind.
    ScopeKind: Send + Sync;
    // Waiting policies.
    NanoSleep: Send + Sync;
    // As `NanoSleep`.
    Spin: Send + Sync;
    // As `NanoSleep`.
    Elapsed: Send + Sync;
    // A timed wait's error.
    TimedOut: Send + Sync;
    // Half floats.
    Bf16: Send + Sync;
    // Packed half floats.
    F16x2: Send + Sync;
    // The clock's reading.
    ptx_sync::clock::Instant: Send + Sync;
}

#[test]
fn every_pin_is_counted() {
    // A pin added or removed changes this number: on purpose, in the same change.
    assert_eq!(PINNED.len(), 86, "{PINNED:#?}");
    let mut seen = std::collections::HashSet::new();
    for t in PINNED {
        assert!(seen.insert(t), "{t} is pinned twice");
    }
}
