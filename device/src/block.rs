//! Block-level facts and the block barrier (GPU only).
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
//! | `block::{sync, dynamic_shared_memory, thread_rank, rank, count, thread_x/y/z, dim_x/y/z, index_x/y/z, grid_x/y/z}` (GPU only) | `barrier.sync 0`, `cvta.shared.u64` of an `.extern .shared` array, `mov.u32` of `%tid`, `%ntid`, `%ctaid`, `%nctaid` | `__syncthreads()`, `extern __shared__`, `threadIdx`, `blockDim`, `blockIdx`, `gridDim` |

// The dynamic shared memory of a launch (`shared_mem_bytes`), as one module-level symbol.
// `.extern .shared` must be declared at module scope, which `asm!` inside a function cannot do.
core::arch::global_asm!(".extern .shared .align 16 .b8 ptx_sync_dynamic_smem[];");

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

/// The start of the launch's dynamic shared memory (the `shared_mem_bytes` of the launch
/// configuration), as a generic pointer. 16-byte aligned; its size is what the host asked for.
///
/// PTX: `cvta.shared.u64` of the module's `.extern .shared` array.
#[inline(always)]
pub fn dynamic_shared_memory() -> *mut u8 {
    let p: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, ptx_sync_dynamic_smem;", p = out(reg64) p,
                         options(nostack, nomem, pure))
    };
    p as *mut u8
}

macro_rules! special_register {
    ($(#[$m:meta])* $name:ident, $reg:literal) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name() -> u32 {
            let v: u32;
            // SAFETY: reads a special register.
            unsafe { core::arch::asm!(concat!("mov.u32 {v}, ", $reg, ";"), v = out(reg32) v,
                                      options(nostack, nomem, pure)) };
            v
        }
    };
}
// `cluster.rs` (sm_90) reads its registers through it too.
#[cfg(target_feature = "sm_90")]
pub(crate) use special_register;

special_register!(
    /// `%tid.x`
    thread_x, "%tid.x");
special_register!(
    /// `%tid.y`
    thread_y, "%tid.y");
special_register!(
    /// `%tid.z`
    thread_z, "%tid.z");
special_register!(
    /// `%ntid.x`
    dim_x, "%ntid.x");
special_register!(
    /// `%ntid.y`
    dim_y, "%ntid.y");
special_register!(
    /// `%ntid.z`
    dim_z, "%ntid.z");
special_register!(
    /// `%ctaid.x`
    index_x, "%ctaid.x");
special_register!(
    /// `%ctaid.y`
    index_y, "%ctaid.y");
special_register!(
    /// `%ctaid.z`
    index_z, "%ctaid.z");
special_register!(
    /// `%nctaid.x`
    grid_x, "%nctaid.x");
special_register!(
    /// `%nctaid.y`
    grid_y, "%nctaid.y");
special_register!(
    /// `%nctaid.z`
    grid_z, "%nctaid.z");

/// This thread's index within its block, flattened (x fastest).
#[inline(always)]
pub fn thread_rank() -> u32 {
    (thread_z() * dim_y() + thread_y()) * dim_x() + thread_x()
}

/// This block's index within the grid, flattened (x fastest).
///
/// # Panics
///
/// In a build with overflow checks (a debug build), panics (the kernel's panic handler runs) when
/// this block's flattened index does not fit a `u32` (a grid of more than `u32::MAX` blocks);
/// release builds wrap.
#[inline(always)]
pub fn rank() -> u32 {
    (index_z() * grid_y() + index_y()) * grid_x() + index_x()
}

/// The number of blocks in the grid.
///
/// # Panics
///
/// In a build with overflow checks (a debug build), panics (the kernel's panic handler runs) when
/// the grid has more than `u32::MAX` blocks; release builds wrap.
#[inline(always)]
pub fn count() -> u32 {
    grid_x() * grid_y() * grid_z()
}
