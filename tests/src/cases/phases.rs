//! The phase and count API borrowed from libcu++ (tests/kernels/src/phases.rs): a
//! `Barrier<Gpu>` driven by `arrive_n` and `wait_parity` across a cooperative grid, and
//! `Latch::init` / `Semaphore::init` in a kernel, every count exact.

use crate::{Ctx, GpuTest};
use ptx_sync::barrier::init_word;
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const ROUNDS: u32 = 2_000;
const THREADS: u32 = 64;

fn parity_rounds(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("barrier_parity_rounds")?;
    let blocks = ctx.gpu.sm_count();
    let cfg = ctx.gpu.cooperative_config(&kernel, blocks, THREADS, 0)?;
    let fresh = init_word(3 * blocks);
    let bar = ctx.gpu.upload(&[fresh])?;
    let slots = ctx.gpu.zeros::<u32>(2 * blocks as usize)?;
    let stats = ctx.gpu.zeros::<u32>(4)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&bar).arg(&slots).arg(&ROUNDS).arg(&stats);
    unsafe { b.launch_cooperative(cfg) }.map_err(|x| format!("launch: {x}"))?;
    ctx.gpu.wait(TIMEOUT)?;
    let s = ctx.gpu.download(&stats)?;
    let word = ctx.gpu.download(&bar)?[0];
    let want_word = fresh | (ROUNDS as u64 & 1) << 63;
    let reads = ROUNDS * blocks;
    if s != [0, 0, 0, reads] || word != want_word {
        return Err(format!(
            "[stale reads, wrong token parities, try_wait_parity false after the wait, reads] = {s:?} (expected [0, 0, 0, {reads}]); barrier word {word:#x} (expected {want_word:#x})"
        ).into());
    }
    Ok(format!(
        "{ROUNDS} phases of a Barrier<Gpu> of {} arrivals ({blocks} blocks: arrive_n(2) from thread 0, arrive() from thread 32, both waiting with wait_parity of their own count): {reads} neighbour reads, 0 stale; {} token parities and {} try_wait_parity checks right; final word exact",
        3 * blocks,
        2 * reads,
        2 * reads
    ))
}

fn init_in_kernel(ctx: &Ctx) -> Result<String> {
    let init = ctx.kernel("latch_semaphore_init")?;
    let use_ = ctx.kernel("latch_semaphore_use")?;
    let gpu = &ctx.gpu;
    let (blocks, units) = (132u32, 100u32);
    // Start from words that are not what init writes.
    let latch = gpu.upload(&[7u32])?;
    let sem = gpu.upload(&[3u32])?;
    let taken = gpu.zeros::<u32>(1)?;
    unsafe { launch!(init<<<blocks, 32, 0, gpu>>>(&latch, &sem, blocks)) }?;
    gpu.wait(TIMEOUT)?;
    let after_init = (gpu.download(&latch)?[0], gpu.download(&sem)?[0]);
    if after_init != (blocks, blocks) {
        return Err(format!(
            "after init: (latch, semaphore) = {after_init:?}, expected ({blocks}, {blocks})"
        )
        .into());
    }
    // Re-initialised twice: the last init wins.
    unsafe { launch!(init<<<1, 32, 0, gpu>>>(&latch, &sem, units)) }?;
    unsafe { launch!(init<<<1, 32, 0, gpu>>>(&latch, &sem, blocks)) }?;
    unsafe { launch!(use_<<<blocks, 32, 0, gpu>>>(&latch, &sem, &taken)) }?;
    gpu.wait(TIMEOUT)?;
    let got = (
        gpu.download(&latch)?[0],
        gpu.download(&sem)?[0],
        gpu.download(&taken)?[0],
    );
    if got != (0, 0, blocks) {
        return Err(format!(
            "after {blocks} blocks used them: (latch, semaphore, units taken) = {got:?}, expected (0, 0, {blocks})"
        ).into());
    }
    Ok(format!(
        "Latch::init and Semaphore::init in a kernel: both words exact after init ({blocks}) and after re-init; {blocks} blocks counted the latch to 0 and took exactly {blocks} units"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "barrier_arrive_n_and_wait_parity" => parity_rounds,
        "latch_and_semaphore_init_in_a_kernel" => init_in_kernel,
    ]
}
