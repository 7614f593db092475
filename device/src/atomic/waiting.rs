//! `wait`, `wait_until` and their timed forms, and `notify_one` / `notify_all`, for every
//! atomic type with a `load` (documented on the `atomic` module's page).

use super::{Atomic, AtomicAccess, AtomicBool, AtomicPtr, AtomicValue};
use crate::clock::Instant;
use crate::scope::Scope;
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, NanoSleep, TimedOut};
use core::sync::atomic::Ordering;
use core::time::Duration;

macro_rules! waiting {
    ($([$($gen:tt)*] $atomic:ty => $t:ty, $same:expr, $what:literal;)*) => {$(
        impl<$($gen)*> $atomic {
            /// Waits until the value is not `old`; returns it. `order` is the load order (Relaxed,
            /// Acquire, SeqCst), as in `cuda::atomic::wait`.
            #[doc = $what]
            ///
            /// PTX: `ld.<sem>.<scope>` polling with `nanosleep.u32` between polls (SeqCst:
            /// `fence.sc.<scope>` before each load).
            ///
            /// # Panics
            ///
            /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the
            /// thread prints the message and traps).
            #[inline(always)]
            #[track_caller]
            pub fn wait(&self, old: $t, order: Ordering) -> $t {
                let same: fn($t, $t) -> bool = $same;
                self.wait_until(order, |v| !same(v, old))
            }

            /// Waits until `pred(value)` holds; returns that value. `order` is the load order.
            ///
            /// # Panics
            ///
            /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU
            /// the thread prints the message and traps).
            #[inline(always)]
            #[track_caller]
            pub fn wait_until(&self, order: Ordering, mut pred: impl FnMut($t) -> bool) -> $t {
                poll_until::<NanoSleep, _>(|| Some(self.load(order)).filter(|&v| pred(v)))
            }

            /// [`wait_until`](Self::wait_until), giving up once `timeout` has passed since the
            /// first poll failed: `Err(TimedOut)`. A zero timeout is one poll. On the host, time
            /// is the virtual [`clock`](crate::clock).
            ///
            /// PTX: `ld.<sem>.<scope>` polling with `nanosleep.u32`, and
            /// `mov.u64 %rd, %globaltimer;` after each failed poll.
            ///
            /// # Panics
            ///
            /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU
            /// the thread prints the message and traps).
            #[inline(always)]
            #[track_caller]
            pub fn wait_until_for(
                &self,
                timeout: Duration,
                order: Ordering,
                mut pred: impl FnMut($t) -> bool,
            ) -> Result<$t, TimedOut> {
                poll_until_for::<NanoSleep, _>(timeout, || Some(self.load(order)).filter(|&v| pred(v)))
            }

            /// [`wait_until`](Self::wait_until) until `deadline` on the [`clock`](crate::clock):
            /// `Err(TimedOut)` after it. A deadline that has passed is one poll.
            ///
            /// PTX: as [`wait_until_for`](Self::wait_until_for).
            ///
            /// # Panics
            ///
            /// As [`wait_until_for`](Self::wait_until_for).
            #[inline(always)]
            #[track_caller]
            pub fn wait_until_deadline(
                &self,
                deadline: Instant,
                order: Ordering,
                mut pred: impl FnMut($t) -> bool,
            ) -> Result<$t, TimedOut> {
                poll_until_deadline::<NanoSleep, _>(deadline, || {
                    Some(self.load(order)).filter(|&v| pred(v))
                })
            }
        }
    )*};
}

/// The `wait` family of an [`AtomicAccess`] impl for `$t`, over its own `load` (the bodies of
/// the `Atomic<T, S>` methods below); `$same` compares two values as `wait` does.
macro_rules! wait_impls {
    ($t:ty, $same:expr) => {
        #[inline(always)]
        #[track_caller]
        fn wait<S: Scope>(a: &Atomic<Self, S>, old: $t, order: Ordering) -> $t {
            let same: fn($t, $t) -> bool = $same;
            Self::wait_until(a, order, |v| !same(v, old))
        }

        #[inline(always)]
        #[track_caller]
        fn wait_until<S: Scope>(
            a: &Atomic<Self, S>,
            order: Ordering,
            mut pred: impl FnMut($t) -> bool,
        ) -> $t {
            $crate::wait::poll_until::<$crate::wait::NanoSleep, _>(|| {
                Some(Self::load(a, order)).filter(|&v| pred(v))
            })
        }

        #[inline(always)]
        #[track_caller]
        fn wait_until_for<S: Scope>(
            a: &Atomic<Self, S>,
            timeout: core::time::Duration,
            order: Ordering,
            mut pred: impl FnMut($t) -> bool,
        ) -> Result<$t, $crate::wait::TimedOut> {
            $crate::wait::poll_until_for::<$crate::wait::NanoSleep, _>(timeout, || {
                Some(Self::load(a, order)).filter(|&v| pred(v))
            })
        }

        #[inline(always)]
        #[track_caller]
        fn wait_until_deadline<S: Scope>(
            a: &Atomic<Self, S>,
            deadline: $crate::clock::Instant,
            order: Ordering,
            mut pred: impl FnMut($t) -> bool,
        ) -> Result<$t, $crate::wait::TimedOut> {
            $crate::wait::poll_until_deadline::<$crate::wait::NanoSleep, _>(deadline, || {
                Some(Self::load(a, order)).filter(|&v| pred(v))
            })
        }
    };
}
pub(super) use wait_impls;

