//! Integer atomics (`u32`, `i32`, `u64`, `i64`, `usize`, `isize`), stamped from one table.
//! `usize` and `isize` are 64-bit on nvptx64, so they use the `u64`/`s64` instructions.

#[cfg(target_arch = "nvptx64")]
use super::ptx::{
    ptx_atom, ptx_cas, ptx_ld, ptx_red, ptx_st, with_load_sem, with_rmw_sem, with_store_sem,
};
#[cfg(not(target_arch = "nvptx64"))]
use super::read_part;
use super::update::update_api;
use super::Atomic;
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

macro_rules! int_atomic {
    ($t:ident, $reg:ident, bits = $b:literal, add = $add:literal, minmax = $mm:literal) => {
        impl<S: Scope> Atomic<$t, S> {
            #[doc = concat!("Loads the value. Orders: Relaxed, Acquire, SeqCst (Release and AcqRel panic).\n\n",
                "PTX: `ld.<sem>.<scope>.", $b, "`; SeqCst adds a leading `fence.sc.<scope>`.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::Acquire;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(5);\nassert_eq!(a.load(Acquire), 5);\n```\n\n",
                "# Panics\n\nWhen `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                on_target!(sem = order::load(order);
                    gpu: with_load_sem!(S, sem; ptx_ld!($b, $reg, $t, self.as_ptr())),
                    host: self.host().load(order))
            }

            #[doc = concat!("Stores `val`. Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic).\n\n",
                "PTX: `st.<sem>.<scope>.", $b, "`; SeqCst is `fence.sc.<scope>` + `st.relaxed`.\n\n",
                "```\nuse ptx_sync::{Atomic, Sys};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Sys>::new(0);\na.store(3, Release);\nassert_eq!(a.load(Relaxed), 3);\n```\n\n",
                "# Panics\n\nWhen `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn store(&self, val: $t, order: Ordering) {
                on_target!(sem = order::store(order);
                    gpu: with_store_sem!(S, sem; ptx_st!($b, $reg, self.as_ptr(), val)),
                    host: self.host().store(val, order))
            }

            #[doc = concat!("Stores `val` and returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.exch.", $b, "`.")]
            #[inline(always)]
            pub fn swap(&self, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("exch", $b, $reg, $t, self.as_ptr(), val)),
                    host: self.host().swap(val, order))
            }

            #[doc = concat!("Stores `new` if the value is `current`; returns `Ok(previous)` if it did, ",
                "`Err(actual)` if not.\n\n",
                "`failure` cannot be Release or AcqRel (panics, as in `core`). PTX `atom.cas` has a single ",
                "`.sem`, so the two orders are merged into the weakest one at least as strong as both ",
                "(for example Release + Acquire gives `.acq_rel`; either SeqCst gives ",
                "`fence.sc` + `.acquire`).\n\n",
                "PTX: `atom.<sem>.<scope>.cas.", $b, "`.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(1);\n",
                "assert_eq!(a.compare_exchange(1, 2, AcqRel, Acquire), Ok(1));\n",
                "assert_eq!(a.compare_exchange(1, 3, AcqRel, Acquire), Err(2));\n```\n\n",
                "# Panics\n\nWhen `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn compare_exchange(&self, current: $t, new: $t, success: Ordering, failure: Ordering)
                -> Result<$t, $t>
            {
                let prev: $t = on_target!(sem = order::compare_exchange(success, failure);
                    gpu: with_rmw_sem!(S, sem; ptx_cas!($b, $reg, $t, self.as_ptr(), current, new)),
                    host: { match self.host().compare_exchange(current, new, success, failure) {
                                Ok(v) | Err(v) => v } });
                if prev == current { Ok(prev) } else { Err(prev) }
            }

            update_api!($t, update_example = concat!("```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n", "let a = Atomic::<", stringify!($t), ", Gpu>::new(6);\n", "assert_eq!(a.update(Release, Relaxed, |x| x * 7), 6);\n", "assert_eq!(a.load(Relaxed), 42);\n```"));

            /// Applies `f` in a compare-exchange loop until it succeeds or `f` returns `None`,
            /// like `core`'s `fetch_update`. `fetch_order` (the loads and failed exchanges)
            /// cannot be Release or AcqRel.
            ///
            /// # Panics
            ///
            /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU
            /// the thread prints the message and traps).
            #[inline(always)]
            #[track_caller]
            pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F)
                -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                let mut prev = self.load(fetch_order);
                while let Some(next) = f(prev) {
                    match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                        Ok(v) => return Ok(v),
                        Err(actual) => prev = actual,
                    }
                }
                Err(prev)
            }

            #[doc = concat!("Adds `val` (wrapping) and returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.add.", $add, "`.\n\n",
                "```\nuse ptx_sync::{Atomic, Cta};\nuse core::sync::atomic::Ordering::Relaxed;\n",
                "let a = Atomic::<", stringify!($t), ", Cta>::new(40);\nassert_eq!(a.fetch_add(2, Relaxed), 40);\n",
                "assert_eq!(a.load(Relaxed), 42);\n```")]
            #[inline(always)]
            pub fn fetch_add(&self, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("add", $add, $reg, $t, self.as_ptr(), val)),
                    host: self.host().fetch_add(val, order))
            }

            #[doc = concat!("Subtracts `val` (wrapping) and returns the previous value. Every order.\n\n",
                "PTX has no `atom.sub`: this is `atom.<sem>.<scope>.add.", $add, "` of `val.wrapping_neg()`.")]
            #[inline(always)]
            pub fn fetch_sub(&self, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; ptx_atom!("add", $add, $reg, $t, self.as_ptr(), val.wrapping_neg())),
                    host: self.host().fetch_sub(val, order))
            }

            #[doc = concat!("Bitwise NAND with `val` (stores `!(old & val)`); returns the previous value. Every order.\n\n",
                "PTX has no `atom.nand`, so this is a compare-exchange loop, not one instruction: ",
                "`ld.relaxed.<scope>.", $b, "` for the first guess, then `atom.<sem>.<scope>.cas.", $b, "` ",
                "(SeqCst: `fence.sc.<scope>` before it) until the value did not change in between. ",
                "Under contention it costs a round trip per lost race, unlike the other `fetch_*`. ",
                "The order applies to the exchange that succeeds; the guesses are relaxed.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(0b1100);\n",
                "assert_eq!(a.fetch_nand(0b1010, AcqRel), 0b1100);\n",
                "assert_eq!(a.load(Relaxed), !0b1000);\n```")]
            #[inline(always)]
            pub fn fetch_nand(&self, val: $t, order: Ordering) -> $t {
                // One loop for both backends (not core's `fetch_nand` on the host), so host
                // tests and loom run the algorithm the GPU runs.
                let mut prev = self.load(Ordering::Relaxed);
                loop {
                    match self.compare_exchange(prev, !(prev & val), order, Ordering::Relaxed) {
                        Ok(v) => return v,
                        Err(actual) => prev = actual,
                    }
                }
            }

            int_atomic!(@bitop $t, $reg, $b, fetch_and, fetch_and, "and", "Bitwise AND");
            int_atomic!(@bitop $t, $reg, $b, fetch_or, fetch_or, "or", "Bitwise OR");
            int_atomic!(@bitop $t, $reg, $b, fetch_xor, fetch_xor, "xor", "Bitwise XOR");
            int_atomic!(@bitop $t, $reg, $mm, fetch_min, fetch_min, "min", "Minimum");
            int_atomic!(@bitop $t, $reg, $mm, fetch_max, fetch_max, "max", "Maximum");

            int_atomic!(@red $t, $reg, $add, red_add, fetch_add, "add", "Adds `val` (wrapping)", val => val);
            int_atomic!(@red $t, $reg, $add, red_sub, fetch_sub, "add", "Subtracts `val` (wrapping; PTX adds `val.wrapping_neg()`)", val => val.wrapping_neg());
            int_atomic!(@red $t, $reg, $b, red_and, fetch_and, "and", "Bitwise AND with `val`", val => val);
            int_atomic!(@red $t, $reg, $b, red_or, fetch_or, "or", "Bitwise OR with `val`", val => val);
            int_atomic!(@red $t, $reg, $b, red_xor, fetch_xor, "xor", "Bitwise XOR with `val`", val => val);
            int_atomic!(@red $t, $reg, $mm, red_min, fetch_min, "min", "Stores the minimum of the value and `val`", val => val);
            int_atomic!(@red $t, $reg, $mm, red_max, fetch_max, "max", "Stores the maximum of the value and `val`", val => val);
        }
    };

    (@bitop $t:ident, $reg:ident, $ty:literal, $name:ident, $core_fn:ident, $op:literal, $what:literal) => {
        #[doc = concat!($what, " with `val`; returns the previous value. Every order.\n\n",
            "PTX: `atom.<sem>.<scope>.", $op, ".", $ty, "`.")]
        #[inline(always)]
        pub fn $name(&self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: with_rmw_sem!(S, sem; ptx_atom!($op, $ty, $reg, $t, self.as_ptr(), val)),
                host: self.host().$core_fn(val, order))
        }
    };

    (@red $t:ident, $reg:ident, $ty:literal, $name:ident, $core_fn:ident, $op:literal, $what:literal, $val:ident => $v:expr) => {
        #[doc = concat!($what, " without returning anything: a PTX reduction, which the memory ",
            "system can complete without sending a value back to the thread.\n\n",
            "Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic: a `red` reads nothing to ",
            "acquire).\n\nPTX: `red.<sem>.<scope>.", $op, ".", $ty, "`; SeqCst is `fence.sc.<scope>` + `red.relaxed`.\n\n",
            "# Panics\n\nWhen `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the message and traps).")]
        #[inline(always)]
        #[track_caller]
        pub fn $name(&self, $val: $t, order: Ordering) {
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; ptx_red!($op, $ty, $reg, self.as_ptr(), $v)),
                host: { self.host().$core_fn($val, order); })
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

/// PTX's wrapping counters (`atom.inc` / `atom.dec`), 32-bit unsigned only.
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
            host: self.fetch_update(order, read_part(order), |v| Some(inc(v, limit))).unwrap_or(0))
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
            host: self.fetch_update(order, read_part(order), |v| Some(dec(v, limit))).unwrap_or(0))
    }

    /// [`fetch_inc`](Self::fetch_inc) without a result. Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `red.<sem>.<scope>.inc.u32`.
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
    /// PTX: `red.<sem>.<scope>.dec.u32`.
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

/// `atom.inc.u32`'s update rule (PTX ISA, `atom`).
#[cfg(not(target_arch = "nvptx64"))]
const fn inc(old: u32, limit: u32) -> u32 {
    if old >= limit {
        0
    } else {
        old + 1
    }
}

/// `atom.dec.u32`'s update rule (PTX ISA, `atom`).
#[cfg(not(target_arch = "nvptx64"))]
const fn dec(old: u32, limit: u32) -> u32 {
    if old == 0 || old > limit {
        limit
    } else {
        old - 1
    }
}
