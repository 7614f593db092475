//! Mutex under full contention (all SMs x 256 threads): every critical section counted, never
//! two holders at once, also with the lanes of each warp taking the one lock at two call
//! sites at once; and timed acquisition that gives up on a lock nobody releases.

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

/// The kernel's site choice (tests/kernels/src/mutex.rs `site_a`), for the expected counts.
fn site_a(g: u32, it: u32) -> bool {
    let mut x = g.wrapping_mul(64).wrapping_add(it) ^ 0x2545_f491;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x & 1 == 0
}

/// `mutex_two_sites` at three shapes: both words exact (sections at site A, at site B), one
/// holder at most, the lock free after; that it ends at all is the progress check.
fn two_sites(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("mutex_two_sites")?;
    let sm = ctx.gpu.sm_count();
    let mut parts = vec![];
    for (blocks, threads, iters) in [(1u32, 32u32, 64u32), (sm, 32, 32), (sm, 256, 8)] {
        let m = ctx.gpu.zeros::<u32>(words::<Stress>())?;
        let stats = ctx.gpu.zeros::<u32>(96)?;
        let mut b = ctx.gpu.stream().launch_builder(kernel.function());
        b.arg(&m).arg(&stats).arg(&iters);
        let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }
            .map_err(|e| format!("{blocks}x{threads}x{iters}: {e}"))?;
        let m = ctx.gpu.download(&m)?;
        let s = ctx.gpu.download(&stats)?;
        let total = blocks * threads * iters;
        let a = (0..blocks * threads)
            .flat_map(|g| (0..iters).map(move |it| site_a(g, it)))
            .filter(|&x| x)
            .count() as u32;
        let at = Stress::DATA_OFFSET / 4;
        let (data, locked) = ([m[at], m[at + 1]], m[0]);
        if data != [a, total - a] || s[64] != total || s[32] != 1 || s[0] != 0 || locked != 0 {
            return Err(format!(
                "{blocks}x{threads}x{iters}: data {data:?} (expected [{a}, {}]), {} sections, most holders {}, holders left {}, lock word {locked}",
                total - a,
                s[64],
                s[32],
                s[0]
            )
            .into());
        }
        parts.push(format!(
            "{blocks}x{threads}x{iters}: {a} + {} sections, {:.1} ms",
            total - a,
            took.as_secs_f64() * 1e3
        ));
    }
    Ok(format!(
        "one lock taken at two call sites by the lanes of each warp at once, exact, one holder at most: {}",
        parts.join("; ")
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
        "mutex_two_call_sites_one_warp" => two_sites,
        "mutex_try_lock_for_expires_on_held_lock" => try_lock_for_expires,
    ]
}
