//! The README's first kernel (tests/kernels/src/readme.rs) computes the right answer.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn run(ctx: &Ctx) -> Result<String, String> {
    let n: u32 = 1_000_003;
    let input: Vec<u32> = (0..n).map(|i| i % 1000).collect();
    let want: u32 = input.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    let kernel = ctx.kernel("sum_then_publish")?;
    let stream = ctx.gpu.stream();
    let input_d = stream.clone_htod(&input).map_err(|e| e.to_string())?;
    let words = stream.alloc_zeros::<u32>(3).map_err(|e| e.to_string())?;
    let (total, finished, result) = (words.slice(0..1), words.slice(1..2), words.slice(2..3));
    let blocks = n.div_ceil(256);
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&input_d)
        .arg(&n)
        .arg(&total)
        .arg(&finished)
        .arg(&result);
    unsafe { b.launch(cfg) }.map_err(|e| format!("launch: {e}"))?;
    ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
    let out = stream.clone_dtoh(&words).map_err(|e| e.to_string())?;
    if out != [want, blocks, want] {
        return Err(format!(
            "total/finished/result = {out:?}, expected [{want}, {blocks}, {want}]"
        ));
    }
    Ok(format!(
        "{n} values summed, last of {blocks} blocks published {want}"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    vec![GpuTest {
        name: "readme_example_sum_then_publish",
        timeout: TIMEOUT,
        run,
    }]
}
