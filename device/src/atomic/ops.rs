//! What each element type of [`Atomic<T, S>`] can do, as sealed traits, and the one generic
//! method per operation that dispatches to the type's PTX.
//!
//! libcu++ gives `cuda::atomic<T>` one overload set and picks the instruction per `T`; this
//! module does the same with a trait per capability:
//!
//! | trait | methods it adds to `Atomic<T, S>` | implemented for |
//! |-------|-----------------------------------|-----------------|
//! | [`AtomicAccess`] | `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update`, `update`, `try_update`, `wait*` | every scalar and half-float `T` |
//! | [`AtomicAdd`] | `fetch_add`, `fetch_sub` | integers, floats, half floats |
//! | [`AtomicRedAdd`] | `red_add` | 32/64-bit integers, floats, half floats |
//! | [`AtomicBitwise`] | `fetch_and`, `fetch_or`, `fetch_xor`, `fetch_nand` | integers |
//! | [`AtomicMinMax`] | `fetch_min`, `fetch_max` | integers, floats, half floats |
//! | [`AtomicRed`] | `red_sub`, `red_and`, `red_or`, `red_xor`, `red_min`, `red_max` | 32/64-bit integers |
//!
//! The methods are inherent (no trait to import); the traits only say which `T` has them.
//! Each type's body (its `asm!` on the GPU, its core or loom atomic on the host) is the trait
//! impl in the type's file: `int.rs`, `small.rs`, `float.rs`, `half.rs`. The trait methods are
//! hidden: call the `Atomic` methods. `u128` implements none of them: `AtomicU128` has its own
//! `load`, `store`, `swap` and `compare_exchange` (wide.rs).

use super::{Atomic, AtomicValue};
use crate::clock::Instant;
use crate::scope::Scope;
use crate::wait::TimedOut;
use core::sync::atomic::Ordering;
use core::time::Duration;

/// The element types whose atomics have `load`, `store`, `swap`, `compare_exchange(_weak)`,
/// `fetch_update`, `update`, `try_update` and the `wait` family (sealed).
///
/// Implemented for: `u32`, `i32`, `u64`, `i64`, `usize`, `isize` (the 32/64-bit integers),
/// `u8`, `i8`, `u16`, `i16` (the [`small`](super::small) integers), `f32`, `f64`, and the
/// [`half`](super::half) floats `F16`, `Bf16`, `F16x2`, `Bf16x2`: every [`AtomicValue`] but
/// `u128`, whose `AtomicU128` has its own `load`, `store`, `swap` and `compare_exchange`.
///
/// How each width maps to PTX:
/// - 32- and 64-bit types (`u32` `i32` `u64` `i64` `usize` `isize` `f32` `f64` `F16x2`
///   `Bf16x2`): one instruction per operation, `.b32` or `.b64`;
/// - 16-bit types (`u16` `i16` `F16` `Bf16`): native `ld`/`st`/`atom.cas` `.b16`; `swap` and
///   `fetch_update` are loops on the containing 32-bit word;
/// - 8-bit types (`u8` `i8`): native `ld`/`st` `.b8`; every read-modify-write is a loop on
///   the containing 32-bit word (PTX has no 8-bit `atom`).
///
/// Floats move bits: `compare_exchange` and `wait` compare bit patterns (`-0.0 != 0.0`, a NaN
/// equals the same NaN).
pub trait AtomicAccess: AtomicValue {
    #[doc(hidden)]
    fn load<S: Scope>(a: &Atomic<Self, S>, order: Ordering) -> Self;

