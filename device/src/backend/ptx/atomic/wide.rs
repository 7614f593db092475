//! The 128-bit leaves (sm_90, PTX ISA 8.3): `.b128` loads, stores, `atom.exch` and
//! `atom.cas`. There is no 128-bit register class in Rust's nvptx `asm!`, so each operand
//! travels as two 64-bit halves and is packed with `mov.b128` inside the instruction's block.

#[inline(always)]
pub(crate) const fn split(v: u128) -> (u64, u64) {
    (v as u64, (v >> 64) as u64)
}

#[inline(always)]
pub(crate) const fn join(lo: u64, hi: u64) -> u128 {
    (lo as u128) | ((hi as u128) << 64)
}

macro_rules! ld128 {
    ($scope:literal, $sem:literal, $p:expr) => {{
        let (lo, hi): (u64, u64);
        core::arch::asm!(
            "{{ .reg .b128 %ps_v;",
            concat!("ld.", $sem, ".", $scope, ".b128 %ps_v, [{p}];"),
            "mov.b128 {{{lo}, {hi}}}, %ps_v; }}",
            p = in(reg64) $p, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack));
        $crate::backend::atomic::wide::join(lo, hi)
    }};
}
pub(crate) use ld128;

macro_rules! st128 {
    ($scope:literal, $sem:literal, $p:expr, $v:expr) => {{
        let (lo, hi) = $crate::backend::atomic::wide::split($v);
        core::arch::asm!(
            "{{ .reg .b128 %ps_v;",
            "mov.b128 %ps_v, {{{lo}, {hi}}};",
            concat!("st.", $sem, ".", $scope, ".b128 [{p}], %ps_v; }}"),
            p = in(reg64) $p, lo = in(reg64) lo, hi = in(reg64) hi, options(nostack));
    }};
}
pub(crate) use st128;

macro_rules! exch128 {
    ($scope:literal, $sem:literal, $p:expr, $v:expr) => {{
        let (lo, hi) = $crate::backend::atomic::wide::split($v);
        let (rlo, rhi): (u64, u64);
        core::arch::asm!(
            "{{ .reg .b128 %ps_v, %ps_r;",
            "mov.b128 %ps_v, {{{lo}, {hi}}};",
            concat!("atom.", $sem, ".", $scope, ".exch.b128 %ps_r, [{p}], %ps_v;"),
            "mov.b128 {{{rlo}, {rhi}}}, %ps_r; }}",
            p = in(reg64) $p, lo = in(reg64) lo, hi = in(reg64) hi,
            rlo = out(reg64) rlo, rhi = out(reg64) rhi, options(nostack));
        $crate::backend::atomic::wide::join(rlo, rhi)
    }};
}
pub(crate) use exch128;

macro_rules! cas128 {
    ($scope:literal, $sem:literal, $p:expr, $c:expr, $n:expr) => {{
        let (clo, chi) = $crate::backend::atomic::wide::split($c);
        let (nlo, nhi) = $crate::backend::atomic::wide::split($n);
        let (rlo, rhi): (u64, u64);
        core::arch::asm!(
            "{{ .reg .b128 %ps_c, %ps_n, %ps_r;",
            "mov.b128 %ps_c, {{{clo}, {chi}}};",
            "mov.b128 %ps_n, {{{nlo}, {nhi}}};",
            concat!("atom.", $sem, ".", $scope, ".cas.b128 %ps_r, [{p}], %ps_c, %ps_n;"),
            "mov.b128 {{{rlo}, {rhi}}}, %ps_r; }}",
            p = in(reg64) $p, clo = in(reg64) clo, chi = in(reg64) chi,
            nlo = in(reg64) nlo, nhi = in(reg64) nhi,
            rlo = out(reg64) rlo, rhi = out(reg64) rhi, options(nostack));
        $crate::backend::atomic::wide::join(rlo, rhi)
    }};
}
pub(crate) use cas128;
