//! The 8/16-bit, half-float and vector atomic types on the GPU (kernels:
//! tests/kernels/src/atomic_types.rs), every result exact: 8/16-bit counters packed into shared
//! and global words (a compare-and-swap that wrote a stale neighbouring byte shows up as a
//! wrong count in that neighbour; the native `atom.cas.b16` and the 32-bit word loops update
//! the same `u16` lanes), bit ownership and NAND on bytes, half-float adds with exactly
//! representable steps (`F16`, `F16x2`, and on sm_90 `Bf16`, `Bf16x2`), sm_90 vector adds and
//! half min/max, and float min/max by compare-exchange loop with NaNs to ignore and signed
//! zeros.

use crate::{Ctx, GpuTest};
use ptx_sync::{Bf16, F16};
use ptx_sync_host::launch;
use ptx_sync_testkit::Result;
use std::time::Duration;

#[allow(dead_code)]
mod data {
    include!("../../mix.rs");
    include!("../../atomic_types_data.rs");
}
use data::{minmax_value, mix, small_value, HALF_STEPS};

const THREADS: u32 = 256;
const TIMEOUT: Duration = Duration::from_secs(60);

fn grid(ctx: &Ctx) -> u32 {
    ctx.gpu.sm_count()
}

/// The bytes of little-endian words.
fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// How many of the threads `0..n` have `id % m == k`.
fn count(n: u32, m: u32, k: u32) -> u32 {
    n / m + (k < n % m) as u32
}

/// What the maxima and minima lanes of a small-integer region must hold for `threads` (global
/// ids) at lane `pos % 16` after `iters` rounds.
fn small_extremes(
    threads: impl Iterator<Item = (u32, u32)> + Clone,
    iters: u32,
) -> ([u16; 16], [i16; 16]) {
    let mut max = [0u16; 16];
    let mut min = [i16::MAX; 16];
    for (pos, me) in threads {
        for i in 0..iters {
            let x = mix(me, i);
            let k = (pos % 16) as usize;
            max[k] = max[k].max(x as u16);
            min[k] = min[k].min((x >> 16) as i16);
        }
    }
    (max, min)
}

/// Checks one 512-byte small-integer region (layout in the kernel file) given the expected
/// counters.
fn check_small(
    what: &str,
    b: &[u8],
    u8_counts: impl Fn(u32) -> u8,
    u16_counts: impl Fn(u32) -> u16,
    extremes: ([u16; 16], [i16; 16]),
    nand: u8,
) -> Result<()> {
    for k in 0..64 {
        if b[k as usize] != u8_counts(k) {
            return Err(format!(
                "{what}: u8 counter {k} = {}, expected {}",
                b[k as usize],
                u8_counts(k)
            )
            .into());
        }
        if b[128 + k as usize] != 0 {
            return Err(format!(
                "{what}: bit-ownership byte {k} = {:#04x}, expected 0",
                b[128 + k as usize]
            )
            .into());
        }
    }
    for k in 0..32 {
        let got = u16_at(b, 64 + 2 * k as usize);
        if got != u16_counts(k) {
            return Err(format!(
                "{what}: u16 counter {k} = {got}, expected {}",
                u16_counts(k)
            )
            .into());
        }
    }
    for k in 0..16 {
        let max = u16_at(b, 192 + 2 * k);
        let min = u16_at(b, 224 + 2 * k) as i16;
        if max != extremes.0[k] || min != extremes.1[k] {
            return Err(format!(
                "{what}: lane {k}: u16 max {max}, i16 min {min}; expected {} and {}",
                extremes.0[k], extremes.1[k]
            )
            .into());
        }
    }
    if let Some(k) = (256..512).find(|&k| b[k] != nand) {
        return Err(format!(
            "{what}: NAND byte {} = {:#04x}, expected {nand:#04x}",
            k - 256,
            b[k]
        )
        .into());
    }
    Ok(())
}