    #[doc(hidden)]
    fn store<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn swap<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn compare_exchange<S: Scope>(
        a: &Atomic<Self, S>,
        current: Self,
        new: Self,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self, Self>;

    #[doc(hidden)]
    fn compare_exchange_weak<S: Scope>(
        a: &Atomic<Self, S>,
        current: Self,
        new: Self,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self, Self>;

    #[doc(hidden)]
    fn fetch_update<S: Scope, F: FnMut(Self) -> Option<Self>>(
        a: &Atomic<Self, S>,
        set_order: Ordering,
        fetch_order: Ordering,
        f: F,
    ) -> Result<Self, Self>;

    #[doc(hidden)]
    fn try_update<S: Scope>(
        a: &Atomic<Self, S>,
        set_order: Ordering,
        fetch_order: Ordering,
        f: impl FnMut(Self) -> Option<Self>,
    ) -> Result<Self, Self>;

    #[doc(hidden)]
    fn update<S: Scope>(
        a: &Atomic<Self, S>,
        set_order: Ordering,
        fetch_order: Ordering,
        f: impl FnMut(Self) -> Self,
    ) -> Self;

    #[doc(hidden)]
    fn wait<S: Scope>(a: &Atomic<Self, S>, old: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn wait_until<S: Scope>(
        a: &Atomic<Self, S>,
        order: Ordering,
        pred: impl FnMut(Self) -> bool,
    ) -> Self;

    #[doc(hidden)]
    fn wait_until_for<S: Scope>(
        a: &Atomic<Self, S>,
        timeout: Duration,
        order: Ordering,
        pred: impl FnMut(Self) -> bool,
    ) -> Result<Self, TimedOut>;

    #[doc(hidden)]
    fn wait_until_deadline<S: Scope>(
        a: &Atomic<Self, S>,
        deadline: Instant,
        order: Ordering,
        pred: impl FnMut(Self) -> bool,
    ) -> Result<Self, TimedOut>;
}

/// The element types whose atomics have `fetch_add` and `fetch_sub` (sealed).
///
/// Implemented for: the 32/64-bit integers (`atom.add.u32`, `.s32`, `.u64`), the
/// [`small`](super::small) integers `u8 i8 u16 i16` (loops on the containing 32-bit word), `f32`
/// and `f64` (`atom.add.f32`, `.f64`), and the [`half`](super::half) floats `F16`, `F16x2`
/// (`atom.add.noftz.f16`, `.f16x2`) and `Bf16`, `Bf16x2` (`atom.add.noftz.bf16`, `.bf16x2`:
/// on the GPU from sm_90 only; on the host always).
pub trait AtomicAdd: AtomicAccess {
    #[doc(hidden)]
    fn fetch_add<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn fetch_sub<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;
}

/// The element types whose atomics have `red_add`, an add that returns nothing (sealed):
/// those PTX has a `red.add` for.
///
/// Implemented for: the 32/64-bit integers `u32 i32 u64 i64 usize isize` (`red.add.u32`,
/// `.s32`, `.u64`), `f32`, `f64` (`red.add.f32`, `.f64`), `F16`, `F16x2`
/// (`red.add.noftz.f16`, `.f16x2`) and `Bf16`, `Bf16x2` (`red.add.noftz.bf16`, `.bf16x2`:
/// sm_90 on the GPU). Not the 8/16-bit integers: PTX has no narrow `red`.
///
/// ```compile_fail
/// use ptx_sync::{Atomic, Gpu, Ordering::Relaxed};
/// // `u8: AtomicRedAdd` does not hold: use `fetch_add` (a word loop) instead.
/// Atomic::<u8, Gpu>::new(0).red_add(1, Relaxed);
/// ```
pub trait AtomicRedAdd: AtomicAdd {
    #[doc(hidden)]
    fn red_add<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);
}

/// The element types whose atomics have `fetch_and`, `fetch_or`, `fetch_xor` and `fetch_nand`
/// (sealed).
///
/// Implemented for: the 32/64-bit integers `u32 i32 u64 i64 usize isize` (`atom.and/or/xor.b32`
/// or `.b64`; `fetch_nand` is a compare-exchange loop: PTX has no `atom.nand`) and the
/// [`small`](super::small) integers `u8 i8 u16 i16` (every one a loop on the containing 32-bit
/// word).
pub trait AtomicBitwise: AtomicAccess {
    #[doc(hidden)]
    fn fetch_and<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn fetch_or<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn fetch_xor<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn fetch_nand<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;
}

/// The element types whose atomics have `fetch_min` and `fetch_max` (sealed).
///
/// Implemented for: the 32/64-bit integers `u32 i32 u64 i64 usize isize` (`atom.min/max.u32`,
/// `.s32`, `.u64`, `.s64`), the [`small`](super::small) integers `u8 i8 u16 i16` (loops on the
/// containing 32-bit word), and `f32`, `f64`, `F16`, `Bf16`, `F16x2`, `Bf16x2`
/// (compare-exchange loops: PTX has no scalar float `atom.min`/`atom.max`; the result is IEEE
/// `minimumNumber`/`maximumNumber`, PTX's own `min`/`max` rule).
pub trait AtomicMinMax: AtomicAccess {
    #[doc(hidden)]
    fn fetch_min<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;

    #[doc(hidden)]
    fn fetch_max<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering) -> Self;
}

/// The element types whose atomics have every integer reduction: `red_sub`, `red_and`,
/// `red_or`, `red_xor`, `red_min`, `red_max` (sealed).
///
/// Implemented for: the 32/64-bit integers `u32 i32 u64 i64 usize isize` (`red.<op>` of the
/// same types as their `atom.<op>`). Not the 8/16-bit integers (PTX has no narrow `red`), not
/// the floats (their one reduction is [`red_add`](Atomic::red_add)).
pub trait AtomicRed: AtomicRedAdd + AtomicBitwise + AtomicMinMax {
    #[doc(hidden)]
    fn red_sub<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn red_and<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn red_or<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn red_xor<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn red_min<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);

