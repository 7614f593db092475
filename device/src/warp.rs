//! The warp-level facts the primitives need (which lane this is, which lanes run together,
//! which of them name the same object, a warp barrier) and CUDA's warp intrinsics: votes
//! ([`ballot`], [`any`], [`all`], [`uni`]), matches ([`match_any`], [`match_all`] and their
//! `_u32` forms), shuffles ([`shfl_idx`], [`shfl_up`], [`shfl_down`], [`shfl_xor`]),
//! reductions ([`reduce_add`], [`reduce_min`], [`reduce_max`], [`reduce_and`], [`reduce_or`],
//! [`reduce_xor`]), scans ([`inclusive_scan_add`], [`exclusive_scan_add`]), lane masks
//! ([`lanemask_lt`] and its kin) and leader election (`elect_one` on sm_90, [`leader`]
//! everywhere).
//!
//! | Function | PTX | CUDA C++ |
//! |----------|-----|----------|
//! | [`lane`] | `mov.u32 %laneid` | lane id (`threadIdx.x % 32` in a 1-D block) |
//! | [`active_mask`] | `activemask.b32` | `__activemask()` |
//! | [`sync`] | `bar.warp.sync` | `__syncwarp(mask)` |
//! | [`ballot`] | `vote.sync.ballot.b32` | `__ballot_sync(mask, pred)` |
//! | [`any`], [`all`], [`uni`] | `vote.sync.any.pred`, `vote.sync.all.pred`, `vote.sync.uni.pred` | `__any_sync`, `__all_sync`, `__uni_sync` |
//! | [`match_any`], [`match_any_u32`] | `match.any.sync.b64`, `match.any.sync.b32` | `__match_any_sync(mask, value)` |
//! | [`match_all`], [`match_all_u32`] | `match.all.sync.b64`, `match.all.sync.b32` (with the predicate) | `__match_all_sync(mask, value, &pred)` |
//! | [`shfl_idx`], [`shfl_up`], [`shfl_down`], [`shfl_xor`] | `shfl.sync.idx.b32`, `.up`, `.down`, `.bfly` (two of them for a 64-bit value) | `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync` (width 32) |
//! | `elect_one` (sm_90) | `elect.sync` | `cooperative_groups::invoke_one`, `cuda::ptx::elect_sync` |
//! | [`leader`] | `mov.u32 %laneid` | `lane == __ffs(mask) - 1` |
//! | [`reduce_add`], [`reduce_min`], [`reduce_max`] | `u32`/`i32` on sm_80+: `redux.sync.add/min/max.u32` / `.s32`; otherwise `mov.u32 %laneid` and 5 `shfl.sync.idx.b32` (10 for 64-bit types) | `__reduce_add_sync(mask, v)`, `__reduce_min_sync`, `__reduce_max_sync` |
//! | [`reduce_and`], [`reduce_or`], [`reduce_xor`] | `u32`/`i32` on sm_80+: `redux.sync.and/or/xor.b32`; otherwise as above | `__reduce_and_sync`, `__reduce_or_sync`, `__reduce_xor_sync` |
//! | [`inclusive_scan_add`], [`exclusive_scan_add`] | `mov.u32 %laneid` and 5 `shfl.sync.idx.b32` (10 for 64-bit types) | `cub::WarpScan::InclusiveSum` / `ExclusiveSum`, `cooperative_groups::inclusive_scan` / `exclusive_scan` |
//! | [`lanemask_lt`], [`lanemask_le`], [`lanemask_eq`], [`lanemask_ge`], [`lanemask_gt`] | `mov.u32 %lanemask_lt` (`_le`, `_eq`, `_ge`, `_gt`) | `cuda::ptx::get_sreg_lanemask_lt()`..., `cuda::device::lane_mask::all_less()`... |
//! | [`peers`] | `activemask.b32`, `match.any.sync.b64` | `__match_any_sync(__activemask(), address)` |
//!
//! ```
//! use ptx_sync::warp::{self, emulation};
//!
//! // A warp sum as CUDA code writes it (a `__shfl_xor_sync` butterfly: every lane ends with
//! // it), and a ballot, on 32 emulated lanes.
//! emulation::launch(32, std::time::Duration::from_secs(10), |t| {
//!     let mut sum = u64::from(t.lane);
//!     for d in [16, 8, 4, 2, 1] {
//!         sum += warp::shfl_xor(u32::MAX, sum, d); // two shfl.sync.bfly.b32 each
//!     }
//!     assert_eq!(sum, (0..32).sum());
//!     assert_eq!(warp::ballot(u32::MAX, t.lane % 2 == 1), 0xaaaa_aaaa);
//! });
//! ```
//!
//! Every collective here (all but `lane`, `active_mask`, the lane masks and `leader`) follows
//! CUDA's `*_sync` rule: every non-exited lane in `mask`, the caller included, calls the same
//! function with the same mask (on sm_70+ not necessarily at the same instruction), and it
//! returns once they all have. A shuffle that reads a lane outside `mask` gets an undefined
//! value. The reductions and scans take any mask (partial, with holes: lanes outside it do not
//! count), but no lane of it may have exited (their shuffle tree would read it).
//!
//! On the host every thread is a warp of one, except inside `emulation::launch` (feature
//! `warp-emulation`), where `std` threads play the lanes of real warps so that warp-level code
//! can fail in `cargo test`.
//!
//! ## Reductions and scans
//!
//! On sm_80 and newer a reduction of a `u32` or `i32` is one `redux.sync` (PTX ISA,
//! "redux.sync": PTX 7.0, sm_80). Every other reduction (all of them below sm_80, and the
//! 64-bit and float types everywhere) and every scan is a tree of five `shfl.sync.idx.b32`
//! steps (ten for a 64-bit value), correct for any mask. A butterfly over all 32 lanes would
//! read lanes outside a partial mask (undefined); this tree works on aligned blocks of lanes
//! instead. After the step of width `d` (1, 2, 4, 8, 16) every lane of the mask holds the
//! combination of the mask's lanes in its aligned block of `2d` lanes: in the step it reads
//! that total from the lowest lane of the mask in the other half of the block and combines
//! it, lower half first. A half without a lane of the mask contributes nothing: the lane reads
//! itself instead (every lane of the mask takes part in every shuffle, and every shuffle reads
//! a lane of the mask) and keeps its value. After the last step every lane of the mask holds
//! the same total, combined in the same order (for floats, bit for bit the same), and the
//! lanes outside the mask never counted. A scan keeps one more value, the combination of the
//! mask's lanes of its block below itself, to which the lower half's total is prepended.
//!
//! On the host every type takes the tree (on the emulated lanes of `emulation::launch` too),
//! so `cargo test` runs the algorithm of sm_70 and of the wide types; the GPU suite checks
//! `redux.sync`.
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`warp`](crate::warp)`::{lane, active_mask, sync, match_any, peers}` | `%laneid`, `activemask.b32`, `bar.warp.sync`, `match.any.sync.b64` | lane id, `__activemask()`, `__syncwarp(mask)`, `__match_any_sync(mask, value)` |
//! | [`warp`](crate::warp)`::{ballot, any, all, uni, match_any_u32, match_all, match_all_u32, leader}` | `vote.sync.ballot.b32`, `vote.sync.{any,all,uni}.pred`, `match.any.sync.b32`, `match.all.sync.b64` / `.b32` (with its predicate: `Some(lanes)`), `%laneid` | `__ballot_sync`, `__any_sync`, `__all_sync`, `__uni_sync`, `__match_any_sync`, `__match_all_sync`, `lane == __ffs(mask) - 1` |
//! | [`warp`](crate::warp)`::{shfl_idx, shfl_up, shfl_down, shfl_xor}` (any [`warp::ShuffleValue`](crate::warp::ShuffleValue): `u32 i32 f32`, and `u64 i64 f64` as two shuffles) | `shfl.sync.idx.b32 d, a, b, 0x1f, m`, `shfl.sync.up.b32 .., 0, m`, `shfl.sync.down.b32 .., 0x1f, m`, `shfl.sync.bfly.b32 .., 0x1f, m` | `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync` (width 32) |
//! | `warp::elect_one` (sm_90 on the GPU) | `elect.sync _\|p, m` | `cuda::ptx::elect_sync(mask)`, `cooperative_groups::invoke_one` |
//! | [`warp`](crate::warp)`::{reduce_add, reduce_min, reduce_max, reduce_and, reduce_or, reduce_xor}` ([`warp::AddValue`](crate::warp::AddValue): `u32 i32 u64 i64 f32 f64`; [`warp::MinMaxValue`](crate::warp::MinMaxValue), [`warp::BitwiseValue`](crate::warp::BitwiseValue): `u32 i32 u64 i64`) | `u32`/`i32` on sm_80+: `redux.sync.{add,min,max}.{u32,s32} d, v, m`, `redux.sync.{and,or,xor}.b32 d, v, m`; below sm_80 and for the other types: `mov.u32 %laneid` and 5 `shfl.sync.idx.b32 .., 0x1f, m` (10 for 64-bit types), a tree over aligned blocks of lanes that leaves out the lanes outside `m` | `__reduce_{add,min,max,and,or,xor}_sync(mask, v)`, `cooperative_groups::reduce` |
//! | [`warp`](crate::warp)`::{inclusive_scan_add, exclusive_scan_add}` (any `AddValue`) | `mov.u32 %laneid` and 5 `shfl.sync.idx.b32 .., 0x1f, m` (10 for 64-bit types), over the lanes of `m` only | `cub::WarpScan::{InclusiveSum, ExclusiveSum}`, `cooperative_groups::{inclusive_scan, exclusive_scan}` |
//! | [`warp`](crate::warp)`::{lanemask_lt, lanemask_le, lanemask_eq, lanemask_ge, lanemask_gt}` | `mov.u32 d, %lanemask_lt` (`_le`, `_eq`, `_ge`, `_gt`) | `cuda::ptx::get_sreg_lanemask_*()`, `cuda::device::lane_mask::{all_less, all_less_equal, this_lane, all_greater_equal, all_greater}()` |

