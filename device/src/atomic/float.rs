//! Float atomics (`f32`, `f64`). Loads, stores, swap and compare-exchange move the bits
//! (`.b32`/`.b64`); `fetch_add` is PTX's native float add (`atom.add.f32` / `.f64`).
//! Compare-exchange compares bits, so `-0.0 != 0.0` and a NaN equals the same NaN.
//! `fetch_min` / `fetch_max` (PTX's `min` / `max` rule: a NaN operand is ignored, `-0.0 < +0.0`)
//! and `fetch_update` / `update` / `try_update` are compare-exchange loops on the bits: PTX has
//! no scalar float `atom.min` / `atom.max`.

#[cfg(target_arch = "nvptx64")]
use super::ptx::{ptx_atom, ptx_red, with_rmw_sem, with_store_sem};
#[cfg(not(target_arch = "nvptx64"))]
use super::read_part;
use super::update::{bits_fetch_update, update_api};
use super::Atomic;
use crate::backend::on_target;
use crate::float16::MinMaxNum;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

macro_rules! float_atomic {
    ($t:ident, $bits:ident, $reg:ident, bits = $b:literal, add = $add:literal, nan = $nan:literal) => {
        impl<S: Scope> Atomic<$t, S> {
            /// The same location, seen as its bit pattern (for the bit-level operations).
            #[inline(always)]
            fn bits(&self) -> &Atomic<$bits, S> {
                // SAFETY: `Atomic` is `repr(transparent)` over a cell of `T` (or, under loom,
                // over the same loom atomic for the float and its bits): same size and alignment.
                unsafe { &*(self as *const Self).cast::<Atomic<$bits, S>>() }
            }

            #[doc = concat!("Loads the value. Orders: Relaxed, Acquire, SeqCst.\n\nPTX: `ld.<sem>.<scope>.", $b, "`.\n\n",
                "# Panics\n\nWhen `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                $t::from_bits(self.bits().load(order))
            }

            #[doc = concat!("Stores `val`. Orders: Relaxed, Release, SeqCst.\n\nPTX: `st.<sem>.<scope>.", $b, "`.\n\n",
                "# Panics\n\nWhen `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn store(&self, val: $t, order: Ordering) {
                self.bits().store(val.to_bits(), order)
            }

            #[doc = concat!("Stores `val`, returns the previous value. Every order.\n\nPTX: `atom.<sem>.<scope>.exch.", $b, "`.")]
            #[inline(always)]
            pub fn swap(&self, val: $t, order: Ordering) -> $t {
                $t::from_bits(self.bits().swap(val.to_bits(), order))
            }

            #[doc = concat!("Bitwise compare-exchange (see the integer `compare_exchange` for the orders).\n\n",
                "PTX: `atom.<sem>.<scope>.cas.", $b, "`.\n\n",
                "# Panics\n\nWhen `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn compare_exchange(&self, current: $t, new: $t, success: Ordering, failure: Ordering)
                -> Result<$t, $t>
            {
                self.bits()
                    .compare_exchange(current.to_bits(), new.to_bits(), success, failure)
                    .map($t::from_bits)
                    .map_err($t::from_bits)
            }

            update_api!($t, update_example = concat!("```\nuse ptx_sync::{Atomic, Cta};\nuse core::sync::atomic::Ordering::*;\n", "let a = Atomic::<", stringify!($t), ", Cta>::new(1.5);\n", "assert_eq!(a.update(Release, Relaxed, |x| x * x), 1.5);\n", "assert_eq!(a.load(Relaxed), 2.25);\n```"));

            bits_fetch_update!($t, concat!("Applies `f` until the update succeeds or `f` returns `None`, like `core`'s ",
                "`fetch_update`: `Ok(previous)` or `Err(current)`. The exchange compares bits (so a NaN ",
                "that `f` leaves alone is stored back as it was). `fetch_order` (the first load and the ",
                "failed attempts) cannot be Release or AcqRel.\n\n",
                "PTX: `ld.<fetch>.<scope>.", $b, "`, then `atom.<sem>.<scope>.cas.", $b, "` per attempt ",
                "(`sem` merges both orders, as `compare_exchange` does).\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(3.0);\n",
                "assert_eq!(a.fetch_update(AcqRel, Acquire, |x| (x < 4.0).then_some(x * 2.0)), Ok(3.0));\n",
                "assert_eq!(a.fetch_update(AcqRel, Acquire, |x| (x < 4.0).then_some(x * 2.0)), Err(6.0));\n```\n\n",
                "# Panics\n\nWhen `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the thread prints the message and traps)."));

            #[doc = concat!("Stores the minimum of the value and `val` and returns the previous value. Every order.\n\n",
                "The minimum is PTX's `min` (IEEE 754-2019 `minimumNumber`): a NaN operand is ignored (the ",
                "other value is stored), two NaNs store the canonical NaN (`", $nan, "`), and `-0.0` is ",
                "below `+0.0`. Unlike `", stringify!($t), "::min`, the sign of a zero result is defined.\n\n",
                "PTX has no `atom.min.", stringify!($t), "` (float `atom.min` exists only for sm_90's ",
                "half-precision vectors), so this is a compare-exchange loop: `ld.relaxed.<scope>.", $b, "`, ",
                "then `atom.<sem>.<scope>.cas.", $b, "` (SeqCst: `fence.sc.<scope>` first) until it ",
                "succeeds; the order applies to the exchange that succeeds.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(", stringify!($t), "::NAN);\n",
                "assert!(a.fetch_min(2.0, AcqRel).is_nan());\n",
                "assert_eq!(a.fetch_min(", stringify!($t), "::NAN, AcqRel), 2.0);\n",
                "assert_eq!(a.load(Relaxed), 2.0); // the NaN was ignored\n",
                "a.store(0.0, Relaxed);\n",
                "a.fetch_min(-0.0, Relaxed);\n",
                "assert!(a.load(Relaxed).is_sign_negative());\n```")]
            #[inline(always)]
            pub fn fetch_min(&self, val: $t, order: Ordering) -> $t {
                self.update(order, Ordering::Relaxed, |x| x.min_num(val))
            }

            #[doc = concat!("Stores the maximum of the value and `val` and returns the previous value. Every order.\n\n",
                "The maximum is PTX's `max` (IEEE 754-2019 `maximumNumber`): a NaN operand is ignored, two ",
                "NaNs store the canonical NaN (`", $nan, "`), and `+0.0` is above `-0.0`.\n\n",
                "PTX has no `atom.max.", stringify!($t), "`: `ld.relaxed.<scope>.", $b, "`, then ",
                "`atom.<sem>.<scope>.cas.", $b, "` (SeqCst: `fence.sc.<scope>` first) until it succeeds.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::*;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(-0.0);\n",
                "assert_eq!(a.fetch_max(0.0, SeqCst).to_bits(), (-0.0 as ", stringify!($t), ").to_bits());\n",
                "assert!(a.load(Relaxed).is_sign_positive());\n",
                "a.fetch_max(-7.5, Relaxed);\n",
                "assert_eq!(a.load(Relaxed), 0.0);\n```")]
            #[inline(always)]
            pub fn fetch_max(&self, val: $t, order: Ordering) -> $t {
                self.update(order, Ordering::Relaxed, |x| x.max_num(val))
            }

            float_add_api!($t, $bits, $reg, "add", $add, add = |x, v| x + v, fetch_add_doc = concat!("Adds `val` (IEEE round-to-nearest) and returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.add.", $add, "`.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::Relaxed;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(1.5);\nassert_eq!(a.fetch_add(2.0, Relaxed), 1.5);\n",
                "assert_eq!(a.load(Relaxed), 3.5);\n```"));
        }
    };
}

