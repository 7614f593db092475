//! `Device::wait` at its edges: a zero limit asks once, `Duration::MAX` is no limit.

use super::misuse_stuck::expect_timeout;
use super::misuse_stuck::launch_spin;
use crate::{Ctx, GpuTest};
use ptx_sync_host::MappedBuffer;
use ptx_sync_testkit::Result;
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

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_wait_zero_and_max" => wait_limits,
    ]
}
