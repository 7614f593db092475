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
//! instruction): below it they do not implement [`AtomicAdd`] and
//! [`AtomicRedAdd`], so `fetch_add`, `fetch_sub` and `red_add` do not
//! compile for them; everything else does from sm_70.
//! On the host every method exists: the bits are core's `AtomicU16` / `AtomicU32` and the
//! adds a compare-exchange loop that adds through `f32` (exact for one add: an `f32` has more
//! than twice the half types' precision plus two bits, so rounding the `f32` sum again to the
//! half type gives the correctly rounded half sum, as the GPU's `.rn` add does).

crate::backend::cfg_host! {
    use super::float::host_add;
}
use super::float::{bits, float_add_api, float_bits_atomic, Bits};
use super::update::update_impls;
use super::waiting::wait_impls;
use super::{Atomic, AtomicAccess, AtomicAdd, AtomicMinMax, AtomicRedAdd};
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

crate::backend::cfg_host! {
    /// Correctly rounded addition of the half types: through `f32` (see the module docs).
    pub(crate) trait AddRn: Copy {
        fn add_rn(self, other: Self) -> Self;
    }

    impl AddRn for F16 {
        #[inline(always)]
        fn add_rn(self, other: Self) -> Self {
            F16::from_f32(self.to_f32() + other.to_f32())
        }
    }

    impl AddRn for Bf16 {
        #[inline(always)]
        fn add_rn(self, other: Self) -> Self {
            Bf16::from_f32(self.to_f32() + other.to_f32())
        }
    }

    impl AddRn for F16x2 {
        #[inline(always)]
        fn add_rn(self, other: Self) -> Self {
            F16x2::new(self.lo().add_rn(other.lo()), self.hi().add_rn(other.hi()))
        }
    }

    impl AddRn for Bf16x2 {
        #[inline(always)]
        fn add_rn(self, other: Self) -> Self {
            Bf16x2::new(self.lo().add_rn(other.lo()), self.hi().add_rn(other.hi()))
        }
    }
}

float_bits_atomic!(F16, u16);
float_bits_atomic!(Bf16, u16);
float_bits_atomic!(F16x2, u32);
float_bits_atomic!(Bf16x2, u32);
float_add_api!(
    F16,
    u16,
    reg16,
    "add.noftz",
    "f16",
    add = |x, v| x.add_rn(v)
);
float_add_api!(
    F16x2,
    u32,
    reg32,
    "add.noftz",
    "f16x2",
    add = |x, v| x.add_rn(v)
);
// `atom.add.noftz.bf16` and `.bf16x2` are sm_90 instructions.
crate::backend::cfg_sm_90_or_host! {
    float_add_api!(
        Bf16,
        u16,
        reg16,
        "add.noftz",
        "bf16",
        add = |x, v| x.add_rn(v)
    );
    float_add_api!(
        Bf16x2,
        u32,
        reg32,
        "add.noftz",
        "bf16x2",
        add = |x, v| x.add_rn(v)
    );
}
