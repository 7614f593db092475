//! `shared!` variables and the state-space atomics on the GPU (tests/kernels/src/
//! shared_static.rs): shared statics of one kernel do not overlap; a `BlockBarrier` and a
//! `Mutex<u32, Cta>` declared as shared statics give exact counts to 256 threads a block; the
//! `.shared::cta`, `.global` and `.shared::cluster` atomics give the same totals as the generic
//! ones, and those totals are the closed forms; debug builds trap on a `Shared` handle made
//! from a global pointer and on a `Global` handle made from a shared one.

use crate::{clusters_or_skip, Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::{launch, ClusterConfig};
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: u32 = 256;

/// Three shared statics, 2 blocks per SM: no read of another thread's element sees a
/// foreign value, and their `.shared` ranges are disjoint, aligned, and below the dynamic
/// shared memory.
fn disjoint(ctx: &Ctx) -> Result<String> {
    let blocks = 2 * ctx.gpu.sm_count();
    let kernel = ctx.kernel("shared_static_disjoint")?;
    let gpu = &ctx.gpu;
    let out = gpu.zeros::<u32>(8)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 16, gpu>>>(&out)) }?;
    gpu.wait(TIMEOUT)?;
    let o = gpu.download(&out)?;
    let (bad, a, b, w, dynamic) = (o[0], o[1], o[2], o[3], o[4]);
    if bad != 0 {
        return Err(format!(
            "{bad} reads of another thread's element of A, B or W saw a foreign value \
             (of {} reads)",
            3 * blocks * THREADS
        )
        .into());
    }
    let ranges = [("A", a, 1024u32), ("B", b, 1024), ("W", w, 256)];
    for (i, &(n1, s1, l1)) in ranges.iter().enumerate() {
        for &(n2, s2, l2) in &ranges[i + 1..] {
            if s1 < s2 + l2 && s2 < s1 + l1 {
                return Err(
                    format!("{n1} [{s1:#x}, +{l1}) and {n2} [{s2:#x}, +{l2}) overlap").into(),
                );
            }
        }
    }
    let end = ranges.iter().map(|r| r.1 + r.2).max().unwrap();
    if a % 4 != 0 || b % 4 != 0 || w % 8 != 0 || dynamic < end || dynamic % 16 != 0 {
        return Err(format!(
            "addresses A {a:#x}, B {b:#x}, W {w:#x} (u64: 8-aligned), dynamic {dynamic:#x} \
             (16-aligned, after {end:#x})"
        )
        .into());
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads: two [u32; 256] and a [u64; 32] shared! variable \
         filled by every thread (ld/st.shared and generic) and read back by others: \
         {} reads, 0 foreign; .shared ranges A {a:#x}, B {b:#x}, W {w:#x} disjoint, dynamic \
         shared memory after them at {dynamic:#x}",
        3 * blocks * THREADS
    ))
}

/// `BlockBarrier` + `Mutex<u32, Cta>` + `Atomic<u32, Cta>` declared with `shared!`: per block
/// the count is `THREADS x iters`, no phase saw a stale count, `iters` phases.
fn barrier_mutex(ctx: &Ctx) -> Result<String> {
    const ITERS: u32 = 200;
    let blocks = 2 * ctx.gpu.sm_count();
    let kernel = ctx.kernel("shared_static_barrier_mutex")?;
    let gpu = &ctx.gpu;
    let out = gpu.zeros::<u32>(blocks as usize * 3)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(ITERS, &out)) }?;
    gpu.wait(TIMEOUT)?;
    let o = gpu.download(&out)?;
    let want = [THREADS * ITERS, 0, ITERS];
    for (b, got) in o.chunks(3).enumerate() {
        if got != want {
            return Err(format!(
                "block {b}: [count, stale reads, phases] = {got:?}, expected {want:?}"
            )
            .into());
        }
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads x {ITERS} phases on a shared! BlockBarrier, \
         Mutex<u32, Cta> and Atomic<u32, Cta>: every block counted {} critical sections, 0 \
         stale counts after the barrier, {ITERS} phases",
        THREADS * ITERS
    ))
}

/// The slots of `shared_static_space_totals` (tests/kernels/src/shared_static.rs `slot`).
const SLOTS: usize = 16;
const AND: usize = 7;
const SWAP: usize = 10;
const SLOT_NAMES: [&str; 14] = [
    "u32 fetch_add(v)",
    "u32 fetch_add(1)",
    "u64 fetch_add(v << 20)",
    "i32 fetch_max(v)",
    "i64 fetch_min(-v)",
    "u32 fetch_xor(v)",
    "u64 fetch_or(1 << v % 64)",
    "u32 fetch_and(!(1 << v % 32))",
    "u64 compare_exchange(+1)",
    "f32 fetch_add(1.0)",
    "u32 swap(v)",
    "i32 fetch_sub(v)",
    "u32 red_add(v)",
    "f64 fetch_sub(0.5)",
];

