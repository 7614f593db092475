//! The block on the host: a barrier of the block's threads under `index::run_grid`, else a
//! block of one thread.

#[inline(always)]
pub(crate) fn sync() {
    super::index::block_sync()
}

/// # Safety
/// None on the host; the GPU's contract (each warp converged at the call) is the caller's.
#[inline(always)]
pub(crate) unsafe fn sync_aligned() {
    super::index::block_sync()
}
