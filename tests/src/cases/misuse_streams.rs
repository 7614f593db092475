//! The README's two-stream pattern: a consumer kernel launched first waits for a producer
//! kernel on a second handle (`with_new_stream`) made while the consumer already runs.
//!
//! Both kernels are in one module, so they need `CUDA_MODULE_LOADING=EAGER`: under lazy loading
//! the producer's first launch waits for the consumer to end (see `Device::with_new_stream`).
//! The variable is read when CUDA starts in a process, so the case runs the pattern in a child
//! process of the runner with the variable set, judged as the runner judges every case.

use crate::runner::run_in_child;
use crate::{Ctx, GpuTest, Outcome};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::MappedBuffer;
use ptx_sync_testkit::{one_thread, skip, Result};
use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// How long each stream's kernel may take once both run: they meet within microseconds.
const MEET: Duration = Duration::from_secs(10);

/// Expected: run in a child with `CUDA_MODULE_LOADING=EAGER`, `__misuse_two_streams_eager`
/// passes (detail as below) and its process exits within the runner's bound.
fn two_streams_readme_pattern(ctx: &Ctx) -> Result<String> {
    let report = run_in_child(
        &ctx.ptx_dir,
        "__misuse_two_streams_eager",
        &[("CUDA_MODULE_LOADING", "EAGER")],
        TIMEOUT,
    )?;
    match report.outcome {
        Outcome::Pass(detail) => Ok(format!(
            "in a child with CUDA_MODULE_LOADING=EAGER: {detail} (exit {:.2} s after its result)",
            report.exit.unwrap_or_default().as_secs_f64()
        )),
        Outcome::Skip(why) => Err(format!("the child skipped: {why}").into()),
        Outcome::Fail(why) => Err(format!("in the child: {why}").into()),
    }
}

/// Hidden (run by the case above). Expected, with `CUDA_MODULE_LOADING=EAGER` (a skip
/// without it): `misuse_spin_until_set` launched on the first handle waits for a mapped flag;
/// `with_new_stream()` made after that launch returns within 1 s; `misuse_set_word` launched
/// on the second handle sets the flag; `wait(10 s)` on both handles is `Ok` and the consumer's
/// done word is 1.
fn two_streams_eager(ctx: &Ctx) -> Result<String> {
    if std::env::var("CUDA_MODULE_LOADING").as_deref() != Ok("EAGER") {
        return skip(
            "needs CUDA_MODULE_LOADING=EAGER (run through misuse_two_streams_readme_pattern)",
        );
    }
    let consumer = ctx.kernel("misuse_spin_until_set")?;
    let producer = ctx.kernel("misuse_set_word")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 64)?;
    let (flag, done) = (buf.device_ptr(), buf.device_ptr() + 128);
    // SAFETY: the kernel takes two u32 pointers into the mapped buffer, which outlives it.
    unsafe {
        ctx.gpu
            .launch_builder(&consumer)
            .arg(flag)
            .arg(done)
            .launch(one_thread())
    }?;
    let start = Instant::now();
    let second = ctx.gpu.with_new_stream()?;
    let made = start.elapsed();
    if made > super::misuse_stuck::PROMPT {
        return Err(format!(
            "with_new_stream took {:.2} s while a kernel ran (it must not wait for it)",
            made.as_secs_f64()
        )
        .into());
    }
    // SAFETY: the kernel takes one u32 pointer into the mapped buffer.
    unsafe {
        second
            .launch_builder(&producer)
            .arg(flag)
            .launch(one_thread())
    }?;
    second
        .wait(MEET)
        .map_err(|e| format!("the producer on the second stream: {e}"))?;
    ctx.gpu
        .wait(MEET)
        .map_err(|e| format!("the consumer on the first stream: {e}"))?;
    if buf.atomics_u32()[32].load(Acquire) != 1 {
        return Err("the consumer ended without setting its done word".into());
    }
    Ok(format!(
        "with_new_stream took {:.4} s while the consumer ran; the producer on the new stream released it; both waits Ok",
        made.as_secs_f64()
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_two_streams_readme_pattern" => two_streams_readme_pattern,
        "__misuse_two_streams_eager" => two_streams_eager,
    ]
}
