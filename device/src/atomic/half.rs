//! Half-float atomics: `Atomic<F16 | Bf16 | F16x2 | Bf16x2, S>` ([`AtomicF16`],
//! [`AtomicBf16`], [`AtomicF16x2`], [`AtomicBf16x2`]; the value types are in
//! [`float16`](crate::float16)).
//!
//! PTX adds half floats natively (`atom.add.noftz` and `red.add.noftz`, which keep subnormals:
//! PTX requires `.noftz` for these types), and moves their bits with the 16- and 32-bit
//! instructions. It has no scalar `atom.min` / `atom.max` for any float type (only the
//! sm_90 vector forms of [`vector`](crate::atomic::vector) have them), so `fetch_min` and
//! `fetch_max` are compare-exchange loops here, as they are for `f32` and `f64`.
//!
//! | operation | `F16` | `Bf16` | `F16x2` | `Bf16x2` |
//! |-----------|-------|--------|---------|----------|
//! | `load` / `store` | `ld/st.<sem>.S.b16` | `ld/st.<sem>.S.b16` | `ld/st.<sem>.S.b32` | `ld/st.<sem>.S.b32` |
//! | `compare_exchange(_weak)` | `atom.<sem>.S.cas.b16` | `atom.<sem>.S.cas.b16` | `atom.<sem>.S.cas.b32` | `atom.<sem>.S.cas.b32` |
//! | `swap` | word loop (`ld.relaxed.S.b32`, `atom.<sem>.S.cas.b32`) | word loop | `atom.<sem>.S.exch.b32` | `atom.<sem>.S.exch.b32` |
//! | `fetch_add`, `fetch_sub` (add of `-val`) | `atom.<sem>.S.add.noftz.f16` (sm_70) | `atom.<sem>.S.add.noftz.bf16` (sm_90) | `atom.<sem>.S.add.noftz.f16x2` | `atom.<sem>.S.add.noftz.bf16x2` (sm_90) |
//! | `red_add` | `red.<sem>.S.add.noftz.f16` | `red.<sem>.S.add.noftz.bf16` (sm_90) | `red.<sem>.S.add.noftz.f16x2` | `red.<sem>.S.add.noftz.bf16x2` (sm_90) |
//! | `fetch_min`, `fetch_max` | `ld.relaxed.S.b32`, then `atom.<sem>.S.cas.b32` until it succeeds (every type) | | | |
//! | `fetch_update`, `try_update`, `update` | `ld.<fetch>.S.b32`, then `atom.<sem>.S.cas.b32` per attempt (every type) | | | |
//!
//! The 16-bit types follow the [`small`](crate::atomic::small) integers (their bits are an
//! `Atomic<u16, S>`): a word loop reads and rewrites the aligned 4-byte word around the value,
//! so that word must be valid memory (the rule in that module), and the loops are slower than
//! a native `atom`. (ptxas 13 for sm_90 also expands the scalar `atom.add.noftz.f16` and
//! `.bf16` into a compare-and-swap loop on the containing word: the hardware adds 32-bit
//! pairs. The packed `.f16x2` / `.bf16x2` adds are single instructions.)
//!
//! The packed pairs are atomic per lane, as PTX defines `.f16x2`: each lane's update is atomic,
//! the pair is not one access (the compare-exchange loops happen to update both lanes at once).
//!
//! `fetch_min` / `fetch_max` are IEEE 754-2019 `minimumNumber` / `maximumNumber`, the rule of
//! PTX's own `min` / `max`: a NaN operand is ignored (the other value wins), two NaNs give the
//! canonical NaN (`0x7fff`), and `-0.0` is below `+0.0`; pairs lane by lane. Loads, stores,
//! swaps and compare-exchanges move bits (`-0.0 != 0.0`, a NaN equals the same NaN).
//!
//! `Bf16` and `Bf16x2` adds need sm_90 on the GPU (`atom.add.noftz.bf16` is an sm_90
//! instruction): below it those three methods do not exist; everything else does from sm_70.
//! On the host every method exists: the bits are core's `AtomicU16` / `AtomicU32` and the
//! adds a compare-exchange loop that adds through `f32` (exact for one add: an `f32` has more
//! than twice the half types' precision plus two bits, so rounding the `f32` sum again to the
//! half type gives the correctly rounded half sum, as the GPU's `.rn` add does).

