//! Bulk asynchronous copies (sm_90): global memory copied into dynamic shared memory by
//! `ptx_sync::bulk::copy_global_to_shared` (the copy engine, `cp.async.bulk`), completion
//! tracked by the transaction count of a `BlockBarrier` (`arrive_expect_tx`, `expect_tx`,
//! `complete_tx`). Kernels: tests/kernels/src/bulk_copy.rs. Every word every thread reads is
//! checked against the source, and every block's sum of the words it read against the sum the
//! host computes; a phase that announces more bytes than arrive must not complete.

use crate::{Ctx, GpuTest};
use ptx_sync_host::{launch, Error};
use ptx_sync_testkit::Result;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: u32 = 256;
/// The source: 4 MiB of [`pattern`] words.
const SRC_WORDS: u32 = 1 << 20;
/// Bytes per stage (multiples of 16), from one 16-byte unit to 48 KiB. Seven sizes and three
/// ways of announcing the bytes (`s % 3`): every size meets every way within 21 stages.
const SIZES: [u32; 7] = [16, 4096, 49_152, 48, 1_008, 16_384 + 16, 32_768];
/// 42 stages: the barrier's phase flips 42 times.
const ROUNDS: u32 = 6;

/// Word `i` of the source (as the kernels' `pattern`).
fn pattern(i: u32) -> u32 {
    (i.wrapping_mul(0x9E37_79B9) ^ (i >> 13)) | 1
}

/// The first source word of block `b`'s stage `s` (as the kernels' `chunk_offset`).
fn chunk_offset(b: u32, s: u32, words: u32, src_words: u32) -> u32 {
    let mut h = b.wrapping_mul(0x85EB_CA6B) ^ s.wrapping_mul(0xC2B2_AE35) ^ 0x2718_2818;
    h ^= h >> 16;
    h = h.wrapping_mul(0x7FEB_352D);
    h ^= h >> 15;
    let slots = (src_words - words) / 4 + 1;
    (h % slots) * 4
}

/// The sum of the source words `off .. off + words`.
fn chunk_sum(off: u32, words: u32) -> u64 {
    (off..off + words).map(|i| pattern(i) as u64).sum()
}

fn source(ctx: &Ctx) -> Result<ptx_sync_host::cudarc::driver::CudaSlice<u32>> {
    let words: Vec<u32> = (0..SRC_WORDS).map(pattern).collect();
    ctx.gpu.upload(&words).map_err(Into::into)
}

/// Every block copies 42 chunks (16 B to 48 KiB) through one barrier, phase after phase.
fn stages(ctx: &Ctx) -> Result<String> {
    ctx.require_sm90("bulk copies and mbarrier transaction counts need")?;
    let kernel = ctx.kernel("bulk_copy_stages")?;
    let gpu = &ctx.gpu;
    let blocks = gpu.sm_count();
    let src = source(ctx)?;
    let sizes = gpu.upload(&SIZES)?;
    let stats = gpu.zeros::<u64>(blocks as usize * 4)?;
    let smem = 16 + *SIZES.iter().max().unwrap();
    let nsizes = SIZES.len() as u32;
    let start = Instant::now();
    unsafe {
        launch!(kernel<<<blocks, THREADS, smem, gpu>>>(
            &src, SRC_WORDS, &sizes, nsizes, ROUNDS, &stats
        ))
    }?;
    gpu.wait(TIMEOUT)?;
    let took = start.elapsed();
    let got = gpu.download(&stats)?;
    let nstages = ROUNDS * nsizes;
    let mut bytes = 0u64;
    for (b, w) in got.chunks(4).enumerate() {
        let (mut sum, mut words) = (0u64, 0u64);
        for s in 0..nstages {
            let n = SIZES[(s % nsizes) as usize] / 4;
            sum += chunk_sum(chunk_offset(b as u32, s, n, SRC_WORDS), n);
            words += n as u64;
        }
        let want = [0, sum, words, nstages as u64];
        if w != want {
            return Err(format!(
                "block {b}: [mismatched words, sum of the words read, words read, phases] = {w:?}, expected {want:?}"
            ).into());
        }
        bytes += 4 * words;
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads, {nstages} stages each on one BlockBarrier (its phase flipping every stage), {SIZES:?} bytes, announced by arrive_expect_tx, by expect_tx before three piece copies, and by every warp's lane 0 for its share: {bytes} bytes through cp.async.bulk, every word and every block's sum exact; {:.2} ms",
        took.as_secs_f64() * 1e3
    ))
}

