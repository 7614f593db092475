//! The sm_90 vector leaves (PTX ISA 8.1, "atom with vector type"): `atom` / `red` of two or
//! four 32-bit lanes, and the packing of half lanes into the `.f16x2` / `.bf16x2` words those
//! instructions take.

use crate::float16::{Bf16, F16};

/// `atom.<sem>.<scope>.<op>.v2.<ty> {d0, d1}, [p], {b0, b1};` on 32-bit lanes (words).
macro_rules! ptx_atom_v2 {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $p:expr, $v:expr) => {{
        let v: [u32; 2] = $v;
        let (d0, d1): (u32, u32);
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".", $op, ".v2.", $ty,
                    " {{{d0}, {d1}}}, [{p}], {{{b0}, {b1}}};"),
            p = in(reg64) $p, b0 = in(reg32) v[0], b1 = in(reg32) v[1],
            d0 = out(reg32) d0, d1 = out(reg32) d1, options(nostack));
        [d0, d1]
    }};
}
pub(crate) use ptx_atom_v2;

/// `atom.<sem>.<scope>.<op>.v4.<ty> {d0..d3}, [p], {b0..b3};`
macro_rules! ptx_atom_v4 {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $p:expr, $v:expr) => {{
        let v: [u32; 4] = $v;
        let (d0, d1, d2, d3): (u32, u32, u32, u32);
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".", $op, ".v4.", $ty,
                    " {{{d0}, {d1}, {d2}, {d3}}}, [{p}], {{{b0}, {b1}, {b2}, {b3}}};"),
            p = in(reg64) $p, b0 = in(reg32) v[0], b1 = in(reg32) v[1], b2 = in(reg32) v[2],
            b3 = in(reg32) v[3], d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2,
            d3 = out(reg32) d3, options(nostack));
        [d0, d1, d2, d3]
    }};
}
pub(crate) use ptx_atom_v4;

/// `red.<sem>.<scope>.<op>.v2.<ty> [p], {b0, b1};`
macro_rules! ptx_red_v2 {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $p:expr, $v:expr) => {{
        let v: [u32; 2] = $v;
        core::arch::asm!(
            concat!("red.", $sem, ".", $scope, ".", $op, ".v2.", $ty, " [{p}], {{{b0}, {b1}}};"),
            p = in(reg64) $p, b0 = in(reg32) v[0], b1 = in(reg32) v[1], options(nostack));
    }};
}
pub(crate) use ptx_red_v2;

/// `red.<sem>.<scope>.<op>.v4.<ty> [p], {b0..b3};`
macro_rules! ptx_red_v4 {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $p:expr, $v:expr) => {{
        let v: [u32; 4] = $v;
        core::arch::asm!(
            concat!("red.", $sem, ".", $scope, ".", $op, ".v4.", $ty,
                    " [{p}], {{{b0}, {b1}, {b2}, {b3}}};"),
            p = in(reg64) $p, b0 = in(reg32) v[0], b1 = in(reg32) v[1], b2 = in(reg32) v[2],
            b3 = in(reg32) v[3], options(nostack));
    }};
}
pub(crate) use ptx_red_v4;

/// Half lanes to the 32-bit words the instruction takes (and back): they pair up as
/// `.f16x2` / `.bf16x2`, the lower-addressed lane in the low half.
pub(crate) trait Lane: Copy {
    fn bits16(self) -> u32;
    fn from_bits16(b: u32) -> Self;
}

impl Lane for F16 {
    #[inline(always)]
    fn bits16(self) -> u32 {
        self.to_bits() as u32
    }
    #[inline(always)]
    fn from_bits16(b: u32) -> Self {
        F16::from_bits(b as u16)
    }
}

impl Lane for Bf16 {
    #[inline(always)]
    fn bits16(self) -> u32 {
        self.to_bits() as u32
    }
    #[inline(always)]
    fn from_bits16(b: u32) -> Self {
        Bf16::from_bits(b as u16)
    }
}

#[inline(always)]
pub(crate) fn pack<L: Lane, const N: usize, const W: usize>(v: [L; N]) -> [u32; W] {
    core::array::from_fn(|i| v[2 * i].bits16() | v[2 * i + 1].bits16() << 16)
}

#[inline(always)]
pub(crate) fn unpack<L: Lane, const N: usize, const W: usize>(w: [u32; W]) -> [L; N] {
    core::array::from_fn(|i| L::from_bits16(w[i / 2] >> (16 * (i % 2)) & 0xffff))
}
