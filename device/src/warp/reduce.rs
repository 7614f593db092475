//! Warp reductions and scans over a mask: CUDA's `__reduce_add_sync(mask, v)` family and the
//! warp sums of `cub::WarpScan` / `cooperative_groups::inclusive_scan`.
//!
//! On sm_80 and newer a reduction of a 32-bit integer is one `redux.sync` (PTX ISA,
//! "redux.sync": PTX 7.0, sm_80; `.add/.min/.max` on `.u32`/`.s32`, `.and/.or/.xor` on `.b32`).
//! Everything else (every reduction below sm_80, 64-bit and float values, and the scans on every
//! architecture) is the shuffle tree below, five `shfl.sync.idx.b32` steps (ten for a 64-bit
//! value), correct for any mask: full, partial, or with holes.
//!
//! ## The tree, and why lanes outside the mask do not contribute
//!
//! A butterfly over all 32 lanes (`shfl_xor` by 16, 8, 4, 2, 1) reads lanes outside a partial
//! mask, whose values are undefined. This tree works on aligned blocks of lanes instead: after
//! the step of width `d` (1, 2, 4, 8, 16), every lane of the mask holds `total`, the
//! combination of the values of the mask's lanes in its aligned block of `2d` lanes. In the
//! step itself, a lane reads `total` from the lowest lane of the mask in the other half of that
//! block (the block of `d` lanes at `lane ^ d`), which holds the other half's total by the same
//! rule one step earlier, and combines it, lower half first. A half with no lane of the mask
//! contributes nothing: the lane then reads itself (every lane of the mask executes every
//! shuffle, with a source in the mask, so no shuffle reads outside it) and keeps its value.
//! After the step of width 16 the block is the warp: every lane of the mask holds the same
//! total, combined in the same order, `((v0 . v1) . (v2 . v3)) . ...` over the lanes of the mask
//! by lane number with the absent ones left out (for floats, bit for bit the same in every
//! lane).
//!
//! A scan keeps one more value per lane, `below`: the combination of the mask's lanes in its
//! block below itself. When the other half is the lower one, its total goes in front of
//! `below`. After the last step `below` is the exclusive prefix over the mask's lanes below
//! this one, and `below . value` the inclusive one.
//!
//! The mask rule of every function here: `mask` names the calling lane, and every lane in
//! `mask` calls the same function with the same mask (on sm_70+ not necessarily at the same
//! instruction), as CUDA's `*_sync` functions require. No lane of `mask` may have exited:
//! `redux.sync` leaves exited lanes out, but the tree would read them (undefined).

use super::{lane, shfl_idx, ShuffleValue};
use crate::backend::reduce::redux_method;

/// A value the warp sums and scans add ([`reduce_add`], [`inclusive_scan_add`],
/// [`exclusive_scan_add`]): `u32`, `i32`, `u64` and `i64` (wrapping, as `redux.sync.add`
/// truncates to 32 bits), `f32` and `f64` (IEEE addition in the tree's order).
pub trait AddValue: ShuffleValue {
    /// The identity of the addition: what the lowest lane's exclusive scan is (`-0.0` for
    /// floats: `-0.0 + x` is `x` bit for bit, where `+0.0 + -0.0` would be `+0.0`).
    #[doc(hidden)]
    const ZERO: Self;
    #[doc(hidden)]
    fn add(self, other: Self) -> Self;
    /// The reduction: `redux.sync` where there is one, the tree otherwise.
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_add(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::add)
    }
}

/// A value [`reduce_min`] and [`reduce_max`] compare: `u32`, `i32`, `u64`, `i64` (signed types
/// compare signed, as `redux.sync.min.s32` does).
pub trait MinMaxValue: ShuffleValue {
    #[doc(hidden)]
    fn min(self, other: Self) -> Self;
    #[doc(hidden)]
    fn max(self, other: Self) -> Self;
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_min(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::min)
    }
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_max(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::max)
    }
}

/// A value [`reduce_and`], [`reduce_or`] and [`reduce_xor`] combine bit by bit: `u32`, `i32`,
/// `u64`, `i64`.
pub trait BitwiseValue: ShuffleValue {
    #[doc(hidden)]
    fn and(self, other: Self) -> Self;
    #[doc(hidden)]
    fn or(self, other: Self) -> Self;
    #[doc(hidden)]
    fn xor(self, other: Self) -> Self;
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_and(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::and)
    }
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_or(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::or)
    }
    #[doc(hidden)]
    #[inline(always)]
    fn reduce_xor(mask: u32, value: Self) -> Self {
        tree(mask, value, Self::xor)
    }
}

