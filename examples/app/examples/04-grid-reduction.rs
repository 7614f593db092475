//! Example 4: a cooperative grid reduction (kernel `grid_sum`, `kernels/src/grid_reduction.rs`).
//! Sums 2^22 `u32`s as `u64` in a cooperative launch (2 blocks per SM). Each block reduces a
//! grid-stride share in shared memory into `partials[block]`; `ptx_sync::GridBarrier::sync()`;
//! then every block sums all the partials. Checked: the partials add up to the sum computed
//! here, and every block's total equals it (a block that read a partial before the barrier
//! published it would differ).
//!
//! Run it on its own, in `examples/`:
//!
//! ```sh
//! cargo run --release --example 04-grid-reduction
//! ```
//!
//! It prints `example grid_reduction: ok (...)` and exits 0; on a machine without an NVIDIA
//! driver it prints `examples: skipped: no CUDA driver (...)` and exits 2. The binary
//! `examples-app` runs it together with the other examples.

use examples_app::{BLOCK, Failed, Rng, WATCHDOG, check};
use ptx_sync_host::{Device, Module, launch};
use std::process::ExitCode;

/// The name this example reports under: `example grid_reduction: ok (...)`.
pub const NAME: &str = "grid_reduction";

fn main() -> ExitCode {
    examples_app::run_examples(&[(NAME, run)])
}

/// A cooperative grid reduction: per-block partial sums, a `GridBarrier`, then every block
/// sums the partials.
pub fn run(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let kernel = kernels.kernel("grid_sum")?;
    let n: u32 = 1 << 22;
    let mut rng = Rng(4);
    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let want: u64 = input.iter().map(|&v| u64::from(v)).sum();
    let smem = BLOCK * 8; // one u64 per thread for the block's tree
    let limit = gpu.cooperative_limit(&kernel, BLOCK, smem)?;
    let blocks = (2 * gpu.sm_count()).min(limit.max_blocks);
    let input_d = gpu.upload(&input)?;
    let partials = gpu.zeros::<u64>(blocks as usize)?;
    let totals = gpu.zeros::<u64>(blocks as usize)?;
    let barrier = gpu.zeros::<u32>(1)?;
    unsafe {
        launch!(cooperative kernel<<<blocks, BLOCK, smem, gpu>>>(
            &input_d, n, &partials, &totals, &barrier
        ))
    }?;
    gpu.wait(WATCHDOG)?;
    let partial_sum: u64 = gpu.download(&partials)?.iter().sum();
    check(partial_sum == want, || {
        format!("the partials add up to {partial_sum}, expected {want}")
    })?;
    let totals = gpu.download(&totals)?;
    if let Some(b) = totals.iter().position(|&t| t != want) {
        return Err(Failed::Wrong(format!(
            "block {b} summed the partials to {}, expected {want} (it read a partial before \
             the grid barrier published it)",
            totals[b]
        )));
    }
    Ok(format!(
        "{n} inputs, {blocks} blocks of {BLOCK}: partials, GridBarrier, every block's total \
         = {want}"
    ))
}