waiting! {
    [S: Scope] AtomicBool<S> => bool, |a, b| a == b, "";
    [T, S: Scope] AtomicPtr<T, S> => *mut T, |a, b| a == b, "Compares addresses.";
}

/// Waiting: every `T` but `u128` ([`AtomicAccess`]). Each poll is a [`load`](Atomic::load) with
/// the given order, so the PTX is that `ld` (its width is `T`'s) repeated, with `nanosleep.u32`
/// between polls.
impl<T: AtomicAccess, S: Scope> Atomic<T, S> {
    /// Waits until the value is not `old`; returns it. `order` is the load order (Relaxed,
    /// Acquire, SeqCst), as in `cuda::atomic::wait`. Floats compare bits, as `compare_exchange`
    /// does and as C++'s `atomic::wait` compares value representations: `wait(0.0, ..)`
    /// returns on `-0.0`, and `wait(NaN, ..)` waits while the value is that same NaN.
    ///
    /// PTX: `ld.<sem>.<scope>.bN` polling with `nanosleep.u32` between polls (SeqCst:
    /// `fence.sc.<scope>` before each load).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire};
    /// let a = Atomic::<u32, Gpu>::new(2);
    /// assert_eq!(a.wait(0, Acquire), 2); // not 0: returns at once
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait(&self, old: T, order: Ordering) -> T {
        T::wait(self, old, order)
    }

    /// Waits until `pred(value)` holds; returns that value. `order` is the load order.
    ///
    /// PTX: as [`wait`](Self::wait).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire};
    /// let a = Atomic::<i64, Gpu>::new(-3);
    /// assert_eq!(a.wait_until(Acquire, |v| v < 0), -3);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait_until(&self, order: Ordering, pred: impl FnMut(T) -> bool) -> T {
        T::wait_until(self, order, pred)
    }

    /// [`wait_until`](Self::wait_until), giving up once `timeout` has passed since the first
    /// poll failed: `Err(TimedOut)`. A zero timeout is one poll. On the host, time is the
    /// virtual [`clock`](crate::clock).
    ///
    /// PTX: `ld.<sem>.<scope>.bN` polling with `nanosleep.u32`, and
    /// `mov.u64 %rd, %globaltimer;` after each failed poll.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire, wait::TimedOut};
    /// let a = Atomic::<u8, Gpu>::new(2);
    /// assert_eq!(a.wait_until_for(Duration::from_micros(1), Acquire, |v| v == 1), Err(TimedOut));
    /// assert_eq!(a.wait_until_for(Duration::ZERO, Acquire, |v| v == 2), Ok(2));
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (a load's orders), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn wait_until_for(
        &self,
        timeout: Duration,
        order: Ordering,
        pred: impl FnMut(T) -> bool,
    ) -> Result<T, TimedOut> {
        T::wait_until_for(self, timeout, order, pred)
    }

    /// [`wait_until`](Self::wait_until) until `deadline` on the [`clock`](crate::clock):
    /// `Err(TimedOut)` after it. A deadline that has passed is one poll.
    ///
    /// PTX: as [`wait_until_for`](Self::wait_until_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Atomic, Gpu, Ordering::Acquire, wait::TimedOut};
    /// let a = Atomic::<f32, Gpu>::new(0.5);
    /// assert_eq!(a.wait_until_deadline(Instant::now(), Acquire, |v| v > 0.0), Ok(0.5));
    /// assert_eq!(a.wait_until_deadline(Instant::now(), Acquire, |v| v > 1.0), Err(TimedOut));
    /// ```
    ///
    /// # Panics
    ///
    /// As [`wait_until_for`](Self::wait_until_for).
    #[inline(always)]
    #[track_caller]
    pub fn wait_until_deadline(
        &self,
        deadline: Instant,
        order: Ordering,
        pred: impl FnMut(T) -> bool,
    ) -> Result<T, TimedOut> {
        T::wait_until_deadline(self, deadline, order, pred)
    }
}

/// The no-op `notify_*` of every type with a `wait`.
macro_rules! notify {
    ($([$($gen:tt)*] $atomic:ty;)*) => {$(
        impl<$($gen)*> $atomic {
            /// Wakes one thread blocked in `wait`: a no-op, because waiters poll (on the GPU,
            /// as libcu++'s device `notify_one`, and on the host backend). A store or RMW is
            /// all a waiter needs to see; call this anyway where the code should port to an
            /// API whose waits block.
            ///
            /// PTX: nothing.
            #[inline(always)]
            pub fn notify_one(&self) {}

            /// Wakes every thread blocked in `wait`: a no-op, as
            /// [`notify_one`](Self::notify_one).
            ///
            /// PTX: nothing.
            #[inline(always)]
            pub fn notify_all(&self) {}
        }
    )*};
}

notify! {
    [T: AtomicValue, S: Scope] Atomic<T, S>;
    [S: Scope] AtomicBool<S>;
    [T, S: Scope] AtomicPtr<T, S>;
}
