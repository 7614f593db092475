//! Fences on the GPU: `fence.sc` and `fence.acq_rel` at the scope's PTX name, and the empty
//! `asm!` that is a compiler barrier (core's `compiler_fence` is unreliable on nvptx,
//! rust-lang/rust#136480).

use super::atomic::with_scope;
use crate::scope::Scope;

/// `fence.sc.<scope>`.
#[inline(always)]
pub(crate) fn sc<S: Scope>() {
    macro_rules! leaf {
        ($scope:literal,) => {
            core::arch::asm!(concat!("fence.sc.", $scope, ";"), options(nostack))
        };
    }
    // SAFETY: a fence has no operands.
    unsafe { with_scope!(S; leaf!()) }
}

/// `fence.acq_rel.<scope>`.
#[inline(always)]
pub(crate) fn acq_rel<S: Scope>() {
    macro_rules! leaf {
        ($scope:literal,) => {
            core::arch::asm!(concat!("fence.acq_rel.", $scope, ";"), options(nostack))
        };
    }
    // SAFETY: a fence has no operands.
    unsafe { with_scope!(S; leaf!()) }
}

/// An empty `asm!` without `nomem`: the compiler keeps memory accesses on their side of it.
#[inline(always)]
pub(crate) fn compiler(_order: core::sync::atomic::Ordering) {
    // SAFETY: emits nothing.
    unsafe { core::arch::asm!("", options(nostack)) };
}