float_atomic!(
    f32,
    u32,
    reg32,
    bits = "b32",
    add = "f32",
    nan = "0x7fff_ffff"
);
float_atomic!(
    f64,
    u64,
    reg64,
    bits = "b64",
    add = "f64",
    nan = "0x7fff_ffff_ffff_ffff"
);

/// `fetch_add`, `fetch_sub` and `red_add` of a float type `$t` over its bits `$bits`: PTX's
/// `atom/red.<sem>.<scope>.$op.$add`, and on the host a compare-exchange loop on the bits
/// that computes `add` (core has no float atomics).
macro_rules! float_add_api {
    ($t:ident, $bits:ident, $reg:ident, $op:literal, $add:literal, add = |$x:ident, $v:ident| $sum:expr,
     fetch_add_doc = $doc:expr) => {
        #[doc = $doc]
        #[inline(always)]
        pub fn fetch_add(&self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: $t::from_bits(with_rmw_sem!(S, sem;
                    ptx_atom!($op, $add, $reg, $bits, self.as_ptr(), val.to_bits()))),
                host: self.host_add(order, val))
        }

        #[doc = concat!("Subtracts `val` (adds `-val`: an exact sign flip, then the same rounding); ",
            "returns the previous value. Every order.\n\n",
            "PTX: `atom.<sem>.<scope>.", $op, ".", $add, "` of `-val`.")]
        #[inline(always)]
        pub fn fetch_sub(&self, val: $t, order: Ordering) -> $t {
            self.fetch_add(-val, order)
        }

        #[doc = concat!("Adds `val` without returning anything. Orders: Relaxed, Release, SeqCst.\n\n",
            "PTX: `red.<sem>.<scope>.", $op, ".", $add, "`; SeqCst is `fence.sc.<scope>` + `red.relaxed`.\n\n",
            "# Panics\n\nWhen `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the message and traps).")]
        #[inline(always)]
        #[track_caller]
        pub fn red_add(&self, val: $t, order: Ordering) {
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; ptx_red!($op, $add, $reg, self.as_ptr(), val.to_bits())),
                host: { self.host_add(order, val); })
        }

        /// Host backend: core has no float atomics, so a compare-exchange loop on the bits.
        #[cfg(not(target_arch = "nvptx64"))]
        #[inline(always)]
        fn host_add(&self, order: Ordering, $v: $t) -> $t {
            let prev = self.bits().fetch_update(order, read_part(order), |b| {
                let $x = $t::from_bits(b);
                Some(($sum).to_bits())
            });
            $t::from_bits(prev.unwrap_or_else(|b| b))
        }
    };
}
pub(crate) use float_add_api;
