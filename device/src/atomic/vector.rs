//! sm_90 vector atomics on global memory: several float lanes updated by one `atom` or `red`
//! (PTX ISA 8.1, "atom with vector type"), each lane atomically on its own.
//!
//! | type | memory | `fetch_add` | `red_add` | `fetch_min` / `fetch_max` | `red_min` / `red_max` |
//! |------|--------|-------------|-----------|---------------------------|-----------------------|
//! | [`AtomicF32x2<S>`] | `[f32; 2]`, 8-byte aligned | `atom.<sem>.S.add.v2.f32` | `red.<sem>.S.add.v2.f32` | (PTX has none) | (none) |
//! | [`AtomicF32x4<S>`] | `[f32; 4]`, 16-byte aligned | `atom.<sem>.S.add.v4.f32` | `red.<sem>.S.add.v4.f32` | (none) | (none) |
//! | [`AtomicF16x4<S>`] | `[F16; 4]`, 8-byte aligned | `atom.<sem>.S.add.noftz.v2.f16x2` | `red.<sem>.S.add.noftz.v2.f16x2` | `atom.<sem>.S.min/max.noftz.v2.f16x2` | `red.<sem>.S.min/max.noftz.v2.f16x2` |
//! | [`AtomicF16x8<S>`] | `[F16; 8]`, 16-byte aligned | `atom.<sem>.S.add.noftz.v4.f16x2` | `red.<sem>.S.add.noftz.v4.f16x2` | `atom.<sem>.S.min/max.noftz.v4.f16x2` | `red.<sem>.S.min/max.noftz.v4.f16x2` |
//! | [`AtomicBf16x4<S>`] | `[Bf16; 4]`, 8-byte aligned | `atom.<sem>.S.add.noftz.v2.bf16x2` | `red.<sem>.S.add.noftz.v2.bf16x2` | `atom.<sem>.S.min/max.noftz.v2.bf16x2` | `red.<sem>.S.min/max.noftz.v2.bf16x2` |
//! | [`AtomicBf16x8<S>`] | `[Bf16; 8]`, 16-byte aligned | `atom.<sem>.S.add.noftz.v4.bf16x2` | `red.<sem>.S.add.noftz.v4.bf16x2` | `atom.<sem>.S.min/max.noftz.v4.bf16x2` | `red.<sem>.S.min/max.noftz.v4.bf16x2` |
//!
//! (`<sem>` and SeqCst as in [`Atomic`]'s table: `fence.sc.S` + `.acquire` for `atom`,
//! `fence.sc.S` + `.relaxed` for `red`, which takes Relaxed, Release and SeqCst only.)
//!
//! PTX also has `.v2/.v4/.v8` of single `.f16` / `.bf16` lanes; they update the same bytes as
//! the `.f16x2` / `.bf16x2` forms above (`.v4.f16` is `.v2.f16x2`, `.v8.f16` is `.v4.f16x2`),
//! so the crate emits the packed forms only; `.v2.f16` is the scalar `atom.add.noftz.f16x2` of
//! [`Atomic<F16x2, S>`](crate::atomic::AtomicF16x2), which works in shared memory too. There
//! is no `.v8` of packed lanes, and no vector `min` / `max` of `f32` (nor any vector integer
//! atom).
//!
//! **Global memory only.** PTX defines vector `atom` and `red` for the `.global` state space
//! (and generic addresses that point there), not for shared memory. A debug build checks every
//! call with `isspacep.global` and traps with a message otherwise (release builds emit nothing),
//! like the crate's check against local memory. **sm_90 on the GPU** (vector atomics are sm_90
//! instructions); on the host the types exist everywhere.
//!
//! **Atomic per lane.** PTX: "the atomicity is guaranteed separately for each of the individual
//! scalar elements; the entire atom is not guaranteed to be atomic as a single access". Another
//! thread may see some lanes updated and others not; what one call returns is, lane by lane, the
//! value that lane's update replaced. Use [`lanes`](AtomicF32x2::lanes) to load or update one
//! lane with the scalar [`Atomic`] methods (each lane is an `Atomic<f32 | F16 | Bf16, S>`).
//!
//! Rounding: round to nearest even. The `f32` vector add flushes subnormal inputs and results to
//! sign-preserving zero, as `atom.add.f32` does on global memory without `.noftz` (which
//! needs PTX ISA 9.4 for `.f32`; this crate emits ISA 8.4). The half forms require and carry
//! `.noftz`: subnormals are kept. `min` / `max` are PTX's (IEEE `minimumNumber` /
//! `maximumNumber`: a NaN operand is ignored, two NaNs give the canonical NaN, `-0.0 < +0.0`).
//!
//! On the host backend each method is the scalar operation on each lane in turn (atomic per lane,
//! as on the GPU; `f32` subnormals are not flushed there).
//!
//! ```
//! use ptx_sync::atomic::AtomicF32x4;
//! use ptx_sync::{Gpu, Ordering::*};
//!
//! static ACC: AtomicF32x4<Gpu> = AtomicF32x4::new([0.0; 4]);
//! ACC.red_add([1.0, 2.0, 3.0, 4.0], Relaxed); // red.relaxed.gpu.add.v4.f32
//! assert_eq!(ACC.fetch_add([0.5; 4], AcqRel), [1.0, 2.0, 3.0, 4.0]);
//! assert_eq!(ACC.lanes()[3].load(Acquire), 4.5);
//! ```

