//! `Latch<S, B>`: a single-use countdown (`cuda::latch<Scope>`).
//!
//! One `u32` counts the arrivals still expected. `count_down()` is `atom.add.release` of
//! `-1` (`count_down_n(n)` of `-n`); waiting is polling `ld.acquire` until 0. The zero a waiter reads is written by the
//! last of a chain of release RMWs, so every counted-down thread's earlier writes are visible
//! to every thread that has seen the latch open (PTX ISA, "Memory Consistency Model":
//! observation through read-modify-writes, release/acquire patterns).
//!
//! `arrive_and_wait` is warp-aggregated on the GPU, per latch: the lanes that call it together
//! on the same latch (`match.any.sync.b64` on its address: [`warp::peers`]) meet at
//! `bar.warp.sync` over that group (which orders their memory accesses: PTX ISA,
//! `bar.warp.sync`), one lane counts down for the group (with `acq_rel`: the arrival that
//! opens the latch has acquired everything and skips the poll) and otherwise polls, and a second
//! `bar.warp.sync` passes what it acquired to the others. One RMW and one poller per latch per
//! warp instead of one per lane; lanes on other latches are neither counted nor waited for.
//!
//! ```
//! use ptx_sync::{Atomic, Gpu, Latch, Ordering::Relaxed};
//!
//! // Fork and join: eight workers add into a total, the joiner reads it once all are done.
//! let workers: Latch<Gpu> = Latch::new(8);
//! let total = Atomic::<u32, Gpu>::new(0);
//! std::thread::scope(|s| {
//!     for i in 1..=8 {
//!         let (workers, total) = (&workers, &total);
//!         s.spawn(move || {
//!             total.fetch_add(i, Relaxed);
//!             workers.count_down();
//!         });
//!     }
//!     workers.wait();
//!     assert_eq!(total.load(Relaxed), 36);
//! });
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Latch<S, B>`](crate::latch::Latch): `count_down()`, `count_down_n(n)`, `try_wait`, `wait`, `wait_for`, `wait_until`, `arrive_and_wait` | `atom.release.S.add.u32` of `-1` / `-n`, `ld.acquire.S` polling; `arrive_and_wait` per warp: `match.any.sync.b64`, `bar.warp.sync` | `cuda::latch<Scope>` |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, Backoff, NanoSleep, TimedOut};
use crate::warp;
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use core::time::Duration;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Latch in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A latch that opens once `expected` arrivals have been counted, for threads within scope
/// `S`, waiting with `B`. Single use (make a new one per round). A latch of 0 is open.
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`), as libcu++ guards the same case.
///
/// ```
/// use ptx_sync::{Gpu, Latch};
/// let done: Latch<Gpu> = Latch::new(2);
/// done.count_down();
/// assert!(!done.try_wait());
/// done.arrive_and_wait(); // the second arrival opens it
/// assert!(done.try_wait());
/// ```
#[repr(C)]
pub struct Latch<S: Scope = Gpu, B: Backoff = NanoSleep> {
    pending: Atomic<u32, S>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` and `Sync`, as its atomic word: always).
    backoff: PhantomData<fn() -> B>,
}

/// The arrivals still expected (a `Relaxed` load; 0: open).
impl<S: Scope, B: Backoff> core::fmt::Debug for Latch<S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Latch")
            .field("pending", &self.pending.load(Relaxed))
            .finish()
    }
}

impl<S: Scope, B: Backoff> Latch<S, B> {
    const_fn! {
    /// A latch waiting for `expected` arrivals (0: already open).
    pub fn new(expected: u32) -> Self {
        Latch {
            pending: Atomic::new(expected),
            backoff: PhantomData,
        }
    }
    }

    /// Views the latch at `ptr` (a `u32` holding the arrivals still expected).
    ///
    /// # Safety
    /// `ptr` is valid, 4-byte aligned, lives for `'a`, and is accessed only atomically meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(C)` with one `Atomic<u32, S>` (transparent over `u32`) and a ZST.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// The most arrivals a latch can expect (libcu++: `latch::max()`).
    pub const fn max() -> u32 {
        u32::MAX
    }