/// What every slot holds after the values `lo..=hi` went through it (one value per
/// operation), as the kernel loads it (a `u64` word; 32-bit slots in the low half). `SWAP` is
/// the one value left by the last exchange: checked apart.
fn closed_forms(lo: u64, hi: u64) -> [u64; SLOTS] {
    let n = hi - lo + 1;
    let vs = lo..=hi;
    let sum: u64 = vs.clone().sum();
    let mut s = [0u64; SLOTS];
    s[0] = sum as u32 as u64;
    s[1] = n;
    s[2] = vs.clone().fold(0u64, |a, v| a.wrapping_add(v << 20));
    s[3] = hi as i32 as u32 as u64;
    s[4] = (-(hi as i64)) as u64;
    s[5] = vs.clone().fold(0u32, |a, v| a ^ v as u32) as u64;
    s[6] = vs.clone().fold(0u64, |a, v| a | 1 << (v % 64));
    s[7] = vs.clone().fold(u32::MAX, |a, v| a & !(1 << (v % 32))) as u64;
    s[8] = n;
    s[9] = (n as f32).to_bits() as u64;
    s[11] = 0i32.wrapping_sub(sum as i32) as u32 as u64;
    s[12] = sum as u32 as u64;
    s[13] = (-0.5 * n as f64).to_bits();
    s
}

/// Compares one set of slots with the closed forms; `SWAP` must hold one of the values.
fn check_slots(what: &str, got: &[u64], lo: u64, hi: u64) -> Result<()> {
    let want = closed_forms(lo, hi);
    for (k, name) in SLOT_NAMES.iter().enumerate() {
        if k == SWAP {
            if !(lo..=hi).contains(&got[k]) {
                return Err(
                    format!("{what}: {name} left {}, not one of {lo}..={hi}", got[k]).into(),
                );
            }
        } else if got[k] != want[k] {
            return Err(format!("{what}: {name} = {:#x}, expected {:#x}", got[k], want[k]).into());
        }
    }
    Ok(())
}

/// The same workload through generic atomics and state-space handles, in shared memory per
/// block and in global memory over the grid: both forms equal, and equal to the closed forms.
fn space_totals(ctx: &Ctx) -> Result<String> {
    const ITERS: u32 = 64;
    let blocks = ctx.gpu.sm_count();
    let kernel = ctx.kernel("shared_static_space_totals")?;
    let gpu = &ctx.gpu;
    let out = gpu.zeros::<u64>(blocks as usize * 2 * SLOTS)?;
    let mut init = vec![0u64; 2 * SLOTS];
    init[AND] = u32::MAX as u64;
    init[SLOTS + AND] = u32::MAX as u64;
    let global = gpu.upload(&init)?;
    let sums = gpu.zeros::<u64>(8)?;
    unsafe { launch!(kernel<<<blocks, THREADS, 0, gpu>>>(ITERS, &out, &global, &sums)) }?;
    gpu.wait(TIMEOUT)?;
    let o = gpu.download(&out)?;
    let g = gpu.download(&global)?;
    let s = gpu.download(&sums)?;
    let per_block = (THREADS * ITERS) as u64;
    let mut swap_want = [0u64; 4];
    for (b, words) in o.chunks(2 * SLOTS).enumerate() {
        let (lo, hi) = (b as u64 * per_block + 1, (b as u64 + 1) * per_block);
        let (generic, explicit) = words.split_at(SLOTS);
        check_slots(&format!("block {b}, shared, generic"), generic, lo, hi)?;
        check_slots(
            &format!("block {b}, shared, .shared::cta"),
            explicit,
            lo,
            hi,
        )?;
        let sum: u64 = (lo..=hi).sum();
        swap_want[0] += sum - generic[SWAP];
        swap_want[1] += sum - explicit[SWAP];
    }
    let total = blocks as u64 * per_block;
    let (generic, explicit) = g.split_at(SLOTS);
    check_slots("global, generic", generic, 1, total)?;
    check_slots("global, .global", explicit, 1, total)?;
    let sum: u64 = (1..=total).sum();
    swap_want[2] = sum - generic[SWAP];
    swap_want[3] = sum - explicit[SWAP];
    let count_want = [
        blocks as u64 * (per_block * (per_block - 1) / 2),
        blocks as u64 * (per_block * (per_block - 1) / 2),
        total * (total - 1) / 2,
        total * (total - 1) / 2,
    ];
    let forms = [
        "shared generic",
        "shared .shared::cta",
        "global generic",
        "global .global",
    ];
    for j in 0..4 {
        if s[j] != count_want[j] || s[4 + j] != swap_want[j] {
            return Err(format!(
                "{}: fetch_add(1) returned values summing to {} (expected {}), swap returned {} \
                 (expected the values minus the one left, {})",
                forms[j],
                s[j],
                count_want[j],
                s[4 + j],
                swap_want[j]
            )
            .into());
        }
    }
    Ok(format!(
        "{blocks} blocks x {THREADS} threads x {ITERS} iterations of 14 operations (u32 i32 \
         u64 i64 f32 f64: add, sub, max, min, xor, or, and, compare_exchange loop, swap, \
         red_add; every order) through generic Atomic and through Shared / Global handles: \
         all 4 x 14 totals equal their closed forms, in every block's shared memory and in \
         global memory; fetch_add(1) and swap return values exact in every form"
    ))
}

