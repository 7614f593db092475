//! Float atomics (`f32`, `f64`). Loads, stores, swap and compare-exchange move the bits
//! (`.b32`/`.b64`); `fetch_add` is PTX's native float add (`atom.add.f32` / `.f64`).
//! Compare-exchange compares bits, so `-0.0 != 0.0` and a NaN equals the same NaN.
//! `fetch_min` / `fetch_max` (PTX's `min` / `max` rule: a NaN operand is ignored, `-0.0 < +0.0`)
//! and `fetch_update` / `update` / `try_update` are compare-exchange loops on the bits: PTX has
//! no scalar float `atom.min` / `atom.max`.

crate::backend::cfg_host! {
    use super::read_part;
}
use super::update::update_impls;
use super::waiting::wait_impls;
use super::{Atomic, AtomicAccess, AtomicAdd, AtomicMinMax, AtomicRedAdd, AtomicValue};
use crate::backend::on_target;
use crate::float16::MinMaxNum;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// A float type whose atomic is the atomic of its bit pattern (`f32` over `u32`, `F16` over
/// `u16`...): loads, stores, exchanges and compare-exchanges move the bits.
///
/// # Safety
/// `Self` and `Self::Bits` have the same size and alignment, and `Atomic<Self, S>` and
/// `Atomic<Self::Bits, S>` the same layout (under loom: the same loom atomic), so that
/// [`bits`] may view one as the other.
pub(super) unsafe trait Bits: AtomicValue {
    /// The unsigned integer of the same width.
    type Bits: AtomicAccess;
}

/// The same location, seen as its bit pattern (for the bit-level operations).
#[inline(always)]
pub(super) fn bits<T: Bits, S: Scope>(a: &Atomic<T, S>) -> &Atomic<T::Bits, S> {
    // SAFETY: `Atomic` is `repr(transparent)` over a cell of `T` (or, under loom, over the
    // same loom atomic for the float and its bits), and `Bits` promises that `T` and its bits
    // have the same size and alignment.
    unsafe { &*(a as *const Atomic<T, S>).cast::<Atomic<T::Bits, S>>() }
}

crate::backend::cfg_host! {
    /// A float's bit pattern and back, for the host's float adds (on the GPU, `atom.add` adds
    /// floats itself).
    pub(super) trait HostBits: Bits {
        fn to_bits(self) -> Self::Bits;
        fn from_bits(bits: Self::Bits) -> Self;
    }

    /// Host backend of the float adds: core has no float atomics, so a compare-exchange loop on
    /// the bits that stores `add(old)`.
    #[inline(always)]
    pub(super) fn host_add<T: HostBits, S: Scope>(
        a: &Atomic<T, S>,
        order: Ordering,
        add: impl Fn(T) -> T,
    ) -> T {
        let prev = <T::Bits as AtomicAccess>::fetch_update(bits(a), order, read_part(order), |b| {
            Some(add(T::from_bits(b)).to_bits())
        });
        T::from_bits(prev.unwrap_or_else(|b| b))
    }
}

