//! `RwLock<T, S, B>`: many readers or one writer, phase-fair, every lane on its own.
//!
//! Algorithm: Brandenburg and Anderson's phase-fair ticket lock ("PF-T", *Spin-based
//! reader-writer synchronization for multiprocessor real-time systems*, Real-Time Systems
//! 46(1), 2010) over four `u32` words at scope `S`:
//!
//! - `rin`: reader arrivals, counted in steps of 4, and in its two low bits the writer that is
//!   present (`PRES`) with its phase (`PHID`, the parity of its ticket);
//! - `rout`: reader departures, in steps of 4;
//! - `win` / `wout`: writer tickets taken / served (writers queue among themselves in FIFO
//!   order, as in a ticket lock).
//!
//! A reader adds 4 to `rin` (`atom.acquire.add`). If no writer bits came back it is in;
//! otherwise it polls `rin` (`ld.acquire`) until the bits differ from the ones it saw, and
//! leaves by adding 4 to `rout` (`red.release.add`). A writer takes a ticket (`atom.add` on
//! `win`), waits until `wout` serves it, announces itself by adding its bits to `rin` (the
//! value before that add counts the readers that arrived before it), waits until `rout`
//! reaches that count, and leaves by clearing its bits from `rin` (`red.release.and`) and
//! serving the next ticket (`red.release.add` on `wout`). All-zero words are an unlocked lock.
//!
//! **Fairness (phase-fair).** A reader that arrives while a writer is present waits for that
//! one writer phase only: when it ends, either no writer is present or the next writer's
//! announcement carries the other phase bit, and both change the bits the reader waits on;
//! that next writer counted the reader among the arrivals before it, so it waits for it. A
//! writer waits for the writers with earlier tickets (FIFO, one phase each) and then only for
//! the readers that were inside when it announced itself: readers that arrive later see its
//! bits and wait. So neither side starves while every holder eventually unlocks: a reader
//! waits at most one writer phase, a writer at most one reader phase per writer ahead of it.
//! Why the counts work: departures never exceed arrivals, and no reader that arrived after
//! the announcement departs before the writer does, so `rout` equals the writer's count
//! exactly when the readers it counted have all left (the counts wrap at 2^30 readers; they
//! are compared for equality only, and far fewer are ever inside at once).
//!
//! **Every lane for itself, no warp barrier.** Each lane arrives, waits and leaves on its own,
//! and every wait is a poll of memory: a lane never waits at a warp barrier for another lane.
//! Readers and writers of one lock in one warp depend on each other through the lock (a reader
//! waits for the writer phase of a lane beside it, that writer for the reader to leave), and
//! since sm_70 every thread has its own program counter and the scheduler keeps all of them
//! advancing (independent thread scheduling, what the CUDA Programming Guide calls
//! starvation-free algorithms), so lanes that poll memory for one another all get there. A
//! warp barrier breaks that: lanes that reach one `bar.warp.sync` instruction together wait
//! there for one another's masks as one (on an H100, two lanes whose own mask was complete
//! waited at the barrier for a third lane's partner: tests/results/
//! h100-2026-11-27-rwlock-diagnosis.log), so a reader's group barrier can wait for a lane that
//! polls for a writer whose lanes are stuck at that barrier. An earlier version aggregated readers and writers per lock as
//! [`Mutex`](crate::mutex::Mutex) does, with such barriers; on an H100 it hung under write-heavy
//! mixes, every time with one reader between its entry and its departure and the writer
//! waiting for it. What aggregation saved, ptxas does anyway: the atomics that the converged
//! lanes of a warp make on one address become one atomic and a prefix sum (`VOTEU.ANY`,
//! `POPC`, one `ATOM` in the SASS).
//!
//! Why this is correct under the PTX memory model:
//! - Reader entry. The `atom.acquire.add` that finds no writer bits, or the `ld.acquire` that
//!   sees them change, reads a value written by the last writer's `red.release.and` (which
//!   cleared its bits) or by a read-modify-write after it in `rin`'s modification order
//!   (other readers' arrivals, the next writer's announcement). Every write to `rin` is a
//!   read-modify-write, so the release is observed through that chain (PTX ISA, "Memory
//!   Consistency Model": release and acquire patterns, observation order): the writer's
//!   critical section is ordered before the reader's.
//! - Writer entry. `ld.acquire` of `wout` reads the previous writer's `red.release.add`
//!   (writer after writer), and `ld.acquire` of `rout` reads the departure count that includes
//!   every reader the writer counted, each a `red.release.add` observed through the chain of
//!   adds: every earlier critical section, read or write, is ordered before the writer's.
//!
//! On the host every thread is a lane of its own; device/tests/rwlock.rs also runs the lock
//! under `warp::emulation`, lanes of one warp reading and writing it at once.
//!
//! ```
//! use ptx_sync::{Gpu, RwLock};
//!
//! // Two words that must always be seen together: writers change both, readers check them.
//! let pair: RwLock<(u32, u32), Gpu> = RwLock::new((0, 0));
//! std::thread::scope(|s| {
//!     for _ in 0..2 {
//!         s.spawn(|| {
//!             for _ in 0..500 {
//!                 let mut w = pair.write();
//!                 w.0 += 1;
//!                 w.1 += 2;
//!             }
//!         });
//!     }
//!     for _ in 0..2 {
//!         s.spawn(|| {
//!             for _ in 0..500 {
//!                 let r = pair.read();
//!                 assert_eq!(r.1, 2 * r.0); // never half of a write
//!             }
//!         });
//!     }
//! });
//! assert_eq!(pair.into_inner(), (1000, 2000));
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`RwLock<T, S, B>`](crate::rwlock::RwLock), [`RwLockReadGuard`], [`RwLockWriteGuard`]: `read`, `write`, `try_read`, `try_write`, `try_read_for`, `try_read_until`, `try_write_for`, `try_write_until`, `from_ptr`, `DATA_OFFSET`, `data_ptr` | read: `atom.acquire.S.add.u32`, `ld.acquire.S` polling, `red.release.S.add.u32`; write: `atom.relaxed.S.add.u32` (ticket, announcement), `ld.acquire.S` polling, `red.release.S.and.b32` + `red.release.S.add.u32` | none in libcu++: a hand-written reader-writer lock on `cuda::atomic_ref` |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until_deadline, poll_until_for, Backoff, NanoSleep, TimedOut};
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: RwLock in local memory (a kernel's local variable): put it in shared or global memory\n";

/// One reader in `rin` and `rout`.
const RINC: u32 = 4;
/// The writer bits of `rin`.
const WBITS: u32 = 3;
/// A writer is present (announced, waiting for readers, or holding the lock).
const PRES: u32 = 2;
/// The present writer's phase: the parity of its ticket.
const PHID: u32 = 1;

/// A reader-writer lock protecting a `T`, for threads within scope `S`, waiting with `B`:
/// any number of readers at once, or one writer. Phase-fair (neither readers nor writers
/// starve: see the [module docs](self)); each lane takes and leaves it on its own, so lanes of
/// one warp may read and write any locks in any order a thread may.
///
/// All-zero bytes are an unlocked lock (with a zeroed `T`), so an `RwLock` in memory the host
/// zeroed can be used through [`RwLock::from_ptr`].
///
/// Layout (`repr(C)`, the same on the host and the GPU): four `u32` words (reader arrivals
/// with the writer bits, reader departures, writer tickets taken, writer tickets served), then
/// the data at [`RwLock::DATA_OFFSET`] (16 for a `T` aligned to at most 16). Padding is
/// opt-in with [`CachePadded`](crate::CachePadded), as for `Mutex`.
///
/// Inside a critical section, a warp-collective operation over lanes that may be waiting for
/// this lock (`bar.warp.sync`, a shuffle or vote with their mask) deadlocks: they are polling
/// for the lock, not at the collective. Taking the same lock again while holding it deadlocks,
/// as with std's `RwLock`: a write inside a read or a write, and a read inside a read once a
/// writer waits (phase fairness makes the second read wait for it).
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`).
///
/// ```
/// use ptx_sync::{Gpu, RwLock};
/// let table: RwLock<[u32; 4], Gpu> = RwLock::new([0; 4]);
/// table.write()[2] = 7;
/// let (a, b) = (table.read(), table.read()); // two readers at once
/// assert_eq!((a[2], b[2]), (7, 7));
/// ```
#[repr(C)]
pub struct RwLock<T, S: Scope = Gpu, B: Backoff = NanoSleep> {
    /// Reader arrivals (steps of [`RINC`]) | the present writer's bits ([`WBITS`]).
    rin: Atomic<u32, S>,
    /// Reader departures (steps of [`RINC`]).
    rout: Atomic<u32, S>,
    /// Writer tickets taken.
    win: Atomic<u32, S>,
    /// Writer tickets served: the ticket that may proceed.
    wout: Atomic<u32, S>,
    data: UnsafeCell<T>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` is then the fields': `T: Send`).
    backoff: PhantomData<fn() -> B>,
}

// SAFETY: same unsafe impl as `std::sync::RwLock`: writers get `&mut T` one at a time (`T:
// Send`), readers share `&T` across threads at once (`T: Sync`).
unsafe impl<T: Send + Sync, S: Scope, B: Backoff> Sync for RwLock<T, S, B> {}

/// Proof of a shared hold of an [`RwLock`]: derefs to the data; dropping it leaves.
#[must_use = "the lock is released when the guard is dropped"]
pub struct RwLockReadGuard<'a, T, S: Scope, B: Backoff> {
    lock: &'a RwLock<T, S, B>,
    /// Not `Send`, as std's guards are not.
    not_send: PhantomData<*const ()>,
}

// SAFETY: same unsafe impl as `std::sync::RwLockReadGuard`: a shared guard gives out `&T`.
unsafe impl<T: Sync, S: Scope, B: Backoff> Sync for RwLockReadGuard<'_, T, S, B> {}

/// Proof of the exclusive hold of an [`RwLock`]: derefs (mutably) to the data; dropping it
/// unlocks.
#[must_use = "the lock is released when the guard is dropped"]
pub struct RwLockWriteGuard<'a, T, S: Scope, B: Backoff> {
    lock: &'a RwLock<T, S, B>,
    /// Not `Send`, as std's guards are not.
    not_send: PhantomData<*const ()>,
}