cfg_warp_emulation_or_doc! {
    #[cfg_attr(docsrs, doc(cfg(feature = "warp-emulation")))]
    pub mod emulation;
}

// Reductions and scans over a mask (`redux.sync` on sm_80+, a shuffle tree otherwise).
mod reduce;
pub use reduce::{
    exclusive_scan_add, inclusive_scan_add, reduce_add, reduce_and, reduce_max, reduce_min,
    reduce_or, reduce_xor, AddValue, BitwiseValue, MinMaxValue,
};

use crate::backend::warp as backend;

/// This thread's lane (0..32).
#[inline(always)]
pub fn lane() -> u32 {
    backend::lane()
}

/// The lanes of this warp executing this instruction together (`activemask.b32`).
#[inline(always)]
pub fn active_mask() -> u32 {
    backend::active_mask()
}

/// A lane mask special register (`mov.u32 d, %lanemask_*`), or on the host the same bits
/// computed from [`lane`].
macro_rules! lanemask {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            backend::$name()
        }
    };
}

lanemask!(
    /// The lanes below this one: bit `l` for every lane `l < lane()` (`mov.u32 %lanemask_lt`;
    /// libcu++'s `cuda::ptx::get_sreg_lanemask_lt()`, `cuda::device::lane_mask::all_less()`).
    /// `popc(mask & lanemask_lt())` is this lane's rank among the lanes of `mask`. Not a
    /// collective: every lane reads its own, whatever the others do.
    ///
    /// ```
    /// use ptx_sync::warp::{self, emulation};
    ///
    /// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
    ///     assert_eq!(warp::lanemask_lt(), (1 << t.lane) - 1);
    ///     // This lane's rank among the odd lanes.
    ///     let rank = (0xaaaa_aaaa & warp::lanemask_lt()).count_ones();
    ///     assert_eq!(rank, t.lane / 2);
    /// });
    /// ```
    lanemask_lt
);
lanemask!(
    /// This lane and the lanes below it: bit `l` for every lane `l <= lane()`
    /// (`mov.u32 %lanemask_le`; `cuda::ptx::get_sreg_lanemask_le()`,
    /// `cuda::device::lane_mask::all_less_equal()`). Not a collective.
    ///
    /// ```
    /// use ptx_sync::warp::{self, emulation};
    ///
    /// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
    ///     assert_eq!(warp::lanemask_le(), u32::MAX >> (31 - t.lane));
    /// });
    /// ```
    lanemask_le
);
lanemask!(
    /// This lane's bit, `1 << lane()` (`mov.u32 %lanemask_eq`;
    /// `cuda::ptx::get_sreg_lanemask_eq()`, `cuda::device::lane_mask::this_lane()`). Not a
    /// collective.
    ///
    /// ```
    /// use ptx_sync::warp;
    ///
    /// assert_eq!(warp::lanemask_eq(), 1); // a host thread is lane 0 of a warp of one
    /// ```
    lanemask_eq
);
lanemask!(
    /// This lane and the lanes above it: bit `l` for every lane `l >= lane()`, all 32 lanes
    /// whether the warp has them or not (`mov.u32 %lanemask_ge`;
    /// `cuda::ptx::get_sreg_lanemask_ge()`, `cuda::device::lane_mask::all_greater_equal()`).
    /// Not a collective.
    ///
    /// ```
    /// use ptx_sync::warp::{self, emulation};
    ///
    /// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
    ///     assert_eq!(warp::lanemask_ge(), u32::MAX << t.lane);
    /// });
    /// ```
    lanemask_ge
);
lanemask!(
    /// The lanes above this one: bit `l` for every lane `l > lane()`, all 32 lanes whether the
    /// warp has them or not; 0 in lane 31 (`mov.u32 %lanemask_gt`;
    /// `cuda::ptx::get_sreg_lanemask_gt()`, `cuda::device::lane_mask::all_greater()`). Not a
    /// collective.
    ///
    /// ```
    /// use ptx_sync::warp::{self, emulation};
    ///
    /// emulation::launch(32, std::time::Duration::from_secs(10), |t| {
    ///     assert_eq!(warp::lanemask_gt(), !warp::lanemask_le());
    ///     assert_eq!(warp::lanemask_gt() == 0, t.lane == 31);
    /// });
    /// ```
    lanemask_gt
);