/// Small integers in shared memory at `Cta` scope, per block.
fn small_cta(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_small_cta")?;
    let gpu = &ctx.gpu;
    let (blocks, iters) = (grid(ctx), 17u32);
    let out = gpu.zeros::<u32>(blocks as usize * 128)?;
    let passes = gpu.zeros::<u32>(1)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 512, gpu>>>(&out, iters, &passes)) }?;
    gpu.wait(TIMEOUT)?;
    let out = gpu.download(&out)?;
    let passes = gpu.download(&passes)?[0];
    let want = blocks * THREADS * iters * 5;
    if passes != want {
        return Err(format!(
            "{passes} of {want} bit-ownership and NAND RMWs returned the byte as its owner left it"
        )
        .into());
    }
    for b in 0..blocks {
        let region = bytes(&out[(b * 128) as usize..((b + 1) * 128) as usize]);
        let threads = (0..THREADS).map(|t| (t, b * THREADS + t));
        check_small(
            &format!("block {b}"),
            &region,
            // 4 threads a byte lane (one per form), 8 a u16 lane.
            |_| (4 * iters) as u8,
            |_| (8 * iters) as u16,
            small_extremes(threads, iters),
            if iters % 2 == 1 { 0xff } else { 0 },
        )?;
    }
    Ok(format!(
        "{blocks}x{THREADS} threads, {iters} rounds: 64 u8 and 32 u16 shared counters per block \
         (fetch_add/sub, update, try_update, compare_exchange loops: word loops and atom.cas.b16 \
         on the same lanes), {passes} bit-ownership and NAND checks, u16 max / i16 min: exact"
    ))
}

/// Small integers in one global region at `Gpu` scope, the whole grid contending.
fn small_gpu(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_small_gpu")?;
    let gpu = &ctx.gpu;
    let (blocks, iters) = (grid(ctx), 2u32);
    let n = blocks * THREADS;
    let mut init = vec![0u32; 128];
    init[56..64].fill(0x7fff_7fff);
    let words = gpu.upload(&init)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&words, iters)) }?;
    gpu.wait(TIMEOUT)?;
    let region = bytes(&gpu.download(&words)?);
    check_small(
        "grid",
        &region,
        |k| (count(n, 64, k) * iters) as u8,
        |k| (count(n, 32, k) * iters) as u16,
        small_extremes((0..n).map(|g| (g, g)), iters),
        0,
    )?;
    Ok(format!(
        "{n} threads, {iters} rounds on 64 u8 and 32 u16 global counters packed 4 and 2 a word, \
         u16 max / i16 min: exact"
    ))
}

/// Half adds in global memory, grid-wide.
fn half_gpu(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_half_gpu")?;
    let gpu = &ctx.gpu;
    let blocks = grid(ctx);
    let n = blocks * THREADS;
    if n.div_ceil(64) > 2048 || n.div_ceil(256) > 256 {
        return Err(format!("{n} threads: the sums would leave the exact range").into());
    }
    let words = gpu.zeros::<u32>(480)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&words)) }?;
    gpu.wait(TIMEOUT)?;
    let w = gpu.download(&words)?;
    let b = bytes(&w);
    let f16 = |x: f32| F16::from_f32(x).to_bits();
    let bf16 = |x: f32| Bf16::from_f32(x).to_bits();
    for k in 0..64u32 {
        let c = count(n, 64, k) as f32;
        let got = u16_at(&b, 2 * k as usize);
        if got != f16(c) {
            return Err(format!("F16 lane {k}: {:?}, expected {c}", F16::from_bits(got)).into());
        }
        let pair = w[32 + k as usize];
        let want = f16(c) as u32 | (f16(-0.5 * c) as u32) << 16;
        if pair != want {
            return Err(format!(
                "F16x2 word {k}: {pair:#010x}, expected {want:#010x} ([{c}, {}])",
                -0.5 * c
            )
            .into());
        }
    }
    for k in 0..256u32 {
        let c = count(n, 256, k) as f32;
        let got = u16_at(&b, 4 * 96 + 2 * k as usize);
        if got != bf16(c) {
            return Err(format!("Bf16 lane {k}: {:?}, expected {c}", Bf16::from_bits(got)).into());
        }
        let pair = w[224 + k as usize];
        let want = bf16(c) as u32 | (bf16(0.25 * c) as u32) << 16;
        if pair != want {
            return Err(format!("Bf16x2 word {k}: {pair:#010x}, expected {want:#010x}").into());
        }
    }
    Ok(format!(
        "{n} threads: 64 F16 lanes (2 a word) and 64 F16x2, 256 Bf16 lanes and 256 Bf16x2, \
         fetch_add / red_add / fetch_sub: every sum exact"
    ))
}