/// The block tree (see the module docs): `(below, total)` for this lane, where `below` starts
/// at `zero`. Five `shfl.sync.idx.b32` with `mask` (ten for a 64-bit value), each from a lane
/// of `mask`.
#[inline(always)]
fn blocks<T: ShuffleValue>(mask: u32, value: T, zero: T, op: impl Fn(T, T) -> T) -> (T, T) {
    let me = lane();
    let (mut below, mut total) = (zero, value);
    for d in [1u32, 2, 4, 8, 16] {
        // The other half of this lane's aligned block of `2d` lanes: `d` lanes from `base`.
        let base = (me ^ d) & !(d - 1);
        let half = mask & (((1u32 << d) - 1) << base);
        // Its lowest lane of the mask holds its total; with none there, read this lane
        // (every lane of the mask takes part in every shuffle) and leave the values alone.
        let src = if half != 0 { half.trailing_zeros() } else { me };
        let theirs = shfl_idx(mask, total, src);
        if half != 0 {
            if me & d != 0 {
                // The other half is the lower one: its lanes come first.
                below = op(theirs, below);
                total = op(theirs, total);
            } else {
                total = op(total, theirs);
            }
        }
    }
    (below, total)
}

/// The tree's total: the reduction over the lanes of `mask`.
#[inline(always)]
fn tree<T: ShuffleValue>(mask: u32, value: T, op: impl Fn(T, T) -> T) -> T {
    // `below` is not used: `value` stands in for its start, and the compiler drops it.
    blocks(mask, value, value, op).1
}

/// The 32-bit integers: `redux.sync` on sm_80+, the tree below it and on the host.
macro_rules! int32 {
    ($t:ty, $add:literal, $min:literal, $max:literal) => {
        impl AddValue for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            redux_method!(reduce_add, $t, $add);
        }
        impl MinMaxValue for $t {
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                Ord::min(self, other)
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                Ord::max(self, other)
            }
            redux_method!(reduce_min, $t, $min);
            redux_method!(reduce_max, $t, $max);
        }
        impl BitwiseValue for $t {
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn xor(self, other: Self) -> Self {
                self ^ other
            }
            redux_method!(reduce_and, $t, "redux.sync.and.b32 {d}, {v}, {m};");
            redux_method!(reduce_or, $t, "redux.sync.or.b32 {d}, {v}, {m};");
            redux_method!(reduce_xor, $t, "redux.sync.xor.b32 {d}, {v}, {m};");
        }
    };
}
int32!(
    u32,
    "redux.sync.add.u32 {d}, {v}, {m};",
    "redux.sync.min.u32 {d}, {v}, {m};",
    "redux.sync.max.u32 {d}, {v}, {m};"
);
int32!(
    i32,
    "redux.sync.add.s32 {d}, {v}, {m};",
    "redux.sync.min.s32 {d}, {v}, {m};",
    "redux.sync.max.s32 {d}, {v}, {m};"
);

/// The 64-bit integers: the tree everywhere (PTX has no 64-bit `redux.sync`).
macro_rules! int64 {
    ($t:ty) => {
        impl AddValue for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
        impl MinMaxValue for $t {
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                Ord::min(self, other)
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                Ord::max(self, other)
            }
        }
        impl BitwiseValue for $t {
            #[inline(always)]
            fn and(self, other: Self) -> Self {
                self & other
            }
            #[inline(always)]
            fn or(self, other: Self) -> Self {
                self | other
            }
            #[inline(always)]
            fn xor(self, other: Self) -> Self {
                self ^ other
            }
        }
    };
}
int64!(u64);
int64!(i64);

