//! Where a thread is: CUDA's `threadIdx`, `blockIdx`, `blockDim` and `gridDim` on x, y and z,
//! the ranks and counts built from them (in the block, in the grid, of warps), and the
//! grid-stride loop, on the GPU and on the host. The one place the crate reads a thread's
//! position; [`block`](crate::block)'s `thread_x`, `index_x`, `dim_x`, `grid_x`,
//! `thread_rank`, `rank` and `count` are these functions under their older names.
//!
//! On the GPU each register read is one `mov.u32` of a special register (`%tid`, `%ctaid`,
//! `%ntid`, `%nctaid`), which rustc may move or merge freely; the ranks and counts are
//! arithmetic on them. On the host every thread is the only thread of a grid of one block (all
//! indices 0, all sizes 1), except inside [`run_grid`] (feature `warp-emulation`): it runs a
//! whole grid as `std` threads, each seeing its own position here, the lanes of each warp as an
//! emulated warp ([`warp::emulation`](crate::warp::emulation)) and
//! [`block::sync`](crate::block::sync) as a barrier of the block's threads. A kernel written on
//! these functions then runs unchanged in `cargo test`.
//!
//! ```
//! use ptx_sync::index::{self, run_grid, KernelPtr};
//!
//! /// y = a x + y over `n` elements, with CUDA's grid-stride loop: any grid covers any `n`.
//! ///
//! /// # Safety
//! /// `x` and `y` hold `n` values; no other thread writes `y[..n]` meanwhile.
//! pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: usize) {
//!     for i in index::grid_stride(n) {
//!         unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
//!     }
//! }
//!
//! // In a test: 3 blocks of 64 threads (192 std threads, a block at a time) over 1000 values.
//! let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
//! let mut y = vec![1.0f32; 1000];
//! let (xp, yp) = (KernelPtr::new(x.as_ptr().cast_mut()), KernelPtr::new(y.as_mut_ptr()));
//! run_grid(3, 64, || unsafe { saxpy(2.0, xp.get(), yp.get(), 1000) });
//! assert!(y.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32 + 1.0));
//! ```
//!
//! # Kernels you can test on the host
//!
//! A kernel crate whose `cargo test` runs its kernels' bodies on the host, and whose build
//! through `ptx-sync-build` is the same PTX as before (`examples/host-tested-kernels` in the
//! repository is such a crate, with a histogram, a block reduction and this saxpy):
//!
//! - `Cargo.toml`: `crate-type = ["cdylib", "rlib"]` (the cdylib is the PTX, the rlib is what
//!   `cargo test` links), and ptx-sync twice: `[dependencies] ptx-sync = ...` and
//!   `[dev-dependencies] ptx-sync = { ..., features = ["warp-emulation"] }` (tests only; the
//!   nvptx build never sees the feature). `panic = "abort"` in `[profile.release]` and
//!   `[profile.dev]` as before: cargo does not apply it to tests, which unwind.
//! - `src/lib.rs`: `#![cfg_attr(target_arch = "nvptx64", no_std)]` and
//!   `#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]` (with `stdarch_nvptx` if it
//!   uses `core::arch::nvptx`: this module needs none of it); the
//!   `#[panic_handler]` and every `extern "ptx-kernel"` entry point behind
//!   `#[cfg(target_arch = "nvptx64")]`; each kernel's body an ordinary `pub unsafe fn` (taking
//!   the entry point's pointers and sizes) written on this module, [`block::sync`](crate::block::sync),
//!   the warp functions, atomics and `shared!`, which the entry point calls.
//! - tests in the same crate (`#[cfg(test)] mod tests`): call each body inside [`run_grid`],
//!   with [`KernelPtr`] for the pointers its threads share, and check the result exactly.
//!
//! ```text
//! #![cfg_attr(target_arch = "nvptx64", no_std)]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//!
//! #[cfg(target_arch = "nvptx64")]
//! #[panic_handler]
//! fn panic(info: &core::panic::PanicInfo) -> ! {
//!     ptx_sync::report_panic(info)
//! }
//!
//! /// The body: one call per thread.
//! pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: usize) { /* as above */ }
//!
//! /// The entry point the host launches (GPU only).
//! #[cfg(target_arch = "nvptx64")]
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn saxpy_kernel(a: f32, x: *const f32, y: *mut f32, n: usize) {
//!     unsafe { saxpy(a, x, y, n) }
//! }
//!
//! #[cfg(test)]
//! mod tests {
//!     use ptx_sync::index::{run_grid, KernelPtr};
//!     #[test]
//!     fn saxpy_covers_every_element() { /* run_grid(4, 32, || unsafe { super::saxpy(..) }) */ }
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ |
//! |------|--------------|----------|
//! | [`thread_idx_x`], `_y`, `_z`; [`block_idx_x`], `_y`, `_z`; [`block_dim_x`], `_y`, `_z`; [`grid_dim_x`], `_y`, `_z` | `mov.u32` of `%tid.x` ... `%ctaid.x` ... `%ntid.x` ... `%nctaid.x` ... | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` ... |
//! | [`thread_rank`], [`block_size`], [`block_rank`], [`block_count`] | `mov.u32` of `%tid.*` and `%ntid.*`; of `%ctaid.*` and `%nctaid.*` | `this_thread_block().thread_rank()`, `.size()`; `this_grid().block_rank()`, `.num_blocks()` |
//! | [`global_thread_x`], `_y`, `_z`; [`global_rank`], [`global_thread_count`] | `mov.u32` of `%ctaid`, `%ntid`, `%tid` (and `%nctaid` for the rank and count) | `blockIdx.x * blockDim.x + threadIdx.x`; `this_grid().thread_rank()`, `.size()` |
//! | [`grid_stride`] | the rank and count above, then a loop | `for (i = rank; i < n; i += count)` |
//! | [`warp_rank`], [`warp_count`], [`lane`] | `mov.u32` of `%tid.*`, `%ntid.*`; `%laneid` | `threadIdx.x / 32` (1-D), `(size + 31) / 32`; `threadIdx.x % 32` |
//! | `run_grid` (host, feature `warp-emulation`) | none: `std` threads | a launch `<<<grid, block>>>` |

/// This thread's lane in its warp, 0..32 (`%laneid`): [`warp::lane`](crate::warp::lane).
/// On the GPU the warps of a block are its threads in [`thread_rank`] order, 32 at a time, so
/// this is `thread_rank() % 32`; so it is under [`run_grid`].
pub use crate::warp::lane;

use crate::backend::index as backend;

cfg_warp_emulation_or_doc! {
    pub(crate) mod run;
    #[cfg_attr(docsrs, doc(cfg(feature = "warp-emulation")))]
    pub use run::{run_grid, Dim3, KernelPtr, MAX_BLOCK_THREADS, MAX_GRID_THREADS, TIME_LIMIT};
}

/// One special register: its `mov.u32` on the GPU, the position's field on the host.
macro_rules! register {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name() -> u32 {
            backend::$name()
        }
    };
}