/// Block 0's shared counters of every 4-block cluster, added to through `.shared::cluster`
/// handles and through generic `Atomic<_, Cluster>` on `cluster::map_shared` addresses.
fn cluster_totals(ctx: &Ctx) -> Result<String> {
    const CLUSTER: u32 = 4;
    const ITERS: u32 = 500;
    ctx.require_sm90("thread-block clusters need")?;
    let kernel = ctx.kernel("shared_static_cluster_totals")?;
    let clusters = 2 * ctx.gpu.sm_count() / CLUSTER;
    let cfg = ClusterConfig::linear(clusters, CLUSTER, THREADS, 0);
    let out = ctx.gpu.zeros::<u64>(clusters as usize * 6)?;
    let mut l = ctx.gpu.launch_builder(&kernel);
    l.arg(&ITERS).arg(&out);
    clusters_or_skip(unsafe { l.launch_cluster(cfg) })?;
    ctx.gpu.wait(TIMEOUT)?;
    let o = ctx.gpu.download(&out)?;
    let t = (CLUSTER * THREADS * ITERS) as u64;
    let want = [t, t, 2 * t, t * (t - 1) / 2, t * (t - 1) / 2, 0];
    for (c, got) in o.chunks(6).enumerate() {
        if got != want {
            return Err(format!(
                "cluster {c}: [handle count, generic count, u64 count, generic returns, \
                 handle returns, 0] = {got:?}, expected {want:?}"
            )
            .into());
        }
    }
    Ok(format!(
        "{clusters} clusters x {CLUSTER} blocks x {THREADS} threads x {ITERS}: fetch_add on \
         block 0's shared! counters through Shared::map (.shared::cluster) and through \
         cluster::map_shared + Atomic<_, Cluster>: both counts {t}, returned values n(n-1)/2 \
         in both, the u64 handle count {}",
        2 * t
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "shared_static_variables_do_not_overlap" => disjoint,
        "shared_static_block_barrier_and_mutex" => barrier_mutex,
        "shared_static_space_atomics_match_generic" => space_totals,
        "shared_static_cluster_atomics_match_generic" => cluster_totals,
        "shared_static_shared_handle_from_global_traps" => |ctx| {
                // The misuse cases' protocol: the control counts the word from 5 to 6, the
                // misuse traps.
                super::misuse::traps(
                    ctx,
                    "shared_static_misuse_shared_from_global",
                    5,
                    6,
                    "Shared::from_generic of a global pointer",
                )
            },
        "shared_static_global_handle_from_shared_traps" => |ctx| {
                super::misuse::traps(
                    ctx,
                    "shared_static_misuse_global_from_shared",
                    5,
                    6,
                    "Global::from_generic of a shared pointer",
                )
            },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's 14 operations on every value of `lo..=hi` in one order, on plain words
    /// laid out as the kernel's slots (the atomics' results do not depend on the order).
    fn simulate(lo: u64, hi: u64) -> [u64; SLOTS] {
        let mut s = [0u64; SLOTS];
        s[AND] = u32::MAX as u64;
        let lo32 = |x: u64| x as u32;
        for v in lo..=hi {
            let v32 = v as u32;
            s[0] = lo32(s[0]).wrapping_add(v32) as u64;
            s[1] = lo32(s[1]).wrapping_add(1) as u64;
            s[2] = s[2].wrapping_add(v << 20);
            s[3] = (s[3] as u32 as i32).max(v32 as i32) as u32 as u64;
            s[4] = (s[4] as i64).min(-(v as i64)) as u64;
            s[5] = (lo32(s[5]) ^ v32) as u64;
            s[6] |= 1 << (v % 64);
            s[7] = (lo32(s[7]) & !(1u32 << (v % 32))) as u64;
            s[8] += 1;
            s[9] = (f32::from_bits(lo32(s[9])) + 1.0).to_bits() as u64;
            s[SWAP] = v32 as u64;
            s[11] = (lo32(s[11]) as i32).wrapping_sub(v32 as i32) as u32 as u64;
            s[12] = lo32(s[12]).wrapping_add(v32) as u64;
            s[13] = (f64::from_bits(s[13]) - 0.5).to_bits();
        }
        s
    }

    #[test]
    fn closed_forms_are_what_the_operations_leave() {
        for (lo, hi) in [(1, 16_384), (16_385, 32_768), (1, 2_162_688)] {
            let got = simulate(lo, hi);
            check_slots("simulated", &got, lo, hi).unwrap();
        }
        // And the check fails a wrong slot.
        let mut bad = simulate(1, 100);
        bad[5] ^= 4;
        assert!(check_slots("bad", &bad, 1, 100).is_err());
        let mut swap = simulate(1, 100);
        swap[SWAP] = 101;
        assert!(check_slots("bad swap", &swap, 1, 100).is_err());
    }
}