use super::Atomic;
use crate::backend::on_target;
use crate::float16::{Bf16, F16};
use crate::order;
use crate::scope::Scope;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::sync::atomic::Ordering;

/// In a debug build on the GPU, traps with a message when `object` is not in global memory:
/// PTX defines vector `atom`/`red` for `.global` only. One `isspacep.global`; release builds
/// emit nothing.
#[inline(always)]
fn debug_check_global<T: ?Sized>(object: &T) {
    if cfg!(debug_assertions) && !crate::backend::check::is_global(object as *const T as *const u8)
    {
        crate::debug::trap(
            c"ptx-sync: a vector atomic (AtomicF32x2/x4, AtomicF16x4/x8, AtomicBf16x4/x8) \
              outside global memory: PTX vector atom/red exist for .global only\n",
        );
    }
}

macro_rules! vector_common {
    ($name:ident, $lane:ident, $n:literal, $align:literal, $what:expr) => {
        #[doc = concat!($what, " at scope `S`, updated together by sm_90's vector `atom` / `red`")]
        /// (each lane atomically on its own); **global memory only**.
        #[doc = concat!(stringify!($align), " bytes, ", stringify!($align), "-byte aligned.")]
        /// See the [module](crate::atomic::vector) for the PTX.
        #[repr(C, align($align))]
        pub struct $name<S: Scope> {
            value: UnsafeCell<[$lane; $n]>,
            scope: PhantomData<S>,
        }

        // SAFETY: as core's atomics are `Sync`: every access through `&self` is atomic (per
        // lane). (`Send` is the field's: the lanes are plain floats.)
        unsafe impl<S: Scope> Sync for $name<S> {}

        /// The lanes, each read with its own `Relaxed` load (not one snapshot of the vector).
        impl<S: Scope> core::fmt::Debug for $name<S> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(self.lanes(), f)
            }
        }

        impl<S: Scope> $name<S> {
            /// New lanes holding `value` (a `static` is in global memory, which these need).
            #[inline(always)]
            pub const fn new(value: [$lane; $n]) -> Self {
                Self { value: UnsafeCell::new(value), scope: PhantomData }
            }

            #[doc = concat!("Views the `[", stringify!($lane), "; ", stringify!($n), "]` at `ptr` as vector atomic lanes.")]
            ///
            /// # Safety
            #[doc = concat!("`ptr` is valid for reads and writes, ", stringify!($align), "-byte aligned, in global")]
            /// memory (a debug build traps on the GPU otherwise), for all of `'a`, and every
            /// concurrent access to it during `'a` is atomic.
            ///
            /// # Panics
            ///
            /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not
            #[doc = concat!(stringify!($align), "-byte aligned; release builds do not check.")]
            #[inline(always)]
            pub unsafe fn from_ptr<'a>(ptr: *mut [$lane; $n]) -> &'a Self {
                debug_check!(ptr as usize % $align == 0, concat!(stringify!($name), "::from_ptr: misaligned pointer"));
                // SAFETY: `repr(C)` over `UnsafeCell<[$lane; $n]>`, whose alignment the caller
                // guarantees along with validity.
                unsafe { &*(ptr as *const Self) }
            }

            /// The address of the lanes (generic address space on the GPU).
            #[inline(always)]
            pub const fn as_ptr(&self) -> *mut [$lane; $n] {
                self.value.get()
            }

            /// Each lane as a scalar atomic, for loads, stores and single-lane updates.
            #[inline(always)]
            pub fn lanes(&self) -> &[Atomic<$lane, S>; $n] {
                // SAFETY: `Atomic<T, S>` is `repr(transparent)` over `UnsafeCell<T>`, so the
                // array of cells has the layout of the array of values.
                unsafe { &*self.as_ptr().cast::<[Atomic<$lane, S>; $n]>() }
            }

            /// Consumes the lanes and returns their values.
            #[inline(always)]
            pub fn into_inner(self) -> [$lane; $n] {
                self.value.into_inner()
            }
        }
    };
}

