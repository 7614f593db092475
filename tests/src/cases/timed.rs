//! Timed waits give up on time: `Semaphore::try_acquire_for` on a semaphore with no unit,
//! `Latch::wait_for` on a latch nobody counts down, `TicketLock::try_lock_for` on a held lock,
//! `Atomic::wait_until_for` a value nobody writes, `Barrier::wait_for` a phase that cannot
//! complete. Each must report the failure after at least the time it was given (measured with
//! `%globaltimer` around the call) and not much later.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
/// tests/kernels/src/timed.rs: REGION, VARIANTS.
const REGION: usize = 128;
const VARIANTS: usize = 5;
const NAMES: [&str; VARIANTS] = [
    "Semaphore::try_acquire_for",
    "Latch::wait_for",
    "TicketLock::try_lock_for",
    "Atomic::wait_until_for",
    "Barrier::wait_for",
];

fn expire(ctx: &Ctx) -> Result<String, String> {
    let (short_ns, long_ns): (u64, u64) = (200_000, 5_000_000);
    let blocks = 2 * VARIANTS;
    let kernel = ctx.kernel("timed_expire")?;
    let mem = ctx
        .gpu
        .zeros::<u32>(blocks * REGION)
        .map_err(|e| e.to_string())?;
    let out = ctx
        .gpu
        .zeros::<u64>(2 * blocks)
        .map_err(|e| e.to_string())?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&mem).arg(&short_ns).arg(&long_ns).arg(&out);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe { b.launch(cfg) }.map_err(|e| format!("launch: {e}"))?;
    ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
    let out = ctx.gpu.download(&out).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    let mut report = Vec::new();
    for k in 0..blocks {
        let (name, ns) = (
            NAMES[k % VARIANTS],
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
        return Err(problems.join("; "));
    }
    let short: Vec<String> = (0..VARIANTS)
        .map(|k| format!("{:.0}", out[2 * k] as f64 / 1e3))
        .collect();
    Ok(format!(
        "{} timed waits expired; 5 ms budgets took: {}; 200 us budgets took (us): {}",
        blocks,
        report.join(", "),
        short.join(", ")
    ))
}

pub fn tests() -> Vec<GpuTest> {
    vec![GpuTest {
        name: "timed_waits_expire_on_time",
        timeout: TIMEOUT,
        run: expire,
    }]
}
