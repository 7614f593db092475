//! Block and grid barriers, each checked by a double-buffered neighbour exchange (every
//! participant writes its slot of phase i, passes the barrier, and reads its neighbour's slot,
//! which must hold phase i's value): `BlockBarrier` (mbarrier) and `Barrier<Cta>` in shared
//! memory, with split arrive/wait, completion steps and `arrive_and_drop`; `GridBarrier` (`sync`
//! and `sync_aligned`) and `Barrier<Gpu>` over cooperative launches, 100,000 phases each.

use crate::{skip, Ctx, GpuTest};
use ptx_sync::barrier::init_word;
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);

/// The kernels' `stats` (u64): stale neighbour reads, neighbour checks, completion-counter
/// errors, phases (summed over blocks).
struct Stats {
    errors: u64,
    checks: u64,
    counter_errors: u64,
    phases: u64,
}

impl Stats {
    /// From the kernel's `stats` words.
    fn new(s: &[u64]) -> Stats {
        Stats {
            errors: s[0],
            checks: s[1],
            counter_errors: s[2],
            phases: s[3],
        }
    }

    fn check(&self, want_checks: u64, want_phases: u64) -> Result<()> {
        if self.errors != 0
            || self.counter_errors != 0
            || self.checks != want_checks
            || self.phases != want_phases
        {
            return Err(format!(
                "{} stale neighbour reads and {} completion-counter errors in {} checks (expected 0 in {want_checks}), {} phases (expected {want_phases})",
                self.errors, self.counter_errors, self.checks, self.phases
            ).into());
        }
        Ok(())
    }
}

/// Launches a block-barrier kernel (`iters`, `stats`) on `blocks` x `threads` with `smem`
/// bytes of dynamic shared memory; returns its stats and the time it took.
fn launch_block_kernel(
    ctx: &Ctx,
    name: &str,
    blocks: u32,
    threads: u32,
    smem: u32,
    iters: u32,
) -> Result<(Stats, Duration)> {
    let kernel = ctx.kernel(name)?;
    let stats = ctx.gpu.zeros::<u64>(5)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&iters).arg(&stats);
    let cfg = launch_config(blocks, threads, smem);
    let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let s = ctx.gpu.download(&stats)?;
    Ok((Stats::new(&s), took))
}

/// The block-barrier kernels' expected checks: all threads check before phase `iters / 2`,
/// the even half (the odd threads drop out there) from then on.
fn block_checks(blocks: u32, threads: u32, iters: u32) -> u64 {
    let drop_at = (iters / 2) as u64;
    let (t, i) = (threads as u64, iters as u64);
    blocks as u64 * (t * drop_at + t / 2 * (i - drop_at))
}

/// A block-barrier exchange (`kernel`, `header + 8 x 256` bytes of dynamic shared memory):
/// 2 blocks per SM of 256 threads, 10,000 phases. `how` says what a phase does, `clean` what
/// was found clean.
fn block_exchange(ctx: &Ctx, kernel: &str, header: u32, how: &str, clean: &str) -> Result<String> {
    const THREADS: u32 = 256;
    const ITERS: u32 = 10_000;
    let blocks = 2 * ctx.gpu.sm_count();
    let smem = header + 8 * THREADS;
    let (s, took) = launch_block_kernel(ctx, kernel, blocks, THREADS, smem, ITERS)?;
    s.check(
        block_checks(blocks, THREADS, ITERS),
        blocks as u64 * ITERS as u64,
    )?;
    Ok(format!(
        "{} phases ({blocks} blocks x {ITERS}; {how}), {} neighbour checks, {clean}; {:.0} ns per phase",
        s.phases,
        s.checks,
        took.as_secs_f64() * 1e9 / ITERS as f64
    ))
}

fn block_barrier(ctx: &Ctx) -> Result<String> {
    if ctx.gpu.compute_capability() < (8, 0) {
        return skip("BlockBarrier (mbarrier) needs sm_80");
    }
    block_exchange(
        ctx,
        "block_barrier_exchange",
        16,
        "arrive_and_wait, arrive+work+wait, arrive+test_wait; odd threads arrive_and_drop halfway",
        "0 stale",
    )
}

fn barrier_cta(ctx: &Ctx) -> Result<String> {
    block_exchange(
        ctx,
        "barrier_cta_exchange",
        32,
        "arrive_and_wait_with a completion counter checked by every thread, arrive+work+wait, arrive_and_wait; odd threads arrive_and_drop halfway",
        "0 stale, 0 counter errors",
    )
}

/// Threads per block and phases of the grid-wide cases.
const GRID_THREADS: u32 = 128;
const GRID_ROUNDS: u32 = 100_000;

