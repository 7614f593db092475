//! Half-precision values for the half-float atomics: [`F16`] (IEEE 754 binary16, CUDA's
//! `__half`), [`Bf16`] (bfloat16, `__nv_bfloat16`) and their packed pairs [`F16x2`] and
//! [`Bf16x2`] (PTX `.f16x2` / `.bf16x2`, `__half2` / `__nv_bfloat162`: lane 0 in the low 16
//! bits, which is also the lower address in memory).
//!
//! The crate depends on `core` only and builds on stable Rust, which has no `f16` type, so these
//! are `repr(transparent)` bit containers with exact conversions to and from `f32`:
//! `to_f32` is exact (every half value is an `f32`), `from_f32` rounds to nearest, ties to
//! even, with subnormals, infinities and overflow to infinity as IEEE 754 says, and keeps a NaN
//! a (quiet) NaN. The conversions are integer code, the same on the GPU and on the host, so the
//! host tests (`device/tests/atomic_types.rs`, every one of the 65,536 bit patterns and every midpoint
//! between neighbours) check the code the GPU runs.
//!
//! Comparisons (`PartialEq`, `PartialOrd`) are the IEEE ones through `f32` (`-0.0 == 0.0`,
//! NaN unordered); compare [`to_bits`](F16::to_bits) for identity.
//!
//! ```
//! use ptx_sync::{Bf16, F16, F16x2};
//! assert_eq!(F16::from_f32(1.5).to_bits(), 0x3e00);
//! assert_eq!(F16::from_f32(65520.0), F16::INFINITY); // past the largest finite half
//! assert_eq!(Bf16::from_f32(1.0 + 1.0 / 256.0).to_f32(), 1.0); // a tie, to even
//! let pair = F16x2::new(F16::ONE, F16::from_f32(-2.0));
//! assert_eq!(pair.to_bits(), 0xc000_3c00);
//! assert_eq!(pair.to_f32(), [1.0, -2.0]);
//! ```

use core::cmp::Ordering as CmpOrdering;
use core::fmt;

/// Rounds `bits` (an `f32`'s bits) to binary16 bits: nearest, ties to even.
const fn f32_to_f16_bits(x: u32) -> u16 {
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = (x >> 23) & 0xff;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        // Infinity stays infinity; a NaN keeps its top payload bits and is made quiet (so a
        // payload that lived only in the low bits cannot turn into infinity).
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | (man >> 13) as u16
        };
    }
    // The binary16 biased exponent this value would have.
    let e = exp as i32 - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00; // at least 2^16: past 65504 + half an ulp
    }
    if e <= 0 {
        // Subnormal (or zero) in binary16: the result counts units of 2^-24.
        if e < -10 {
            return sign; // below 2^-25: rounds to zero (2^-25 itself is a tie, to even 0)
        }
        let m = man | 0x80_0000; // the implicit bit (exp is at least 102 here: normal f32)
        let shift = (14 - e) as u32; // 14..=24
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let tie = 1 << (shift - 1);
        let up = rem > tie || (rem == tie && half & 1 == 1);
        // A carry out of the subnormal mantissa lands on the smallest normal: still right.
        return sign | (half + up as u32) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let up = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa increments the exponent; from 0x7bff it gives infinity.
    sign | (half + up as u32) as u16
}

/// binary16 bits to `f32` bits: exact.
const fn f16_bits_to_f32(h: u16) -> u32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    match exp {
        0 if man == 0 => sign,
        0 => {
            // Subnormal: man * 2^-24, normalized for f32 (always normal there).
            let shift = man.leading_zeros() - 21; // moves the top set bit to bit 10
            let m = (man << shift) & 0x3ff;
            let e = 127 - 15 + 1 - shift;
            sign | (e << 23) | (m << 13)
        }
        0x1f => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    }
}

/// Rounds an `f32`'s bits to bfloat16 bits: nearest, ties to even (bfloat16 is the top half of
/// an `f32`, so this is a rounding shift).
const fn f32_to_bf16_bits(x: u32) -> u16 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        // NaN: keep the sign and top payload, make it quiet.
        return ((x >> 16) | 0x40) as u16;
    }
    let lsb = (x >> 16) & 1;
    // Overflow past the largest finite value carries into the exponent: infinity.
    ((x + 0x7fff + lsb) >> 16) as u16
}