/// Half adds in shared memory at `Cta` scope.
fn half_cta(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_half_cta")?;
    let gpu = &ctx.gpu;
    let (blocks, iters) = (grid(ctx), 16u32);
    let out = gpu.zeros::<u32>(blocks as usize * 8)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 32, gpu>>>(&out, iters)) }?;
    gpu.wait(TIMEOUT)?;
    let b = bytes(&gpu.download(&out)?);
    // 16 threads a lane, `iters` adds of 0.5 each: 8 * iters, every partial sum exact.
    let want = F16::from_f32(0.5 * 16.0 * iters as f32).to_bits();
    for lane in 0..blocks as usize * 16 {
        let got = u16_at(&b, 2 * lane);
        if got != want {
            return Err(format!(
                "block {} lane {}: {:?}, expected {:?}",
                lane / 16,
                lane % 16,
                F16::from_bits(got),
                F16::from_bits(want)
            )
            .into());
        }
    }
    Ok(format!(
        "{blocks}x{THREADS} threads: 16 shared F16 lanes per block, atom.add.noftz.f16 and \
         compare-exchange updates on neighbouring halves: exact"
    ))
}

/// min / max by PTX's rule (NaN operands ignored) over `f32` values.
fn fold_num(xs: impl Iterator<Item = f32>, max: bool) -> f32 {
    xs.filter(|x| !x.is_nan()).fold(
        if max {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        },
        |a, x| {
            if max {
                a.max(x)
            } else {
                a.min(x)
            }
        },
    )
}

fn float_minmax(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_float_minmax")?;
    let gpu = &ctx.gpu;
    let blocks = grid(ctx);
    let n = blocks * THREADS;
    let (pinf, ninf) = (f64::INFINITY.to_bits(), f64::NEG_INFINITY.to_bits());
    let init = [
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        pinf as u32,
        (pinf >> 32) as u32,
        ninf as u32,
        (ninf >> 32) as u32,
        0xfc00_7c00, // F16 min from +inf (low half), F16 max from -inf (high half)
        0xff80_ff80, // Bf16x2 max from [-inf, -inf]
        0,           // +0.0
        0x8000_0000, // -0.0
    ];
    let words = gpu.upload(&init)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&words)) }?;
    gpu.wait(TIMEOUT)?;
    let w = gpu.download(&words)?;
    let xs = (0..n).map(minmax_value);
    let (lo, hi) = (fold_num(xs.clone(), false), fold_num(xs.clone(), true));
    let f64_at = |i: usize| f64::from_bits(w[i] as u64 | (w[i + 1] as u64) << 32);
    let h = xs.clone().map(|x| F16::from_f32(x).to_f32());
    let (hlo, hhi) = (fold_num(h.clone(), false), fold_num(h, true));
    let b0 = fold_num(xs.clone().map(|x| Bf16::from_f32(x).to_f32()), true);
    let b1 = fold_num(xs.map(|x| Bf16::from_f32(-x).to_f32()), true);
    let checks = [
        ("f32 min", f32::from_bits(w[0]) as f64, lo as f64),
        ("f32 max", f32::from_bits(w[1]) as f64, hi as f64),
        ("f64 min", f64_at(2), lo as f64),
        ("f64 max", f64_at(4), hi as f64),
        (
            "F16 min",
            F16::from_bits(w[6] as u16).to_f32() as f64,
            hlo as f64,
        ),
        (
            "F16 max (the neighbouring half)",
            F16::from_bits((w[6] >> 16) as u16).to_f32() as f64,
            hhi as f64,
        ),
        (
            "Bf16x2 max lane 0",
            Bf16::from_bits(w[7] as u16).to_f32() as f64,
            b0 as f64,
        ),
        (
            "Bf16x2 max lane 1",
            Bf16::from_bits((w[7] >> 16) as u16).to_f32() as f64,
            b1 as f64,
        ),
    ];
    for (what, got, want) in checks {
        if got.to_bits() != want.to_bits() {
            return Err(format!("{what}: {got}, expected {want} (NaN operands ignored)").into());
        }
    }
    if w[8] != 0x8000_0000 || w[9] != 0 {
        return Err(format!(
            "signed zeros: min over ±0.0 from +0.0 = {:#010x} (expected -0.0, 0x80000000), max \
             from -0.0 = {:#010x} (expected +0.0)",
            w[8], w[9]
        )
        .into());
    }
    Ok(format!(
        "{n} threads (every 97th offering a NaN): f32, f64, F16 and Bf16x2 min/max by \
         compare-exchange loop, and -0.0 < +0.0: exact"
    ))
}