/// Waits until every lane in `mask` has arrived, and orders their memory accesses
/// (`bar.warp.sync`). On sm_70+ the lanes may reach it through different instructions.
/// Every lane in `mask`, the caller included, must call it with the same mask.
#[inline(always)]
pub fn sync(mask: u32) {
    backend::sync(mask)
}

/// The lanes of `mask` whose `value` equals this lane's (`match.any.sync.b64`, sm_70+; CUDA's
/// `__match_any_sync` of a 64-bit value). Every non-exited lane in `mask`, the caller
/// included, must call it with the same mask.
#[inline(always)]
pub fn match_any(mask: u32, value: u64) -> u32 {
    backend::match_any(mask, value)
}

/// The lanes of `mask` whose `value` equals this lane's (`match.any.sync.b32`, sm_70+; CUDA's
/// `__match_any_sync` of a 32-bit value). Every non-exited lane in `mask`, the caller
/// included, must call it with the same mask.
#[inline(always)]
pub fn match_any_u32(mask: u32, value: u32) -> u32 {
    backend::match_any_u32(mask, value)
}

/// `Some(lanes)` when every non-exited lane of `mask` has the same `value` (`lanes` is then
/// those lanes: `mask` less the lanes that have exited), `None` otherwise
/// (`match.all.sync.b64 d|p`, sm_70+; CUDA's `__match_all_sync(mask, value, &pred)`, whose
/// `pred` is the `Some`). Every non-exited lane in `mask`, the caller included, must call it
/// with the same mask.
#[inline(always)]
pub fn match_all(mask: u32, value: u64) -> Option<u32> {
    backend::match_all(mask, value)
}

