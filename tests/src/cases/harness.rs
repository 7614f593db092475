//! Tests of the harness itself: launching, mapped memory, cooperative sizing, the watchdog.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use ptx_sync_host::{Error, MappedBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn smoke_iota(ctx: &Ctx) -> Result<String> {
    let n: u32 = 100_003; // not a multiple of the block size
    let kernel = ctx.kernel("smoke_iota")?;
    let out = ctx.gpu.upload(&vec![0xdead_beef_u32; n as usize])?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&out).arg(&n);
    unsafe { ctx.launch_and_wait(b, LaunchConfig::for_num_elems(n), TIMEOUT) }?;
    let got = ctx.gpu.download(&out)?;
    match got.iter().enumerate().find(|(i, &v)| v != *i as u32) {
        Some((i, v)) => Err(format!("out[{i}] = {v:#x}").into()),
        None => Ok(format!("{n} elements written on {}", ctx.gpu.name())),
    }
}

/// The host writes a pattern through std atomics, a kernel transforms every word through the
/// buffer's device pointer, the host checks every word.
fn mapped_memory_roundtrip(ctx: &Ctx) -> Result<String> {
    use std::sync::atomic::Ordering::{Acquire, Release};
    let n: u32 = 4099; // not a multiple of the block size
    let pattern = |i: u32| i.wrapping_mul(0x9e37_79b9);
    let kernel = ctx.kernel("harness_mapped_roundtrip")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, n as usize)?;
    let words = buf.atomics_u32();
    if let Some(i) = words.iter().position(|w| w.load(Acquire) != 0) {
        return Err(format!("new mapped buffer not zeroed at word {i}").into());
    }
    for (i, w) in words.iter().enumerate() {
        w.store(pattern(i as u32), Release);
    }
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&n);
    unsafe { ctx.launch_and_wait(b, LaunchConfig::for_num_elems(n), TIMEOUT) }?;
    for (i, w) in words.iter().enumerate() {
        let (got, want) = (
            w.load(Acquire),
            pattern(i as u32).wrapping_mul(3).wrapping_add(1),
        );
        if got != want {
            return Err(format!("host sees word {i} = {got:#x}, expected {want:#x}").into());
        }
    }
    Ok(format!(
        "{n} words host -> GPU -> host through mapped memory"
    ))
}

/// `check_cooperative` accepts the largest grid and refuses one block more, naming the limit.
fn cooperative_too_large_is_refused(ctx: &Ctx) -> Result<String> {
    const THREADS: u32 = 256;
    let kernel = ctx.kernel("smoke_iota")?;
    let limit = ctx.gpu.cooperative_limit(&kernel, THREADS, 0)?;
    if limit.max_blocks == 0 || limit.sms != ctx.gpu.sm_count() {
        return Err(format!("implausible limit {limit:?}").into());
    }
    ctx.gpu
        .check_cooperative(&kernel, limit.max_blocks, THREADS, 0)
        .map_err(|e| format!("the largest grid was refused: {e}"))?;
    match ctx
        .gpu
        .check_cooperative(&kernel, limit.max_blocks + 1, THREADS, 0)
    {
        Err(e @ Error::GridTooLarge { .. }) => {
            let msg = e.to_string();
            if !msg.contains(&format!("limit of {} blocks", limit.max_blocks)) {
                return Err(format!("message does not name the limit: {msg}").into());
            }
            Ok(format!("refused: {msg}"))
        }
        Err(e) => Err(format!("expected GridTooLarge, got: {e}").into()),
        Ok(_) => Err(format!(
            "{} blocks accepted, over the limit {limit:?}",
            limit.max_blocks + 1
        )
        .into()),
    }
}

/// Runs in a child process: a kernel that never finishes (see `watchdog_catches_hang`).
fn hang(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("harness_hang")?;
    let flag = ctx.gpu.zeros::<u32>(1)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&flag);
    unsafe { ctx.launch_and_wait(b, one_thread(), Duration::from_secs(600)) }?;
    Err("the hanging kernel finished".into())
}

/// The runner's watchdog: run the hidden `__hang` test in a child runner with a 2 s limit; the
/// child must be killed and reported as a timeout with the test's name, quickly.
fn watchdog_catches_hang(ctx: &Ctx) -> Result<String> {
    let took = crate::runner::hidden_test_times_out(&ctx.ptx_dir, "__hang")?;
    Ok(format!(
        "hung kernel reported as `TIMEOUT __hang` in {:.1} s",
        took.as_secs_f64()
    ))
}

/// The harness's cases; `__hang` is hidden (run only by `harness_watchdog_catches_hang`).
pub fn tests() -> Vec<GpuTest> {
    vec![
        GpuTest {
            name: "harness_smoke_iota",
            timeout: TIMEOUT,
            run: smoke_iota,
        },
        GpuTest {
            name: "harness_mapped_memory_roundtrip",
            timeout: TIMEOUT,
            run: mapped_memory_roundtrip,
        },
        GpuTest {
            name: "harness_cooperative_too_large_is_refused",
            timeout: TIMEOUT,
            run: cooperative_too_large_is_refused,
        },
        GpuTest {
            name: "harness_watchdog_catches_hang",
            timeout: Duration::from_secs(60),
            run: watchdog_catches_hang,
        },
        GpuTest {
            name: "__hang",
            timeout: Duration::from_secs(30),
            run: hang,
        },
    ]
}