fn vectors(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("atomic_types_vectors")?;
    let gpu = &ctx.gpu;
    let blocks = grid(ctx);
    let n = blocks * THREADS;
    if n.div_ceil(64) > 2048 || n.div_ceil(256) > 256 {
        return Err(format!("{n} threads: the sums would leave the exact range").into());
    }
    let mut init = vec![0u32; 1440];
    init[1376..1392].fill(0x7c00_7c00); // F16 minima from +inf
    init[1392..1408].fill(0xfc00_fc00); // F16 maxima from -inf
    init[1408..1424].fill(0x7f80_7f80); // Bf16 minima from +inf
    init[1424..1440].fill(0xff80_ff80); // Bf16 maxima from -inf
    let words = gpu.upload(&init)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(&words)) }?;
    gpu.wait(TIMEOUT)?;
    let w = gpu.download(&words)?;
    let b = bytes(&w);
    let f32s = |at: usize, len: usize| -> Vec<f32> {
        w[at..at + len].iter().map(|&x| f32::from_bits(x)).collect()
    };
    for k in 0..16u32 {
        let c = count(n, 16, k) as f32;
        let (v2, v4) = (f32s(2 * k as usize, 2), f32s(32 + 4 * k as usize, 4));
        if v2 != [c, 0.25 * c] || v4 != [c, 2.0 * c, 0.5 * c, -0.25 * c] {
            return Err(
                format!("f32 vectors {k}: {v2:?} {v4:?}, expected {c} times the steps").into(),
            );
        }
    }
    let halves = |at_word: usize, len: usize| -> Vec<u16> {
        (0..len).map(|j| u16_at(&b, 4 * at_word + 2 * j)).collect()
    };
    // `groups` vectors of 8 halves from word `base`, vector `k` at `count(k)` times the steps.
    let vectors_of_8 = |name: &str, base: usize, groups: u32, bits: fn(f32) -> u16| -> Result<()> {
        for k in 0..groups {
            let c = count(n, groups, k) as f32;
            let want: Vec<u16> = HALF_STEPS.iter().map(|s| bits(s * c)).collect();
            if halves(base + 4 * k as usize, 8) != want {
                return Err(format!(
                    "{name} {k}: {:04x?}, expected {want:04x?}",
                    halves(base + 4 * k as usize, 8)
                )
                .into());
            }
        }
        Ok(())
    };
    vectors_of_8("AtomicF16x8", 96, 64, |x| F16::from_f32(x).to_bits())?;
    vectors_of_8("AtomicBf16x8", 352, 256, |x| Bf16::from_f32(x).to_bits())?;
    for v in 0..8u32 {
        let owners = || (0..n).filter(move |g| g % 8 == v);
        for j in 0..4u32 {
            let h = owners().map(|g| F16::from_f32(minmax_value(g ^ j)).to_f32());
            let bf = owners().map(|g| small_value(g, j));
            let checks = [
                (
                    "AtomicF16x4 min",
                    halves(1376 + 2 * v as usize, 4)[j as usize],
                    F16::from_f32(fold_num(h.clone(), false)).to_bits(),
                ),
                (
                    "AtomicF16x4 max",
                    halves(1392 + 2 * v as usize, 4)[j as usize],
                    F16::from_f32(fold_num(h, true)).to_bits(),
                ),
                (
                    "AtomicBf16x4 min",
                    halves(1408 + 2 * v as usize, 4)[j as usize],
                    Bf16::from_f32(fold_num(bf.clone(), false)).to_bits(),
                ),
                (
                    "AtomicBf16x4 max",
                    halves(1424 + 2 * v as usize, 4)[j as usize],
                    Bf16::from_f32(fold_num(bf, true)).to_bits(),
                ),
            ];
            for (what, got, want) in checks {
                if got != want {
                    return Err(
                        format!("{what} {v} lane {j}: {got:#06x}, expected {want:#06x}").into(),
                    );
                }
            }
        }
    }
    Ok(format!(
        "{n} threads: atom/red .v2/.v4.f32 adds, .v4.f16x2 / .v4.bf16x2 adds, .v2.f16x2 / \
         .v2.bf16x2 min and max (NaN lanes ignored): every lane exact"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "atomic_types_small_cta" => small_cta,
        "atomic_types_small_gpu" => small_gpu,
        "atomic_types_half_cta" => half_cta,
        "atomic_types_half_gpu" => half_gpu,
        "atomic_types_float_minmax_gpu" => float_minmax,
        "atomic_types_vectors_gpu" => vectors,
    ]
}