register!(
    /// This thread's index in its block, x (`threadIdx.x`; PTX `mov.u32 %tid.x`).
    thread_idx_x);
register!(
    /// This thread's index in its block, y (`threadIdx.y`; PTX `mov.u32 %tid.y`).
    thread_idx_y);
register!(
    /// This thread's index in its block, z (`threadIdx.z`; PTX `mov.u32 %tid.z`).
    thread_idx_z);
register!(
    /// This block's index in the grid, x (`blockIdx.x`; PTX `mov.u32 %ctaid.x`).
    block_idx_x);
register!(
    /// This block's index in the grid, y (`blockIdx.y`; PTX `mov.u32 %ctaid.y`).
    block_idx_y);
register!(
    /// This block's index in the grid, z (`blockIdx.z`; PTX `mov.u32 %ctaid.z`).
    block_idx_z);
register!(
    /// Threads per block along x (`blockDim.x`; PTX `mov.u32 %ntid.x`).
    block_dim_x);
register!(
    /// Threads per block along y (`blockDim.y`; PTX `mov.u32 %ntid.y`).
    block_dim_y);
register!(
    /// Threads per block along z (`blockDim.z`; PTX `mov.u32 %ntid.z`).
    block_dim_z);
register!(
    /// Blocks in the grid along x (`gridDim.x`; PTX `mov.u32 %nctaid.x`).
    grid_dim_x);
register!(
    /// Blocks in the grid along y (`gridDim.y`; PTX `mov.u32 %nctaid.y`).
    grid_dim_y);
register!(
    /// Blocks in the grid along z (`gridDim.z`; PTX `mov.u32 %nctaid.z`).
    grid_dim_z);

/// This thread's rank in its block, x fastest: `(z * dim_y + y) * dim_x + x`
/// (`this_thread_block().thread_rank()`), 0..[`block_size`].
#[inline(always)]
pub fn thread_rank() -> u32 {
    (thread_idx_z() * block_dim_y() + thread_idx_y()) * block_dim_x() + thread_idx_x()
}