use super::float::float_add_api;
#[cfg(target_arch = "nvptx64")]
use super::ptx::{ptx_atom, ptx_red, with_rmw_sem, with_store_sem};
#[cfg(not(target_arch = "nvptx64"))]
use super::read_part;
use super::update::{bits_fetch_update, update_api};
use super::Atomic;
use crate::backend::on_target;
use crate::float16::{Bf16, Bf16x2, F16x2, MinMaxNum, F16};
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// `Atomic<F16, S>`: a binary16 float (2 bytes).
pub type AtomicF16<S> = Atomic<F16, S>;
/// `Atomic<Bf16, S>`: a bfloat16 float (2 bytes; adds need sm_90 on the GPU).
pub type AtomicBf16<S> = Atomic<Bf16, S>;
/// `Atomic<F16x2, S>`: two binary16 lanes in one 4-byte word.
pub type AtomicF16x2<S> = Atomic<F16x2, S>;
/// `Atomic<Bf16x2, S>`: two bfloat16 lanes in one 4-byte word (adds need sm_90 on the GPU).
pub type AtomicBf16x2<S> = Atomic<Bf16x2, S>;

/// Correctly rounded addition of the half types: through `f32` (see the module docs).
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) trait AddRn: Copy {
    fn add_rn(self, other: Self) -> Self;
}

#[cfg(not(target_arch = "nvptx64"))]
impl AddRn for F16 {
    #[inline(always)]
    fn add_rn(self, other: Self) -> Self {
        F16::from_f32(self.to_f32() + other.to_f32())
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl AddRn for Bf16 {
    #[inline(always)]
    fn add_rn(self, other: Self) -> Self {
        Bf16::from_f32(self.to_f32() + other.to_f32())
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl AddRn for F16x2 {
    #[inline(always)]
    fn add_rn(self, other: Self) -> Self {
        F16x2::new(self.lo().add_rn(other.lo()), self.hi().add_rn(other.hi()))
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl AddRn for Bf16x2 {
    #[inline(always)]
    fn add_rn(self, other: Self) -> Self {
        Bf16x2::new(self.lo().add_rn(other.lo()), self.hi().add_rn(other.hi()))
    }
}

macro_rules! half_atomic {
    ($t:ident, $bits:ident, $reg:ident, $b:literal, add = $add:literal, gate = $gate:meta,
     swap = $swap:literal, load_b = $lb:literal, ex = ($e0:expr, $e1:expr, sum = $sum:expr, min = $min:expr)) => {
        impl<S: Scope> Atomic<$t, S> {
            /// The same location, seen as its bit pattern (for the bit-level operations).
            #[inline(always)]
            fn bits(&self) -> &Atomic<$bits, S> {
                // SAFETY: `Atomic` is `repr(transparent)` over a cell of `T` (or, under loom,
                // over the same loom atomic for the value and its bits), and `$t` is
                // `repr(transparent)` over `$bits`: same size and alignment.
                unsafe { &*(self as *const Self).cast::<Atomic<$bits, S>>() }
            }

            #[doc = concat!("Loads the value. Orders: Relaxed, Acquire, SeqCst.\n\n",
                "PTX: `ld.<sem>.<scope>.", $lb, "`; SeqCst adds a leading `fence.sc.<scope>`.\n\n",
                "# Panics\n\nWhen `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                $t::from_bits(self.bits().load(order))
            }

            #[doc = concat!("Stores `val`. Orders: Relaxed, Release, SeqCst.\n\n",
                "PTX: `st.<sem>.<scope>.", $lb, "`; SeqCst is `fence.sc.<scope>` + `st.relaxed`.\n\n",
                "# Panics\n\nWhen `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the thread prints the message and traps).")]
            #[inline(always)]
            #[track_caller]
            pub fn store(&self, val: $t, order: Ordering) {
                self.bits().store(val.to_bits(), order)
            }

            #[doc = concat!("Stores `val`, returns the previous value (bits). Every order.\n\nPTX: ", $swap, ".")]
            #[inline(always)]
            pub fn swap(&self, val: $t, order: Ordering) -> $t {
                $t::from_bits(self.bits().swap(val.to_bits(), order))
            }

            #[doc = concat!("Bitwise compare-exchange (`-0.0 != 0.0`; a NaN equals the same NaN). Orders as ",
                "the integer [`compare_exchange`](Atomic::compare_exchange) (one merged `.sem`).\n\n",
                "PTX: `atom.<sem>.<scope>.cas.", $lb, "`.\n\n",
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

            update_api!($t);

            bits_fetch_update!($t, "Applies `f` until the update succeeds or `f` returns `None`, like `core`'s\n`fetch_update` (the values are compared as bits). `fetch_order` cannot be\nRelease or AcqRel.\n\nPTX: `ld.<fetch>.<scope>.b32` (of the containing word for the 16-bit types),\nthen `atom.<sem>.<scope>.cas.b32` per attempt.\n\n# Panics\n\nWhen `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the thread prints the message and traps).");

            #[doc = concat!("Stores the minimum of the value and `val` (IEEE `minimumNumber`, PTX's `min`: ",
                "a NaN operand is ignored, two NaNs give the canonical NaN, `-0.0 < +0.0`; pairs lane by ",
                "lane); returns the previous value. Every order.\n\n",
                "PTX has no scalar float `atom.min`: `ld.relaxed.<scope>.b32`, then ",
                "`atom.<sem>.<scope>.cas.b32` (SeqCst: `fence.sc.<scope>` first) until it succeeds.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu, Ordering::*, ", stringify!($t), "};\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(", stringify!($e0), ");\n",
                "assert_eq!(a.fetch_min(", stringify!($e1), ", AcqRel).to_bits(), (", stringify!($e0), ").to_bits());\n",
                "assert_eq!(a.load(Relaxed).to_bits(), (", stringify!($min), ").to_bits());\n```")]
            #[inline(always)]
            pub fn fetch_min(&self, val: $t, order: Ordering) -> $t {
                self.update(order, Ordering::Relaxed, |x| x.min_num(val))
            }

            #[doc = concat!("Stores the maximum of the value and `val` (IEEE `maximumNumber`, PTX's `max`: ",
                "a NaN operand is ignored, two NaNs give the canonical NaN, `+0.0 > -0.0`; pairs lane by ",
                "lane); returns the previous value. Every order.\n\n",
                "PTX has no scalar float `atom.max`: `ld.relaxed.<scope>.b32`, then ",
                "`atom.<sem>.<scope>.cas.b32` (SeqCst: `fence.sc.<scope>` first) until it succeeds.")]
            #[inline(always)]
            pub fn fetch_max(&self, val: $t, order: Ordering) -> $t {
                self.update(order, Ordering::Relaxed, |x| x.max_num(val))
            }
        }