    #[doc(hidden)]
    fn red_max<S: Scope>(a: &Atomic<Self, S>, val: Self, order: Ordering);
}

/// Loads, stores, exchanges and update loops: every `T` but `u128` ([`AtomicAccess`]).
///
/// The PTX of each method is given per width; [`device/PTX_TABLE.md`][table] lists the exact
/// instruction(s) of every type, order and scope. On the host every method runs on core's
/// atomic of the same width (loom's under `--cfg loom`) with the given order; the scope is
/// ignored there (host atomics are system-wide).
///
/// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
impl<T: AtomicAccess, S: Scope> Atomic<T, S> {
    /// Loads the value. Orders: Relaxed, Acquire, SeqCst.
    ///
    /// PTX: `ld.<sem>.<scope>.bN`, N the width of `T` (`b8` for `u8`/`i8`, `b16` for
    /// `u16`/`i16`/`F16`/`Bf16`, `b32` or `b64` for the rest); SeqCst is `fence.sc.<scope>`
    /// then `ld.acquire`. Floats load their bits.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Acquire};
    /// let a = Atomic::<u32, Gpu>::new(5);
    /// assert_eq!(a.load(Acquire), 5);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> T {
        T::load(self, order)
    }

    /// Stores `val`. Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `st.<sem>.<scope>.bN`, N the width of `T` (as [`load`](Self::load); an 8- or
    /// 16-bit store writes only the value's bytes); SeqCst is `fence.sc.<scope>` then
    /// `st.relaxed`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Sys, Ordering::*};
    /// let a = Atomic::<u64, Sys>::new(0);
    /// a.store(3, Release);
    /// assert_eq!(a.load(Relaxed), 3);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, val: T, order: Ordering) {
        T::store(self, val, order)
    }

    /// Stores `val` and returns the previous value. Every order.
    ///
    /// PTX (SeqCst: `fence.sc.<scope>`, then the `.acquire` form):
    /// - 32/64-bit `T`: `atom.<sem>.<scope>.exch.b32` or `.b64`;
    /// - 8/16-bit `T` (`u8 i8 u16 i16 F16 Bf16`): PTX has no narrow exchange, so a loop on the
    ///   containing 32-bit word, `ld.relaxed.<scope>.b32`, then `atom.<sem>.<scope>.cas.b32`
    ///   until no thread changed the word in between (see [`small`](crate::atomic::small) for
    ///   the cost and the containing-word rule).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<i8, Gpu>::new(7);
    /// assert_eq!(a.swap(-100, AcqRel), 7);
    /// assert_eq!(a.load(Relaxed), -100);
    /// ```
    #[inline(always)]
    pub fn swap(&self, val: T, order: Ordering) -> T {
        T::swap(self, val, order)
    }

    /// Stores `new` if the value is `current`; returns `Ok(previous)` if it did, `Err(actual)`
    /// if not. Floats compare bits (`-0.0 != 0.0`; a NaN equals the same NaN).
    ///
    /// `failure` cannot be Release or AcqRel (as in `core`). PTX `atom.cas` has a single
    /// `.sem`, so the two orders merge into the weakest one at least as strong as both (for
    /// example Release + Acquire gives `.acq_rel`; either SeqCst gives `fence.sc` +
    /// `.acquire`).
    ///
    /// PTX:
    /// - 32/64-bit `T`: `atom.<sem>.<scope>.cas.b32` or `.b64`;
    /// - 16-bit `T` (`u16 i16 F16 Bf16`): `atom.<sem>.<scope>.cas.b16` (sm_70, PTX ISA 6.3);
    /// - 8-bit `T` (`u8 i8`): PTX has no 8-bit `atom.cas`, so `ld.<failure>.<scope>.b32` of the
    ///   containing word (an `Err` from this read carries the failure order), then, while the
    ///   byte equals `current`, `atom.<sem>.<scope>.cas.b32` with the byte replaced; it retries
    ///   only when a neighbouring byte changed.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u32, Gpu>::new(1);
    /// assert_eq!(a.compare_exchange(1, 2, AcqRel, Acquire), Ok(1));
    /// assert_eq!(a.compare_exchange(1, 3, AcqRel, Acquire), Err(2));
    /// ```
    ///
    /// # Panics
    ///
    /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        T::compare_exchange(self, current, new, success, failure)
    }

    /// Same as [`compare_exchange`](Self::compare_exchange) (same PTX): PTX `atom.cas` never
    /// fails spuriously (it compares and swaps in one step at the memory, with no reservation
    /// that another access could break, unlike LL/SC machines), and the 8/16-bit word loops
    /// retry only when a neighbouring byte changed, so the weak form costs nothing extra.
    /// Provided so code written for `core` atomics ports unchanged.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Cta, Ordering::*};
    /// let a = Atomic::<u16, Cta>::new(7);
    /// let mut cur = a.load(Relaxed);
    /// while let Err(now) = a.compare_exchange_weak(cur, cur * 2, Release, Relaxed) {
    ///     cur = now;
    /// }
    /// assert_eq!(a.load(Relaxed), 14);
    /// ```
    ///
    /// # Panics
    ///
    /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        T::compare_exchange_weak(self, current, new, success, failure)
    }

    /// Applies `f` in a compare-exchange loop until the update succeeds or `f` returns `None`,
    /// like `core`'s `fetch_update`: `Ok(previous)` or `Err(current)`. `fetch_order` (the
    /// first read and the failed attempts) cannot be Release or AcqRel; each attempt's `.sem`
    /// merges both orders, as [`compare_exchange`](Self::compare_exchange) does. Floats
    /// compare bits (a NaN that `f` leaves alone is stored back as it was).
    ///
    /// PTX:
    /// - 32/64-bit `T`: `ld.<fetch>.<scope>.bN`, then `atom.<sem>.<scope>.cas.bN` per attempt;
    /// - 8/16-bit `T`: `ld.<fetch>.<scope>.b32` of the containing word, then
    ///   `atom.<sem>.<scope>.cas.b32` per attempt; `f` runs again only when the value changed,
    ///   not when only a neighbouring byte did.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<f32, Gpu>::new(3.0);
    /// assert_eq!(a.fetch_update(AcqRel, Acquire, |x| (x < 4.0).then_some(x * 2.0)), Ok(3.0));
    /// assert_eq!(a.fetch_update(AcqRel, Acquire, |x| (x < 4.0).then_some(x * 2.0)), Err(6.0));
    /// ```
    ///
    /// # Panics
    ///
    /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<T, T>
    where
        F: FnMut(T) -> Option<T>,
    {
        T::fetch_update(self, set_order, fetch_order, f)
    }

    /// `core`'s `try_update`: the same as [`fetch_update`](Self::fetch_update) (same PTX).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u8, Gpu>::new(254);
    /// assert_eq!(a.try_update(AcqRel, Acquire, |x| x.checked_add(1)), Ok(254));
    /// assert_eq!(a.try_update(AcqRel, Acquire, |x| x.checked_add(1)), Err(255));
    /// ```
    ///
    /// # Panics
    ///
    /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn try_update(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        f: impl FnMut(T) -> Option<T>,
    ) -> Result<T, T> {
        T::try_update(self, set_order, fetch_order, f)
    }

    /// `core`'s `update`: applies `f` in a compare-exchange loop until the update succeeds;
    /// returns the previous value. Orders and PTX as [`fetch_update`](Self::fetch_update).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u32, Gpu>::new(6);
    /// assert_eq!(a.update(Release, Relaxed, |x| x * 7), 6);
    /// assert_eq!(a.load(Relaxed), 42);
    /// ```
    ///
    /// # Panics
    ///
    /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn update(&self, set_order: Ordering, fetch_order: Ordering, f: impl FnMut(T) -> T) -> T {
        T::update(self, set_order, fetch_order, f)
    }
}

