//! Latch fan-in across a cooperative grid: a fresh latch per round (prepared by the host),
//! every thread writes its value before arriving and, once the latch is open, checks the
//! values of that round in every other block.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// u32 words between two rounds' latches (tests/kernels/src/latch.rs: LATCH_STRIDE).
const LATCH_STRIDE: usize = 32;

fn fan_in(ctx: &Ctx) -> Result<String> {
    const THREADS: u32 = 128;
    const ROUNDS: u32 = 4_000;
    let kernel = ctx.kernel("latch_fan_in")?;
    let blocks = ctx.gpu.sm_count();
    // Waiting on other blocks needs them all resident: a cooperative launch guarantees it.
    let cfg = ctx.gpu.cooperative_config(&kernel, blocks, THREADS, 0)?;
    let threads_total = blocks * THREADS;
    // Even rounds: one arrival per block; odd rounds: one per thread.
    let mut latches = vec![0u32; ROUNDS as usize * LATCH_STRIDE];
    for r in 0..ROUNDS as usize {
        latches[r * LATCH_STRIDE] = if r % 2 == 0 { blocks } else { threads_total };
    }
    let stream = ctx.gpu.stream();
    let latches = ctx.gpu.upload(&latches)?;
    let values = ctx.gpu.zeros::<u32>(2 * threads_total as usize)?;
    let stats = ctx.gpu.zeros::<u64>(2)?;
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&latches).arg(&ROUNDS).arg(&values).arg(&stats);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let s = ctx.gpu.download(&stats)?;
    let latches = ctx.gpu.download(&latches)?;
    let want_checks = ROUNDS as u64 * threads_total as u64 * (blocks as u64 - 1);
    let (errors, checks) = (s[0], s[1]);
    let not_open = (0..ROUNDS as usize)
        .filter(|r| latches[r * LATCH_STRIDE] != 0)
        .count();
    if errors != 0 || checks != want_checks || not_open != 0 {
        return Err(format!(
            "{errors} stale or wrong values in {checks} checks (expected 0 in {want_checks}); {not_open} latches not at 0"
        ).into());
    }
    Ok(format!(
        "{ROUNDS} rounds x {blocks} blocks x {THREADS} threads (half the rounds count down per block, half arrive_and_wait per thread): {checks} cross-block checks, 0 errors, every latch at 0; {:.1} us per round",
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "latch_fan_in_cooperative_grid" => fan_in,
    ]
}
