//! The convergence regression (../shared/facts/toolchain.md): thread 0 spins between two
//! block barriers in a loop. With `_syncthreads()` under rustc 1.95 this shape hung on an
//! H100; with `ptx_sync::block::sync()` it must finish every round in every block.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

fn run(ctx: &Ctx) -> Result<String> {
    const ROUNDS: u32 = 2_000;
    const THREADS: u32 = 128;
    let kernel = ctx.kernel("convergence_regression")?;
    let blocks = ctx.gpu.sm_count();
    ctx.gpu.check_cooperative(&kernel, blocks, THREADS, 0)?;
    let stream = ctx.gpu.stream();
    let arrived = stream.alloc_zeros::<u32>(1)?;
    let done = stream.alloc_zeros::<u32>(1)?;
    let cfg = launch_config(blocks, THREADS, 0);
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&arrived).arg(&ROUNDS).arg(&done);
    unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let arrived = stream.clone_dtoh(&arrived)?[0];
    let done = stream.clone_dtoh(&done)?[0];
    if done != blocks || arrived != ROUNDS * blocks {
        return Err(format!(
            "{done}/{blocks} blocks done, {arrived}/{} arrivals",
            ROUNDS * blocks
        )
        .into());
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads ran {ROUNDS} barrier rounds"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    vec![GpuTest {
        name: "convergence_regression_spin_between_block_barriers",
        timeout: TIMEOUT,
        run,
    }]
}