/// Addition: the integers, floats and half floats ([`AtomicAdd`]).
///
/// [`device/PTX_TABLE.md`][table] lists the exact instruction of every type, order and scope.
///
/// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
impl<T: AtomicAdd, S: Scope> Atomic<T, S> {
    /// Adds `val` and returns the previous value: wrapping for the integers, IEEE
    /// round-to-nearest for the floats (the half floats keep subnormals; pairs add lane by
    /// lane). Every order.
    ///
    /// PTX (SeqCst: `fence.sc.<scope>`, then the `.acquire` form):
    /// - 32/64-bit integers: `atom.<sem>.<scope>.add.u32`, `.s32` (`i32`) or `.u64` (`u64`,
    ///   `i64`, `usize`, `isize`: two's-complement addition is one operation);
    /// - `f32`, `f64`: `atom.<sem>.<scope>.add.f32`, `.f64`;
    /// - `F16`, `Bf16`, `F16x2`, `Bf16x2`: `atom.<sem>.<scope>.add.noftz.f16`, `.bf16`,
    ///   `.f16x2`, `.bf16x2` (the `bf16` forms need sm_90);
    /// - 8/16-bit integers: PTX has no narrow `atom.add`, so a loop on the containing 32-bit
    ///   word, `ld.relaxed.<scope>.b32`, then `atom.<sem>.<scope>.cas.b32` until no thread
    ///   changed the word in between; the order applies to the compare-and-swap that
    ///   succeeds (slower than a native `atom`: see [`small`](crate::atomic::small)).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Cta, Ordering::Relaxed};
    /// let a = Atomic::<u32, Cta>::new(40);
    /// assert_eq!(a.fetch_add(2, Relaxed), 40);
    /// assert_eq!(a.load(Relaxed), 42);
    /// ```
    #[inline(always)]
    pub fn fetch_add(&self, val: T, order: Ordering) -> T {
        T::fetch_add(self, val, order)
    }

