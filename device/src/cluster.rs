//! Thread-block clusters (sm_90, GPU only): the cluster barrier and the cluster's shape.
//!
//! `barrier.cluster.arrive` is specified with `.release` and `barrier.cluster.wait` with
//! `.acquire` semantics at cluster scope by default (PTX ISA, `barrier.cluster`), so writes
//! before an arrival (including to another block's shared memory through [`map_shared`])
//! are visible after the wait. The non-`.aligned` forms are used, for the same reason as
//! `block::sync()` (the threads of a warp may reach them through different instructions).
//!
//! ```ignore
//! use ptx_sync::{block, cluster, shared};
//!
//! /// Each block of a cluster publishes a value in its shared memory and reads the next
//! /// block's (distributed shared memory).
//! ///
//! /// # Safety
//! /// A launch with clusters; `out` holds one `u32` per block.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn doc_cluster_ring(out: *mut u32) {
//!     shared! { static MINE: u32; }
//!     let rank = cluster::block_rank(); // %cluster_ctarank
//!     unsafe {
//!         if block::thread_rank() == 0 {
//!             MINE.as_ptr().write(100 + rank);
//!         }
//!         // barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every block's
//!         // write is visible to the whole cluster.
//!         cluster::sync();
//!         if block::thread_rank() == 0 {
//!             let next = (rank + 1) % cluster::block_count();
//!             let theirs = cluster::map_shared(MINE.as_ptr(), next); // mapa.u64
//!             out.add(block::rank() as usize).write(theirs.read());
//!         }
//!         // A block's shared memory must outlive the other blocks' reads of it.
//!         cluster::sync();
//!     }
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | `cluster::{sync, arrive, arrive_relaxed, wait, map_shared, block_rank, block_count, index_x}` (sm_90, GPU only) | `barrier.cluster.arrive.release` / `.relaxed`, `barrier.cluster.wait.acquire`, `mapa.u64`, `%cluster_ctarank`, `%cluster_nctarank`, `%clusterid.x` | `cooperative_groups::this_cluster()`: `sync()`, `barrier_arrive()`, `barrier_wait()`, `map_shared_rank()`, `block_rank()`, `num_blocks()` |

use crate::backend::cluster as backend;
use crate::backend::special_register::special_register;

/// Waits until every thread of the cluster has arrived (`arrive` then `wait`).
#[inline(always)]
pub fn sync() {
    arrive();
    wait();
}

/// Arrives at the cluster barrier without waiting. PTX: `barrier.cluster.arrive.release`.
#[inline(always)]
pub fn arrive() {
    backend::arrive()
}

/// Arrives without ordering memory (`barrier.cluster.arrive.relaxed`): for a phase that only
/// needs to know that everyone got there.
#[inline(always)]
pub fn arrive_relaxed() {
    backend::arrive_relaxed()
}

/// Waits for the current phase of the cluster barrier. PTX: `barrier.cluster.wait.acquire`.
#[inline(always)]
pub fn wait() {
    backend::wait()
}

special_register!(
    /// This block's rank within its cluster (`%cluster_ctarank`).
    block_rank, "%cluster_ctarank");
special_register!(
    /// The number of blocks in the cluster (`%cluster_nctarank`).
    block_count, "%cluster_nctarank");
special_register!(
    /// The cluster's index in the grid, flattened (`%clusterid.x`; 1-D grids).
    index_x, "%clusterid.x");

/// The address of the same shared-memory location in block `rank` of this cluster
/// (distributed shared memory). PTX: `mapa.u64`.
///
/// # Safety
/// `ptr` is a generic address of this block's shared memory and `rank < block_count()`.
#[inline(always)]
pub unsafe fn map_shared<T>(ptr: *mut T, rank: u32) -> *mut T {
    backend::map_shared(ptr as u64, rank) as *mut T
}
