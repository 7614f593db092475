//! 128-bit atomics: PTX ISA 8.3 added `.b128` loads, stores, `atom.exch` and `atom.cas`
//! for sm_90 (their leaves, which pass each operand as two 64-bit halves, are in the GPU
//! backend).
//! On the host each operation runs under a lock: see [`AtomicU128`].

use super::Atomic;
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

impl<S: Scope> Atomic<u128, S> {
    /// Loads the value (sm_90 on the GPU). Orders: Relaxed, Acquire, SeqCst.
    ///
    /// PTX: `ld.<sem>.<scope>.b128`. Host: under the value's lock ([`AtomicU128`]).
    ///
    /// ```
    /// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
    /// let a = AtomicU128::<Gpu>::new(u128::MAX - 1);
    /// assert_eq!(a.load(Acquire), u128::MAX - 1);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> u128 {
        // SAFETY (GPU): valid, 16-byte aligned location by the type invariant.
        on_target!(sem = order::load(order);
            gpu: with_load_sem!(S, sem; ld128!(self.as_ptr())),
            host: host::locked(self, order, |v| *v))
    }

    /// Stores `val` (sm_90 on the GPU). Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `st.<sem>.<scope>.b128`. Host: under the value's lock.
    ///
    /// ```
    /// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
    /// let a = AtomicU128::<Gpu>::new(0);
    /// a.store(1 << 100 | 7, Release);
    /// assert_eq!(a.load(Relaxed), 1 << 100 | 7);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, val: u128, order: Ordering) {
        // SAFETY (GPU): as in `load`.
        on_target!(sem = order::store(order);
            gpu: with_store_sem!(S, sem; st128!(self.as_ptr(), val)),
            host: host::locked(self, order, |v| *v = val))
    }

    /// Stores `val`, returns the previous value (sm_90 on the GPU). Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.exch.b128`. Host: under the value's lock.
    ///
    /// ```
    /// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
    /// let a = AtomicU128::<Gpu>::new(5);
    /// assert_eq!(a.swap(u128::MAX, AcqRel), 5);
    /// assert_eq!(a.load(Relaxed), u128::MAX);
    /// ```
    #[inline(always)]
    pub fn swap(&self, val: u128, order: Ordering) -> u128 {
        // SAFETY (GPU): as in `load`.
        on_target!(sem = order::rmw(order);
            gpu: with_rmw_sem!(S, sem; exch128!(self.as_ptr(), val)),
            host: host::locked(self, order, |v| core::mem::replace(v, val)))
    }

    /// Compare-exchange of all 128 bits (sm_90 on the GPU); orders as for the integer types.
    /// `Ok(previous)` when the value was `current` and is now `new`, else `Err(value)`.
    ///
    /// PTX: `atom.<sem>.<scope>.cas.b128`. Host: under the value's lock (a `SeqCst` success
    /// or failure order fences as `SeqCst` either way).
    ///
    /// ```
    /// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
    /// let a = AtomicU128::<Gpu>::new(1 << 64);
    /// assert_eq!(a.compare_exchange(1 << 64, 2, AcqRel, Acquire), Ok(1 << 64));
    /// assert_eq!(a.compare_exchange(1 << 64, 3, AcqRel, Acquire), Err(2));
    /// ```
    ///
    /// # Panics
    ///
    /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: u128,
        new: u128,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u128, u128> {
        // SAFETY (GPU): as in `load`.
        let prev = on_target!(sem = order::compare_exchange(success, failure);
            gpu: with_rmw_sem!(S, sem; cas128!(self.as_ptr(), current, new)),
            host: host::compare_exchange(self, current, new, success, failure));
        if prev == current {
            Ok(prev)
        } else {
            Err(prev)
        }
    }
}

