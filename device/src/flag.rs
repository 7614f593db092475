//! `AtomicFlag<S>`: libcu++'s `cuda::atomic_flag<Scope>` (C++'s `std::atomic_flag`).
//!
//! One `u32` word, 0 (clear) or 1 (set). `test_and_set` is `atom.exch` of 1, whose old value
//! says whether the flag was already set; `clear` is a store of 0, `test` a load. Used as a
//! spin lock (`while flag.test_and_set(Acquire) { flag.wait(true, Relaxed) }` ...
//! `flag.clear(Release)`), the exchange that reads 0 is an acquire RMW and the clearing store a
//! release: the holder's writes are visible to the next thread whose exchange reads that 0
//! (PTX ISA, memory consistency model: release and acquire patterns, synchronizes-with through
//! the same location).
//!
//! `wait` polls (`ld` with `nanosleep` between polls) and `notify_*` are no-ops, as libcu++
//! does on the device (see [`Atomic`]'s waiting).
//!
//! ```
//! use ptx_sync::{Atomic, AtomicFlag, Gpu, Ordering::*};
//!
//! // A one-shot handoff: the writer sets the flag after the data, the reader waits for it.
//! let ready = AtomicFlag::<Gpu>::new();
//! let data = Atomic::<u32, Gpu>::new(0);
//! std::thread::scope(|s| {
//!     s.spawn(|| {
//!         data.store(42, Relaxed);
//!         ready.test_and_set(Release); // atom.release.gpu.exch.b32
//!     });
//!     ready.wait(false, Acquire); // ld.acquire.gpu.b32 polls until the flag is set
//!     assert_eq!(data.load(Relaxed), 42);
//! });
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`AtomicFlag<S>`](crate::flag::AtomicFlag): `test_and_set`, `clear`, `test`, `wait`, `wait_for`, `wait_until`, `notify_one/all` | `atom.<sem>.S.exch.b32` of 1, `st.<sem>.S.b32` of 0, `ld.<sem>.S.b32`; waiting: `ld` polling with `nanosleep.u32` (timed: and `%globaltimer`) | `cuda::atomic_flag<Scope>` |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::scope::Scope;
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, NanoSleep, TimedOut};
use core::sync::atomic::Ordering;
use core::time::Duration;

/// A flag that threads within scope `S` set, clear, test and wait on (`cuda::atomic_flag`).
///
/// 4 bytes: one `u32` word, 0 (clear) or 1 (set); zeroed memory is a clear flag.
///
/// | operation | PTX |
/// |-----------|-----|
/// | `test_and_set(order)` | `atom.<sem>.S.exch.b32` of 1 (SeqCst: `fence.sc.S; atom.acquire.S.exch.b32`) |
/// | `clear(order)` | `st.<sem>.S.b32` of 0 (Relaxed, Release; SeqCst: `fence.sc.S; st.relaxed.S.b32`) |
/// | `test(order)` | `ld.<sem>.S.b32` (Relaxed, Acquire; SeqCst: `fence.sc.S; ld.acquire.S.b32`) |
/// | `wait(old, order)` | `ld.<sem>.S.b32` polling with `nanosleep.u32` |
/// | `wait_for(d, old, order)`, `wait_until(t, old, order)` | the same, and `mov.u64 %rd, %globaltimer;` after each failed poll |
/// | `notify_one`, `notify_all` | nothing |
///
/// A spin lock around plain data (every thread of a grid may take it; lanes of one warp
/// contend like any other threads, which sm_70's independent thread scheduling allows):
///
/// ```
/// use ptx_sync::{AtomicFlag, Gpu, Ordering::*};
///
/// static LOCK: AtomicFlag<Gpu> = AtomicFlag::new();
/// while LOCK.test_and_set(Acquire) {
///     LOCK.wait(true, Relaxed); // poll until clear, then try again
/// }
/// // ... the critical section ...
/// LOCK.clear(Release);
/// LOCK.notify_one(); // a no-op: waiters poll
/// assert!(!LOCK.test(Relaxed));
/// ```
#[repr(transparent)]
pub struct AtomicFlag<S: Scope> {
    word: Atomic<u32, S>,
}

/// Whether the flag is set (a `Relaxed` load).
impl<S: Scope> core::fmt::Debug for AtomicFlag<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AtomicFlag")
            .field("set", &(self.word.load(Ordering::Relaxed) != 0))
            .finish()
    }
}

impl<S: Scope> AtomicFlag<S> {
    const_fn! {
    /// A clear flag (C++'s `ATOMIC_FLAG_INIT`).
    #[inline(always)]
    pub fn new() -> Self {
        AtomicFlag {
            word: Atomic::new(0),
        }
    }
    }

