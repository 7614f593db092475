//! Integer atomics (`u32`, `i32`, `u64`, `i64`, `usize`, `isize`): their impls of the
//! capability traits (`ops.rs`), stamped from one table, and `u32`'s `fetch_inc` / `fetch_dec`.
//! `usize` and `isize` are 64-bit on nvptx64, so they use the `u64`/`s64` instructions.

crate::backend::cfg_host! {
    use super::read_part;
}
use super::update::update_impls;
use super::waiting::wait_impls;
use super::{
    Atomic, AtomicAccess, AtomicAdd, AtomicBitwise, AtomicMinMax, AtomicRed, AtomicRedAdd,
};
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// The trait impls of one integer type: `$b` is its bit type (`ld`, `st`, `exch`, `cas`,
/// `and/or/xor`), `$add` its `atom.add` type, `$mm` its `atom.min/max` type.
macro_rules! int_atomic {
    ($t:ident, $reg:ident, bits = $b:literal, add = $add:literal, minmax = $mm:literal) => {
        impl AtomicAccess for $t {
            #[inline(always)]
            #[track_caller]
            fn load<S: Scope>(a: &Atomic<Self, S>, order: Ordering) -> $t {
                on_target!(sem = order::load(order);
                    gpu: with_load_sem!(S, sem; ptx_ld!($b, $reg, $t, a.as_ptr())),
                    host: a.host().load(order))
            }

            #[inline(always)]
            #[track_caller]
            fn store<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) {
                on_target!(sem = order::store(order);
                    gpu: with_store_sem!(S, sem; ptx_st!($b, $reg, a.as_ptr(), val)),
                    host: a.host().store(val, order))
            }

            #[inline(always)]
            fn swap<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("exch", $b, $reg, $t, a.as_ptr(), val)),
                    host: a.host().swap(val, order))
            }

            #[inline(always)]
            #[track_caller]
            fn compare_exchange<S: Scope>(a: &Atomic<Self, S>, current: $t, new: $t, success: Ordering, failure: Ordering)
                -> Result<$t, $t>
            {
                let prev: $t = on_target!(sem = order::compare_exchange(success, failure);
                    gpu: with_rmw_sem!(S, sem; ptx_cas!($b, $reg, $t, a.as_ptr(), current, new)),
                    host: { match a.host().compare_exchange(current, new, success, failure) {
                                Ok(v) | Err(v) => v } });
                if prev == current { Ok(prev) } else { Err(prev) }
            }

            #[inline(always)]
            #[track_caller]
            fn fetch_update<S: Scope, F>(a: &Atomic<Self, S>, set_order: Ordering, fetch_order: Ordering, mut f: F)
                -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                let mut prev = Self::load(a, fetch_order);
                while let Some(next) = f(prev) {
                    match Self::compare_exchange_weak(a, prev, next, set_order, fetch_order) {
                        Ok(v) => return Ok(v),
                        Err(actual) => prev = actual,
                    }
                }
                Err(prev)
            }

            update_impls!($t);
            wait_impls!($t, |a, b| a == b);
        }

        impl AtomicAdd for $t {
            #[inline(always)]
            fn fetch_add<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("add", $add, $reg, $t, a.as_ptr(), val)),
                    host: a.host().fetch_add(val, order))
            }

            // PTX has no `atom.sub`: the add of `val.wrapping_neg()`.
            #[inline(always)]
            fn fetch_sub<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("add", $add, $reg, $t, a.as_ptr(), val.wrapping_neg())),
                    host: a.host().fetch_sub(val, order))
            }
        }

        impl AtomicRedAdd for $t {
            int_atomic!(@red $t, $reg, $add, red_add, fetch_add, "add", val => val);
        }

        impl AtomicBitwise for $t {
            int_atomic!(@rmw $t, $reg, $b, fetch_and, "and");
            int_atomic!(@rmw $t, $reg, $b, fetch_or, "or");
            int_atomic!(@rmw $t, $reg, $b, fetch_xor, "xor");

            // PTX has no `atom.nand`: a compare-exchange loop. One loop for both backends (not
            // core's `fetch_nand` on the host), so host tests and loom run the algorithm the
            // GPU runs.
            #[inline(always)]
            fn fetch_nand<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                let mut prev = Self::load(a, Ordering::Relaxed);
                loop {
                    match Self::compare_exchange(a, prev, !(prev & val), order, Ordering::Relaxed) {
                        Ok(v) => return v,
                        Err(actual) => prev = actual,
                    }
                }
            }
        }

        impl AtomicMinMax for $t {
            int_atomic!(@rmw $t, $reg, $mm, fetch_min, "min");
            int_atomic!(@rmw $t, $reg, $mm, fetch_max, "max");
        }

        impl AtomicRed for $t {
            // PTX has no `red.sub`: the add of `val.wrapping_neg()`.
            int_atomic!(@red $t, $reg, $add, red_sub, fetch_sub, "add", val => val.wrapping_neg());
            int_atomic!(@red $t, $reg, $b, red_and, fetch_and, "and", val => val);
            int_atomic!(@red $t, $reg, $b, red_or, fetch_or, "or", val => val);
            int_atomic!(@red $t, $reg, $b, red_xor, fetch_xor, "xor", val => val);
            int_atomic!(@red $t, $reg, $mm, red_min, fetch_min, "min", val => val);
            int_atomic!(@red $t, $reg, $mm, red_max, fetch_max, "max", val => val);
        }
    };

    // `atom.<sem>.<scope>.$op.$ty`, core's method of the same name on the host.
    (@rmw $t:ident, $reg:ident, $ty:literal, $name:ident, $op:literal) => {
        #[inline(always)]
        fn $name<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: with_rmw_sem!(S, sem; ptx_atom!($op, $ty, $reg, $t, a.as_ptr(), val)),
                host: a.host().$name(val, order))
        }
    };

    // `red.<sem>.<scope>.$op.$ty` of `$v`; on the host core's `$core_fn`, result dropped.
    (@red $t:ident, $reg:ident, $ty:literal, $name:ident, $core_fn:ident, $op:literal, $val:ident => $v:expr) => {
        #[inline(always)]
        #[track_caller]
        fn $name<S: Scope>(a: &Atomic<Self, S>, $val: $t, order: Ordering) {
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; ptx_red!($op, $ty, $reg, a.as_ptr(), $v)),
                host: { a.host().$core_fn($val, order); })
        }
    };
}

