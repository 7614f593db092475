//! Example 1: the README's first kernel, `sum_then_publish` (`kernels/src/sum_then_publish.rs`).
//! 2^20 inputs, 4,096 blocks of 256 threads: every thread adds its input to a total with
//! `red.relaxed.gpu`, each block's thread 0 counts the block finished with an `AcqRel`
//! `fetch_add`, and the block that finishes last reads the total and publishes it. Checked:
//! total, finished count and published result are exactly `[sum, 4096, sum]`.
//!
//! Run it on its own, in `examples/`:
//!
//! ```sh
//! cargo run --release --example 01-sum-then-publish
//! ```
//!
//! It prints `example first_kernel: ok (...)` and exits 0; on a machine without an NVIDIA
//! driver it prints `examples: skipped: no CUDA driver (...)` and exits 2. The binary
//! `examples-app` runs it together with the other examples.

use examples_app::{BLOCK, Failed, Rng, WATCHDOG, check};
use ptx_sync_host::{Device, Module, launch};
use std::process::ExitCode;

/// The name this example reports under: `example first_kernel: ok (...)`.
pub const NAME: &str = "first_kernel";

fn main() -> ExitCode {
    examples_app::run_examples(&[(NAME, run)])
}

/// The last block to finish publishes the sum of all inputs.
pub fn run(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let n: u32 = 1 << 20;
    let mut rng = Rng(1);
    let input: Vec<u32> = (0..n).map(|_| rng.below(1000)).collect();
    // Below 2^30: the kernel's u32 total does not wrap.
    let want: u32 = input.iter().sum();
    let input_d = gpu.upload(&input)?;
    let (total, finished, result) = (
        gpu.zeros::<u32>(1)?,
        gpu.zeros::<u32>(1)?,
        gpu.zeros::<u32>(1)?,
    );
    let blocks = n.div_ceil(BLOCK);
    unsafe {
        launch!(kernels.sum_then_publish<<<blocks, BLOCK, 0, gpu>>>(
            &input_d, n, &total, &finished, &result
        ))
    }?;
    gpu.wait(WATCHDOG)?;
    let got = [
        gpu.download(&total)?[0],
        gpu.download(&finished)?[0],
        gpu.download(&result)?[0],
    ];
    check(got == [want, blocks, want], || {
        format!("total, finished, result = {got:?}, expected [{want}, {blocks}, {want}]")
    })?;
    Ok(format!(
        "{n} inputs in {blocks} blocks of {BLOCK}: the last block published the sum {want}"
    ))
}
