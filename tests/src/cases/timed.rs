//! Timed waits (tests/kernels/src/timed.rs):
//! - give up on time: every timed operation, in its `*_for(Duration)` and `*_until(Instant)`
//!   form, on something that never becomes available, must report the failure after at least
//!   the time it was given (measured with `%globaltimer` around the call) and not much later;
//! - with a deadline that has passed (`Instant::from_nanos(0)`, or `Instant::now()` read
//!   before the call) each makes exactly one attempt: it fails on an unavailable object and
//!   succeeds on an available one, and a counting poll closure runs exactly once;
//! - a timed `BlockBarrier` wait (the `mbarrier.try_wait` suspend-time hint on sm_90) times
//!   out while the phase cannot complete, then succeeds.

use crate::{skip, Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
/// tests/kernels/src/timed.rs: REGION, VARIANTS, PAST_VARIANTS, PAST_OUT.
const REGION: usize = 128;
const VARIANTS: usize = 20;
const PAST_VARIANTS: usize = 12;
const PAST_OUT: usize = 8;
const NAMES: [&str; VARIANTS / 2] = [
    "Semaphore<Gpu, 4>::try_acquire",
    "BinarySemaphore::try_acquire",
    "Latch::wait",
    "TicketLock::try_lock",
    "Mutex::try_lock",
    "Atomic::wait_until",
    "AtomicFlag::wait",
    "Barrier::wait",
    "Barrier::wait_parity",
    "wait::poll_until",
];

/// The name of variant `v` of `timed_expire`.
fn name(v: usize) -> String {
    let form = match (v / 2, v % 2) {
        (5, 0) | (9, 0) => "_for", // `wait_until_for`, `poll_until_for`
        (5, _) | (9, _) => "_deadline",
        (_, 0) => "_for",
        _ => "_until",
    };
    format!("{}{form}", NAMES[v / 2])
}

fn expire(ctx: &Ctx) -> Result<String> {
    let (short_ns, long_ns): (u64, u64) = (200_000, 5_000_000);
    let blocks = 2 * VARIANTS;
    let kernel = ctx.kernel("timed_expire")?;
    let mem = ctx.gpu.zeros::<u32>(blocks * REGION)?;
    let out = ctx.gpu.zeros::<u64>(2 * blocks)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&mem).arg(&short_ns).arg(&long_ns).arg(&out);
    let cfg = launch_config(blocks as u32, 1, 0);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let out = ctx.gpu.download(&out)?;
    let mut problems = Vec::new();
    let mut report = Vec::new();
    for k in 0..blocks {
        let (name, ns) = (
            name(k % VARIANTS),
            if k < VARIANTS { short_ns } else { long_ns },
        );
        let (took, result) = (out[2 * k], out[2 * k + 1]);
        // Generous: the backoff sleeps at most about 1 us between polls.
        let bound = 2 * ns + 1_000_000;
        if result != 1 {
            problems.push(format!(
                "{name}({ns} ns) did not report the failure ({result})"
            ));
        } else if took < ns || took >= bound {
            problems.push(format!(
                "{name}({ns} ns) gave up after {took} ns (expected {ns}..{bound})"
            ));
        }
        if k >= VARIANTS {
            report.push(format!("{name} {:.3} ms", took as f64 / 1e6));
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("; ").into());
    }
    let short: Vec<String> = (0..VARIANTS)
        .map(|k| format!("{:.0}", out[2 * k] as f64 / 1e3))
        .collect();
    Ok(format!(
        "{} timed waits ({} operations, each as *_for(Duration) and *_until(Instant)) expired; 5 ms budgets took: {}; 200 us budgets took (us): {}",
        blocks,
        VARIANTS / 2,
        report.join(", "),
        short.join(", ")
    ))
}