/// The grid-wide kernels' stats, checked: every thread checked its neighbour in every phase,
/// every block counted every phase.
fn grid_stats(ctx: &Ctx, stats: &CudaSlice<u64>, blocks: u32) -> Result<Stats> {
    let s = Stats::new(&ctx.gpu.download(stats)?);
    s.check(
        GRID_ROUNDS as u64 * (blocks * GRID_THREADS) as u64,
        GRID_ROUNDS as u64 * blocks as u64,
    )?;
    Ok(s)
}

fn grid_barrier(ctx: &Ctx) -> Result<String> {
    grid_barrier_through(ctx, "grid_barrier_exchange")
}

/// `grid_barrier` through `GridBarrier::sync_aligned`.
fn grid_barrier_aligned(ctx: &Ctx) -> Result<String> {
    grid_barrier_through(ctx, "grid_barrier_exchange_aligned")
}

fn grid_barrier_through(ctx: &Ctx, name: &str) -> Result<String> {
    let kernel = ctx.kernel(name)?;
    // As many blocks as can be resident at once: the largest grid the barrier supports.
    let limit = ctx.gpu.cooperative_limit(&kernel, GRID_THREADS, 0)?;
    let blocks = limit.max_blocks;
    let cfg = ctx
        .gpu
        .cooperative_config(&kernel, blocks, GRID_THREADS, 0)?;
    let bar = ctx.gpu.zeros::<u32>(1)?;
    let slots = ctx.gpu.zeros::<u32>(2 * (blocks * GRID_THREADS) as usize)?;
    let stats = ctx.gpu.zeros::<u64>(5)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&bar).arg(&GRID_ROUNDS).arg(&slots).arg(&stats);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let s = grid_stats(ctx, &stats, blocks)?;
    let word = ctx.gpu.download(&bar)?[0];
    // Every phase adds 0x8000_0000 in all.
    let want_word = GRID_ROUNDS.wrapping_mul(0x8000_0000);
    if word != want_word {
        return Err(format!(
            "barrier word {word:#x} after {GRID_ROUNDS} phases (expected {want_word:#x})"
        )
        .into());
    }
    Ok(format!(
        "{GRID_ROUNDS} grid phases x {blocks} blocks ({} per SM x {} SMs) x {GRID_THREADS} threads, {} neighbour checks, 0 stale; {:.2} us per phase",
        limit.blocks_per_sm,
        limit.sms,
        s.checks,
        took.as_secs_f64() * 1e6 / GRID_ROUNDS as f64
    ))
}

fn barrier_gpu(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("barrier_gpu_exchange")?;
    let blocks = 2 * ctx.gpu.sm_count();
    // Waiting on other blocks needs them all resident: a cooperative launch guarantees it.
    let cfg = ctx
        .gpu
        .cooperative_config(&kernel, blocks, GRID_THREADS, 0)?;
    // A fresh Barrier<Gpu> of `blocks` threads: one u64 (device/src/barrier.rs).
    let fresh = init_word(blocks);
    let bar = ctx.gpu.upload(&[fresh])?;
    let counter = ctx.gpu.zeros::<u32>(1)?;
    let slots = ctx.gpu.zeros::<u32>(2 * (blocks * GRID_THREADS) as usize)?;
    let stats = ctx.gpu.zeros::<u64>(5)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&bar)
        .arg(&counter)
        .arg(&GRID_ROUNDS)
        .arg(&slots)
        .arg(&stats);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let s = grid_stats(ctx, &stats, blocks)?;
    let bar = ctx.gpu.download(&bar)?;
    let counter = ctx.gpu.download(&counter)?[0];
    let completions = GRID_ROUNDS.div_ceil(3);
    // After GRID_ROUNDS phases: the fresh word with the phase bit of GRID_ROUNDS.
    let want_word = fresh | (GRID_ROUNDS as u64 & 1) << 63;
    if counter != completions || bar != [want_word] {
        return Err(format!(
            "completion counter {counter} (expected {completions}), barrier word {bar:x?} (expected [{want_word:#x}])"
        ).into());
    }
    Ok(format!(
        "{GRID_ROUNDS} phases x {blocks} blocks x {GRID_THREADS} threads (thread 0 arrives: arrive_and_wait_with, arrive+wait, arrive_and_wait), {} neighbour checks, 0 stale, {completions} completions each seen by every thread; {:.2} us per phase",
        s.checks,
        took.as_secs_f64() * 1e6 / GRID_ROUNDS as f64
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "barrier_block_mbarrier_exchange" => block_barrier,
        "barrier_cta_generic_exchange_completion_drop" => barrier_cta,
        "barrier_grid_cooperative_exchange" => grid_barrier,
        "barrier_grid_cooperative_exchange_aligned" => grid_barrier_aligned,
        "barrier_gpu_global_memory_exchange" => barrier_gpu,
    ]
}
