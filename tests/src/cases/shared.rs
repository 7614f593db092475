//! `ptx_sync::shared::Shared<T>` on the GPU (tests/kernels/src/shared.rs): values written and
//! read through `.shared` addresses, through the generic pointer of the same location, and a
//! shared atomic through `from_generic`/`generic`, every block checked exactly.

use crate::{Ctx, GpuTest};
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

fn run(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, base) = (132u32, 256u32, 1_000u32);
    let kernel = ctx.kernel("shared_round_trip")?;
    let gpu = &ctx.gpu;
    let out = gpu.zeros::<u32>(blocks as usize * 4)?;
    let smem = 8 + 12 * threads;
    unsafe { launch!(kernel<<<blocks, threads, smem, gpu>>>(base, &out)) }?;
    gpu.wait(TIMEOUT)?;
    let got = gpu.download(&out)?;
    // Every thread reads its neighbour's `base + r`: the block's sum is the sum over all r.
    let sum: u32 = (0..threads).map(|r| base + r).sum();
    for (b, w) in got.chunks(4).enumerate() {
        if w != [0, sum, threads, 0] {
            return Err(format!(
                "block {b}: [mismatches, neighbour sum, atomic count, 0] = {w:?}, expected [0, {sum}, {threads}, 0]"
            ).into());
        }
    }
    Ok(format!(
        "{blocks} blocks x {threads} threads: u32 and u64 through ld/st.shared and the generic \
         pointer, a shared atomic through from_generic: all exact"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    vec![GpuTest {
        name: "shared_accessors_round_trip",
        timeout: TIMEOUT,
        run,
    }]
}
