//! The block on the GPU: its barrier and its dynamic shared memory.

// The dynamic shared memory of a launch (`shared_mem_bytes`), as one module-level symbol.
// `.extern .shared` must be declared at module scope, which `asm!` inside a function cannot do.
core::arch::global_asm!(".extern .shared .align 16 .b8 ptx_sync_dynamic_smem[];");

/// `barrier.sync 0;`: not the `.aligned` form (see `block::sync` for why).
#[inline(always)]
pub(crate) fn sync() {
    // SAFETY: a barrier has no operands; it is not `nomem`, so it is also a compiler barrier.
    unsafe { core::arch::asm!("barrier.sync 0;", options(nostack)) }
}

/// `bar.sync 0;`, through core's `_syncthreads` (LLVM's convergent intrinsic).
///
/// # Safety
/// Every thread of the block calls it, each warp converged at the call.
#[inline(always)]
pub(crate) unsafe fn sync_aligned() {
    // SAFETY: the caller's contract (every thread, each warp converged at this call).
    unsafe { core::arch::nvptx::_syncthreads() }
}

/// `cvta.shared.u64` of the module's `.extern .shared` array.
#[inline(always)]
pub(crate) fn dynamic_shared_memory() -> *mut u8 {
    let p: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, ptx_sync_dynamic_smem;", p = out(reg64) p,
                         options(nostack, nomem, pure))
    };
    p as *mut u8
}