/// [`match_all`] of a 32-bit value (`match.all.sync.b32 d|p`, sm_70+).
#[inline(always)]
pub fn match_all_u32(mask: u32, value: u32) -> Option<u32> {
    backend::match_all_u32(mask, value)
}

/// The lanes of `mask` whose `pred` is true: bit `l` for lane `l` (`vote.sync.ballot.b32`;
/// CUDA's `__ballot_sync(mask, pred)`). Lanes outside `mask`, and lanes of it that have
/// exited, give 0. Every non-exited lane in `mask`, the caller included, must call it with the
/// same mask.
#[inline(always)]
pub fn ballot(mask: u32, pred: bool) -> u32 {
    backend::ballot(mask, pred)
}

/// Whether `pred` is true on any non-exited lane of `mask` (`vote.sync.any.pred`; CUDA's
/// `__any_sync(mask, pred)`). Every non-exited lane in `mask`, the caller included, must call
/// it with the same mask.
#[inline(always)]
pub fn any(mask: u32, pred: bool) -> bool {
    backend::any(mask, pred)
}

/// Whether `pred` is true on every non-exited lane of `mask` (`vote.sync.all.pred`; CUDA's
/// `__all_sync(mask, pred)`). Every non-exited lane in `mask`, the caller included, must call
/// it with the same mask.
#[inline(always)]
pub fn all(mask: u32, pred: bool) -> bool {
    backend::all(mask, pred)
}

