//! `ptx_sync::index` on the GPU (tests/kernels/src/index.rs): on a 2-D and a 3-D launch
//! (partial warps included), every thread's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`,
//! ranks, counts, global indices, warp and lane as the crate reads them, each compared with
//! what the host computes from CUDA's definitions for that thread's slot; and the grid-stride
//! loop, which must visit every index of `0..n` exactly once across the grid, for `n` below
//! and above the grid's thread count.

use crate::{Ctx, GpuTest};
use ptx_sync_host::{launch, Dim3};
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// Words per thread in `index_positions`' output (tests/kernels/src/index.rs `WORDS`).
const WORDS: usize = 26;
/// The last word of a written slot.
const WRITTEN: u32 = 0x1dec_0de5;

/// (x, y, z) of `i` in `d`, x fastest.
fn coords(i: u32, d: Dim3) -> [u32; 3] {
    [i % d.x, i / d.x % d.y, i / (d.x * d.y)]
}

/// The words thread `slot` (its grid rank) must write, from CUDA's definitions.
fn expected(grid: Dim3, block: Dim3, slot: u32) -> [u32; WORDS] {
    let size = block.x * block.y * block.z;
    let (b, t) = (coords(slot / size, grid), coords(slot % size, block));
    let thread_rank = slot % size;
    let blocks = grid.x * grid.y * grid.z;
    let g = |d: usize, n: u32| b[d] * n + t[d];
    [
        t[0],
        t[1],
        t[2],
        b[0],
        b[1],
        b[2],
        block.x,
        block.y,
        block.z,
        grid.x,
        grid.y,
        grid.z,
        thread_rank,
        size,
        slot / size,
        blocks,
        g(0, block.x),
        g(1, block.y),
        g(2, block.z),
        slot,
        blocks * size,
        thread_rank / 32,
        size.div_ceil(32),
        thread_rank % 32,
        thread_rank,
        WRITTEN,
    ]
}

const NAMES: [&str; WORDS] = [
    "thread_idx_x",
    "thread_idx_y",
    "thread_idx_z",
    "block_idx_x",
    "block_idx_y",
    "block_idx_z",
    "block_dim_x",
    "block_dim_y",
    "block_dim_z",
    "grid_dim_x",
    "grid_dim_y",
    "grid_dim_z",
    "thread_rank",
    "block_size",
    "block_rank",
    "block_count",
    "global_thread_x",
    "global_thread_y",
    "global_thread_z",
    "global_rank",
    "global_thread_count",
    "warp_rank",
    "warp_count",
    "lane",
    "block::thread_rank",
    "(written)",
];

fn positions(ctx: &Ctx, grid: Dim3, block: Dim3) -> Result<String> {
    let kernel = ctx.kernel("index_positions")?;
    let gpu = &ctx.gpu;
    let threads = grid.count() * block.count();
    let out = gpu.zeros::<u32>(threads as usize * WORDS)?;
    unsafe { launch!(kernel<<<grid, block, 0, gpu>>>(&out)) }?;
    gpu.wait(TIMEOUT)?;
    let got = gpu.download(&out)?;
    let mut wrong = Vec::new();
    for (slot, words) in got.chunks(WORDS).enumerate() {
        let want = expected(grid, block, slot as u32);
        for (i, (g, w)) in words.iter().zip(want).enumerate() {
            if *g != w && wrong.len() < 8 {
                wrong.push(format!("thread {slot}: {} = {g}, expected {w}", NAMES[i]));
            }
        }
    }
    if !wrong.is_empty() {
        return Err(wrong.join("; ").into());
    }
    Ok(format!(
        "grid {:?} x block {:?}: {threads} threads, {} words each, all as CUDA defines them",
        grid.tuple(),
        block.tuple(),
        WORDS - 1
    ))
}

fn positions_2d(ctx: &Ctx) -> Result<String> {
    positions(ctx, Dim3::from((5, 3)), Dim3::from((16, 6)))
}

fn positions_3d(ctx: &Ctx) -> Result<String> {
    // 100 threads a block: three full warps and one of 4 lanes.
    positions(ctx, Dim3::from((3, 2, 4)), Dim3::from((10, 5, 2)))
}

fn grid_stride(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("index_grid_stride")?;
    let gpu = &ctx.gpu;
    let (grid, block) = (Dim3::from((4, 3)), Dim3::from((8, 4, 2)));
    let threads = grid.count() * block.count();
    let mut checked = Vec::new();
    for n in [0, 1, threads / 3, threads, 7 * threads + 13] {
        let hits = gpu.zeros::<u32>(n as usize + 64)?;
        let shares = gpu.zeros::<u32>(threads as usize)?;
        unsafe { launch!(kernel<<<grid, block, 0, gpu>>>(n, &hits, &shares)) }?;
        gpu.wait(TIMEOUT)?;
        let hits = gpu.download(&hits)?;
        if let Some(i) = (0..hits.len()).find(|&i| hits[i] != u32::from(i < n as usize)) {
            return Err(format!(
                "n = {n}: index {i} visited {} times, expected {}",
                hits[i],
                u32::from(i < n as usize)
            )
            .into());
        }
        let shares = gpu.download(&shares)?;
        let (lo, hi) = (n / threads, n.div_ceil(threads));
        if let Some(r) = shares.iter().position(|&s| s != lo && s != hi) {
            return Err(format!(
                "n = {n}: thread {r} visited {} indices, expected {lo} or {hi}",
                shares[r]
            )
            .into());
        }
        checked.push(n.to_string());
    }
    Ok(format!(
        "grid {:?} x block {:?} ({threads} threads), n = {}: every index once, shares balanced",
        grid.tuple(),
        block.tuple(),
        checked.join(", ")
    ))
}

pub fn tests() -> Vec<GpuTest> {
    vec![
        GpuTest {
            name: "index_positions_2d",
            timeout: TIMEOUT,
            run: positions_2d,
        },
        GpuTest {
            name: "index_positions_3d",
            timeout: TIMEOUT,
            run: positions_3d,
        },
        GpuTest {
            name: "index_grid_stride",
            timeout: TIMEOUT,
            run: grid_stride,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_words_follow_cudas_definitions() {
        // Thread 237 of grid (3, 2, 4) x block (10, 5, 2): block rank 2 = (2, 0, 0), thread
        // rank 37 = (7, 3, 0); worked out by hand.
        let w = expected(Dim3::from((3, 2, 4)), Dim3::from((10, 5, 2)), 237);
        assert_eq!(&w[..12], &[7, 3, 0, 2, 0, 0, 10, 5, 2, 3, 2, 4]);
        // thread_rank, block_size, block_rank, block_count, global x/y/z, rank, count.
        assert_eq!(&w[12..21], &[37, 100, 2, 24, 27, 3, 0, 237, 2400]);
        // warp_rank, warp_count (100 threads: 4 warps), lane, block::thread_rank, marker.
        assert_eq!(&w[21..], &[1, 4, 5, 37, WRITTEN]);
        // The last thread of the last block of a 2-D launch.
        let w = expected(Dim3::from((5, 3)), Dim3::from((16, 6)), 15 * 96 - 1);
        assert_eq!(&w[..6], &[15, 5, 0, 4, 2, 0]);
        assert_eq!(&w[16..20], &[4 * 16 + 15, 2 * 6 + 5, 0, 1439]);
    }
}
