//! Kernels of the `index_*` GPU cases (tests/src/cases/index.rs): every thread records what
//! `ptx_sync::index` tells it, in the slot of its own rank computed here from
//! `core::arch::nvptx`'s registers (not from the crate), and the grid-stride loop counts the
//! indices it visits. The host computes every expected word itself.

use core::arch::nvptx::*;
use ptx_sync::{index, Atomic, Gpu, Ordering::Relaxed};

/// Words per thread in `index_positions`' output.
pub const WORDS: usize = 26;

/// What marks a slot as written (a slot never written stays 0).
const WRITTEN: u32 = 0x1dec_0de5;

/// Each thread writes [`WORDS`] words at `out[slot * WORDS..]`, `slot` its grid rank from
/// core's intrinsics: `threadIdx`, `blockIdx`, `blockDim`, `gridDim` (x, y, z each), then
/// `thread_rank`, `block_size`, `block_rank`, `block_count`, `global_thread_x/y/z`,
/// `global_rank`, `global_thread_count` (the `usize`s truncated), `warp_rank`, `warp_count`,
/// `lane`, and [`WRITTEN`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn index_positions(out: *mut u32) {
    let (tx, ty, tz) = (_thread_idx_x(), _thread_idx_y(), _thread_idx_z());
    let (bx, by, bz) = (_block_idx_x(), _block_idx_y(), _block_idx_z());
    let (nx, ny, nz) = (_block_dim_x(), _block_dim_y(), _block_dim_z());
    let (gx, gy) = (_grid_dim_x(), _grid_dim_y());
    let thread = (tz * ny + ty) * nx + tx;
    let block = (bz * gy + by) * gx + bx;
    let slot = (block * nx * ny * nz + thread) as usize;
    let words: [u32; WORDS] = [
        index::thread_idx_x(),
        index::thread_idx_y(),
        index::thread_idx_z(),
        index::block_idx_x(),
        index::block_idx_y(),
        index::block_idx_z(),
        index::block_dim_x(),
        index::block_dim_y(),
        index::block_dim_z(),
        index::grid_dim_x(),
        index::grid_dim_y(),
        index::grid_dim_z(),
        index::thread_rank(),
        index::block_size(),
        index::block_rank(),
        index::block_count(),
        index::global_thread_x() as u32,
        index::global_thread_y() as u32,
        index::global_thread_z() as u32,
        index::global_rank() as u32,
        index::global_thread_count() as u32,
        index::warp_rank(),
        index::warp_count(),
        index::lane(),
        ptx_sync::block::thread_rank(),
        WRITTEN,
    ];
    let o = out.add(slot * WORDS);
    for (i, w) in words.iter().enumerate() {
        o.add(i).write(*w);
    }
}

/// Every thread walks `index::grid_stride(n)`, adding 1 to `hits[i]` for each index and its
/// count of indices to `shares[rank]` (rank from core's intrinsics, as above).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn index_grid_stride(n: u32, hits: *mut u32, shares: *mut u32) {
    let thread =
        (_thread_idx_z() * _block_dim_y() + _thread_idx_y()) * _block_dim_x() + _thread_idx_x();
    let block = (_block_idx_z() * _grid_dim_y() + _block_idx_y()) * _grid_dim_x() + _block_idx_x();
    let rank = block * _block_dim_x() * _block_dim_y() * _block_dim_z() + thread;
    let mut count = 0u32;
    for i in index::grid_stride(n as usize) {
        Atomic::<u32, Gpu>::from_ptr(hits.add(i)).fetch_add(1, Relaxed);
        count += 1;
    }
    shares.add(rank as usize).write(count);
}