const PAST_NAMES: [&str; PAST_VARIANTS] = [
    "Semaphore<Gpu, 4>::try_acquire_until",
    "BinarySemaphore<Gpu>::try_acquire_until",
    "BinarySemaphore<Sys>::try_acquire_until",
    "Latch::wait_until",
    "TicketLock::try_lock_until",
    "Mutex::try_lock_until",
    "Atomic::wait_until_deadline",
    "AtomicFlag::wait_until",
    "Barrier::wait_until",
    "Barrier::wait_parity_until",
    "wait::poll_until_deadline",
    "wait::poll_until_for(ZERO)",
];

fn past_deadline(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("timed_past_deadline")?;
    let mem = ctx.gpu.zeros::<u32>(2 * PAST_VARIANTS * REGION)?;
    let out = ctx.gpu.zeros::<u64>(PAST_OUT * PAST_VARIANTS)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&mem).arg(&out);
    let cfg = launch_config(PAST_VARIANTS as u32, 1, 0);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let out = ctx.gpu.download(&out)?;
    let mut problems = Vec::new();
    let mut longest = 0;
    for (k, name) in PAST_NAMES.iter().enumerate() {
        let o = &out[PAST_OUT * k..PAST_OUT * (k + 1)];
        // Polls are counted by the two `wait::` variants only: one per call, four calls.
        let polls = if k >= 10 { 4 } else { 0 };
        if o[0] != 2 || o[1] != 2 || o[2] != polls {
            problems.push(format!(
                "{name}: {} of 2 calls on an unavailable object timed out, {} of 2 on an available one succeeded, {} polls (expected {polls})",
                o[0], o[1], o[2]
            ));
        }
        longest = longest.max(o[3]);
    }
    if !problems.is_empty() {
        return Err(problems.join("; ").into());
    }
    Ok(format!(
        "{} *_until operations x 2 past deadlines: 24 timed out on an unavailable object, 24 succeeded on an available one with their one attempt, 8 counted polls = 8 calls; longest pair of calls {:.1} us",
        PAST_VARIANTS,
        longest as f64 / 1e3
    ))
}

fn block_barrier(ctx: &Ctx) -> Result<String> {
    const THREADS: u32 = 64;
    const BLOCKS: u32 = 4;
    let short_ns: u64 = 20_000;
    if ctx.gpu.compute_capability() < (8, 0) {
        return skip("BlockBarrier (mbarrier) needs sm_80");
    }
    let kernel = ctx.kernel("block_barrier_timed")?;
    let out = ctx.gpu.zeros::<u64>(8 * BLOCKS as usize)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&short_ns).arg(&out);
    let cfg = launch_config(BLOCKS, THREADS, 16 + 4 * THREADS);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let out = ctx.gpu.download(&out)?;
    let mut took = Vec::new();
    for blk in 0..BLOCKS as usize {
        let o = &out[8 * blk..8 * blk + 8];
        let want = [2, 2 * THREADS as u64, 0];
        if o[..3] != want || o[4] != 1 {
            return Err(format!(
                "block {blk}: {} timeouts (expected 2), {} waits succeeded (expected {}), {} stale slots (expected 0), parity after phase 0 right {} times (expected 1)",
                o[0], o[1], want[1], o[2], o[4]
            ).into());
        }
        if o[3] < short_ns || o[3] >= 2 * short_ns + 1_000_000 {
            return Err(format!(
                "block {blk}: wait_for({short_ns} ns) gave up after {} ns",
                o[3]
            )
            .into());
        }
        took.push(format!("{:.1}", o[3] as f64 / 1e3));
    }
    Ok(format!(
        "{BLOCKS} blocks x {THREADS} threads: wait_for({} us) and wait_until(now) timed out while the phase could not complete, then wait_for / wait_parity_for / wait_until / wait_parity_until succeeded ({} waits), 0 stale slots; the 20 us waits took (us): {}",
        short_ns / 1000,
        2 * THREADS * BLOCKS,
        took.join(", ")
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "timed_waits_expire_on_time" => expire,
        "timed_until_past_deadline_makes_one_attempt" => past_deadline,
        "block_barrier_timed_wait_times_out_then_succeeds" => block_barrier,
    ]
}