/// Whether `pred` is the same on every non-exited lane of `mask`, all true or all false
/// (`vote.sync.uni.pred`; CUDA's `__uni_sync(mask, pred)`). Every non-exited lane in `mask`,
/// the caller included, must call it with the same mask.
#[inline(always)]
pub fn uni(mask: u32, pred: bool) -> bool {
    backend::uni(mask, pred)
}

mod sealed {
    pub trait Sealed {}
}

/// A value the shuffles move: `u32`, `i32` and `f32` in one `shfl.sync.*.b32`; `u64`, `i64`
/// and `f64` in two (the low word, then the high word), as CUDA's 64-bit `__shfl_*_sync`
/// overloads do. Bits move unchanged (a float's NaN payload included).
pub trait ShuffleValue: Copy + sealed::Sealed {
    /// `self` with each 32-bit word passed through `shfl`, low word first.
    #[doc(hidden)]
    fn map_words(self, shfl: impl FnMut(u32) -> u32) -> Self;
}

impl sealed::Sealed for u32 {}
impl ShuffleValue for u32 {
    #[inline(always)]
    fn map_words(self, mut shfl: impl FnMut(u32) -> u32) -> Self {
        shfl(self)
    }
}

impl sealed::Sealed for i32 {}
impl ShuffleValue for i32 {
    #[inline(always)]
    fn map_words(self, mut shfl: impl FnMut(u32) -> u32) -> Self {
        shfl(self as u32) as i32
    }
}

impl sealed::Sealed for f32 {}
impl ShuffleValue for f32 {
    #[inline(always)]
    fn map_words(self, mut shfl: impl FnMut(u32) -> u32) -> Self {
        f32::from_bits(shfl(self.to_bits()))
    }
}

impl sealed::Sealed for u64 {}
impl ShuffleValue for u64 {
    #[inline(always)]
    fn map_words(self, mut shfl: impl FnMut(u32) -> u32) -> Self {
        let lo = shfl(self as u32);
        let hi = shfl((self >> 32) as u32);
        (hi as u64) << 32 | lo as u64
    }
}

impl sealed::Sealed for i64 {}
impl ShuffleValue for i64 {
    #[inline(always)]
    fn map_words(self, shfl: impl FnMut(u32) -> u32) -> Self {
        (self as u64).map_words(shfl) as i64
    }
}

impl sealed::Sealed for f64 {}
impl ShuffleValue for f64 {
    #[inline(always)]
    fn map_words(self, shfl: impl FnMut(u32) -> u32) -> Self {
        f64::from_bits(self.to_bits().map_words(shfl))
    }
}

/// `value` of lane `src_lane` (`shfl.sync.idx.b32 d, a, src_lane, 0x1f, mask`; CUDA's
/// `__shfl_sync(mask, value, src_lane)`, width 32): a broadcast when every lane names the
/// same source. Only `src_lane % 32` counts. The source lane must be in `mask` (otherwise the
/// result is undefined), and every non-exited lane in `mask`, the caller included, must call
/// it with the same mask. 64-bit values take two shuffles ([`ShuffleValue`]).
#[inline(always)]
pub fn shfl_idx<T: ShuffleValue>(mask: u32, value: T, src_lane: u32) -> T {
    value.map_words(|w| backend::shfl_idx(mask, w, src_lane))
}

