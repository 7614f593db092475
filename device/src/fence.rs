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
//! ```
//! use ptx_sync::{fence, Atomic, Gpu, Ordering::*};
//!
//! // Store buffering: each thread raises its own flag, then reads the other's. With
//! // `fence.sc.gpu` between the store and the load, at least one of them sees a 1.
//! let flags = [Atomic::<u32, Gpu>::new(0), Atomic::new(0)];
//! let seen = std::thread::scope(|s| {
//!     let threads = [0, 1].map(|me| {
//!         let flags = &flags;
//!         s.spawn(move || {
//!             flags[me].store(1, Relaxed);
//!             fence::<Gpu>(SeqCst); // fence.sc.gpu (Release or AcqRel would allow 0 and 0)
//!             flags[1 - me].load(Relaxed)
//!         })
//!     });
//!     threads.map(|t| t.join().unwrap())
//! });
//! assert_ne!(seen, [0, 0]);
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`fence::<S>(order)`](crate::fence::fence()) | `fence.acq_rel.S` (Acquire, Release, AcqRel), `fence.sc.S` (SeqCst) | `cuda::atomic_thread_fence(order, scope)`; `__threadfence_block()`, `__threadfence()`, `__threadfence_system()` |
//! | [`compiler_fence(order)`](crate::fence::compiler_fence) | nothing (an empty `asm!`: a compiler barrier) | `cuda::atomic_signal_fence`, `asm volatile("" ::: "memory")` |

use crate::backend::fence as backend;
use crate::order::{self, Sem};
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// A memory fence at scope `S`. Orders: Acquire, Release, AcqRel (`fence.acq_rel.<scope>`),
/// SeqCst (`fence.sc.<scope>`); Relaxed panics.
///
/// ```
/// use ptx_sync::{fence, Atomic, Gpu, Ordering::*};
///
/// // Message passing with relaxed accesses and a fence on each side.
/// let data = Atomic::<u32, Gpu>::new(0);
/// let flag = Atomic::<u32, Gpu>::new(0);
/// std::thread::scope(|s| {
///     s.spawn(|| {
///         data.store(7, Relaxed);
///         fence::<Gpu>(Release); // fence.acq_rel.gpu: with the flag store, a release pattern
///         flag.store(1, Relaxed);
///     });
///     while flag.load(Relaxed) == 0 {
///         core::hint::spin_loop();
///     }
///     fence::<Gpu>(Acquire); // fence.acq_rel.gpu: with the flag load, an acquire pattern
///     assert_eq!(data.load(Relaxed), 7);
/// });
/// ```
///
/// # Panics
///
/// When `order` is Relaxed (as `core`'s `fence`), in every build (on the GPU the thread prints the
/// message and traps).
#[inline(always)]
#[track_caller]
pub fn fence<S: Scope>(order: Ordering) {
    match order::fence(order) {
        Sem::SeqCst => fence_sc::<S>(),
        _ => fence_acq_rel::<S>(),
    }
}

/// `fence.sc.<scope>`: also the first half of every seq_cst operation.
#[inline(always)]
pub(crate) fn fence_sc<S: Scope>() {
    backend::sc::<S>()
}

/// `fence.acq_rel.<scope>`.
#[inline(always)]
fn fence_acq_rel<S: Scope>() {
    backend::acq_rel::<S>()
}

/// A compiler-only fence: no instruction is emitted, but the compiler does not move memory
/// accesses across it. Relaxed panics (as `core`). On the GPU this is an empty `asm!` (which
/// is a compiler memory barrier), because `core::sync::atomic::compiler_fence` is unreliable on
/// nvptx (rust-lang/rust#136480).
///
/// # Panics
///
/// When `order` is Relaxed (as `core`'s `compiler_fence`), in every build (on the GPU the thread
/// prints the message and traps).
#[inline(always)]
#[track_caller]
pub fn compiler_fence(order: Ordering) {
    let _ = order::fence(order);
    backend::compiler(order);
}
