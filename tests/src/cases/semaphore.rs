//! Counting semaphores under full contention (all SMs x 256 threads): never more than MAX
//! holders, exactly MAX at some moment, every pass counted, every unit returned.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

fn stress(ctx: &Ctx, kernel: &str, max: u32) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 4u32);
    let total = blocks * threads * iters;
    let kernel = ctx.kernel(kernel)?;
    let count = ctx.gpu.upload(&[max])?;
    let stats = ctx.gpu.zeros::<u32>(96)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&count).arg(&stats).arg(&iters);
    let cfg = launch_config(blocks, threads, 0);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let count = ctx.gpu.download(&count)?[0];
    let s = ctx.gpu.download(&stats)?;
    let (left, most, passes) = (s[0], s[32], s[64]);
    if passes != total || most != max || left != 0 || count != max {
        return Err(format!(
            "{passes} passes (expected {total}), most holders at once {most} (expected exactly {max}), holders left {left}, free units at the end {count} (expected {max})"
        ).into());
    }
    Ok(format!(
        "{total} passes by {blocks}x{threads} threads, exact; most holders at once: {most} = MAX; all {max} units returned"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "semaphore_max4_all_sms_x256" => |ctx| stress(ctx, "semaphore_stress_4", 4),
        "semaphore_max32_all_sms_x256" => |ctx| stress(ctx, "semaphore_stress_32", 32),
    ]
}
