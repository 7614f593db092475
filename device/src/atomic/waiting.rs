//! `wait`, `wait_until` and their timed forms, and `notify_one` / `notify_all`, for every
//! atomic type with a `load` (documented on the `atomic` module's page).

use super::{Atomic, AtomicBool, AtomicPtr, AtomicValue};
use crate::clock::Instant;
use crate::scope::Scope;
use crate::wait::{poll_until, poll_until_deadline, poll_until_for, NanoSleep, TimedOut};
use core::sync::atomic::Ordering;
use core::time::Duration;

macro_rules! waiting {
    ($([$($gen:tt)*] $atomic:ty => $t:ty, $same:expr, $what:literal;)*) => {$(
        impl<$($gen)*> $atomic {
            #[doc = concat!("Waits until the value is not `old`; returns it. `order` is the load ",
                "order (Relaxed, Acquire, SeqCst), as in `cuda::atomic::wait`. ", $what, "\n\n",
                "PTX: `ld.<sem>.<scope>` polling with `nanosleep.u32` between polls (SeqCst: ",
                "`fence.sc.<scope>` before each load).\n\n",
                "# Panics\n\nWhen `order` is Release or AcqRel (a load's orders), in every build (on the GPU the thread prints the message and traps).")]
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

waiting! {
    [S: Scope] Atomic<u32, S> => u32, |a, b| a == b, "";
    [S: Scope] Atomic<i32, S> => i32, |a, b| a == b, "";
    [S: Scope] Atomic<u64, S> => u64, |a, b| a == b, "";
    [S: Scope] Atomic<i64, S> => i64, |a, b| a == b, "";
    [S: Scope] Atomic<usize, S> => usize, |a, b| a == b, "";
    [S: Scope] Atomic<isize, S> => isize, |a, b| a == b, "";
    [S: Scope] Atomic<f32, S> => f32, |a: f32, b: f32| a.to_bits() == b.to_bits(),
        "Compares bits, as `compare_exchange` does and as C++'s `atomic::wait` compares value \
         representations: `wait(0.0, ..)` returns on `-0.0`, and `wait(NaN, ..)` waits while \
         the value is that same NaN.";
    [S: Scope] Atomic<f64, S> => f64, |a: f64, b: f64| a.to_bits() == b.to_bits(),
        "Compares bits, as `compare_exchange` does and as C++'s `atomic::wait` compares value \
         representations: `wait(0.0, ..)` returns on `-0.0`, and `wait(NaN, ..)` waits while \
         the value is that same NaN.";
    [S: Scope] AtomicBool<S> => bool, |a, b| a == b, "";
    [T, S: Scope] AtomicPtr<T, S> => *mut T, |a, b| a == b, "Compares addresses.";
    [S: Scope] Atomic<u8, S> => u8, |a, b| a == b, "";
    [S: Scope] Atomic<i8, S> => i8, |a, b| a == b, "";
    [S: Scope] Atomic<u16, S> => u16, |a, b| a == b, "";
    [S: Scope] Atomic<i16, S> => i16, |a, b| a == b, "";
    [S: Scope] Atomic<crate::F16, S> => crate::F16, |a: crate::F16, b: crate::F16| a.to_bits() == b.to_bits(),
        "Compares bits, as the other floats' `wait` does.";
    [S: Scope] Atomic<crate::Bf16, S> => crate::Bf16, |a: crate::Bf16, b: crate::Bf16| a.to_bits() == b.to_bits(),
        "Compares bits, as the other floats' `wait` does.";
    [S: Scope] Atomic<crate::F16x2, S> => crate::F16x2, |a: crate::F16x2, b: crate::F16x2| a.to_bits() == b.to_bits(),
        "Compares bits, as the other floats' `wait` does.";
    [S: Scope] Atomic<crate::Bf16x2, S> => crate::Bf16x2, |a: crate::Bf16x2, b: crate::Bf16x2| a.to_bits() == b.to_bits(),
        "Compares bits, as the other floats' `wait` does.";
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