    /// Subtracts `val` and returns the previous value: wrapping for the integers; the floats
    /// add `-val` (an exact sign flip, then the same rounding). Every order.
    ///
    /// PTX has no `atom.sub`: the [`fetch_add`](Self::fetch_add) instruction of `T` with
    /// `val.wrapping_neg()` (integers) or `-val` (floats); for the 8/16-bit integers the same
    /// containing-word loop as `fetch_add`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::Relaxed};
    /// let a = Atomic::<i64, Gpu>::new(0);
    /// assert_eq!(a.fetch_sub(5, Relaxed), 0);
    /// assert_eq!(a.load(Relaxed), -5);
    /// ```
    #[inline(always)]
    pub fn fetch_sub(&self, val: T, order: Ordering) -> T {
        T::fetch_sub(self, val, order)
    }
}

/// The add that returns nothing: the 32/64-bit integers, floats and half floats
/// ([`AtomicRedAdd`]).
impl<T: AtomicRedAdd, S: Scope> Atomic<T, S> {
    /// Adds `val` (as [`fetch_add`](Self::fetch_add)) without returning anything: a PTX
    /// reduction, which the memory system can complete without sending a value back to the
    /// thread.
    ///
    /// Orders: Relaxed, Release, SeqCst (a `red` reads nothing to acquire).
    ///
    /// PTX: `red.<sem>.<scope>.add.T`, with `fetch_add`'s type (`u32`, `s32`, `u64`, `f32`,
    /// `f64`, `noftz.f16`, `noftz.bf16`, `noftz.f16x2`, `noftz.bf16x2`); SeqCst is
    /// `fence.sc.<scope>` then `red.relaxed`. Exact forms in
    /// [`device/PTX_TABLE.md`][table].
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<f64, Gpu>::new(1.5);
    /// a.red_add(2.0, Release);
    /// assert_eq!(a.load(Acquire), 3.5);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    ///
    /// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
    #[inline(always)]
    #[track_caller]
    pub fn red_add(&self, val: T, order: Ordering) {
        T::red_add(self, val, order)
    }
}

