//! Float atomics (`f32`, `f64`). Loads, stores, swap and compare-exchange move the bits
//! (`.b32`/`.b64`); `fetch_add` is PTX's native float add (`atom.add.f32` / `.f64`).
//! Compare-exchange compares bits, so `-0.0 != 0.0` and a NaN equals the same NaN.

use super::int::backend;
#[cfg(not(target_arch = "nvptx64"))]
use super::read_part;
use super::Atomic;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

macro_rules! float_atomic {
    ($t:ident, $bits:ident, $core:ident, $reg:ident, bits = $b:literal, add = $add:literal) => {
        impl<S: Scope> Atomic<$t, S> {
            /// The same location, seen as its bit pattern (for the bit-level operations).
            #[inline(always)]
            fn bits(&self) -> &Atomic<$bits, S> {
                // SAFETY: `Atomic` is `repr(transparent)` over a cell of `T` (or, under loom,
                // over the same loom atomic for the float and its bits): same size and alignment.
                unsafe { &*(self as *const Self).cast::<Atomic<$bits, S>>() }
            }

            #[doc = concat!("Loads the value. Orders: Relaxed, Acquire, SeqCst.\n\nPTX: `ld.<sem>.<scope>.", $b, "`.")]
            #[inline(always)]
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                $t::from_bits(self.bits().load(order))
            }

            #[doc = concat!("Stores `val`. Orders: Relaxed, Release, SeqCst.\n\nPTX: `st.<sem>.<scope>.", $b, "`.")]
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
                "PTX: `atom.<sem>.<scope>.cas.", $b, "`.")]
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

            #[doc = concat!("Adds `val` (IEEE round-to-nearest) and returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.add.", $add, "`.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu};\nuse core::sync::atomic::Ordering::Relaxed;\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(1.5);\nassert_eq!(a.fetch_add(2.0, Relaxed), 1.5);\n",
                "assert_eq!(a.load(Relaxed), 3.5);\n```")]
            #[inline(always)]
            pub fn fetch_add(&self, val: $t, order: Ordering) -> $t {
                let sem = order::rmw(order);
                backend!(
                    gpu: $t::from_bits(with_rmw_sem!(S, sem;
                        ptx_atom!("add", $add, $reg, $bits, self.as_ptr(), val.to_bits()))),
                    host: { let _ = sem; self.host_update(order, |v| v + val) })
            }

            #[doc = concat!("Subtracts `val`; returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.add.", $add, "` of `-val`.")]
            #[inline(always)]
            pub fn fetch_sub(&self, val: $t, order: Ordering) -> $t {
                self.fetch_add(-val, order)
            }

            #[doc = concat!("Adds `val` without returning anything. Orders: Relaxed, Release, SeqCst.\n\n",
                "PTX: `red.<sem>.<scope>.add.", $add, "`.")]
            #[inline(always)]
            #[track_caller]
            pub fn red_add(&self, val: $t, order: Ordering) {
                let sem = order::store(order);
                backend!(gpu: with_store_sem!(S, sem; ptx_red!("add", $add, $reg, self.as_ptr(), val.to_bits())),
                         host: { let _ = sem; self.host_update(order, |v| v + val); })
            }

            /// Host backend: core has no float atomics, so a compare-exchange loop on the bits.
            #[cfg(not(target_arch = "nvptx64"))]
            #[inline(always)]
            fn host_update(&self, order: Ordering, f: impl Fn($t) -> $t) -> $t {
                let bits = self.bits();
                let prev = bits.fetch_update(order, read_part(order), |b| Some(f($t::from_bits(b)).to_bits()));
                $t::from_bits(prev.unwrap_or_else(|b| b))
            }
        }
    };
}

float_atomic!(f32, u32, AtomicU32, reg32, bits = "b32", add = "f32");
float_atomic!(f64, u64, AtomicU64, reg64, bits = "b64", add = "f64");