macro_rules! vector_f32 {
    ($name:ident, $n:literal, $align:literal, $v:literal, $atom:ident, $red:ident, ex = $ex:literal) => {
        vector_common!($name, f32, $n, $align, concat!(stringify!($n), " `f32` lanes"));

        impl<S: Scope> $name<S> {
            /// Adds `val` lane by lane (round to nearest even; subnormals flush to zero on the GPU)
            /// and returns the lanes' previous values. Every order.
            ///
            #[doc = concat!("PTX: `atom.<sem>.<scope>.add.", $v, ".f32` (SeqCst: `fence.sc.<scope>` + `.acquire`).")]
            ///
            /// ```
            #[doc = concat!("use ptx_sync::{atomic::", stringify!($name), ", Gpu, Ordering::Relaxed};")]
            #[doc = concat!("let a = ", stringify!($name), "::<Gpu>::new([1.0; ", stringify!($n), "]);")]
            #[doc = concat!("assert_eq!(a.fetch_add(", $ex, ", Relaxed), [1.0; ", stringify!($n), "]);")]
            #[doc = concat!("assert_eq!(a.fetch_add([0.0; ", stringify!($n), "], Relaxed)[1], 3.0);")]
            /// ```
            ///
            /// # Panics
            ///
            /// In a debug build on the GPU, traps with a message when the lanes are not in global
            /// memory.
            #[inline(always)]
            pub fn fetch_add(&self, val: [f32; $n], order: Ordering) -> [f32; $n] {
                debug_check_global(self);
                on_target!(sem = order::rmw(order);
                    gpu: with_rmw_sem!(S, sem; $atom!("add", "f32", self.as_ptr(), val.map(f32::to_bits)))
                        .map(f32::from_bits),
                    host: core::array::from_fn(|i| self.lanes()[i].fetch_add(val[i], order)))
            }

            /// Adds `val` lane by lane without returning anything. Orders: Relaxed, Release, SeqCst.
            ///
            #[doc = concat!("PTX: `red.<sem>.<scope>.add.", $v, ".f32` (SeqCst: `fence.sc.<scope>` + `.relaxed`).")]
            ///
            /// # Panics
            ///
            /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
            /// message and traps). In a debug build on the GPU, traps with a message when the
            /// lanes are not in global memory.
            #[inline(always)]
            #[track_caller]
            pub fn red_add(&self, val: [f32; $n], order: Ordering) {
                debug_check_global(self);
                on_target!(sem = order::store(order);
                    gpu: with_store_sem!(S, sem; $red!("add", "f32", self.as_ptr(), val.map(f32::to_bits))),
                    host: { for i in 0..$n { self.lanes()[i].red_add(val[i], order) } })
            }
        }
    };
}

