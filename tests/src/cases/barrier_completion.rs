//! A completion stored in the barrier (`Barrier::with_completion`, libcu++'s
//! `barrier<Scope, CompletionF>`): tests/kernels/src/barrier_completion.rs. Every thread
//! arrives one of four ways per phase (`arrive_and_wait`, `arrive` + work + `wait`, `arrive` +
//! `wait_parity`, `arrive` + `wait_for`), half of each barrier's threads `arrive_and_drop` at
//! the last full phase; the completion counts the phases and checks every participant's slot.
//! Exact: each barrier's completion ran exactly `full + extra` times, it never read a stale
//! slot, and every thread released from phase `p` read the count `p + 1`.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// `size_of::<Barrier<S, NanoSleep, Census>>()` in the kernels: the word and the completion
/// (three pointers and four `u32`s).
const BARRIER_BYTES: u32 = 48;

/// Checks executed by the threads of one barrier of `members` (tests/kernels: `run`): every
/// member before the last full phase, the half that stays at it and after it.
fn checks_per_barrier(members: u64, full: u64, extra: u64) -> u64 {
    members * (full - 1) + members / 2 * (1 + extra)
}

fn check_stats(s: &[u64], want_checks: u64) -> Result<()> {
    if s[0] != 0 || s[1] != want_checks || s[2] != 0 {
        return Err(format!(
            "{} threads saw a stale completion count in {} checks (expected 0 in {want_checks}), {} timed waits timed out (expected 0)",
            s[0], s[1], s[2]
        ).into());
    }
    Ok(())
}

fn cta(ctx: &Ctx, objects: u32) -> Result<String> {
    const THREADS: u32 = 256;
    const FULL: u32 = 64;
    const EXTRA: u32 = 32;
    let blocks = 2 * ctx.gpu.sm_count();
    let kernel = ctx.kernel("barrier_completion_cta")?;
    let stats = ctx.gpu.zeros::<u64>(4)?;
    let out = ctx.gpu.zeros::<u32>((2 * blocks * objects) as usize)?;
    let smem = objects * BARRIER_BYTES + 8 * objects + 4 * THREADS;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&objects).arg(&FULL).arg(&EXTRA).arg(&stats).arg(&out);
    let cfg = launch_config(blocks, THREADS, smem);
    let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let s = ctx.gpu.download(&stats)?;
    let out = ctx.gpu.download(&out)?;
    let members = (THREADS / objects) as u64;
    let per = checks_per_barrier(members, FULL as u64, EXTRA as u64);
    check_stats(&s, per * (objects * blocks) as u64)?;
    let phases = FULL + EXTRA;
    for (i, pair) in out.chunks(2).enumerate() {
        if pair != [phases, 0] {
            return Err(format!(
                "block {} barrier {}: the completion ran {} times (expected {phases}) and read {} stale slots (expected 0)",
                i as u32 / objects,
                i as u32 % objects,
                pair[0],
                pair[1]
            ).into());
        }
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads on {objects} Barrier<Cta> with a completion each ({members} threads, half of them dropping after phase {}): every completion ran exactly {phases} times and read 0 stale slots; {} released threads saw its count, 0 stale, 0 timeouts; {:.2} ms",
        FULL - 1,
        s[1],
        took.as_secs_f64() * 1e3
    ))
}

fn gpu(ctx: &Ctx, objects: u32) -> Result<String> {
    const THREADS: u32 = 128;
    const FULL: u32 = 16;
    const EXTRA: u32 = 8;
    let kernel = ctx.kernel("barrier_completion_gpu")?;
    let blocks = 8.min(ctx.gpu.sm_count());
    // Waiting on other blocks needs them all resident: a cooperative launch guarantees it.
    let cfg = ctx.gpu.cooperative_config(&kernel, blocks, THREADS, 0)?;
    let threads = blocks * THREADS;
    let words = (objects * BARRIER_BYTES) / 4 + 2 * objects + 1 + threads;
    let mem = ctx.gpu.zeros::<u32>(words as usize)?;
    let stats = ctx.gpu.zeros::<u64>(4)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&objects).arg(&FULL).arg(&EXTRA).arg(&mem).arg(&stats);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let s = ctx.gpu.download(&stats)?;
    let mem = ctx.gpu.download(&mem)?;
    let members = (threads / objects) as u64;
    check_stats(
        &s,
        checks_per_barrier(members, FULL as u64, EXTRA as u64) * objects as u64,
    )?;
    let base = (objects * BARRIER_BYTES / 4) as usize;
    let counts = &mem[base..base + objects as usize];
    let bad = &mem[base + objects as usize..base + 2 * objects as usize];
    let phases = FULL + EXTRA;
    if counts.iter().any(|&c| c != phases) || bad.iter().any(|&b| b != 0) {
        return Err(format!(
            "completion runs per barrier {counts:?} (expected {phases} each), stale slots read {bad:?} (expected 0)"
        ).into());
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads on {objects} Barrier<Gpu> with a completion each (global memory, {members} threads each, half dropping after phase {}): every completion ran exactly {phases} times, 0 stale slots; {} released threads saw its count, 0 stale; {:.2} ms",
        FULL - 1,
        s[1],
        took.as_secs_f64() * 1e3
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "barrier_completion_cta_one_barrier" => |ctx| cta(ctx, 1),
        "barrier_completion_cta_lanes_on_2_barriers" => |ctx| cta(ctx, 2),
        "barrier_completion_cta_lanes_on_32_barriers" => |ctx| cta(ctx, 32),
        "barrier_completion_gpu_one_barrier" => |ctx| gpu(ctx, 1),
        "barrier_completion_gpu_threads_on_2_barriers" => |ctx| gpu(ctx, 2),
    ]
}