/// Bitwise operations: the integers ([`AtomicBitwise`]).
///
/// [`device/PTX_TABLE.md`][table] lists the exact instruction of every type, order and scope.
///
/// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
impl<T: AtomicBitwise, S: Scope> Atomic<T, S> {
    /// Bitwise AND with `val`; returns the previous value. Every order.
    ///
    /// PTX (SeqCst: `fence.sc.<scope>`, then the `.acquire` form):
    /// - 32/64-bit integers: `atom.<sem>.<scope>.and.b32` or `.b64`;
    /// - 8/16-bit integers: a loop on the containing 32-bit word, `ld.relaxed.<scope>.b32`,
    ///   then `atom.<sem>.<scope>.cas.b32` until no thread changed the word in between (see
    ///   [`small`](crate::atomic::small)).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u32, Gpu>::new(0b1100);
    /// assert_eq!(a.fetch_and(0b1010, AcqRel), 0b1100);
    /// assert_eq!(a.load(Relaxed), 0b1000);
    /// ```
    #[inline(always)]
    pub fn fetch_and(&self, val: T, order: Ordering) -> T {
        T::fetch_and(self, val, order)
    }

    /// Bitwise OR with `val`; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.or.b32` or `.b64`; for the 8/16-bit integers the
    /// containing-word loop of [`fetch_and`](Self::fetch_and).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u8, Gpu>::new(0b1100);
    /// assert_eq!(a.fetch_or(0b1010, AcqRel), 0b1100);
    /// assert_eq!(a.load(Relaxed), 0b1110);
    /// ```
    #[inline(always)]
    pub fn fetch_or(&self, val: T, order: Ordering) -> T {
        T::fetch_or(self, val, order)
    }

    /// Bitwise XOR with `val`; returns the previous value. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.xor.b32` or `.b64`; for the 8/16-bit integers the
    /// containing-word loop of [`fetch_and`](Self::fetch_and).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u64, Gpu>::new(0b1100);
    /// assert_eq!(a.fetch_xor(0b1010, AcqRel), 0b1100);
    /// assert_eq!(a.load(Relaxed), 0b0110);
    /// ```
    #[inline(always)]
    pub fn fetch_xor(&self, val: T, order: Ordering) -> T {
        T::fetch_xor(self, val, order)
    }

