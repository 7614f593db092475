//! Block-level barrier (GPU only).

/// Waits until every thread of the block has reached a `block::sync()`, and orders the block's
/// memory accesses before it with those after it (as `__syncthreads()`).
///
/// PTX: `barrier.sync 0;`, deliberately NOT the `.aligned` form (`bar.sync`) that
/// `core::arch::nvptx::_syncthreads` emits. `.aligned` requires every thread of a warp to
/// execute the same barrier instruction, and rustc 1.95 (which does not mark nvptx functions
/// `convergent`) can duplicate a barrier into both arms of a branch (rust-lang/rust#137086):
/// with `.aligned` that kernel hangs. On sm_70+ the non-aligned form may be reached by the
/// threads of a warp through different instructions, so it stays correct after such a
/// transformation.
///
/// Every thread of the block must call it (the same number of times); otherwise the block hangs.
#[inline(always)]
pub fn sync() {
    // SAFETY: a barrier has no operands; it is not `nomem`, so it is also a compiler barrier.
    unsafe { core::arch::asm!("barrier.sync 0;", options(nostack)) }
}