    /// Sets the latch to wait for `expected` arrivals, in a kernel (a relaxed store). Only
    /// while no thread uses it (before the threads that use it are told so, e.g. across a
    /// block or grid barrier): libcu++ constructs latches in place the same way.
    ///
    /// PTX: `st.relaxed.<scope>.b32`.
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the latch is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn init(&self, expected: u32) {
        crate::debug::check_not_local(self, LOCAL);
        self.pending.store(expected, Relaxed);
    }

    /// Counts one arrival (libcu++: `count_down()`, whose update defaults to 1). In a debug
    /// build, counting below zero traps with a message (a panic on the host).
    ///
    /// PTX: `atom.release.<scope>.add.u32` of `-1`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Latch, Ordering::Relaxed};
    ///
    /// // Four workers fill their slots and count down; the host of the results waits.
    /// let done: Latch<Gpu> = Latch::new(4);
    /// let slots: [Atomic<u32, Gpu>; 4] = core::array::from_fn(|_| Atomic::new(0));
    /// std::thread::scope(|s| {
    ///     for (i, slot) in slots.iter().enumerate() {
    ///         let done = &done;
    ///         s.spawn(move || {
    ///             slot.store(10 * i as u32, Relaxed);
    ///             done.count_down(); // atom.release.gpu.add.u32 of -1: publishes the store
    ///         });
    ///     }
    ///     done.wait(); // ld.acquire.gpu.b32 polls until the count is 0
    ///     assert_eq!(slots.iter().map(|x| x.load(Relaxed)).sum::<u32>(), 60);
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the count would go
    /// below zero (more arrivals than expected); on the GPU it also traps when the latch is in
    /// local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn count_down(&self) {
        self.count_down_n(1)
    }

    /// Counts `n` arrivals at once (libcu++: `count_down(update)`; 0 does nothing). In a debug
    /// build, counting below zero traps with a message (a panic on the host).
    ///
    /// PTX: `atom.release.<scope>.add.u32` of `-n`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Latch};
    /// let l: Latch<Gpu> = Latch::new(3);
    /// l.count_down_n(2);
    /// assert!(!l.try_wait());
    /// l.count_down_n(1);
    /// assert!(l.try_wait());
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the count would go
    /// below zero (more arrivals than expected); on the GPU it also traps when the latch is in
    /// local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn count_down_n(&self, n: u32) {
        crate::debug::check_not_local(self, LOCAL);
        if n == 0 {
            return;
        }
        // Release: the zero a waiter reads ends a chain of release RMWs that contains this one.
        let prev = self.pending.fetch_sub(n, Release);
        if cfg!(debug_assertions) && prev < n {
            crate::debug::trap(c"ptx-sync: Latch::count_down: counted below zero\n");
        }
    }

    /// Counts `n > 0` arrivals like [`count_down`](Self::count_down) but with
    /// `atom.acq_rel`, and says whether they opened the latch. The arrival that opens it reads
    /// the value left by the last of the chain of release RMWs that counted everyone else
    /// down, so its acquire half synchronizes with all of them (PTX ISA, memory consistency
    /// model: release sequences through read-modify-writes): it needs no poll.
    #[inline(always)]
    fn count_down_opens(&self, n: u32) -> bool {
        crate::debug::check_not_local(self, LOCAL);
        let prev = self.pending.fetch_sub(n, AcqRel);
        if cfg!(debug_assertions) && prev < n {
            crate::debug::trap(c"ptx-sync: Latch::count_down: counted below zero\n");
        }
        prev == n
    }

    /// Whether the latch is open (`ld.acquire`): if so, every arrival's writes are visible.
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the latch is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_wait(&self) -> bool {
        crate::debug::check_not_local(self, LOCAL);
        self.is_open()
    }

    /// Waits until the latch is open.
    ///
    /// PTX: `ld.acquire.<scope>.b32` polls with `B`'s pauses (`nanosleep.u32` for the
    /// default).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Latch, Ordering::Relaxed};
    ///
    /// // A one-shot gate: three readers wait until one writer has published the input.
    /// let ready: Latch<Gpu> = Latch::new(1);
    /// let input = Atomic::<u32, Gpu>::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..3 {
    ///         s.spawn(|| {
    ///             ready.wait(); // ld.acquire.gpu.b32 reads the 0 the count_down wrote
    ///             assert_eq!(input.load(Relaxed), 42);
    ///         });
    ///     }
    ///     input.store(42, Relaxed);
    ///     ready.count_down(); // atom.release.gpu.add.u32
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the latch is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait(&self) {
        crate::debug::check_not_local(self, LOCAL);
        poll_until::<B, _>(|| self.is_open().then_some(()));
    }

    /// Waits for the latch to open, giving up once `timeout` has passed since the first poll
    /// failed: `Err(TimedOut)`. A zero timeout is one poll. On the host, time is the virtual
    /// [`clock`](crate::clock).
    ///
    /// PTX: `ld.acquire.<scope>.b32` polling with `B`'s pauses (`nanosleep.u32` for the
    /// default), `mov.u64 %rd, %globaltimer;` after each failed poll.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, Latch, TimedOut};
    /// let l: Latch<Gpu> = Latch::new(1);
    /// assert_eq!(l.wait_for(Duration::from_micros(10)), Err(TimedOut));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the latch is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_for(&self, timeout: Duration) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_for::<B, _>(timeout, || self.is_open().then_some(()))
    }

    /// Waits for the latch to open until `deadline` on the [`clock`](crate::clock):
    /// `Err(TimedOut)` after it. A deadline that has passed is one poll.
    ///
    /// PTX: as [`wait_for`](Self::wait_for) (the deadline is given: no clock read before the
    /// first poll).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, Latch, TimedOut};
    /// let l: Latch<Gpu> = Latch::new(1);
    /// let past = Instant::now();
    /// assert_eq!(l.wait_until(past), Err(TimedOut));
    /// l.count_down();
    /// assert_eq!(l.wait_until(past), Ok(())); // the one poll sees it open
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the latch is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn wait_until(&self, deadline: Instant) -> Result<(), TimedOut> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_deadline::<B, _>(deadline, || self.is_open().then_some(()))
    }

    /// [`try_wait`](Self::try_wait) without the debug check, which the waits do once, not
    /// per poll.
    #[inline(always)]
    fn is_open(&self) -> bool {
        self.pending.load(Acquire) == 0
    }

    /// Counts one arrival for each calling thread and waits until the latch is open.
    ///
    /// PTX: `atom.acq_rel.<scope>.add.u32` of minus the group's size, then, unless that
    /// arrival opened the latch, `ld.acquire` polls.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Latch, Ordering::Relaxed};
    ///
    /// // Every thread publishes its part and waits for all the others' (once: a latch is
    /// // single use; a `Barrier` takes more phases).
    /// let all_in: Latch<Gpu> = Latch::new(4);
    /// let parts: [Atomic<u32, Gpu>; 4] = core::array::from_fn(|_| Atomic::new(0));
    /// std::thread::scope(|s| {
    ///     for i in 0..4 {
    ///         let (all_in, parts) = (&all_in, &parts);
    ///         s.spawn(move || {
    ///             parts[i].store(1 << i, Relaxed);
    ///             all_in.arrive_and_wait(); // atom.acq_rel.gpu.add.u32, ld.acquire.gpu.b32
    ///             assert_eq!(parts.iter().map(|p| p.load(Relaxed)).sum::<u32>(), 0b1111);
    ///         });
    ///     }
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when the count would go
    /// below zero (more arrivals than expected); on the GPU it also traps when the latch is in
    /// local memory (a kernel's local variable). Release builds check neither.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        let group = warp::peers(self);
        // Every lane's writes before this point are ordered before the leader's release.
        warp::sync(group);
        if warp::lane() == group.trailing_zeros() && !self.count_down_opens(group.count_ones()) {
            self.wait();
        }
        // What the leader acquired is ordered before the other lanes' later accesses.
        warp::sync(group);
    }
}