    /// Bitwise NAND with `val` (stores `!(old & val)`); returns the previous value. Every
    /// order.
    ///
    /// PTX has no `atom.nand`, so this is a compare-exchange loop, not one instruction: for the
    /// 32/64-bit integers `ld.relaxed.<scope>.bN` for the first guess, then
    /// `atom.<sem>.<scope>.cas.bN` (SeqCst: `fence.sc.<scope>` before it) until the value did
    /// not change in between; for the 8/16-bit integers the containing-word loop of
    /// [`fetch_and`](Self::fetch_and). Under contention it costs a round trip per lost race.
    /// The order applies to the exchange that succeeds; the guesses are relaxed.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<i32, Gpu>::new(0b1100);
    /// assert_eq!(a.fetch_nand(0b1010, AcqRel), 0b1100);
    /// assert_eq!(a.load(Relaxed), !0b1000);
    /// ```
    #[inline(always)]
    pub fn fetch_nand(&self, val: T, order: Ordering) -> T {
        T::fetch_nand(self, val, order)
    }
}

/// Minimum and maximum: the integers, floats and half floats ([`AtomicMinMax`]).
///
/// [`device/PTX_TABLE.md`][table] lists the exact instruction of every type, order and scope.
///
/// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
impl<T: AtomicMinMax, S: Scope> Atomic<T, S> {
    /// Stores the minimum of the value and `val`; returns the previous value. Every order.
    ///
    /// For the floats the minimum is PTX's `min` (IEEE 754-2019 `minimumNumber`): a NaN operand
    /// is ignored (the other value is stored), two NaNs store the canonical NaN, and `-0.0` is
    /// below `+0.0`; the pairs (`F16x2`, `Bf16x2`) lane by lane. Unlike `f32::min`, the sign of
    /// a zero result is defined.
    ///
    /// PTX (SeqCst: `fence.sc.<scope>` before the `atom`):
    /// - 32/64-bit integers: `atom.<sem>.<scope>.min.u32`, `.s32`, `.u64` or `.s64`
    ///   (signedness of `T`);
    /// - 8/16-bit integers: a loop on the containing 32-bit word, `ld.relaxed.<scope>.b32`,
    ///   then `atom.<sem>.<scope>.cas.b32` until no thread changed the word in between;
    /// - floats: PTX has no scalar float `atom.min`, so a compare-exchange loop on the bits,
    ///   `ld.<scope>.bN` (relaxed, or acquire when `order` acquires), then
    ///   `atom.<sem>.<scope>.cas.bN` until it succeeds (`.b32` on the containing word for
    ///   `F16`, `Bf16`). The order applies to the exchange that succeeds. When the value would
    ///   not change (it is already at most `val`), there is no exchange: the load is the whole
    ///   operation, with the acquire part of `order` (libcu++ 13.0's float `fetch_min`/`max`
    ///   exchange anyway).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<i32, Gpu>::new(3);
    /// assert_eq!(a.fetch_min(-4, AcqRel), 3);
    /// assert_eq!(a.load(Relaxed), -4);
    ///
    /// let f = Atomic::<f32, Gpu>::new(f32::NAN);
    /// assert!(f.fetch_min(2.0, AcqRel).is_nan());
    /// assert_eq!(f.fetch_min(f32::NAN, AcqRel), 2.0);
    /// assert_eq!(f.load(Relaxed), 2.0); // the NaN was ignored
    /// ```
    #[inline(always)]
    pub fn fetch_min(&self, val: T, order: Ordering) -> T {
        T::fetch_min(self, val, order)
    }