/// `Atomic<u128, S>`: sm_90 on the GPU; on the host, every operation under a lock.
///
/// # On the host backend
///
/// `core` has no stable `AtomicU128`, so the host runs each operation under a lock, the way
/// GCC's libatomic does for widths the CPU cannot do in one instruction: a spin lock taken by
/// an acquire compare-exchange and released by a release store, one of 64 locks picked by the
/// value's address (`from_ptr` views any `u128`, so the lock cannot live in the value; two
/// views of one address always meet at the same lock). `load` takes it too, so no operation
/// sees half of another's value. Every operation on one location is thus a critical section
/// of the same lock: they happen in one order, each sees the value the one before it left,
/// and each synchronizes with every earlier one, whatever orders were asked for (stronger
/// than asked, which the memory model permits). A `SeqCst` operation also runs a
/// `fence(SeqCst)` before and after its critical section (libatomic's pre and post barriers),
/// so it takes part in the single total order of `SeqCst` operations and fences. No user code
/// runs while a lock is held and a thread holds one lock at a time, so it cannot deadlock.
/// Under `--cfg loom` the lock is a word of each atomic and the value loom's `UnsafeCell`, so
/// the model checks (device/tests' `models` modules) also report an access it fails to order.
///
/// ```
/// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
/// use std::sync::Arc;
///
/// // Two u64 counters in one word, updated together: no reader ever sees them differ.
/// let pair = Arc::new(AtomicU128::<Gpu>::new(0));
/// let writers: Vec<_> = (0..4).map(|_| {
///     let pair = pair.clone();
///     std::thread::spawn(move || for _ in 0..1000 {
///         let mut old = pair.load(Relaxed);
///         while let Err(now) = pair.compare_exchange(old, old + (1 << 64 | 1), AcqRel, Relaxed) {
///             old = now;
///         }
///     })
/// }).collect();
/// let v = pair.load(Acquire);
/// assert_eq!(v as u64, (v >> 64) as u64);
/// writers.into_iter().for_each(|w| w.join().unwrap());
/// assert_eq!(pair.load(Acquire), 4000 << 64 | 4000);
/// ```
///
/// On the GPU (the PTX each call emits in the comments):
///
/// ```ignore
/// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
///
/// /// A value and its version in one 16-byte word: the version goes up with every update,
/// /// so a reader of both halves never mixes two updates (no ABA).
/// ///
/// /// # Safety
/// /// `word` is 16-byte aligned global memory.
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn doc_atomic_u128_versioned(word: *mut u128, add: u64) {
///     let w = unsafe { AtomicU128::<Gpu>::from_ptr(word) };
///     let mut old = w.load(Relaxed); // ld.relaxed.gpu.b128
///     loop {
///         let (value, version) = (old as u64, (old >> 64) as u64);
///         let new = (value.wrapping_add(add) as u128) | ((version.wrapping_add(1) as u128) << 64);
///         match w.compare_exchange(old, new, AcqRel, Relaxed) { // atom.acq_rel.gpu.cas.b128
///             Ok(_) => break,
///             Err(now) => old = now,
///         }
///     }
/// }
/// ```
pub type AtomicU128<S> = Atomic<u128, S>;
crate::backend::cfg_host! {

    /// The host's 128-bit atomics: a lock per operation (see [`AtomicU128`]).
    mod host {
        use super::Atomic;
        use crate::loom::atomic::{fence, AtomicBool};
        use crate::scope::Scope;
        use core::sync::atomic::Ordering::{self, *};

        /// The previous value; `new` replaces it when it is `current`. Under the lock, fenced as
        /// `SeqCst` when either order is.
        pub(super) fn compare_exchange<S: Scope>(
            a: &Atomic<u128, S>,
            current: u128,
            new: u128,
            success: Ordering,
            failure: Ordering,
        ) -> u128 {
            let order = if failure == SeqCst { SeqCst } else { success };
            locked(a, order, |v| {
                let prev = *v;
                if prev == current {
                    *v = new;
                }
                prev
            })
        }

        /// Runs `f` on the value with its lock held: the lock taken by an acquire
        /// compare-exchange, released by a release store, so every critical section on one
        /// location synchronizes with the ones before it. `SeqCst` adds a `fence(SeqCst)` on
        /// either side (libatomic's pre and post barriers).
        #[inline]
        pub(super) fn locked<S: Scope, R>(
            a: &Atomic<u128, S>,
            order: Ordering,
            f: impl FnOnce(&mut u128) -> R,
        ) -> R {
            if order == SeqCst {
                fence(SeqCst);
            }
            let lock = lock_of(a);
            while lock
                .compare_exchange_weak(false, true, Acquire, Relaxed)
                .is_err()
            {
                // Wait with loads, not exchanges, so the holder's line is not stolen on every
                // poll; a pause yields to the holder where threads outnumber cores (and to loom).
                while lock.load(Relaxed) {
                    crate::loom::pause(64);
                }
            }
            let r = with_value(a, f);
            lock.store(false, Release);
            if order == SeqCst {
                fence(SeqCst);
            }
            r
        }

        /// The locks, one per 128-byte line so that threads on different locks do not share a
        /// line; 64 of them, as libatomic.
        #[cfg(not(loom))]
        static LOCKS: [crate::cache_padded::CachePadded<AtomicBool>; 64] =
            [const { crate::cache_padded::CachePadded::new(AtomicBool::new(false)) }; 64];

        /// The lock of `a`'s address: the same address always maps to the same lock.
        #[cfg(not(loom))]
        #[inline]
        fn lock_of<S: Scope>(a: &Atomic<u128, S>) -> &'static AtomicBool {
            let line = a.as_ptr() as usize >> 4;
            // Fibonacci hashing spreads neighbouring values (an array of them) over the locks.
            let i = line.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as usize) >> (usize::BITS - 6);
            &LOCKS[i]
        }

        /// Under loom, each atomic's own lock word.
        #[cfg(loom)]
        #[inline]
        fn lock_of<S: Scope>(a: &Atomic<u128, S>) -> &AtomicBool {
            &a.host().lock
        }

        /// `f` on the value; the caller holds its lock.
        #[cfg(not(loom))]
        #[inline]
        fn with_value<S: Scope, R>(a: &Atomic<u128, S>, f: impl FnOnce(&mut u128) -> R) -> R {
            // SAFETY: the value is valid and aligned (the type invariant), and every access to it
            // is one of these critical sections, under the lock this thread holds: no other
            // reference to it exists until the lock is released.
            f(unsafe { &mut *a.as_ptr() })
        }

        /// `f` on the value; the caller holds its lock. Loom's `UnsafeCell` reports an access
        /// the lock fails to order.
        #[cfg(loom)]
        #[inline]
        fn with_value<S: Scope, R>(a: &Atomic<u128, S>, f: impl FnOnce(&mut u128) -> R) -> R {
            // SAFETY: as in the non-loom version; loom checks it.
            a.host().value.with_mut(|p| f(unsafe { &mut *p }))
        }
    }
}