        #[$gate]
        impl<S: Scope> Atomic<$t, S> {
            float_add_api!($t, $bits, $reg, "add.noftz", $add, add = |x, v| x.add_rn(v), fetch_add_doc = concat!("Adds `val` (round to nearest even, subnormals kept; pairs lane by lane) and ",
                "returns the previous value. Every order.\n\n",
                "PTX: `atom.<sem>.<scope>.add.noftz.", $add, "`.\n\n",
                "```\nuse ptx_sync::{Atomic, Gpu, Ordering::Relaxed, ", stringify!($t), "};\n",
                "let a = Atomic::<", stringify!($t), ", Gpu>::new(", stringify!($e0), ");\n",
                "assert_eq!(a.fetch_add(", stringify!($e1), ", Relaxed).to_bits(), (", stringify!($e0), ").to_bits());\n",
                "assert_eq!(a.load(Relaxed).to_bits(), (", stringify!($sum), ").to_bits());\n```"));
        }
    };
}

half_atomic!(F16, u16, reg16, "b16", add = "f16", gate = cfg(all()),
    swap = "a loop on the containing 32-bit word (`ld.relaxed.<scope>.b32`, then `atom.<sem>.<scope>.cas.b32`): PTX has no 16-bit exchange",
    load_b = "b16", ex = (F16::from_f32(1.5), F16::from_f32(-0.25), sum = F16::from_f32(1.25), min = F16::from_f32(-0.25)));
half_atomic!(Bf16, u16, reg16, "b16", add = "bf16",
    gate = cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90")),
    swap = "a loop on the containing 32-bit word (`ld.relaxed.<scope>.b32`, then `atom.<sem>.<scope>.cas.b32`): PTX has no 16-bit exchange",
    load_b = "b16", ex = (Bf16::from_f32(1.5), Bf16::from_f32(-0.25), sum = Bf16::from_f32(1.25), min = Bf16::from_f32(-0.25)));
half_atomic!(
    F16x2,
    u32,
    reg32,
    "b32",
    add = "f16x2",
    gate = cfg(all()),
    swap = "`atom.<sem>.<scope>.exch.b32`",
    load_b = "b32",
    ex = (
        F16x2::from_f32([1.5, 2.0]),
        F16x2::from_f32([-0.25, 4.0]),
        sum = F16x2::from_f32([1.25, 6.0]),
        min = F16x2::from_f32([-0.25, 2.0])
    )
);
half_atomic!(
    Bf16x2,
    u32,
    reg32,
    "b32",
    add = "bf16x2",
    gate = cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90")),
    swap = "`atom.<sem>.<scope>.exch.b32`",
    load_b = "b32",
    ex = (
        Bf16x2::from_f32([1.5, 2.0]),
        Bf16x2::from_f32([-0.25, 4.0]),
        sum = Bf16x2::from_f32([1.25, 6.0]),
        min = Bf16x2::from_f32([-0.25, 2.0])
    )
);
