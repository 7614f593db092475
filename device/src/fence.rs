//! Fences: `cuda::atomic_thread_fence` and `core::sync::atomic::{fence, compiler_fence}`.
//!
//! | order                      | PTX            |
//! |----------------------------|----------------|
//! | Acquire, Release, AcqRel   | `fence.acq_rel.<scope>` |
//! | SeqCst                     | `fence.sc.<scope>`      |
//! | Relaxed                    | panics (as `core`)      |
//!
//! `fence.acq_rel` is the lightest PTX fence that makes a release pattern (fence, then a strong
//! write) and an acquire pattern (a strong read, then fence). Store-to-load ordering (store
//! buffering, Dekker, IRIW) needs `fence.sc` at a scope that covers every thread involved.
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`fence::<S>(order)`](crate::fence()) | `fence.acq_rel.S` (Acquire, Release, AcqRel), `fence.sc.S` (SeqCst) | `cuda::atomic_thread_fence(order, scope)`; `__threadfence_block()`, `__threadfence()`, `__threadfence_system()` |
//! | [`compiler_fence(order)`](crate::compiler_fence) | nothing (an empty `asm!`: a compiler barrier) | `cuda::atomic_signal_fence`, `asm volatile("" ::: "memory")` |

#[cfg(target_arch = "nvptx64")]
use crate::atomic::ptx::with_scope;
use crate::order::{self, Sem};
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// A memory fence at scope `S`. Orders: Acquire, Release, AcqRel (`fence.acq_rel.<scope>`),
/// SeqCst (`fence.sc.<scope>`); Relaxed panics.
///
/// ```
/// use ptx_sync::{fence, Gpu};
/// use core::sync::atomic::Ordering::SeqCst;
/// fence::<Gpu>(SeqCst);
/// ```
#[inline(always)]
#[track_caller]
pub fn fence<S: Scope>(order: Ordering) {
    match order::fence(order) {
        Sem::SeqCst => fence_sc::<S>(),
        _ => fence_acq_rel::<S>(),
    }
}

/// `fence.sc.<scope>`: also the first half of every seq_cst operation.
// On the host every scope is the whole system, so `S` is unused there.
#[cfg_attr(
    not(target_arch = "nvptx64"),
    allow(clippy::extra_unused_type_parameters)
)]
#[inline(always)]
pub(crate) fn fence_sc<S: Scope>() {
    #[cfg(target_arch = "nvptx64")]
    {
        macro_rules! leaf {
            ($scope:literal,) => {
                core::arch::asm!(concat!("fence.sc.", $scope, ";"), options(nostack))
            };
        }
        // SAFETY: a fence has no operands.
        unsafe { with_scope!(S; leaf!()) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::loom::atomic::fence(Ordering::SeqCst);
}

/// `fence.acq_rel.<scope>`.
#[cfg_attr(
    not(target_arch = "nvptx64"),
    allow(clippy::extra_unused_type_parameters)
)]
#[inline(always)]
fn fence_acq_rel<S: Scope>() {
    #[cfg(target_arch = "nvptx64")]
    {
        macro_rules! leaf {
            ($scope:literal,) => {
                core::arch::asm!(concat!("fence.acq_rel.", $scope, ";"), options(nostack))
            };
        }
        // SAFETY: a fence has no operands.
        unsafe { with_scope!(S; leaf!()) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::loom::atomic::fence(Ordering::AcqRel);
}

/// A compiler-only fence: no instruction is emitted, but the compiler does not move memory
/// accesses across it. Relaxed panics (as `core`). On the GPU this is an empty `asm!` (which
/// is a compiler memory barrier), because `core::sync::atomic::compiler_fence` is unreliable on
/// nvptx (rust-lang/rust#136480).
#[inline(always)]
#[track_caller]
pub fn compiler_fence(order: Ordering) {
    let _ = order::fence(order);
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: emits nothing.
    unsafe {
        core::arch::asm!("", options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::compiler_fence(order);
}