impl AddValue for f32 {
    const ZERO: Self = -0.0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl AddValue for f64 {
    const ZERO: Self = -0.0;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
}

/// The sum of `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_add_sync(mask, value)`; `cooperative_groups::reduce(tile, value,
/// cg::plus<T>())` for the other types). Integers wrap.
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.add.u32` / `.s32 d, value, mask`. Below sm_80, and
/// for `u64`, `i64`, `f32`, `f64` everywhere: `mov.u32 %laneid` and five `shfl.sync.idx.b32`
/// (ten for 64-bit types), the tree of the [module docs](crate::warp#reductions-and-scans);
/// float sums add in that tree's order, the same in every lane.
///
/// Mask rule: `mask` names the calling lane, every lane of `mask` calls with the same mask,
/// and none of them has exited. Any mask: full, partial, with holes.
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// // The odd lanes of a warp add their lane numbers; the even ones are elsewhere.
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     if t.lane % 2 == 1 {
///         emulation::converged(0xaaaa_aaaa, || {
///             assert_eq!(warp::reduce_add(0xaaaa_aaaa, t.lane), (1..32).step_by(2).sum());
///         });
///     }
/// });
/// ```
#[inline(always)]
pub fn reduce_add<T: AddValue>(mask: u32, value: T) -> T {
    T::reduce_add(mask, value)
}

/// The least `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_min_sync(mask, value)`; signed types compare signed).
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.min.u32` / `.s32`; otherwise `mov.u32 %laneid` and
/// five `shfl.sync.idx.b32` (ten for `u64`, `i64`). Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     let v = 100 - t.lane as i32; // 100 down to 69
///     assert_eq!(warp::reduce_min(u32::MAX, v), 69);
///     // Then lanes 4..8 alone: 96 down to 93.
///     if (4..8).contains(&t.lane) {
///         emulation::converged(0xf0, || assert_eq!(warp::reduce_min(0xf0, v), 93));
///     }
/// });
/// ```
#[inline(always)]
pub fn reduce_min<T: MinMaxValue>(mask: u32, value: T) -> T {
    T::reduce_min(mask, value)
}

/// The greatest `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_max_sync(mask, value)`; signed types compare signed).
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.max.u32` / `.s32`; otherwise `mov.u32 %laneid` and
/// five `shfl.sync.idx.b32` (ten for `u64`, `i64`). Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     let v = -(t.lane as i64) << 40;
///     assert_eq!(warp::reduce_max(u32::MAX, v), 0);
/// });
/// ```
#[inline(always)]
pub fn reduce_max<T: MinMaxValue>(mask: u32, value: T) -> T {
    T::reduce_max(mask, value)
}

/// The bitwise AND of `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_and_sync(mask, value)`).
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.and.b32`; otherwise `mov.u32 %laneid` and five
/// `shfl.sync.idx.b32` (ten for `u64`, `i64`). Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     assert_eq!(warp::reduce_and(u32::MAX, !(1u32 << t.lane)), 0);
///     assert_eq!(warp::reduce_and(u32::MAX, 0xff00 | t.lane), 0xff00);
/// });
/// ```
#[inline(always)]
pub fn reduce_and<T: BitwiseValue>(mask: u32, value: T) -> T {
    T::reduce_and(mask, value)
}

/// The bitwise OR of `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_or_sync(mask, value)`).
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.or.b32`; otherwise `mov.u32 %laneid` and five
/// `shfl.sync.idx.b32` (ten for `u64`, `i64`). Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     assert_eq!(warp::reduce_or(u32::MAX, 1u64 << (t.lane + 32)), 0xffff_ffff_0000_0000);
/// });
/// ```
#[inline(always)]
pub fn reduce_or<T: BitwiseValue>(mask: u32, value: T) -> T {
    T::reduce_or(mask, value)
}

/// The bitwise XOR of `value` over the lanes of `mask`, in every one of them (CUDA's
/// `__reduce_xor_sync(mask, value)`).
///
/// PTX: `u32`, `i32` on sm_80+: `redux.sync.xor.b32`; otherwise `mov.u32 %laneid` and five
/// `shfl.sync.idx.b32` (ten for `u64`, `i64`). Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     // Every lane but 5 sets bit 0: an odd number of them (31).
///     assert_eq!(warp::reduce_xor(u32::MAX, (t.lane != 5) as u32), 1);
/// });
/// ```
#[inline(always)]
pub fn reduce_xor<T: BitwiseValue>(mask: u32, value: T) -> T {
    T::reduce_xor(mask, value)
}

/// The sum of `value` over the lanes of `mask` up to this one, this one included (CUDA:
/// `cub::WarpScan<T>::InclusiveSum`, `cooperative_groups::inclusive_scan(tile, value)`).
/// Integers wrap; float sums add in the tree's order.
///
/// PTX (every architecture; CUDA has no scan instruction): `mov.u32 %laneid` and five
/// `shfl.sync.idx.b32` (ten for 64-bit types), the tree of the
/// [module docs](crate::warp#reductions-and-scans), which also
/// skips the lanes outside `mask`: the prefix is over the lanes of the mask only. Mask rule: as
/// [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// // Lanes 1, 2, 5 and 9 (a mask with holes), each bringing its lane number.
/// let mask = 1 << 1 | 1 << 2 | 1 << 5 | 1 << 9;
/// emulation::launch(32, std::time::Duration::from_secs(10), move |t| {
///     if mask & (1 << t.lane) != 0 {
///         emulation::converged(mask, || {
///             let want = match t.lane { 1 => 1, 2 => 3, 5 => 8, _ => 17 };
///             assert_eq!(warp::inclusive_scan_add(mask, t.lane), want);
///         });
///     }
/// });
/// ```
#[inline(always)]
pub fn inclusive_scan_add<T: AddValue>(mask: u32, value: T) -> T {
    let (below, _) = blocks(mask, value, T::ZERO, T::add);
    below.add(value)
}

/// The sum of `value` over the lanes of `mask` below this one: 0 in the lowest lane of `mask`
/// (`-0.0` for floats, the identity of addition) (CUDA: `cub::WarpScan<T>::ExclusiveSum`,
/// `cooperative_groups::exclusive_scan(tile, value)`). Integers wrap; float sums add in the
/// tree's order.
///
/// PTX: as [`inclusive_scan_add`]. Mask rule: as [`reduce_add`].
///
/// ```
/// use ptx_sync::warp::{self, emulation};
///
/// // Where each lane writes its `count` items in one output shared by the warp.
/// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
///     let count = t.lane % 3; // 0 1 2 0 1 2 ...
///     let offset = warp::exclusive_scan_add(u32::MAX, count);
///     assert_eq!(offset, (0..t.lane).map(|l| l % 3).sum());
/// });
/// ```
#[inline(always)]
pub fn exclusive_scan_add<T: AddValue>(mask: u32, value: T) -> T {
    blocks(mask, value, T::ZERO, T::add).0
}