macro_rules! half_type {
    ($(#[$doc:meta])* $name:ident, $to:ident, $from:ident, $what:literal,
     one = $one:literal, max = $max:literal, min_pos = $minp:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name(u16);

        impl $name {
            /// `0.0`.
            pub const ZERO: Self = Self(0);
            /// `1.0`.
            pub const ONE: Self = Self($one);
            /// Positive infinity.
            pub const INFINITY: Self = Self(Self::INF_BITS);
            /// Negative infinity.
            pub const NEG_INFINITY: Self = Self(0x8000 | Self::INF_BITS);
            /// The canonical NaN PTX's arithmetic produces (positive, every mantissa bit set).
            pub const NAN: Self = Self(0x7fff);
            /// The largest finite value.
            pub const MAX: Self = Self($max);
            /// The smallest positive normal value.
            pub const MIN_POSITIVE: Self = Self($minp);

            #[doc = concat!("The ", $what, " with these bits.")]
            #[inline(always)]
            pub const fn from_bits(bits: u16) -> Self {
                Self(bits)
            }

            /// The bits.
            #[inline(always)]
            pub const fn to_bits(self) -> u16 {
                self.0
            }

            /// The value as an `f32` (exact).
            #[inline(always)]
            pub const fn to_f32(self) -> f32 {
                f32::from_bits($to(self.0))
            }

            #[doc = concat!("`x` rounded to the nearest ", $what, " (ties to even; NaN stays a quiet NaN).")]
            #[inline(always)]
            pub const fn from_f32(x: f32) -> Self {
                Self($from(x.to_bits()))
            }

            /// Whether this is a NaN.
            #[inline(always)]
            pub const fn is_nan(self) -> bool {
                self.0 & 0x7fff > Self::INF_BITS
            }

            /// Whether the sign bit is set (`-0.0` included).
            #[inline(always)]
            pub const fn is_sign_negative(self) -> bool {
                self.0 & 0x8000 != 0
            }
        }

        impl core::ops::Neg for $name {
            type Output = Self;
            /// Flips the sign bit (exact, as PTX's `neg`).
            #[inline(always)]
            fn neg(self) -> Self {
                Self(self.0 ^ 0x8000)
            }
        }

        impl PartialEq for $name {
            /// IEEE equality (through `f32`): `-0.0 == 0.0`, a NaN equals nothing.
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $name {
            #[inline(always)]
            fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl From<$name> for f32 {
            #[inline(always)]
            fn from(h: $name) -> f32 {
                h.to_f32()
            }
        }
    };
}

const fn bf16_bits_to_f32(b: u16) -> u32 {
    (b as u32) << 16
}

half_type!(
    /// An IEEE 754 binary16 value (CUDA's `__half`, PTX `.f16`): 1 sign, 5 exponent and 10
    /// mantissa bits. A bit container with exact `f32` conversions (see the [module](self)).
    F16, f16_bits_to_f32, f32_to_f16_bits, "binary16 value",
    one = 0x3c00, max = 0x7bff, min_pos = 0x0400
);
half_type!(
    /// A bfloat16 value (CUDA's `__nv_bfloat16`, PTX `.bf16`): the top 16 bits of an `f32`
    /// (1 sign, 8 exponent, 7 mantissa bits). A bit container with exact `f32` conversions
    /// (see the [module](self)).
    Bf16, bf16_bits_to_f32, f32_to_bf16_bits, "bfloat16 value",
    one = 0x3f80, max = 0x7f7f, min_pos = 0x0080
);

impl F16 {
    const INF_BITS: u16 = 0x7c00;
}

impl Bf16 {
    const INF_BITS: u16 = 0x7f80;
}

macro_rules! half_pair {
    ($(#[$doc:meta])* $name:ident, $lane:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl PartialEq for $name {
            /// Lane by lane, IEEE equality.
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                self.lo() == other.lo() && self.hi() == other.hi()
            }
        }

        impl $name {
            /// Lane 0 (`lo`, the low 16 bits and the lower address) and lane 1 (`hi`).
            #[inline(always)]
            pub const fn new(lo: $lane, hi: $lane) -> Self {
                Self(lo.to_bits() as u32 | (hi.to_bits() as u32) << 16)
            }

            /// Both lanes from `f32`s, each rounded as [`from_f32`]($lane::from_f32) does.
            #[inline(always)]
            pub const fn from_f32(lanes: [f32; 2]) -> Self {
                Self::new($lane::from_f32(lanes[0]), $lane::from_f32(lanes[1]))
            }

            /// Both lanes as `f32`s (exact).
            #[inline(always)]
            pub const fn to_f32(self) -> [f32; 2] {
                [self.lo().to_f32(), self.hi().to_f32()]
            }

            /// The two lanes, `[lo, hi]`.
            #[inline(always)]
            pub const fn lanes(self) -> [$lane; 2] {
                [self.lo(), self.hi()]
            }

            /// Lane 0: the low 16 bits.
            #[inline(always)]
            pub const fn lo(self) -> $lane {
                $lane::from_bits(self.0 as u16)
            }

            /// Lane 1: the high 16 bits.
            #[inline(always)]
            pub const fn hi(self) -> $lane {
                $lane::from_bits((self.0 >> 16) as u16)
            }

            /// The pair with these bits (lane 0 in the low half).
            #[inline(always)]
            pub const fn from_bits(bits: u32) -> Self {
                Self(bits)
            }

            /// The bits (lane 0 in the low half).
            #[inline(always)]
            pub const fn to_bits(self) -> u32 {
                self.0
            }
        }

        impl core::ops::Neg for $name {
            type Output = Self;
            /// Flips both sign bits (exact).
            #[inline(always)]
            fn neg(self) -> Self {
                Self(self.0 ^ 0x8000_8000)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.to_f32()).finish()
            }
        }
    };
}

half_pair!(
    /// Two [`F16`] lanes packed in a `u32` (CUDA's `__half2`, PTX `.f16x2`). `PartialEq`
    /// compares each lane as IEEE values.
    F16x2,
    F16
);
half_pair!(
    /// Two [`Bf16`] lanes packed in a `u32` (CUDA's `__nv_bfloat162`, PTX `.bf16x2`).
    /// `PartialEq` compares each lane as IEEE values.
    Bf16x2,
    Bf16
);

/// IEEE 754-2019 `minimumNumber` / `maximumNumber`, which is what PTX's `min` / `max` (and
/// the `.min` / `.max` of vector `atom`) compute: a NaN operand is ignored, two NaNs give the
/// canonical NaN, and `-0.0` is below `+0.0`. One rule for every float type of the crate (the
/// packed pairs lane by lane).
pub(crate) trait MinMaxNum: Copy {
    fn min_num(self, other: Self) -> Self;
    fn max_num(self, other: Self) -> Self;
}

/// Whether `self` is the minimum of two numbers that are not NaN (`-0.0` below `+0.0`; when
/// both are equal, `self` unless `other` is `-0.0`), so `max_num` is the other one.
trait MinOf: Copy {
    fn is_min_of(self, other: Self) -> bool;
}

macro_rules! min_max_num {
    ($($t:ty => $nan:expr;)*) => {$(
        impl MinMaxNum for $t {
            #[inline(always)]
            fn min_num(self, other: Self) -> Self {
                match (self.is_nan(), other.is_nan()) {
                    (true, true) => $nan,
                    (true, false) => other,
                    (false, true) => self,
                    _ if self.is_min_of(other) => self,
                    _ => other,
                }
            }

            #[inline(always)]
            fn max_num(self, other: Self) -> Self {
                match (self.is_nan(), other.is_nan()) {
                    (true, true) => $nan,
                    (true, false) => other,
                    (false, true) => self,
                    _ if self.is_min_of(other) => other,
                    _ => self,
                }
            }
        }

        impl MinOf for $t {
            #[inline(always)]
            fn is_min_of(self, other: Self) -> bool {
                // Equal: the same bits, or zeros of either sign (then -0.0 is the minimum).
                self < other || (self <= other && !other.is_sign_negative())
            }
        }
    )*};
}
min_max_num! {
    f32 => f32::from_bits(0x7fff_ffff);
    f64 => f64::from_bits(0x7fff_ffff_ffff_ffff);
    F16 => F16::NAN;
    Bf16 => Bf16::NAN;
}

macro_rules! min_max_pair {
    ($($t:ty),*) => {$(
        impl MinMaxNum for $t {
            #[inline(always)]
            fn min_num(self, other: Self) -> Self {
                Self::new(self.lo().min_num(other.lo()), self.hi().min_num(other.hi()))
            }

            #[inline(always)]
            fn max_num(self, other: Self) -> Self {
                Self::new(self.lo().max_num(other.lo()), self.hi().max_num(other.hi()))
            }
        }
    )*};
}
min_max_pair!(F16x2, Bf16x2);
