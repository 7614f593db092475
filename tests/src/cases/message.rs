//! Message passing with release/acquire: between blocks on different SMs (`Gpu` scope), and
//! between a host thread and the GPU (`Sys` scope, mapped pinned host memory, std atomics on
//! the host). Every payload word of every round is checked; nothing lost, nothing stale.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::MappedBuffer;
use ptx_sync_testkit::{launch_config, one_thread, Result};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// u32 words per pair in `mp_blocks` (tests/kernels/src/message.rs: REGION).
const REGION: usize = 1024;

fn expected(round: u32, i: u32) -> u32 {
    round.wrapping_mul(0x9e37_79b9) ^ i
}

fn blocks(ctx: &Ctx, mode: u32) -> Result<String> {
    const PAIRS: u32 = 64;
    const ROUNDS: u32 = 20_000;
    const LEN: u32 = 16;
    let kernel = ctx.kernel("mp_blocks")?;
    // Waiting across blocks needs them all resident: a cooperative launch guarantees it.
    ctx.gpu.check_cooperative(&kernel, 2 * PAIRS, 1, 0)?;
    let stream = ctx.gpu.stream();
    let buf = stream.alloc_zeros::<u32>(PAIRS as usize * REGION)?;
    let stats = stream.alloc_zeros::<u32>(2 * PAIRS as usize)?;
    let cfg = launch_config(2 * PAIRS, 1, 0);
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&buf).arg(&ROUNDS).arg(&LEN).arg(&mode).arg(&stats);
    unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let stats = stream.clone_dtoh(&stats)?;
    for p in 0..PAIRS as usize {
        let (verified, errors) = (stats[2 * p], stats[2 * p + 1]);
        if errors != 0 || verified != ROUNDS {
            return Err(
                format!("pair {p}: {verified}/{ROUNDS} rounds verified, {errors} errors").into(),
            );
        }
    }
    let how = if mode == 0 {
        "st.release/ld.acquire"
    } else {
        "fence.acq_rel + relaxed"
    };
    Ok(format!(
        "{} messages of {LEN} words verified across {PAIRS} block pairs ({how})",
        PAIRS * ROUNDS
    ))
}

fn host(ctx: &Ctx) -> Result<String> {
    const ROUNDS: u32 = 5_000;
    const LEN: u32 = 8;
    let kernel = ctx.kernel("mp_host")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 64 + 2 * LEN as usize)?;
    let stream = ctx.gpu.stream();
    let stats = stream.alloc_zeros::<u32>(2)?;
    let cfg = one_thread();
    let ptr = buf.device_ptr();
    let mut b = stream.launch_builder(kernel.function());
    b.arg(&ptr).arg(&ROUNDS).arg(&LEN).arg(&stats);
    unsafe { b.launch(cfg) }.map_err(|e| format!("launch: {e}"))?;

    let words = buf.atomics_u32();
    let (h2g, g2h) = (&words[0], &words[32]);
    let to_gpu = &words[64..64 + LEN as usize];
    let to_host = &words[64 + LEN as usize..];
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut host_errors = 0u32;
    for round in 1..=ROUNDS {
        for (i, w) in to_gpu.iter().enumerate() {
            w.store(expected(round, i as u32), Relaxed);
        }
        h2g.store(round, Release);
        while g2h.load(Acquire) != round {
            if Instant::now() > deadline {
                return Err(format!("host: no reply to round {round} within 30 s").into());
            }
            std::hint::spin_loop();
        }
        for (i, w) in to_host.iter().enumerate() {
            if w.load(Relaxed) != expected(round, i as u32).wrapping_add(1) {
                host_errors += 1;
            }
        }
    }
    ctx.gpu.wait(TIMEOUT)?;
    let stats = stream.clone_dtoh(&stats)?;
    if stats[0] != ROUNDS || stats[1] != 0 || host_errors != 0 {
        return Err(format!(
            "GPU verified {}/{ROUNDS} rounds with {} errors; host saw {host_errors} stale words",
            stats[0], stats[1]
        )
        .into());
    }
    Ok(format!(
        "{} host<->GPU messages of {LEN} words verified at Sys scope",
        2 * ROUNDS
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "message_passing_blocks_release_acquire" => |c| blocks(c, 0),
        "message_passing_blocks_fences" => |c| blocks(c, 1),
        "message_passing_host_gpu_sys" => host,
    ]
}
