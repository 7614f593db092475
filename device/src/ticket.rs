//! `TicketLock<T, S, B>`: a FIFO-fair lock (libcu++ has none: NVIDIA/cccl#450).
//!
//! Two counters on separate 128-byte lines: `next` hands out tickets (`atom.add.relaxed`),
//! `serving` names the ticket that holds the lock. A thread waits for its number
//! (`ld.acquire`) and unlocks by publishing the next one (`st.release`), so threads enter in
//! the order they took tickets and none can be overtaken forever.
//!
//! Why this is correct under the PTX memory model: the waiter's `ld.acquire` of `serving`
//! reads the previous holder's `st.release`, so the release synchronizes with the acquire and
//! the critical sections are ordered by causality order (PTX ISA, "Memory Consistency Model").
//! Ticket numbers are unique because `atom.add` is atomic; the ticket itself needs no order.
//!
//! ```
//! use ptx_sync::{Gpu, TicketLock};
//!
//! let log: TicketLock<Vec<u32>, Gpu> = TicketLock::new(Vec::new());
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..25 {
//!                 let mut g = log.lock();
//!                 let ticket = g.ticket();
//!                 g.push(ticket);
//!             }
//!         });
//!     }
//! });
//! // Holders entered in the order they drew their tickets: the log is 0, 1, 2, ...
//! assert_eq!(log.into_inner(), (0..100).collect::<Vec<u32>>());
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`TicketLock<T, S, B>`](crate::ticket::TicketLock), [`TicketGuard`] (FIFO) | `atom.relaxed.S.add.u32` (ticket), `ld.acquire.S` polling (turn), `st.release.S` (unlock) | none (libcu++ has no fair lock) |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, Backoff, NanoSleep};
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: TicketLock in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A first-come-first-served lock around a `T`, for threads within scope `S`, waiting with `B`.
/// All-zero bytes are an unlocked lock (with a zeroed `T`).
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`), as libcu++ guards the same case.
///
/// ```
/// use ptx_sync::{Gpu, TicketLock};
/// let queue: TicketLock<u32, Gpu> = TicketLock::new(0);
/// let mut g = queue.lock();
/// *g += 1;
/// assert_eq!(g.ticket(), 0);
/// drop(g);
/// assert_eq!(queue.lock().ticket(), 1);
/// ```
#[repr(C)]
pub struct TicketLock<T, S: Scope = Gpu, B: Backoff = NanoSleep> {
    next: Atomic<u32, S>,
    // `serving` (polled by every waiter) on its own line, away from the `next` RMWs.
    _line0: [u32; 31],
    serving: Atomic<u32, S>,
    _line1: [u32; 31],
    data: UnsafeCell<T>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` is then the fields': `T: Send`).
    backoff: PhantomData<fn() -> B>,
}

// SAFETY: same unsafe impl as `std::sync::Mutex`: the lock lets one thread at a time reach
// `data`, so sharing the lock hands `T` from thread to thread (`T: Send`) but never shares it.
unsafe impl<T: Send, S: Scope, B: Backoff> Sync for TicketLock<T, S, B> {}

/// Proof of holding a [`TicketLock`]: derefs to the data; dropping it serves the next ticket.
#[must_use = "the lock is released when the guard is dropped"]
pub struct TicketGuard<'a, T, S: Scope, B: Backoff> {
    lock: &'a TicketLock<T, S, B>,
    ticket: u32,
    /// Not `Send`, as std's guards and [`MutexGuard`](crate::mutex::MutexGuard) (whose `drop` must
    /// run on the locking lane): a lock is released by the thread that took it, whichever of
    /// the two locks it is.
    not_send: PhantomData<*const ()>,
}

// SAFETY: same unsafe impl as `std::sync::MutexGuard`: a shared guard gives out only `&T`.
unsafe impl<T: Sync, S: Scope, B: Backoff> Sync for TicketGuard<'_, T, S, B> {}

/// As std's `Mutex`: the data if [`try_lock`](TicketLock::try_lock) takes the lock (served at
/// once on release), `<locked>` if not; and the ticket now served (a `Relaxed` load).
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for TicketLock<T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("TicketLock");
        d.field("serving", &self.serving.load(Relaxed));
        match self.try_lock() {
            Some(guard) => d.field("data", &&*guard),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish_non_exhaustive()
    }
}

/// As std's `MutexGuard`: the data (and this guard's ticket).
impl<T: core::fmt::Debug, S: Scope, B: Backoff> core::fmt::Debug for TicketGuard<'_, T, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TicketGuard")
            .field("ticket", &self.ticket)
            .field("data", &&**self)
            .finish()
    }
}

impl<T, S: Scope, B: Backoff> TicketLock<T, S, B> {
    const_fn! {
    /// An unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        TicketLock {
            next: Atomic::new(0),
            _line0: [0; 31],
            serving: Atomic::new(0),
            _line1: [0; 31],
            data: UnsafeCell::new(value),
            backoff: PhantomData,
        }
    }
    }

    /// Views the lock at `ptr` (for instance in zeroed global memory).
    ///
    /// # Safety
    /// `ptr` points to a valid, aligned `TicketLock<T, S, B>` that lives for `'a`.
    pub unsafe fn from_ptr<'a>(ptr: *mut Self) -> &'a Self {
        // SAFETY: the caller's contract.
        unsafe { &*ptr }
    }