int_atomic!(u32, reg32, bits = "b32", add = "u32", minmax = "u32");
int_atomic!(i32, reg32, bits = "b32", add = "s32", minmax = "s32");
int_atomic!(u64, reg64, bits = "b64", add = "u64", minmax = "u64");
// PTX has no `atom.add.s64`; two's-complement addition is the same operation as `.u64`.
int_atomic!(i64, reg64, bits = "b64", add = "u64", minmax = "s64");

// nvptx64 is a 64-bit target: `usize`/`isize` are the 64-bit instructions (`.u64` add, as for
// `i64`; signed min/max for `isize`).
int_atomic!(usize, reg64, bits = "b64", add = "u64", minmax = "u64");
int_atomic!(isize, reg64, bits = "b64", add = "u64", minmax = "s64");

/// PTX's wrapping counters (`atom.inc` / `atom.dec`): `u32` only, so a `u32` block of its own
/// rather than a capability trait.
impl<S: Scope> Atomic<u32, S> {
    /// Increments, wrapping to 0 at `limit`: stores `if old >= limit { 0 } else { old + 1 }` and
    /// returns `old`. A ring-buffer index in one instruction. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.inc.u32`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu};
    /// use core::sync::atomic::Ordering::Relaxed;
    /// let slot = Atomic::<u32, Gpu>::new(3);
    /// assert_eq!(slot.fetch_inc(3, Relaxed), 3);
    /// assert_eq!(slot.load(Relaxed), 0);
    /// ```
    #[inline(always)]
    pub fn fetch_inc(&self, limit: u32, order: Ordering) -> u32 {
        on_target!(sem = order::rmw(order);
            gpu: with_rmw_sem!(S, sem; ptx_atom!("inc", "u32", reg32, u32, self.as_ptr(), limit)),
            host: <u32 as AtomicAccess>::fetch_update(self, order, read_part(order), |v| Some(inc(v, limit))).unwrap_or(0))
    }

    /// Decrements, wrapping to `limit`: stores `if old == 0 || old > limit { limit } else { old - 1 }`
    /// and returns `old`. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.dec.u32`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu};
    /// use core::sync::atomic::Ordering::Relaxed;
    /// let slot = Atomic::<u32, Gpu>::new(0);
    /// assert_eq!(slot.fetch_dec(7, Relaxed), 0);
    /// assert_eq!(slot.load(Relaxed), 7);
    /// ```
    #[inline(always)]
    pub fn fetch_dec(&self, limit: u32, order: Ordering) -> u32 {
        on_target!(sem = order::rmw(order);
            gpu: with_rmw_sem!(S, sem; ptx_atom!("dec", "u32", reg32, u32, self.as_ptr(), limit)),
            host: <u32 as AtomicAccess>::fetch_update(self, order, read_part(order), |v| Some(dec(v, limit))).unwrap_or(0))
    }

    /// [`fetch_inc`](Self::fetch_inc) without a result. Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `red.<sem>.<scope>.inc.u32`; SeqCst is `fence.sc.<scope>` then `red.relaxed`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let slot = Atomic::<u32, Gpu>::new(2);
    /// slot.red_inc(3, Release);
    /// assert_eq!(slot.load(Acquire), 3);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the message
    /// and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_inc(&self, limit: u32, order: Ordering) {
        on_target!(sem = order::store(order);
            gpu: with_store_sem!(S, sem; ptx_red!("inc", "u32", reg32, self.as_ptr(), limit)),
            host: { self.fetch_inc(limit, order); })
    }

    /// [`fetch_dec`](Self::fetch_dec) without a result. Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `red.<sem>.<scope>.dec.u32`; SeqCst is `fence.sc.<scope>` then `red.relaxed`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let slot = Atomic::<u32, Gpu>::new(0);
    /// slot.red_dec(7, Release);
    /// assert_eq!(slot.load(Acquire), 7);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the message
    /// and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_dec(&self, limit: u32, order: Ordering) {
        on_target!(sem = order::store(order);
            gpu: with_store_sem!(S, sem; ptx_red!("dec", "u32", reg32, self.as_ptr(), limit)),
            host: { self.fetch_dec(limit, order); })
    }
}

crate::backend::cfg_host! {
    /// `atom.inc.u32`'s update rule (PTX ISA, `atom`).
    const fn inc(old: u32, limit: u32) -> u32 {
        if old >= limit {
            0
        } else {
            old + 1
        }
    }

    /// `atom.dec.u32`'s update rule (PTX ISA, `atom`).
    const fn dec(old: u32, limit: u32) -> u32 {
        if old == 0 || old > limit {
            limit
        } else {
            old - 1
        }
    }
}
