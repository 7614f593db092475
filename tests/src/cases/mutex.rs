//! Mutex under full contention (all SMs x 256 threads): every critical section counted, never
//! two holders at once; and timed acquisition that gives up on a lock nobody releases.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// The kernels' mutexes (tests/kernels/src/mutex.rs), laid out as on the GPU.
type Stress = ptx_sync::Mutex<[u32; 2], ptx_sync::Gpu>;
type Plain = ptx_sync::Mutex<u32, ptx_sync::Gpu>;

/// u32 words that hold a `M` (rounded up).
fn words<M>() -> usize {
    std::mem::size_of::<M>().div_ceil(4)
}

fn stress(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 8u32);
    let kernel = ctx.kernel("mutex_stress")?;
    let m = ctx.gpu.zeros::<u32>(words::<Stress>())?;
    let stats = ctx.gpu.zeros::<u32>(96)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&m).arg(&stats).arg(&iters);
    let cfg = launch_config(blocks, threads, 0);
    unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let m = ctx.gpu.download(&m)?;
    let s = ctx.gpu.download(&stats)?;
    let total = blocks * threads * iters;
    let at = Stress::DATA_OFFSET / 4;
    let (data, locked) = ([m[at], m[at + 1]], m[0]);
    if data != [total, 3 * total] || s[64] != total || s[32] != 1 || s[0] != 0 || locked != 0 {
        return Err(format!(
            "data {data:?} (expected [{total}, {}]), {} sections, most holders {}, holders left {}, lock word {locked}",
            3 * total,
            s[64],
            s[32],
            s[0]
        ).into());
    }
    Ok(format!(
        "{total} critical sections by {blocks}x{threads} threads, exact; most holders at once: 1"
    ))
}

fn try_lock_for_expires(ctx: &Ctx) -> Result<String> {
    let blocks = 8u32;
    let ns: u64 = 2_000_000;
    let kernel = ctx.kernel("mutex_try_lock_for_expires")?;
    let m = ctx.gpu.zeros::<u32>(words::<Plain>())?;
    let out = ctx.gpu.zeros::<u32>(blocks as usize)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&m).arg(&out).arg(&ns);
    let cfg = launch_config(blocks, 1, 0);
    let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let out = ctx.gpu.download(&out)?;
    if out[0] != 1 || out[1..].iter().any(|&v| v != 2) {
        return Err(format!(
            "block results {out:?}: expected block 0 = 1 (holds), others = 2 (expired)"
        )
        .into());
    }
    Ok(format!(
        "{} timed attempts of 2 ms expired on a held lock; kernel took {:.1} ms",
        blocks - 1,
        took.as_secs_f64() * 1e3
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "mutex_stress_all_sms_x256" => stress,
        "mutex_try_lock_for_expires_on_held_lock" => try_lock_for_expires,
    ]
}