/// `Bits`, `AtomicAccess` and `AtomicMinMax` of a float type `$t` over its bits `$bits`: every
/// operation on the bits but the min/max loops, which compare values.
macro_rules! float_bits_atomic {
    ($t:ident, $bits:ident) => {
        // SAFETY: `$t` is a `$bits` in memory (`repr(transparent)` for the half types); the
        // loom model of both is the same loom atomic (crate::loom's table).
        unsafe impl Bits for $t {
            type Bits = $bits;
        }

        crate::backend::cfg_host! {
            impl super::float::HostBits for $t {
                #[inline(always)]
                fn to_bits(self) -> $bits {
                    $t::to_bits(self)
                }

                #[inline(always)]
                fn from_bits(bits: $bits) -> $t {
                    $t::from_bits(bits)
                }
            }
        }

        impl AtomicAccess for $t {
            #[inline(always)]
            #[track_caller]
            fn load<S: Scope>(a: &Atomic<Self, S>, order: Ordering) -> $t {
                $t::from_bits(<$bits as AtomicAccess>::load(bits(a), order))
            }

            #[inline(always)]
            #[track_caller]
            fn store<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) {
                <$bits as AtomicAccess>::store(bits(a), val.to_bits(), order)
            }

            #[inline(always)]
            fn swap<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                $t::from_bits(<$bits as AtomicAccess>::swap(bits(a), val.to_bits(), order))
            }

            #[inline(always)]
            #[track_caller]
            fn compare_exchange<S: Scope>(
                a: &Atomic<Self, S>,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                <$bits as AtomicAccess>::compare_exchange(
                    bits(a),
                    current.to_bits(),
                    new.to_bits(),
                    success,
                    failure,
                )
                .map($t::from_bits)
                .map_err($t::from_bits)
            }

            // `f` sees and returns values, the exchange compares bits (so a NaN `f` leaves
            // alone is stored back as it was).
            #[inline(always)]
            #[track_caller]
            fn fetch_update<S: Scope, F>(
                a: &Atomic<Self, S>,
                set_order: Ordering,
                fetch_order: Ordering,
                mut f: F,
            ) -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                <$bits as AtomicAccess>::fetch_update(bits(a), set_order, fetch_order, |b| {
                    f($t::from_bits(b)).map($t::to_bits)
                })
                .map($t::from_bits)
                .map_err($t::from_bits)
            }

            update_impls!($t);
            wait_impls!($t, |a: $t, b: $t| a.to_bits() == b.to_bits());
        }

        // PTX has no scalar float `atom.min` / `atom.max`: compare-exchange loops, which
        // return without one when the value would not change (a smaller `val` for the max):
        // that RMW would store what is there, so the load alone is it, with the acquire part of
        // `order` (no write to release).
        impl AtomicMinMax for $t {
            $crate::atomic::float::float_bits_atomic!(@min_max $t, fetch_min, min_num);
            $crate::atomic::float::float_bits_atomic!(@min_max $t, fetch_max, max_num);
        }
    };
    // The one body of `fetch_min` and `fetch_max`: `$pick` is `min_num` or `max_num`.
    (@min_max $t:ident, $name:ident, $pick:ident) => {
        #[inline(always)]
        fn $name<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
            match Self::try_update(a, order, crate::atomic::read_part(order), |x| {
                let m = x.$pick(val);
                (m.to_bits() != x.to_bits()).then_some(m)
            }) {
                Ok(x) | Err(x) => x,
            }
        }
    };
}
pub(super) use float_bits_atomic;

/// `AtomicAdd` and `AtomicRedAdd` of a float type `$t` over its bits `$bits` (both under the
/// attributes given first, if any): PTX's
/// `atom/red.<sem>.<scope>.$op.$add`, and on the host a compare-exchange loop on the bits
/// that computes `add` (core has no float atomics).
macro_rules! float_add_api {
    ($(#[$gate:meta])* $t:ident, $bits:ident, $reg:ident, $op:literal, $add:literal, add = |$x:ident, $v:ident| $sum:expr) => {
        $(#[$gate])*
        impl AtomicAdd for $t {
            #[inline(always)]
            fn fetch_add<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: $t::from_bits(with_rmw_sem!(S, sem;
                        ptx_atom!($op, $add, $reg, $bits, a.as_ptr(), val.to_bits()))),
                    host: host_add(a, order, |$x| { let $v = val; $sum }))
            }

            // PTX has no `atom.sub`: the add of `-val` (an exact sign flip).
            #[inline(always)]
            fn fetch_sub<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                Self::fetch_add(a, -val, order)
            }
        }

        $(#[$gate])*
        impl AtomicRedAdd for $t {
            #[inline(always)]
            #[track_caller]
            fn red_add<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) {
                on_target!(sem = order::store(order);
                    gpu: with_store_sem!(S, sem; ptx_red!($op, $add, $reg, a.as_ptr(), val.to_bits())),
                    host: { host_add(a, order, |$x| { let $v = val; $sum }); })
            }
        }
    };
}
pub(super) use float_add_api;

float_bits_atomic!(f32, u32);
float_bits_atomic!(f64, u64);
float_add_api!(f32, u32, reg32, "add", "f32", add = |x, v| x + v);
float_add_api!(f64, u64, reg64, "add", "f64", add = |x, v| x + v);