// SAFETY: same unsafe impl as `std::sync::RwLockWriteGuard`: a shared guard gives out only `&T`.
unsafe impl<T: Sync, S: Scope, B: Backoff> Sync for RwLockWriteGuard<'_, T, S, B> {}

/// As std's `RwLock`: the data if [`try_read`](RwLock::try_read) gets in (no writer present
/// now), `<locked>` if not.
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for RwLock<T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Some(guard) => d.field("data", &&*guard),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish_non_exhaustive()
    }
}

/// As std's `RwLockReadGuard`: the data.
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for RwLockReadGuard<'_, T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

/// As std's `RwLockWriteGuard`: the data.
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for RwLockWriteGuard<'_, T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

impl<T, S: Scope, B: Backoff> RwLock<T, S, B> {
    const_fn! {
    /// An unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        RwLock {
            rin: Atomic::new(0),
            rout: Atomic::new(0),
            win: Atomic::new(0),
            wout: Atomic::new(0),
            data: UnsafeCell::new(value),
            backoff: PhantomData,
        }
    }
    }

    /// Views the lock at `ptr` (for instance in zeroed global memory a kernel received).
    ///
    /// # Safety
    /// `ptr` points to a valid, aligned `RwLock<T, S, B>` (all-zero bytes are an unlocked one
    /// if all-zero bytes are a valid `T`) that lives for `'a`.
    pub unsafe fn from_ptr<'a>(ptr: *mut Self) -> &'a Self {
        // SAFETY: the caller's contract.
        unsafe { &*ptr }
    }

    /// Byte offset of the data from the start of the lock (for a host that reads or writes
    /// the data of an `RwLock` in device memory).
    pub const DATA_OFFSET: usize = core::mem::offset_of!(Self, data);

    /// A raw pointer to the data. Reading or writing through it without holding the lock is
    /// a data race, as with `std::sync::RwLock::data_ptr`.
    #[inline(always)]
    pub fn data_ptr(&self) -> *mut T {
        self.data.get()
    }

    /// Takes a shared hold, waiting as long as a writer is present (at most one writer phase:
    /// writers that arrive later wait for this reader).
    ///
    /// PTX: `atom.acquire.<scope>.add.u32` (the arrival) and, if a writer is present,
    /// `ld.acquire.<scope>.b32` polls with `B`'s pauses (`nanosleep.u32` for the default). The
    /// guard's drop: `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, RwLock};
    ///
    /// let config: RwLock<[u32; 2], Gpu> = RwLock::new([1, 2]);
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         // atom.acquire.gpu.add.u32 finds no writer bits: all four read at once.
    ///         s.spawn(|| assert_eq!(config.read().iter().sum::<u32>(), 3));
    ///     }
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn read(&self) -> RwLockReadGuard<'_, T, S, B> {
        crate::debug::check_not_local(self, LOCAL);
        self.read_acquire();
        self.read_guard()
    }

    /// Takes the exclusive hold, waiting for the writers ahead of it (FIFO) and for the
    /// readers inside when it announced itself; readers that arrive after that wait for it.
    ///
    /// PTX: a ticket (`atom.relaxed.<scope>.add.u32`), `ld.acquire.<scope>.b32` polls until it
    /// is served, the announcement (`atom.relaxed.<scope>.add.u32`) and `ld.acquire.<scope>.b32`
    /// polls until the readers it counted have left, with `B`'s pauses (`nanosleep.u32` for the
    /// default). The guard's drop unlocks with `red.release.<scope>.and.b32` and
    /// `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, RwLock};
    ///
    /// let total: RwLock<u64, Gpu> = RwLock::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|| {
    ///             for _ in 0..250 {
    ///                 // The guard's drop clears the writer bits (red.release.gpu.and.b32)
    ///                 // and serves the next ticket (red.release.gpu.add.u32).
    ///                 *total.write() += 1;
    ///             }
    ///         });
    ///     }
    /// });
    /// assert_eq!(total.into_inner(), 1000);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn write(&self) -> RwLockWriteGuard<'_, T, S, B> {
        crate::debug::check_not_local(self, LOCAL);
        self.write_acquire();
        self.write_guard()
    }

    /// Takes a shared hold if no writer is present now; never waits (a compare-and-swap that
    /// loses to another reader's arrival is retried while no writer is present).
    ///
    /// PTX: `ld.relaxed.<scope>.b32`, then `atom.acquire.<scope>.cas.b32` while the writer
    /// bits are clear; the guard's drop `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, RwLock};
    ///
    /// let l: RwLock<u32, Gpu> = RwLock::new(3);
    /// let r = l.try_read().unwrap();
    /// assert_eq!(*l.try_read().unwrap(), 3); // readers share
    /// assert!(l.try_write().is_none()); // a writer does not get in
    /// drop(r);
    /// let w = l.try_write().unwrap();
    /// assert!(l.try_read().is_none()); // nor a reader past a writer
    /// drop(w);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_take_read().then(|| self.read_guard())
    }

    /// Takes the exclusive hold if no reader or writer holds it or waits for it now; never
    /// waits.
    ///
    /// PTX: `ld.acquire.<scope>.b32` (tickets served, readers gone) and `ld.relaxed.<scope>.b32`
    /// (readers arrived), then `atom.relaxed.<scope>.cas.b32` of the ticket and of the writer
    /// bits. Should a reader arrive between the two, it gives the ticket back through an
    /// empty writer phase (`atom.relaxed.<scope>.add.u32`, `red.release.<scope>.and.b32`,
    /// `red.release.<scope>.add.u32`), which keeps the phase bits alternating for readers
    /// waiting on them. The guard's drop: `red.release.<scope>.and.b32`,
    /// `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, RwLock};
    ///
    /// let l: RwLock<u32, Gpu> = RwLock::new(0);
    /// std::thread::scope(|s| {
    ///     let r = l.read();
    ///     s.spawn(|| assert!(l.try_write().is_none())).join().unwrap(); // a reader inside
    ///     drop(r);
    ///     s.spawn(|| *l.try_write().unwrap() += 1).join().unwrap();
    /// });
    /// assert_eq!(l.into_inner(), 1);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_take_write().then(|| self.write_guard())
    }

    /// Takes a shared hold if the writer present (if any) leaves before `timeout` has passed
    /// since the first attempt failed; `None` if not. A zero timeout is one attempt. The
    /// reader queues like [`read`](Self::read)'s (the next writer waits for it); on timeout it
    /// withdraws its arrival, which is safe exactly while the writer it waited for is still
    /// present (no later writer has counted it: a compare-and-swap checks the bits). On the
    /// host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: `atom.acquire.<scope>.add.u32`, then `ld.acquire.<scope>.b32` polls with `B`'s
    /// pauses and `mov.u64 %rd, %globaltimer;` after each failed one; on timeout
    /// `atom.acquire.<scope>.cas.b32` withdraws. The guard's drop: `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, RwLock};
    /// let l: RwLock<u32, Gpu> = RwLock::new(4);
    /// let w = l.write();
    /// assert!(l.try_read_for(Duration::from_micros(10)).is_none());
    /// drop(w);
    /// assert_eq!(l.try_read_for(Duration::ZERO).map(|g| *g), Some(4));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_read_for(&self, timeout: Duration) -> Option<RwLockReadGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let mut seen = None;
        let r = poll_until_for::<B, _>(timeout, || self.read_step(&mut seen));
        self.read_timed_end(r, seen)
    }

    /// [`try_read_for`](Self::try_read_for) with a deadline on the [`clock`](crate::clock): a
    /// deadline that has passed is one attempt.
    ///
    /// PTX: as [`try_read_for`](Self::try_read_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, RwLock};
    /// let l: RwLock<u32, Gpu> = RwLock::new(5);
    /// assert_eq!(l.try_read_until(Instant::now()).map(|g| *g), Some(5));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_read_until(&self, deadline: Instant) -> Option<RwLockReadGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let mut seen = None;
        let r = poll_until_deadline::<B, _>(deadline, || self.read_step(&mut seen));
        self.read_timed_end(r, seen)
    }

    /// Takes the exclusive hold if it gets it before `timeout` has passed since the first
    /// attempt failed; `None` if not. It takes a ticket only when no writer holds or waits
    /// (so it can lose to a steady stream of [`write`](Self::write) callers, which queue);
    /// once it has one, it announces itself like `write` (new readers wait for it) and waits
    /// for the readers inside; on timeout it leaves as an unlock does, having written nothing.
    /// A zero timeout is one attempt. On the host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: `ld.acquire.<scope>.b32` and `atom.relaxed.<scope>.cas.b32` (the ticket),
    /// `atom.relaxed.<scope>.add.u32` (the announcement), `ld.acquire.<scope>.b32` polls,
    /// `B`'s pauses and `mov.u64 %rd, %globaltimer;` after each failed poll; unlock (or
    /// giving up) `red.release.<scope>.and.b32`, `red.release.<scope>.add.u32`.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, RwLock};
    /// let l: RwLock<u32, Gpu> = RwLock::new(0);
    /// let r = l.read();
    /// assert!(l.try_write_for(Duration::from_micros(10)).is_none());
    /// drop(r);
    /// assert!(l.try_write_for(Duration::ZERO).is_some());
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_write_for(&self, timeout: Duration) -> Option<RwLockWriteGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let mut counted = None;
        let r = poll_until_for::<B, _>(timeout, || self.write_step(&mut counted));
        self.write_timed_end(r, counted)
    }

    /// [`try_write_for`](Self::try_write_for) with a deadline on the [`clock`](crate::clock):
    /// a deadline that has passed is one attempt.
    ///
    /// PTX: as [`try_write_for`](Self::try_write_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, RwLock};
    /// let l: RwLock<u32, Gpu> = RwLock::new(5);
    /// assert_eq!(l.try_write_until(Instant::now()).map(|g| *g), Some(5));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_write_until(&self, deadline: Instant) -> Option<RwLockWriteGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        let mut counted = None;
        let r = poll_until_deadline::<B, _>(deadline, || self.write_step(&mut counted));
        self.write_timed_end(r, counted)
    }

    /// Mutable access without locking: `&mut self` proves no one else can hold the lock.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// Consumes the lock and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }

    /// A reader's arrival, and its wait while a writer is present.
    #[inline(always)]
    fn read_acquire(&self) {
        // Acquire: with no writer bits this reads the last writer's release (or an RMW after
        // it in `rin`'s modification order), so its critical section is visible.
        let w = self.rin.fetch_add(RINC, Acquire) & WBITS;
        if w != 0 {
            let mut backoff = B::default();
            // The bits change when this writer leaves, or to the next writer's, whose phase
            // bit differs and which counted this reader: either way this reader may enter.
            while self.rin.load(Acquire) & WBITS == w {
                backoff.pause();
            }
        }
    }

    /// A writer's ticket, its turn, its announcement and its wait for the readers it counted.
    #[inline(always)]
    fn write_acquire(&self) {
        // Relaxed: the ticket only orders writers among themselves, through `wout`.
        let ticket = self.win.fetch_add(1, Relaxed);
        let mut backoff = B::default();
        // Acquire: the previous writer's `red.release.add` on `wout`.
        while self.wout.load(Acquire) != ticket {
            backoff.pause();
        }
        let counted = self.announce(ticket);
        let mut backoff = B::default();
        // Acquire: the departures of every reader counted, each a `red.release.add`.
        while self.rout.load(Acquire) != counted {
            backoff.pause();
        }
    }

    /// Adds the writer bits of `ticket` to `rin`: from now on arriving readers wait. Returns
    /// the readers that arrived before it (what `rout` must reach). Relaxed: `rin`'s
    /// modification order alone decides which readers are counted, and the writer's critical
    /// section starts only after its acquire of `rout`.
    #[inline(always)]
    fn announce(&self, ticket: u32) -> u32 {
        let before = self.rin.fetch_add(PRES | (ticket & PHID), Relaxed);
        debug_check!(
            before & WBITS == 0,
            "RwLock: a writer announced itself while another was present"
        );
        before & !WBITS
    }

    /// A writer leaves: clears its bits (readers waiting on them enter), then serves the next
    /// ticket. In this order: the next writer's announcement must come after the clear.
    #[inline(always)]
    fn write_release(&self) {
        // Release: the critical section before it is visible to the readers that enter.
        self.rin.red_and(!WBITS, Release);
        // Release: and to the next writer.
        self.wout.red_add(1, Release);
    }

    /// [`try_read`](Self::try_read)'s attempt: arrive by compare-and-swap while no writer is
    /// present (so a failed attempt leaves nothing to undo).
    #[inline(always)]
    fn try_take_read(&self) -> bool {
        // Relaxed: only a guess at the count for the CAS.
        let mut v = self.rin.load(Relaxed);
        while v & WBITS == 0 {
            // Acquire on success, as `read_acquire`'s add.
            match self
                .rin
                .compare_exchange(v, v.wrapping_add(RINC), Acquire, Relaxed)
            {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
        false
    }

    /// A ticket, if no writer holds or waits for the lock now (`win == wout`).
    #[inline(always)]
    fn try_ticket(&self) -> Option<u32> {
        // Acquire: the previous writer's release on `wout`.
        let served = self.wout.load(Acquire);
        self.ticket_if_served(served)
    }

    /// Ticket `served` (the one `wout` serves), if no other writer has taken it.
    #[inline(always)]
    fn ticket_if_served(&self, served: u32) -> Option<u32> {
        self.win
            .compare_exchange(served, served.wrapping_add(1), Relaxed, Relaxed)
            .ok()
    }

    /// [`try_write`](Self::try_write)'s attempt.
    #[inline(always)]
    fn try_take_write(&self) -> bool {
        // Acquire: the previous writer's release. Read first, so that the looks at `rin` and
        // `rout` below come after that writer left.
        let served = self.wout.load(Acquire);
        // Acquire: every reader that left (a `red.release.add` each, observed through the
        // chain of adds).
        let left = self.rout.load(Acquire);
        if self.rin.load(Relaxed) != left {
            return false; // a reader inside or waiting, or a writer present (its bits)
        }
        let Some(ticket) = self.ticket_if_served(served) else {
            return false; // another writer holds or waits
        };
        // Announce only if no reader is inside: `rin` still equals the departures read above
        // (departures never exceed arrivals, so none arrived since without this CAS failing).
        if self
            .rin
            .compare_exchange(left, left | PRES | (ticket & PHID), Relaxed, Relaxed)
            .is_ok()
        {
            return true;
        }
        // A reader arrived since: give the ticket back through an empty phase, so that the
        // phase bits still alternate from one writer to the next (a reader waiting on one
        // writer's bits must see the next writer's differ: the next writer counted it).
        self.announce(ticket);
        self.write_release();
        false
    }

    /// One poll of a timed read: the arrival (first poll), then a look at the writer bits.
    /// `seen` keeps the bits of the writer this reader waits for.
    #[inline(always)]
    fn read_step(&self, seen: &mut Option<u32>) -> Option<()> {
        match *seen {
            None => {
                let w = self.rin.fetch_add(RINC, Acquire) & WBITS;
                if w == 0 {
                    return Some(());
                }
                *seen = Some(w);
                None
            }
            Some(w) => (self.rin.load(Acquire) & WBITS != w).then_some(()),
        }
    }

    /// The end of a timed read: the guard, or on timeout the arrival withdrawn (unless the
    /// writer left meanwhile: then this reader was counted and is in).
    #[inline(always)]
    fn read_timed_end(
        &self,
        r: Result<(), TimedOut>,
        seen: Option<u32>,
    ) -> Option<RwLockReadGuard<'_, T, S, B>> {
        match (r, seen) {
            (Ok(()), _) => Some(self.read_guard()),
            (Err(TimedOut), Some(w)) => {
                let mut v = self.rin.load(Acquire);
                loop {
                    if v & WBITS != w {
                        // Acquire (the load or the failed CAS): the writer's release.
                        return Some(self.read_guard());
                    }
                    // While the writer this reader waits for is present, no later writer has
                    // counted this reader yet, and the present one never did: the arrival can
                    // be taken back. (Counting a departure in `rout` instead would let a
                    // writer in while readers it counted are still inside.)
                    match self
                        .rin
                        .compare_exchange(v, v.wrapping_sub(RINC), Acquire, Acquire)
                    {
                        Ok(_) => return None,
                        Err(now) => v = now,
                    }
                }
            }
            // A timeout with no arrival recorded cannot happen (the first poll arrives).
            (Err(TimedOut), None) => None,
        }
    }

    /// One poll of a timed write: a ticket and the announcement (once), then a look at the
    /// departures. `counted` keeps the readers this writer waits for.
    #[inline(always)]
    fn write_step(&self, counted: &mut Option<u32>) -> Option<()> {
        let want = match *counted {
            Some(c) => c,
            None => {
                let ticket = self.try_ticket()?;
                let c = self.announce(ticket);
                *counted = Some(c);
                c
            }
        };
        (self.rout.load(Acquire) == want).then_some(())
    }

    /// The end of a timed write: the guard, or on timeout the writer leaves (as an unlock)
    /// if it had announced itself.
    #[inline(always)]
    fn write_timed_end(
        &self,
        r: Result<(), TimedOut>,
        counted: Option<u32>,
    ) -> Option<RwLockWriteGuard<'_, T, S, B>> {
        match r {
            Ok(()) => Some(self.write_guard()),
            Err(TimedOut) => {
                if counted.is_some() {
                    self.write_release();
                }
                None
            }
        }
    }

    #[inline(always)]
    fn read_guard(&self) -> RwLockReadGuard<'_, T, S, B> {
        RwLockReadGuard {
            lock: self,
            not_send: PhantomData,
        }
    }

    #[inline(always)]
    fn write_guard(&self) -> RwLockWriteGuard<'_, T, S, B> {
        RwLockWriteGuard {
            lock: self,
            not_send: PhantomData,
        }
    }
}

impl<T, S: Scope, B: Backoff> Drop for RwLockReadGuard<'_, T, S, B> {
    #[inline(always)]
    fn drop(&mut self) {
        // Release: this reader's reads are ordered before the writer that counts it.
        self.lock.rout.red_add(RINC, Release);
    }
}

impl<T, S: Scope, B: Backoff> Drop for RwLockWriteGuard<'_, T, S, B> {
    #[inline(always)]
    fn drop(&mut self) {
        self.lock.write_release();
    }
}

impl<T, S: Scope, B: Backoff> Deref for RwLockReadGuard<'_, T, S, B> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds a shared hold: no writer is inside.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, S: Scope, B: Backoff> Deref for RwLockWriteGuard<'_, T, S, B> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock exclusively.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, S: Scope, B: Backoff> DerefMut for RwLockWriteGuard<'_, T, S, B> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock exclusively.
        unsafe { &mut *self.lock.data.get() }
    }
}