    /// Byte offset of the data from the start of the lock (for a host that reads or writes
    /// the data of a `TicketLock` in device memory).
    pub const DATA_OFFSET: usize = core::mem::offset_of!(Self, data);

    /// A raw pointer to the data. Reading or writing through it without holding the lock is
    /// a data race.
    #[inline(always)]
    pub fn data_ptr(&self) -> *mut T {
        self.data.get()
    }

    /// Takes a ticket and waits until it is served.
    ///
    /// PTX: `atom.relaxed.<scope>.add.u32` (the ticket), `ld.acquire.<scope>.b32` polls of
    /// `serving` with `B`'s pauses (`nanosleep.u32` for the default); the guard's drop stores
    /// the next ticket with `st.release.<scope>.b32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, TicketLock};
    ///
    /// let counter: TicketLock<u32, Gpu> = TicketLock::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|| {
    ///             for _ in 0..100 {
    ///                 // atom.relaxed.gpu.add.u32 draws the ticket; ld.acquire.gpu.b32 polls
    ///                 // until the previous holder's st.release.gpu.b32 serves it.
    ///                 *counter.lock() += 1;
    ///             }
    ///         });
    ///     }
    /// });
    /// let g = counter.lock();
    /// assert_eq!((*g, g.ticket()), (400, 400)); // 400 tickets were served before this one
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn lock(&self) -> TicketGuard<'_, T, S, B> {
        crate::debug::check_not_local(self, LOCAL);
        let ticket = self.next.fetch_add(1, Relaxed);
        poll_until::<B, _>(|| (self.serving.load(Acquire) == ticket).then_some(()));
        TicketGuard {
            lock: self,
            ticket,
            not_send: PhantomData,
        }
    }

    /// Takes the lock if no one holds or waits for it now; never waits (and never takes a
    /// ticket it would have to wait for).
    ///
    /// PTX: `ld.acquire.<scope>.b32` of `serving`, then `atom.relaxed.<scope>.cas.b32` of
    /// `next` from that ticket to the one after it.
    ///
    /// ```
    /// use ptx_sync::{Gpu, TicketLock};
    ///
    /// let l: TicketLock<u32, Gpu> = TicketLock::new(0);
    /// std::thread::scope(|s| {
    ///     let held = l.lock();
    ///     s.spawn(|| assert!(l.try_lock().is_none())).join().unwrap(); // held: no ticket taken
    ///     drop(held);
    ///     s.spawn(|| assert_eq!(l.try_lock().map(|g| g.ticket()), Some(1))).join().unwrap();
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock(&self) -> Option<TicketGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_take()
    }

    /// [`try_lock`](Self::try_lock) repeated until `timeout` has passed since the first
    /// attempt failed; `None` then. It never queues, so it can lose to a steady stream of
    /// ticket holders. A zero timeout is one attempt. On the host, time is the virtual
    /// [`clock`](crate::clock).
    ///
    /// PTX: per attempt `ld.acquire.<scope>.b32` (`serving`) and `atom.relaxed.<scope>.cas.b32`
    /// (`next`), `B`'s pauses between attempts, `mov.u64 %rd, %globaltimer;` after each failed
    /// one.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, TicketLock};
    /// let l: TicketLock<u32, Gpu> = TicketLock::new(0);
    /// let held = l.lock();
    /// assert!(l.try_lock_for(Duration::from_micros(10)).is_none());
    /// drop(held);
    /// assert_eq!(l.try_lock_for(Duration::ZERO).map(|g| g.ticket()), Some(1));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock_for(&self, timeout: Duration) -> Option<TicketGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_for::<B, _>(timeout, || self.try_take()).ok()
    }

    /// [`try_lock`](Self::try_lock) repeated until `deadline` on the [`clock`](crate::clock);
    /// `None` then. A deadline that has passed is one attempt.
    ///
    /// PTX: as [`try_lock_for`](Self::try_lock_for).
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the lock is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_lock_until(&self, deadline: Instant) -> Option<TicketGuard<'_, T, S, B>> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_deadline::<B, _>(deadline, || self.try_take()).ok()
    }

    /// [`try_lock`](Self::try_lock) without the debug check, which the timed wait does once,
    /// not per poll.
    #[inline(always)]
    fn try_take(&self) -> Option<TicketGuard<'_, T, S, B>> {
        let serving = self.serving.load(Acquire);
        self.next
            .compare_exchange(serving, serving.wrapping_add(1), Relaxed, Relaxed)
            .ok()
            .map(|ticket| TicketGuard {
                lock: self,
                ticket,
                not_send: PhantomData,
            })
    }

    /// Mutable access without locking.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    /// Consumes the lock and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T, S: Scope, B: Backoff> TicketGuard<'_, T, S, B> {
    /// This holder's ticket: holders enter in ticket order 0, 1, 2, ... (wrapping).
    pub fn ticket(&self) -> u32 {
        self.ticket
    }
}

impl<T, S: Scope, B: Backoff> Drop for TicketGuard<'_, T, S, B> {
    #[inline(always)]
    fn drop(&mut self) {
        self.lock
            .serving
            .store(self.ticket.wrapping_add(1), Release);
    }
}

impl<T, S: Scope, B: Backoff> Deref for TicketGuard<'_, T, S, B> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T, S: Scope, B: Backoff> DerefMut for TicketGuard<'_, T, S, B> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data.get() }
    }
}
