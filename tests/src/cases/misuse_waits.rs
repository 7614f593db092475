//! `Device::wait` at its edges: a zero limit asks once, `Duration::MAX` is no limit; and the
//! device's timed waits given `Duration::MAX`: no limit either, never an overflowed deadline
//! that times out at once.

use super::misuse_stuck::expect_timeout;
use super::misuse_stuck::launch_spin;
use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::MappedBuffer;
use ptx_sync_testkit::{launch_config, Result};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// Expected: `wait(ZERO)` with nothing launched is `Ok`; with a kernel spinning on a mapped
/// word it is `Error::Timeout { gpu: 0, limit: 0 }`; after the host writes the word,
/// `wait(30 s)` is `Ok` and the kernel's done word is 1; then a kernel on a word already set
/// and `wait(Duration::MAX)` is `Ok`.
fn wait_limits(ctx: &Ctx) -> Result<String> {
    ctx.gpu
        .wait(Duration::ZERO)
        .map_err(|e| format!("wait(ZERO) on an idle GPU: {e}"))?;
    let spin = ctx.kernel("misuse_spin_until_set")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 96)?;
    let words = buf.atomics_u32();
    let (word, done) = (buf.device_ptr(), buf.device_ptr() + 128);
    // SAFETY: two u32 pointers into the mapped buffer, which outlives the kernel.
    unsafe { launch_spin(&ctx.gpu, &spin, word, done) }?;
    expect_timeout(ctx.gpu.wait(Duration::ZERO), Duration::ZERO)?;
    words[0].store(1, Release);
    ctx.gpu
        .wait(TIMEOUT)
        .map_err(|e| format!("wait after the host wrote the word: {e}"))?;
    if words[32].load(Acquire) != 1 {
        return Err("the kernel ended without setting its done word".into());
    }
    let done2 = buf.device_ptr() + 256;
    // SAFETY: as above; the word is already set, so the kernel ends at once.
    unsafe { launch_spin(&ctx.gpu, &spin, word, done2) }?;
    ctx.gpu
        .wait(Duration::MAX)
        .map_err(|e| format!("wait(Duration::MAX) on a kernel that ends: {e}"))?;
    if words[64].load(Acquire) != 1 {
        return Err("wait(Duration::MAX) returned before the kernel set its done word".into());
    }
    Ok(
        "wait(ZERO): Ok idle, Timeout busy; Ok once the host ended the kernel; wait(MAX): Ok"
            .into(),
    )
}

/// tests/kernels/src/misuse.rs: MAX_WAIT_REGION, MAX_WAIT_CALLS.
const MAX_WAIT_REGION: usize = 1792;
const MAX_WAIT_CALLS: u32 = 10;

/// The device's counters of a `*_for(Duration::MAX)` kernel, `(ok, timed_out)`, checked
/// against `calls` successes and no timeout.
fn expect_all_ok(got: &[u32], calls: u32, what: &str) -> Result<()> {
    match got {
        [ok, 0] if *ok == calls => Ok(()),
        [ok, late] => Err(format!(
            "{what}: {ok} calls succeeded (expected {calls}), {late} reported a timeout (expected 0)"
        )
        .into()),
        _ => Err(format!("{what}: {} counters, expected 2", got.len()).into()),
    }
}

/// Expected: `misuse_device_timed_waits_of_max` on 2 blocks of 64 threads, each thread with its
/// own zeroed region, makes 10 timed calls per thread with `Duration::MAX` on primitives that
/// are available (`Mutex` and `TicketLock::try_lock_for`, `Semaphore::try_acquire_for`,
/// `Latch::wait_for`, `RwLock::try_read_for` and `try_write_for`, `Queue::push_for` and
/// `pop_for`, `Barrier::wait_for` and `wait_parity_for`): ok = 1280, timed_out = 0.
fn device_timed_waits_of_max(ctx: &Ctx) -> Result<String> {
    let (blocks, threads) = (2u32, 64u32);
    let n = (blocks * threads) as usize;
    let kernel = ctx.kernel("misuse_device_timed_waits_of_max")?;
    let mem = ctx.gpu.zeros::<u32>(n * MAX_WAIT_REGION)?;
    let counts = ctx.gpu.zeros::<u32>(2)?;
    let (ok, late) = (counts.slice(0..1), counts.slice(1..2));
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&mem).arg(&ok).arg(&late);
    // SAFETY: the kernel takes the region (n * MAX_WAIT_REGION u32s) and two u32 counters.
    unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }?;
    let calls = MAX_WAIT_CALLS * blocks * threads;
    expect_all_ok(&ctx.gpu.download(&counts)?, calls, "timed waits of MAX")?;
    Ok(format!(
        "{calls} device timed calls with Duration::MAX on available primitives ({n} threads x {MAX_WAIT_CALLS}) all succeeded, none timed out"
    ))
}

/// Expected: `misuse_latch_wait_for_max_opened_later` on 2 blocks of 64 threads (always resident
/// together): the 64 threads of block 0 wait with `Latch::wait_for(Duration::MAX)` on a latch of
/// 1, then `Semaphore::try_acquire_for(Duration::MAX)` on a semaphore of 0 units; block 1's
/// thread 0 opens the latch after 2 ms and releases 64 units 2 ms later: ok = 128,
/// timed_out = 0, the latch word 0 and the semaphore's 0.
fn device_wait_for_max_opened_later(ctx: &Ctx) -> Result<String> {
    let (blocks, threads) = (2u32, 64u32);
    let kernel = ctx.kernel("misuse_latch_wait_for_max_opened_later")?;
    let words = ctx.gpu.upload(&[1u32, 0, 0, 0])?; // latch, semaphore, ok, timed_out
    let (latch, sem) = (words.slice(0..1), words.slice(1..2));
    let (ok, late) = (words.slice(2..3), words.slice(3..4));
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&latch).arg(&sem).arg(&ok).arg(&late);
    // SAFETY: the kernel takes four u32 pointers into `words`.
    unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }?;
    let got = ctx.gpu.download(&words)?;
    expect_all_ok(&got[2..], 2 * threads, "waits of MAX opened later")?;
    if got[..2] != [0, 0] {
        return Err(format!(
            "latch word {} and semaphore units {} after the kernel (expected 0 and 0)",
            got[0], got[1]
        )
        .into());
    }
    Ok(format!(
        "{} device waits of Duration::MAX (Latch::wait_for, Semaphore::try_acquire_for) on a latch and semaphore another block opened later all succeeded, none timed out",
        2 * threads
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_wait_zero_and_max" => wait_limits,
        "misuse_device_timed_waits_of_max" => device_timed_waits_of_max,
        "misuse_device_wait_for_max_opened_later" => device_wait_for_max_opened_later,
    ]
}
