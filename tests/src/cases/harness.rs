//! Tests of the harness itself: launching, mapped memory, cooperative sizing, the watchdog.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use ptx_sync_host::{Error, MappedBuffer};
use std::process::Command;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn smoke_iota(ctx: &Ctx) -> Result<String, String> {
    let n: u32 = 100_003; // not a multiple of the block size
    let kernel = ctx.kernel("smoke_iota")?;
    let out = ctx
        .gpu
        .upload(&vec![0xdead_beef_u32; n as usize])
        .map_err(|e| e.to_string())?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n)) }.map_err(|e| format!("launch: {e}"))?;
    ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
    let got = ctx.gpu.download(&out).map_err(|e| e.to_string())?;
    match got.iter().enumerate().find(|(i, &v)| v != *i as u32) {
        Some((i, v)) => Err(format!("out[{i}] = {v:#x}")),
        None => Ok(format!("{n} elements written on {}", ctx.gpu.name())),
    }
}

fn mapped_memory_roundtrip(ctx: &Ctx) -> Result<String, String> {
    let n: u32 = 4096;
    let kernel = ctx.kernel("smoke_iota")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, n as usize).map_err(|e| e.to_string())?;
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n)) }.map_err(|e| format!("launch: {e}"))?;
    ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
    let words = buf.atomics_u32();
    match words
        .iter()
        .enumerate()
        .find(|(i, w)| w.load(std::sync::atomic::Ordering::Acquire) != *i as u32)
    {
        Some((i, w)) => Err(format!(
            "host sees word {i} = {}",
            w.load(std::sync::atomic::Ordering::Relaxed)
        )),
        None => Ok(format!("{n} words written by the GPU, read by the host")),
    }
}

fn cooperative_too_large_is_refused(ctx: &Ctx) -> Result<String, String> {
    let kernel = ctx.kernel("convergence_regression")?;
    let limit = ctx
        .gpu
        .cooperative_limit(&kernel, 128, 0)
        .map_err(|e| e.to_string())?;
    ctx.gpu
        .check_cooperative(&kernel, limit.max_blocks, 128, 0)
        .map_err(|e| e.to_string())?;
    match ctx
        .gpu
        .check_cooperative(&kernel, limit.max_blocks + 1, 128, 0)
    {
        Err(e @ Error::GridTooLarge { .. }) => {
            let msg = e.to_string();
            if !msg.contains(&limit.max_blocks.to_string()) {
                return Err(format!("message does not name the limit: {msg}"));
            }
            Ok(format!("refused: {msg}"))
        }
        other => Err(format!("expected GridTooLarge, got {other:?}")),
    }
}

/// Runs in a child process: a kernel that never finishes (see `watchdog_catches_hang`).
fn hang(ctx: &Ctx) -> Result<String, String> {
    let kernel = ctx.kernel("harness_hang")?;
    let flag = ctx.gpu.zeros::<u32>(1).map_err(|e| e.to_string())?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&flag);
    unsafe {
        b.launch(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        })
    }
    .map_err(|e| format!("launch: {e}"))?;
    ctx.gpu
        .wait(Duration::from_secs(600))
        .map_err(|e| e.to_string())?;
    Err("the hanging kernel finished".into())
}

/// The runner's watchdog: run the hidden `__hang` test in a child runner with a 2 s limit; the
/// child must be killed and reported as a timeout with the test's name, quickly.
fn watchdog_catches_hang(ctx: &Ctx) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    let out = Command::new(exe)
        .arg("--ptx-dir")
        .arg(&ctx.ptx_dir)
        .args([
            "--filter",
            "__hang",
            "--include-hidden",
            "--timeout-scale",
            "0.0667",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let took = start.elapsed();
    if out.status.code() != Some(1)
        || !text.contains("TIMEOUT __hang")
        || !text.contains("0 passed, 1 failed")
    {
        return Err(format!(
            "child runner exit {:?}, output:\n{text}",
            out.status.code()
        ));
    }
    if took > Duration::from_secs(20) {
        return Err(format!("the watchdog took {took:?}"));
    }
    Ok(format!(
        "hung kernel reported as `TIMEOUT __hang` in {:.1} s",
        took.as_secs_f64()
    ))
}

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
