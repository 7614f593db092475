//! Waiting on an atomic (`cuda::atomic::wait`): poll with the crate's waiting policy
//! ([`NanoSleep`]) until the value changes or a predicate holds; the timed form returns
//! [`TimedOut`] instead of hanging.

use super::Atomic;
use crate::scope::Scope;
use crate::wait::{poll_until, poll_until_for, NanoSleep, TimedOut};
use core::sync::atomic::Ordering;

macro_rules! waiting {
    ($($t:ty),*) => {$(
        impl<S: Scope> Atomic<$t, S> {
            /// Waits until the value is not `old`; returns it. `order` is the load order
            /// (Relaxed, Acquire, SeqCst), as in `cuda::atomic::wait`.
            ///
            /// ```
            /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire};
            /// let a = Atomic::<u32, Gpu>::new(2);
            /// assert_eq!(a.wait(0, Acquire), 2);
            /// ```
            #[inline(always)]
            #[track_caller]
            pub fn wait(&self, old: $t, order: Ordering) -> $t {
                self.wait_until(order, |v| v != old)
            }

            /// Waits until `pred(value)` holds; returns that value.
            #[inline(always)]
            #[track_caller]
            pub fn wait_until(&self, order: Ordering, mut pred: impl FnMut($t) -> bool) -> $t {
                poll_until::<NanoSleep, _>(|| Some(self.load(order)).filter(|&v| pred(v)))
            }

            /// [`wait_until`](Self::wait_until) for at most about `ns` nanoseconds.
            ///
            /// ```
            /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire, wait::TimedOut};
            /// let a = Atomic::<u32, Gpu>::new(0);
            /// assert_eq!(a.wait_until_for(1_000, Acquire, |v| v == 1), Err(TimedOut));
            /// ```
            #[inline(always)]
            #[track_caller]
            pub fn wait_until_for(&self, ns: u64, order: Ordering, mut pred: impl FnMut($t) -> bool)
                -> Result<$t, TimedOut>
            {
                poll_until_for::<NanoSleep, _>(ns, || Some(self.load(order)).filter(|&v| pred(v)))
            }
        }
    )*};
}

waiting!(u32, i32, u64, i64);