    cfg_not_loom! {
    /// Views the `u32` word at `ptr` as a flag (0: clear, 1: set).
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes, 4-byte aligned, for all of `'a`; every concurrent
    /// access to it during `'a` is atomic; it holds 0 or 1.
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not 4-byte
    /// aligned; release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        debug_check!(ptr.is_aligned(), "AtomicFlag::from_ptr: misaligned pointer");
        // SAFETY: `repr(transparent)` over `Atomic<u32, S>`, itself transparent over a `u32`.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// The address of the word (generic address space on the GPU).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut u32 {
        self.word.as_ptr()
    }
    }

    /// Sets the flag and returns whether it was already set. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.exch.b32` of 1.
    ///
    /// ```
    /// use ptx_sync::{Atomic, AtomicFlag, Gpu, Ordering::*};
    ///
    /// // A spin lock around a read-modify-write that is not atomic by itself.
    /// let lock = AtomicFlag::<Gpu>::new();
    /// let count = Atomic::<u32, Gpu>::new(0);
    /// std::thread::scope(|s| {
    ///     for _ in 0..4 {
    ///         s.spawn(|| {
    ///             for _ in 0..500 {
    ///                 // atom.acquire.gpu.exch.b32 of 1: the lock is ours when it returns 0
    ///                 while lock.test_and_set(Acquire) {
    ///                     lock.wait(true, Relaxed);
    ///                 }
    ///                 let v = count.load(Relaxed);
    ///                 count.store(v + 1, Relaxed);
    ///                 lock.clear(Release); // st.release.gpu.b32 of 0
    ///             }
    ///         });
    ///     }
    /// });
    /// assert_eq!(count.load(Relaxed), 2000);
    /// ```
    #[inline(always)]
    pub fn test_and_set(&self, order: Ordering) -> bool {
        self.word.swap(1, order) != 0
    }

    /// Clears the flag. Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic, as a
    /// store's do; C++ leaves them undefined).
    ///
    /// PTX: `st.<sem>.<scope>.b32` of 0.
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn clear(&self, order: Ordering) {
        // An exchange under loom (`crate::loom::RELEASE_BY_EXCHANGE` says why), with a store's
        // orders and panics (a swap accepts every order a store does).
        if crate::loom::RELEASE_BY_EXCHANGE {
            let _ = crate::order::store(order);
            self.word.swap(0, order);
        } else {
            self.word.store(0, order)
        }
    }

    /// Whether the flag is set. Orders: Relaxed, Acquire, SeqCst (Release and AcqRel panic).
    ///
    /// PTX: `ld.<sem>.<scope>.b32`.
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn test(&self, order: Ordering) -> bool {
        self.word.load(order) != 0
    }

    /// Waits until the flag is not `old` (`cuda::atomic_flag::wait`): polls
    /// [`test(order)`](Self::test) with the [`NanoSleep`] policy between polls.
    ///
    /// PTX: `ld.<sem>.<scope>.b32` and `nanosleep.u32`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, AtomicFlag, Gpu, Ordering::*};
    ///
    /// // Wait for a clear: the flag says "busy" until the worker has stored its result.
    /// let busy = AtomicFlag::<Gpu>::new();
    /// busy.test_and_set(Relaxed);
    /// let result = Atomic::<u32, Gpu>::new(0);
    /// std::thread::scope(|s| {
    ///     s.spawn(|| {
    ///         result.store(7, Relaxed);
    ///         busy.clear(Release); // st.release.gpu.b32 of 0
    ///     });
    ///     busy.wait(true, Acquire); // ld.acquire.gpu.b32 and nanosleep.u32 until clear
    ///     assert_eq!(result.load(Relaxed), 7);
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait(&self, old: bool, order: Ordering) {
        poll_until::<NanoSleep, _>(|| (self.test(order) != old).then_some(()))
    }

    /// [`wait`](Self::wait), giving up once `timeout` has passed since the first poll failed:
    /// `Err(TimedOut)`. A zero timeout is one poll. On the host, time is the virtual
    /// [`clock`](crate::clock).
    ///
    /// PTX: `ld.<sem>.<scope>.b32` polling with `nanosleep.u32`, `mov.u64 %rd, %globaltimer;`
    /// after each failed poll.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{AtomicFlag, Gpu, Ordering::Acquire, wait::TimedOut};
    /// let f = AtomicFlag::<Gpu>::new();
    /// assert_eq!(f.wait_for(Duration::from_micros(1), false, Acquire), Err(TimedOut));
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait_for(&self, timeout: Duration, old: bool, order: Ordering) -> Result<(), TimedOut> {
        poll_until_for::<NanoSleep, _>(timeout, || (self.test(order) != old).then_some(()))
    }

    /// [`wait`](Self::wait) until `deadline` on the [`clock`](crate::clock): `Err(TimedOut)`
    /// after it. A deadline that has passed is one poll.
    ///
    /// PTX: as [`wait_for`](Self::wait_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, AtomicFlag, Gpu, Ordering::Acquire, wait::TimedOut};
    /// let f = AtomicFlag::<Gpu>::new();
    /// assert_eq!(f.wait_until(Instant::now(), false, Acquire), Err(TimedOut));
    /// f.test_and_set(Acquire);
    /// assert_eq!(f.wait_until(Instant::now(), false, Acquire), Ok(()));
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait_until(
        &self,
        deadline: Instant,
        old: bool,
        order: Ordering,
    ) -> Result<(), TimedOut> {
        poll_until_deadline::<NanoSleep, _>(deadline, || (self.test(order) != old).then_some(()))
    }

    /// Wakes one waiter: a no-op (waiters poll; libcu++'s device `notify_one` is one too).
    ///
    /// PTX: nothing.
    #[inline(always)]
    pub fn notify_one(&self) {}

    /// Wakes every waiter: a no-op, as [`notify_one`](Self::notify_one).
    ///
    /// PTX: nothing.
    #[inline(always)]
    pub fn notify_all(&self) {}
}

impl<S: Scope> Default for AtomicFlag<S> {
    /// A clear flag.
    fn default() -> Self {
        Self::new()
    }
}