/// `value` of lane `lane() - delta`, or this lane's own `value` when that is below lane 0
/// (`shfl.sync.up.b32 d, a, delta, 0, mask`; CUDA's `__shfl_up_sync(mask, value, delta)`,
/// width 32). Only `delta % 32` counts. The source lane must be in `mask` (otherwise the
/// result is undefined), and every non-exited lane in `mask`, the caller included, must call
/// it with the same mask. 64-bit values take two shuffles ([`ShuffleValue`]).
#[inline(always)]
pub fn shfl_up<T: ShuffleValue>(mask: u32, value: T, delta: u32) -> T {
    value.map_words(|w| backend::shfl_up(mask, w, delta))
}

/// `value` of lane `lane() + delta`, or this lane's own `value` when that is past lane 31
/// (`shfl.sync.down.b32 d, a, delta, 0x1f, mask`; CUDA's `__shfl_down_sync(mask, value,
/// delta)`, width 32): the step of a tree reduction. Only `delta % 32` counts. The source lane
/// must be in `mask` (otherwise the result is undefined), and every non-exited lane in
/// `mask`, the caller included, must call it with the same mask. 64-bit values take two
/// shuffles ([`ShuffleValue`]).
#[inline(always)]
pub fn shfl_down<T: ShuffleValue>(mask: u32, value: T, delta: u32) -> T {
    value.map_words(|w| backend::shfl_down(mask, w, delta))
}

/// `value` of lane `lane() ^ lane_mask` (`shfl.sync.bfly.b32 d, a, lane_mask, 0x1f, mask`;
/// CUDA's `__shfl_xor_sync(mask, value, lane_mask)`, width 32): the butterfly step of an
/// all-reduce. Only `lane_mask % 32` counts. The source lane must be in `mask` (otherwise the
/// result is undefined), and every non-exited lane in `mask`, the caller included, must call
/// it with the same mask. 64-bit values take two shuffles ([`ShuffleValue`]).
#[inline(always)]
pub fn shfl_xor<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32) -> T {
    value.map_words(|w| backend::shfl_bfly(mask, w, lane_mask))
}

crate::backend::cfg_sm_90_or_host! {
    /// True on exactly one non-exited lane of `mask`, the same one every time for the same mask
    /// (`elect.sync _|p, mask`, sm_90 and PTX ISA 8.0; `cuda::ptx::elect_sync(mask)`, what
    /// `cooperative_groups::invoke_one` uses). Which lane the hardware elects is not specified
    /// (the host emulation elects the lowest). Every non-exited lane in `mask`, the caller
    /// included, must call it with the same mask. On every architecture, [`leader`] names the
    /// lowest lane of a mask without waiting.
    #[inline(always)]
    pub fn elect_one(mask: u32) -> bool {
        backend::elect_one(mask)
    }
}

/// Whether this lane is the lowest lane of `mask` (`mov.u32 %laneid`, compared with the
/// mask's lowest set bit; CUDA's `lane == __ffs(mask) - 1`), on every architecture. Not a
/// collective: it neither waits for the lanes of `mask` nor checks that they run, so `mask`
/// must be lanes known to be running this code together (from [`active_mask`], [`ballot`] or
/// [`match_any`]), as in the crate's own warp aggregation.
#[inline(always)]
pub fn leader(mask: u32) -> bool {
    lane() == mask.trailing_zeros()
}

/// The lanes running this call together that name the same `object` (by address), this lane
/// included: `activemask.b32`, then `match.any.sync.b64` on the address. The primitives
/// aggregate over this group, never over the whole active mask, so lanes of one warp that use
/// different objects (a lock per bucket, a latch per tile) each act on their own object.
/// A lane running alone (one thread per block arriving at a grid-wide barrier or latch) is its
/// own group and skips the `match.any`.
#[inline(always)]
pub fn peers<T: ?Sized>(object: &T) -> u32 {
    let active = active_mask();
    if active & active.wrapping_sub(1) == 0 {
        return active;
    }
    let address = object as *const T as *const () as usize as u64;
    match_any(active, address)
}