    /// Stores the maximum of the value and `val`; returns the previous value. Every order.
    ///
    /// For the floats the maximum is PTX's `max` (IEEE 754-2019 `maximumNumber`): a NaN operand
    /// is ignored, two NaNs store the canonical NaN, and `+0.0` is above `-0.0`; the pairs lane
    /// by lane.
    ///
    /// PTX: as [`fetch_min`](Self::fetch_min), with `atom.<sem>.<scope>.max` for the 32/64-bit
    /// integers.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<f64, Gpu>::new(-0.0);
    /// assert_eq!(a.fetch_max(0.0, SeqCst).to_bits(), (-0.0f64).to_bits());
    /// assert!(a.load(Relaxed).is_sign_positive());
    /// let b = Atomic::<u16, Gpu>::new(7);
    /// assert_eq!(b.fetch_max(60000, Relaxed), 7);
    /// assert_eq!(b.load(Relaxed), 60000);
    /// ```
    #[inline(always)]
    pub fn fetch_max(&self, val: T, order: Ordering) -> T {
        T::fetch_max(self, val, order)
    }
}

/// The integer reductions but `red_add`: the 32/64-bit integers ([`AtomicRed`]).
///
/// Each is a PTX reduction, which the memory system can complete without sending a value back
/// to the thread. Orders: Relaxed, Release, SeqCst (a `red` reads nothing to acquire); SeqCst
/// is `fence.sc.<scope>` then `red.relaxed`. [`device/PTX_TABLE.md`][table] lists the exact
/// instruction of every type, order and scope.
///
/// [table]: https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md
impl<T: AtomicRed, S: Scope> Atomic<T, S> {
    /// Subtracts `val` (wrapping) without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.add` of `val.wrapping_neg()`, with
    /// [`fetch_add`](Self::fetch_add)'s type (`u32`, `s32`, `u64`).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u32, Gpu>::new(10);
    /// a.red_sub(3, Release);
    /// assert_eq!(a.load(Acquire), 7);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_sub(&self, val: T, order: Ordering) {
        T::red_sub(self, val, order)
    }

    /// Bitwise AND with `val`, without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.and.b32` or `.b64`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u64, Gpu>::new(0b1100);
    /// a.red_and(0b1010, Relaxed);
    /// assert_eq!(a.load(Relaxed), 0b1000);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_and(&self, val: T, order: Ordering) {
        T::red_and(self, val, order)
    }

    /// Bitwise OR with `val`, without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.or.b32` or `.b64`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<u32, Gpu>::new(0b1100);
    /// a.red_or(0b1010, Relaxed);
    /// assert_eq!(a.load(Relaxed), 0b1110);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_or(&self, val: T, order: Ordering) {
        T::red_or(self, val, order)
    }

    /// Bitwise XOR with `val`, without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.xor.b32` or `.b64`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<i32, Gpu>::new(0b1100);
    /// a.red_xor(0b1010, SeqCst);
    /// assert_eq!(a.load(Relaxed), 0b0110);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_xor(&self, val: T, order: Ordering) {
        T::red_xor(self, val, order)
    }

    /// Stores the minimum of the value and `val`, without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.min.u32`, `.s32`, `.u64` or `.s64` (signedness of `T`).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<isize, Gpu>::new(3);
    /// a.red_min(-4, Relaxed);
    /// assert_eq!(a.load(Relaxed), -4);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_min(&self, val: T, order: Ordering) {
        T::red_min(self, val, order)
    }

    /// Stores the maximum of the value and `val`, without returning anything.
    ///
    /// PTX: `red.<sem>.<scope>.max.u32`, `.s32`, `.u64` or `.s64` (signedness of `T`).
    ///
    /// ```
    /// use ptx_sync::{Atomic, Gpu, Ordering::*};
    /// let a = Atomic::<usize, Gpu>::new(3);
    /// a.red_max(9, Release);
    /// assert_eq!(a.load(Acquire), 9);
    /// ```
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
    /// message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn red_max(&self, val: T, order: Ordering) {
        T::red_max(self, val, order)
    }
}