/// Announces `4096 + extra` bytes for a 4096-byte copy: returns (waits that timed out, words
/// read, mismatches) over the grid, after checking each block's sum.
fn expect_more(ctx: &Ctx, extra: u32, limit_ns: u32) -> Result<(u64, u64, u64)> {
    let kernel = ctx.kernel("bulk_copy_expect_more")?;
    let gpu = &ctx.gpu;
    let blocks = gpu.sm_count();
    let src = source(ctx)?;
    let stats = gpu.zeros::<u64>(blocks as usize * 4)?;
    unsafe {
        launch!(kernel<<<blocks, THREADS, 16 + 4096, gpu>>>(
            &src, SRC_WORDS, extra, limit_ns, &stats
        ))
    }?;
    gpu.wait(TIMEOUT)?;
    let got = gpu.download(&stats)?;
    let (mut timed_out, mut words, mut bad) = (0, 0, 0);
    for (b, w) in got.chunks(4).enumerate() {
        let want = chunk_sum(chunk_offset(b as u32, 0, 1024, SRC_WORDS), 1024);
        if w[3] != want {
            return Err(format!(
                "extra {extra}: block {b}: sum of the words read {} (expected {want})",
                w[3]
            )
            .into());
        }
        timed_out += w[0];
        bad += w[1];
        words += w[2];
    }
    Ok((timed_out, words, bad))
}

/// A phase that expects 16 bytes more than its copy delivers must not complete (every
/// thread's `wait_for` times out); once `complete_tx(16)` counts them, it does and the data
/// is exact. The control announces exactly the copy: no wait times out.
fn over_announced(ctx: &Ctx) -> Result<String> {
    ctx.require_sm90("bulk copies and mbarrier transaction counts need")?;
    const LIMIT_NS: u32 = 1_000_000;
    let threads = (ctx.gpu.sm_count() * THREADS) as u64;
    let (timed_out, words, bad) = expect_more(ctx, 0, LIMIT_NS)?;
    if timed_out != 0 || bad != 0 || words != threads * 4 {
        return Err(format!(
            "control (exact count): {timed_out} timed waits timed out (expected 0), {bad} mismatched words in {words} (expected 0 in {})",
            threads * 4
        ).into());
    }
    let (timed_out, words, bad) = expect_more(ctx, 16, LIMIT_NS)?;
    if timed_out != threads || bad != 0 || words != threads * 4 {
        return Err(format!(
            "expecting 16 bytes too many: {timed_out} of {threads} timed waits timed out (expected all: the phase must stay open), {bad} mismatched words in {words} after complete_tx (expected 0 in {})",
            threads * 4
        ).into());
    }
    Ok(format!(
        "control: all {threads} threads saw the 4096-byte phase complete within {} us; with 16 bytes over-announced all {threads} wait_for calls timed out, and complete_tx(16) then completed the phase with every word exact",
        LIMIT_NS / 1000
    ))
}

/// A source that is only 4-byte aligned traps in a debug build (the control, aligned, copies).
fn misaligned_traps(ctx: &Ctx) -> Result<String> {
    ctx.require_sm90("bulk copies and mbarrier transaction counts need")?;
    let kernel = ctx.kernel("bulk_copy_misaligned")?;
    let gpu = &ctx.gpu;
    let src = gpu.upload(&[11u32, 22, 33, 44, 55, 66, 77, 88])?;
    let run = |shift: u32| -> Result<(Result<(), Error>, u32)> {
        let done = gpu.zeros::<u32>(1)?;
        unsafe { launch!(kernel<<<1u32, 1u32, 32u32, gpu>>>(&src, shift, &done)) }?;
        let r = gpu.wait(TIMEOUT);
        let d = if r.is_ok() {
            gpu.download(&done)?[0]
        } else {
            0
        };
        Ok((r, d))
    };
    match run(0)? {
        (Ok(()), 1) => {}
        (r, d) => return Err(format!("control (aligned): {r:?}, done = {d} (expected 1)").into()),
    }
    match run(1)?.0 {
        Err(err @ Error::Driver { .. }) => Ok(format!(
            "the aligned control copied; a 4-byte aligned source failed the launch: {err}"
        )),
        Err(err) => Err(format!("expected a trap, got: {err}").into()),
        Ok(()) => Err(
            "a misaligned bulk copy was not caught (is ptx-sync built with debug-assertions?)"
                .into(),
        ),
    }
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "bulk_copy_stages" => stages,
        "bulk_copy_over_announced_phase_stays_open" => over_announced,
        "bulk_copy_misaligned_traps" => misaligned_traps,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_aligned_and_in_bounds() {
        for b in 0..132 {
            for s in 0..ROUNDS * SIZES.len() as u32 {
                let words = SIZES[s as usize % SIZES.len()] / 4;
                let off = chunk_offset(b, s, words, SRC_WORDS);
                assert_eq!(off % 4, 0, "block {b} stage {s}: 16-byte aligned");
                assert!(off + words <= SRC_WORDS, "block {b} stage {s}: in bounds");
            }
        }
        // Odd patterns never equal the kernels' even sentinels.
        assert!((0..SRC_WORDS).all(|i| pattern(i) % 2 == 1));
    }
}
