//! 128-bit atomics: PTX ISA 8.3 added `.b128` loads, stores, `atom.exch` and `atom.cas`
//! for sm_90. There is no 128-bit register class in Rust's nvptx `asm!`, so each operand
//! travels as two 64-bit halves and is packed with `mov.b128` inside the instruction's block.
//! GPU only: there is no stable `AtomicU128` in `core` for a host backend.

#[cfg(target_arch = "nvptx64")]
use super::ptx::{with_load_sem, with_rmw_sem, with_store_sem};
use super::Atomic;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

#[inline(always)]
const fn split(v: u128) -> (u64, u64) {
    (v as u64, (v >> 64) as u64)
}

#[inline(always)]
const fn join(lo: u64, hi: u64) -> u128 {
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
        join(lo, hi)
    }};
}

macro_rules! st128 {
    ($scope:literal, $sem:literal, $p:expr, $v:expr) => {{
        let (lo, hi) = split($v);
        core::arch::asm!(
            "{{ .reg .b128 %ps_v;",
            "mov.b128 %ps_v, {{{lo}, {hi}}};",
            concat!("st.", $sem, ".", $scope, ".b128 [{p}], %ps_v; }}"),
            p = in(reg64) $p, lo = in(reg64) lo, hi = in(reg64) hi, options(nostack));
    }};
}

macro_rules! exch128 {
    ($scope:literal, $sem:literal, $p:expr, $v:expr) => {{
        let (lo, hi) = split($v);
        let (rlo, rhi): (u64, u64);
        core::arch::asm!(
            "{{ .reg .b128 %ps_v, %ps_r;",
            "mov.b128 %ps_v, {{{lo}, {hi}}};",
            concat!("atom.", $sem, ".", $scope, ".exch.b128 %ps_r, [{p}], %ps_v;"),
            "mov.b128 {{{rlo}, {rhi}}}, %ps_r; }}",
            p = in(reg64) $p, lo = in(reg64) lo, hi = in(reg64) hi,
            rlo = out(reg64) rlo, rhi = out(reg64) rhi, options(nostack));
        join(rlo, rhi)
    }};
}

macro_rules! cas128 {
    ($scope:literal, $sem:literal, $p:expr, $c:expr, $n:expr) => {{
        let (clo, chi) = split($c);
        let (nlo, nhi) = split($n);
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
        join(rlo, rhi)
    }};
}

impl<S: Scope> Atomic<u128, S> {
    /// Loads the value (sm_90). Orders: Relaxed, Acquire, SeqCst.
    ///
    /// PTX: `ld.<sem>.<scope>.b128`.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> u128 {
        let sem = order::load(order);
        // SAFETY: valid, 16-byte aligned location by the type invariant.
        unsafe { with_load_sem!(S, sem; ld128!(self.as_ptr())) }
    }

    /// Stores `val` (sm_90). Orders: Relaxed, Release, SeqCst.
    ///
    /// PTX: `st.<sem>.<scope>.b128`.
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, val: u128, order: Ordering) {
        let sem = order::store(order);
        // SAFETY: as in `load`.
        unsafe { with_store_sem!(S, sem; st128!(self.as_ptr(), val)) }
    }

    /// Stores `val`, returns the previous value (sm_90). Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.exch.b128`.
    #[inline(always)]
    pub fn swap(&self, val: u128, order: Ordering) -> u128 {
        let sem = order::rmw(order);
        // SAFETY: as in `load`.
        unsafe { with_rmw_sem!(S, sem; exch128!(self.as_ptr(), val)) }
    }

    /// Compare-exchange of all 128 bits (sm_90); orders as for the integer types.
    ///
    /// PTX: `atom.<sem>.<scope>.cas.b128`.
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: u128,
        new: u128,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u128, u128> {
        let sem = order::compare_exchange(success, failure);
        // SAFETY: as in `load`.
        let prev = unsafe { with_rmw_sem!(S, sem; cas128!(self.as_ptr(), current, new)) };
        if prev == current {
            Ok(prev)
        } else {
            Err(prev)
        }
    }
}

/// `Atomic<u128, S>` (sm_90 only).
///
/// ```ignore
/// use ptx_sync::{AtomicU128, Gpu, Ordering::*};
///
/// /// A value and its version in one 16-byte word: the version goes up with every update,
/// /// so a reader of both halves never mixes two updates (no ABA).
/// ///
/// /// # Safety
/// /// `word` is 16-byte aligned global memory.
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn doc_atomic_u128_versioned(word: *mut u128, add: u64) {
///     let w = unsafe { AtomicU128::<Gpu>::from_ptr(word) };
///     let mut old = w.load(Relaxed); // ld.relaxed.gpu.b128
///     loop {
///         let (value, version) = (old as u64, (old >> 64) as u64);
///         let new = (value.wrapping_add(add) as u128) | ((version.wrapping_add(1) as u128) << 64);
///         match w.compare_exchange(old, new, AcqRel, Relaxed) { // atom.acq_rel.gpu.cas.b128
///             Ok(_) => break,
///             Err(now) => old = now,
///         }
///     }
/// }
/// ```
pub type AtomicU128<S> = Atomic<u128, S>;