macro_rules! vector_half {
    ($name:ident, $lane:ident, $n:literal, $w:literal, $align:literal, $v:literal, $ty:literal, $atom:ident, $red:ident) => {
        vector_common!($name, $lane, $n, $align,
            concat!(stringify!($n), " [`", stringify!($lane), "`] lanes"));

        impl<S: Scope> $name<S> {
            vector_half!(@fetch $lane, $n, $w, $v, $ty, $atom, fetch_add, fetch_add, "add.noftz",
                "Adds `val` lane by lane (round to nearest even, subnormals kept)");
            vector_half!(@fetch $lane, $n, $w, $v, $ty, $atom, fetch_min, fetch_min, "min.noftz",
                "Stores the minimum of each lane and `val`'s (IEEE `minimumNumber`, PTX's `min`)");
            vector_half!(@fetch $lane, $n, $w, $v, $ty, $atom, fetch_max, fetch_max, "max.noftz",
                "Stores the maximum of each lane and `val`'s (IEEE `maximumNumber`, PTX's `max`)");
            vector_half!(@red $lane, $n, $w, $v, $ty, $red, red_add, fetch_add, "add.noftz", "Adds `val` lane by lane");
            vector_half!(@red $lane, $n, $w, $v, $ty, $red, red_min, fetch_min, "min.noftz",
                "Stores the minimum of each lane and `val`'s");
            vector_half!(@red $lane, $n, $w, $v, $ty, $red, red_max, fetch_max, "max.noftz",
                "Stores the maximum of each lane and `val`'s");
        }
    };

    (@fetch $lane:ident, $n:literal, $w:literal, $v:literal, $ty:literal, $atom:ident, $name:ident, $scalar:ident, $op:literal, $what:literal) => {
        #[doc = concat!($what, " and returns the lanes' previous values. Every order.")]
        ///
        #[doc = concat!("PTX: `atom.<sem>.<scope>.", $op, ".", $v, ".", $ty, "` (SeqCst: `fence.sc.<scope>` + `.acquire`).")]
        ///
        /// # Panics
        ///
        /// In a debug build on the GPU, traps with a message when the lanes are not in global
        /// memory.
        #[inline(always)]
        pub fn $name(&self, val: [$lane; $n], order: Ordering) -> [$lane; $n] {
            debug_check_global(self);
            on_target!(sem = order::rmw(order);
                gpu: crate::backend::atomic::vector::unpack::<$lane, $n, $w>(with_rmw_sem!(S, sem;
                    $atom!($op, $ty, self.as_ptr(), crate::backend::atomic::vector::pack::<$lane, $n, $w>(val)))),
                host: core::array::from_fn(|i| self.lanes()[i].$scalar(val[i], order)))
        }
    };

    (@red $lane:ident, $n:literal, $w:literal, $v:literal, $ty:literal, $red:ident, $name:ident, $scalar:ident, $op:literal, $what:literal) => {
        #[doc = concat!($what, " without returning anything. Orders: Relaxed, Release, SeqCst.")]
        ///
        #[doc = concat!("PTX: `red.<sem>.<scope>.", $op, ".", $v, ".", $ty, "` (SeqCst: `fence.sc.<scope>` + `.relaxed`).")]
        ///
        /// # Panics
        ///
        /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
        /// message and traps). In a debug build on the GPU, traps with a message when the lanes
        /// are not in global memory.
        #[inline(always)]
        #[track_caller]
        pub fn $name(&self, val: [$lane; $n], order: Ordering) {
            debug_check_global(self);
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; $red!($op, $ty, self.as_ptr(), crate::backend::atomic::vector::pack::<$lane, $n, $w>(val))),
                host: { for i in 0..$n { self.lanes()[i].$scalar(val[i], order); } })
        }
    };
}

vector_f32!(
    AtomicF32x2,
    2,
    8,
    "v2",
    ptx_atom_v2,
    ptx_red_v2,
    ex = "[0.5, 2.0]"
);
vector_f32!(
    AtomicF32x4,
    4,
    16,
    "v4",
    ptx_atom_v4,
    ptx_red_v4,
    ex = "[0.5, 2.0, 3.0, -1.0]"
);
vector_half!(
    AtomicF16x4,
    F16,
    4,
    2,
    8,
    "v2",
    "f16x2",
    ptx_atom_v2,
    ptx_red_v2
);
vector_half!(
    AtomicF16x8,
    F16,
    8,
    4,
    16,
    "v4",
    "f16x2",
    ptx_atom_v4,
    ptx_red_v4
);
vector_half!(
    AtomicBf16x4,
    Bf16,
    4,
    2,
    8,
    "v2",
    "bf16x2",
    ptx_atom_v2,
    ptx_red_v2
);
vector_half!(
    AtomicBf16x8,
    Bf16,
    8,
    4,
    16,
    "v4",
    "bf16x2",
    ptx_atom_v4,
    ptx_red_v4
);