/// Threads in the block: `blockDim.x * blockDim.y * blockDim.z` (at most 1024).
#[inline(always)]
pub fn block_size() -> u32 {
    block_dim_x() * block_dim_y() * block_dim_z()
}

/// This block's rank in the grid, x fastest (`this_grid().block_rank()`), 0..[`block_count`].
/// In `u32`, as the GPU's registers: grids of 2^32 blocks or more wrap.
#[inline(always)]
pub fn block_rank() -> u32 {
    (block_idx_z() * grid_dim_y() + block_idx_y()) * grid_dim_x() + block_idx_x()
}

/// Blocks in the grid: `gridDim.x * gridDim.y * gridDim.z` (`this_grid().num_blocks()`), in
/// `u32` as [`block_rank`].
#[inline(always)]
pub fn block_count() -> u32 {
    grid_dim_x() * grid_dim_y() * grid_dim_z()
}

/// This thread's index in the grid along x: `blockIdx.x * blockDim.x + threadIdx.x`, in
/// `usize` (it indexes memory, and a grid can hold more than 2^32 threads).
#[inline(always)]
pub fn global_thread_x() -> usize {
    block_idx_x() as usize * block_dim_x() as usize + thread_idx_x() as usize
}

/// This thread's index in the grid along y: `blockIdx.y * blockDim.y + threadIdx.y`.
#[inline(always)]
pub fn global_thread_y() -> usize {
    block_idx_y() as usize * block_dim_y() as usize + thread_idx_y() as usize
}

/// This thread's index in the grid along z: `blockIdx.z * blockDim.z + threadIdx.z`.
#[inline(always)]
pub fn global_thread_z() -> usize {
    block_idx_z() as usize * block_dim_z() as usize + thread_idx_z() as usize
}

/// This thread's rank in the grid: `block_rank() * block_size() + thread_rank()`, computed in
/// `usize` (`this_grid().thread_rank()`), 0..[`global_thread_count`]. In a 1-D launch it is
/// [`global_thread_x`].
#[inline(always)]
pub fn global_rank() -> usize {
    let block = (block_idx_z() as usize * grid_dim_y() as usize + block_idx_y() as usize)
        * grid_dim_x() as usize
        + block_idx_x() as usize;
    block * block_size() as usize + thread_rank() as usize
}

/// Threads in the grid: the blocks times the threads per block, in `usize`
/// (`this_grid().size()`).
#[inline(always)]
pub fn global_thread_count() -> usize {
    grid_dim_x() as usize * grid_dim_y() as usize * grid_dim_z() as usize * block_size() as usize
}

/// CUDA's grid-stride loop over `0..n`: this thread's share, [`global_rank`],
/// `global_rank + global_thread_count`, ... below `n`. Across the grid every index of `0..n`
/// comes up exactly once, whatever the grid's size and shape, so one launch configuration
/// serves any `n`.
///
/// ```
/// // Outside `run_grid` on the host, the thread is a grid of one: it gets every index.
/// assert!(ptx_sync::index::grid_stride(5).eq(0..5));
/// ```
#[inline(always)]
pub fn grid_stride(n: usize) -> GridStride {
    GridStride {
        next: global_rank(),
        end: n,
        step: global_thread_count(),
    }
}

/// The indices of [`grid_stride`]: an iterator of `usize`.
#[derive(Clone, Debug)]
pub struct GridStride {
    next: usize,
    end: usize,
    step: usize,
}

impl Iterator for GridStride {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.next < self.end {
            let i = self.next;
            // Saturates instead of wrapping, so an `n` near `usize::MAX` still ends.
            self.next = i.saturating_add(self.step);
            Some(i)
        } else {
            None
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = match self.end.checked_sub(self.next) {
            Some(d) if d > 0 => (d - 1) / self.step.max(1) + 1,
            _ => 0,
        };
        (left, Some(left))
    }
}

impl ExactSizeIterator for GridStride {}
impl core::iter::FusedIterator for GridStride {}

/// This thread's warp in its block, `thread_rank() / 32`, 0..[`warp_count`] (on the GPU the
/// warps are the block's threads in rank order, 32 at a time).
#[inline(always)]
pub fn warp_rank() -> u32 {
    thread_rank() / 32
}

/// Warps in the block: `block_size()` rounded up to whole warps (the last may be partial).
#[inline(always)]
pub fn warp_count() -> u32 {
    block_size().div_ceil(32)
}
