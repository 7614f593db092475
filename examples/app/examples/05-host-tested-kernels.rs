//! Example 5: kernels tested on the host, run on the GPU (kernels `byte_histogram`,
//! `block_sum` and `saxpy` in `host-tested-kernels/src/`). That crate's `cargo test` runs the
//! same kernel bodies on the host with `ptx_sync::index::run_grid` (each thread a `std`
//! thread, each warp an emulated warp, `block::sync` a barrier); here they run on the GPU, on
//! 2^20 inputs with grids smaller than the input (grid-stride loops), and each result is
//! checked exactly against what this program computes:
//! - `byte_histogram`: 2^20 skewed bytes counted per block in shared memory
//!   (`Atomic<u32, Cta>`), then into 256 global buckets (`red.relaxed.gpu.add`);
//! - `block_sum`: every block's sum by `warp::shfl_down` and `block::sync`, and the total;
//! - `saxpy`: `y = 3 x + y`, every element updated exactly once.
//!
//! Run it on its own, in `examples/`:
//!
//! ```sh
//! cargo run --release --example 05-host-tested-kernels
//! ```
//!
//! and the host tests of the same kernels, in `examples/host-tested-kernels/`: `cargo test`.
//! It prints `example host_tested_kernels: ok (...)` and exits 0; on a machine without an
//! NVIDIA driver it prints `examples: skipped: no CUDA driver (...)` and exits 2. The binary
//! `examples-app` runs it together with the other examples.

use examples_app::{BLOCK, Failed, HOST_TESTED_PTX, Rng, WATCHDOG, check};
use ptx_sync_host::{Device, Module, launch};
use std::process::ExitCode;

/// The name this example reports under: `example host_tested_kernels: ok (...)`.
pub const NAME: &str = "host_tested_kernels";

fn main() -> ExitCode {
    examples_app::run_examples(&[(NAME, run)])
}

/// The three kernels of `host-tested-kernels` on the GPU, each result exact.
pub fn run(gpu: &Device, _kernels: &Module) -> Result<String, Failed> {
    // This example's kernels are their own PTX module (their own crate).
    let kernels = gpu.load_ptx_str("host_tested_kernels.ptx (embedded)", HOST_TESTED_PTX)?;
    let n: u32 = 1 << 20;
    // Fewer threads than inputs: each thread takes several in its grid-stride loop.
    let blocks = 2 * gpu.sm_count();
    let mut rng = Rng(5);

    // A third of the bytes are 0x2a: one bucket takes a third of the counts.
    let bytes: Vec<u8> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                0x2a
            } else {
                rng.below(256) as u8
            }
        })
        .collect();
    let mut want = vec![0u32; 256];
    bytes.iter().for_each(|&b| want[b as usize] += 1);
    let (bytes_d, bins) = (gpu.upload(&bytes)?, gpu.zeros::<u32>(256)?);
    unsafe { launch!(kernels.byte_histogram<<<blocks, BLOCK, 0, gpu>>>(&bytes_d, n, &bins)) }?;
    gpu.wait(WATCHDOG)?;
    let got = gpu.download(&bins)?;
    if let Some(b) = (0..256).find(|&b| got[b] != want[b]) {
        return Err(Failed::Wrong(format!(
            "byte_histogram: bucket {b:#04x} counted {}, expected {}",
            got[b], want[b]
        )));
    }

    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let (input_d, sums, total) = (
        gpu.upload(&input)?,
        gpu.zeros::<u64>(blocks as usize)?,
        gpu.zeros::<u64>(1)?,
    );
    unsafe { launch!(kernels.block_sum<<<blocks, BLOCK, 0, gpu>>>(&input_d, n, &sums, &total)) }?;
    gpu.wait(WATCHDOG)?;
    // Block b's threads take the indices i with i % (blocks * BLOCK) / BLOCK == b.
    let stride = (blocks * BLOCK) as usize;
    let mut want_sums = vec![0u64; blocks as usize];
    for (i, &v) in input.iter().enumerate() {
        want_sums[i % stride / BLOCK as usize] += u64::from(v);
    }
    let want_total: u64 = want_sums.iter().sum();
    let got_sums = gpu.download(&sums)?;
    if let Some(b) = (0..blocks as usize).find(|&b| got_sums[b] != want_sums[b]) {
        return Err(Failed::Wrong(format!(
            "block_sum: block {b} summed {}, expected {}",
            got_sums[b], want_sums[b]
        )));
    }
    let got_total = gpu.download(&total)?[0];
    check(got_total == want_total, || {
        format!("block_sum: total {got_total}, expected {want_total}")
    })?;

    // Every product and sum is exact in f32 (fused into an fma or not: the same bits).
    let x: Vec<f32> = (0..n).map(|i| (i % 4096) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 1000) as f32).collect();
    let want_y: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 3.0 * x + y).collect();
    let (x_d, y_d) = (gpu.upload(&x)?, gpu.upload(&y)?);
    unsafe { launch!(kernels.saxpy<<<blocks, BLOCK, 0, gpu>>>(3.0f32, &x_d, &y_d, n)) }?;
    gpu.wait(WATCHDOG)?;
    let got_y = gpu.download(&y_d)?;
    if let Some(i) = (0..n as usize).find(|&i| got_y[i].to_bits() != want_y[i].to_bits()) {
        return Err(Failed::Wrong(format!(
            "saxpy: y[{i}] = {}, expected {} (updated twice, or not at all)",
            got_y[i], want_y[i]
        )));
    }
    Ok(format!(
        "{n} inputs, {blocks} blocks of {BLOCK}: 256 histogram buckets, {blocks} block sums and \
         their total {want_total}, and saxpy, all exact (the same kernels pass cargo test on \
         the host)"
    ))
}
