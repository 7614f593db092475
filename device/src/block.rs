//! The block barrier, the block's indices and its dynamic shared memory.
//!
//! [`sync`] and the indices run on the host too: the indices are [`index`](crate::index)'s
//! (under CUDA-ish short names kept from before that module: `thread_x` is
//! `index::thread_idx_x`, `index_x` `index::block_idx_x`, `dim_x` `index::block_dim_x`,
//! `grid_x` `index::grid_dim_x`, `rank` `index::block_rank`, `count` `index::block_count`),
//! and `sync` is a barrier of the block's threads under
//! [`index::run_grid`](crate::index::run_grid). `dynamic_shared_memory` is GPU only.
//!
//! ```ignore
//! use ptx_sync::{block, shared};
//!
//! /// Reverses each block's 256 values in place, through shared memory.
//! ///
//! /// # Safety
//! /// Blocks of 256 threads (x only); `data` holds `256 * gridDim.x` values.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn doc_block_reverse(data: *mut u32) {
//!     shared! { static TILE: [u32; 256]; }
//!     let t = block::thread_x() as usize; // mov.u32 of %tid.x
//!     unsafe {
//!         let mine = data.add(block::index_x() as usize * 256 + t);
//!         TILE.shared().at(t).write(mine.read()); // st.shared.b32
//!         // barrier.sync 0: every thread's write to TILE happens before any read below.
//!         block::sync();
//!         mine.write(TILE.shared().at(255 - t).read()); // ld.shared.b32
//!     }
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`block::sync`](sync) (host: a barrier of the block's threads under `index::run_grid`, else nothing to wait for) | `barrier.sync 0` | `__syncthreads()` (which is aligned) |
//! | [`block::sync_aligned`](sync_aligned) (`unsafe`: each warp converged at the call) | `bar.sync 0` | `__syncthreads()` |
//! | `block::dynamic_shared_memory` (GPU only) | `cvta.shared.u64` of an `.extern .shared` array | `extern __shared__` |
//! | `block::{thread_rank, rank, count, thread_x/y/z, dim_x/y/z, index_x/y/z, grid_x/y/z}` ([`index`](crate::index)'s) | `mov.u32` of `%tid`, `%ntid`, `%ctaid`, `%nctaid` | `threadIdx`, `blockDim`, `blockIdx`, `gridDim` |

pub use crate::index::{
    block_count as count, block_dim_x as dim_x, block_dim_y as dim_y, block_dim_z as dim_z,
    block_idx_x as index_x, block_idx_y as index_y, block_idx_z as index_z, block_rank as rank,
    grid_dim_x as grid_x, grid_dim_y as grid_y, grid_dim_z as grid_z, thread_idx_x as thread_x,
    thread_idx_y as thread_y, thread_idx_z as thread_z, thread_rank,
};

use crate::backend::block as backend;

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
/// Where every warp reaches the call converged, [`sync_aligned`] is faster.
///
/// On the host, under [`index::run_grid`](crate::index::run_grid) (feature `warp-emulation`):
/// a barrier of the block's `std` threads (a mutex and a condition variable, which order the
/// threads' memory accesses as `barrier.sync` does); one that waits for threads that have
/// returned fails with a message instead of hanging. Outside it (or without the feature) the
/// calling thread is a block of one, and there is nothing to wait for: it returns at once.
#[inline(always)]
pub fn sync() {
    backend::sync()
}

/// [`sync`] in its aligned form, CUDA's `__syncthreads()`: faster, and only for a call that
/// the threads of each warp reach together.
///
/// PTX: `bar.sync 0;` (`barrier.sync.aligned 0`), through core's `_syncthreads`, a call of
/// LLVM's `llvm.nvvm.barrier.cta.sync.aligned.all`. `.aligned` lets the hardware treat the
/// warp as one arrival; it requires every thread of a warp to execute the same barrier
/// instruction (PTX ISA, `barrier`). LLVM treats that intrinsic as `convergent`: no
/// optimization makes the call depend on a condition it did not depend on (it is not copied
/// into the two arms of a branch), so a call that the warps reach converged in the source
/// stays so in the PTX. rustc's own MIR jump threading, which knows nothing of convergence,
/// could copy it before LLVM does (rust-lang/rust#137086); it is off for GPU targets from
/// rustc 1.99, and [ptx-sync-build](https://docs.rs/ptx-sync-build) turns it off for older
/// ones. What it saves is measured in bench/NOTES.md.
///
/// On the host: as [`sync`].
///
/// # Safety
///
/// Every thread of the block calls it (the same number of times), and the threads of each
/// warp reach each call together: not from inside a branch, loop or early return on which the
/// lanes of a warp can disagree. A warp that arrives split is undefined behavior in the PTX
/// ISA (in practice a hang or a barrier that lets threads through early). Where that cannot
/// be promised, use [`sync`]. With a rustc older than 1.99, the kernel crate is built with
/// `-Zmir-enable-passes=-JumpThreading` (what ptx-sync-build passes).
#[inline(always)]
pub unsafe fn sync_aligned() {
    // SAFETY: the caller's contract (every thread, each warp converged at this call).
    unsafe { backend::sync_aligned() }
}

crate::backend::cfg_gpu! {
    /// The start of the launch's dynamic shared memory (the `shared_mem_bytes` of the launch
    /// configuration), as a generic pointer. 16-byte aligned; its size is what the host asked for.
    ///
    /// PTX: `cvta.shared.u64` of the module's `.extern .shared` array. GPU only.
    #[inline(always)]
    pub fn dynamic_shared_memory() -> *mut u8 {
        backend::dynamic_shared_memory()
    }
}
