//! Litmus probe (issue 5, first step): MP over every thread of 132 x 256, roles paired across
//! CTAs by the litmus crate's permutation, outcomes classified by its oracle. The synchronized
//! variant must show no forbidden outcome; the relaxed control's weak count is reported.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_litmus::layout::{inverse, Groups, Permutation};
use ptx_sync_litmus::oracle::{Class, Oracle, Variant};
use ptx_sync_litmus::tests::shape;
use std::collections::BTreeMap;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const LAUNCHES: u64 = 200;
const STRIDE: u64 = 64;

fn mp(ctx: &Ctx, variant: Variant) -> Result<String, String> {
    let (blocks, threads) = (ctx.gpu.sm_count(), 256u32);
    let n = (blocks * threads) as u64;
    let kernel = ctx.kernel("litmus_mp")?;
    let oracle = Oracle::new(shape("MP").unwrap());
    let stream = ctx.gpu.stream();
    let mut hist: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
    let mut mem = stream
        .alloc_zeros::<u32>((n * 2 * STRIDE) as usize)
        .map_err(|e| e.to_string())?;
    let mut out = stream
        .alloc_zeros::<u32>((2 * n) as usize)
        .map_err(|e| e.to_string())?;
    let mut start = stream.alloc_zeros::<u64>(1).map_err(|e| e.to_string())?;
    for launch in 0..LAUNCHES {
        let perm = Permutation::new(n, threads as u64, 2, launch * 7919).ok_or("no permutation")?;
        let params = [
            n,
            inverse(perm.multiplier, n),
            perm.shift,
            STRIDE,
            (variant == Variant::Synchronized) as u64,
        ];
        let params = stream.clone_htod(&params).map_err(|e| e.to_string())?;
        stream.memset_zeros(&mut mem).map_err(|e| e.to_string())?;
        stream.memset_zeros(&mut out).map_err(|e| e.to_string())?;
        stream.memset_zeros(&mut start).map_err(|e| e.to_string())?;
        let cfg = ctx
            .gpu
            .cooperative_config(&kernel, blocks, threads, 0)
            .map_err(|e| e.to_string())?;
        let mut b = stream.launch_builder(kernel.function());
        b.arg(&mem).arg(&out).arg(&start).arg(&params);
        unsafe { b.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
        ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
        let o = stream.clone_dtoh(&out).map_err(|e| e.to_string())?;
        for pair in o.chunks(2) {
            *hist.entry(pair.to_vec()).or_default() += 1;
        }
    }
    let total: u64 = hist.values().sum();
    let count = |c: Class| -> u64 {
        hist.iter()
            .filter(|(k, _)| oracle.classify(k, variant) == c)
            .map(|(_, v)| v)
            .sum()
    };
    let (forbidden, impossible, weak) = (
        count(Class::Forbidden),
        count(Class::Impossible),
        count(Class::WeakAllowed),
    );
    let shown: Vec<String> = hist.iter().map(|(k, v)| format!("{k:?}: {v}")).collect();
    let summary = format!(
        "MP {variant:?}, {total} instances ({LAUNCHES} launches x {n}), outcomes {}; weak per million: {:.1}",
        shown.join(", "),
        (weak + forbidden) as f64 * 1e6 / total as f64
    );
    if forbidden != 0 || impossible != 0 || total != LAUNCHES * n {
        return Err(format!(
            "{summary}: {forbidden} forbidden, {impossible} impossible"
        ));
    }
    Ok(summary)
}

pub fn tests() -> Vec<GpuTest> {
    vec![
        GpuTest {
            name: "litmus_mp_synchronized",
            timeout: Duration::from_secs(120),
            run: |ctx| mp(ctx, Variant::Synchronized),
        },
        GpuTest {
            name: "litmus_mp_relaxed_control",
            timeout: Duration::from_secs(120),
            run: |ctx| mp(ctx, Variant::Relaxed),
        },
        GpuTest {
            name: "litmus_all_shapes",
            timeout: Duration::from_secs(300),
            run: all_shapes,
        },
    ]
}

/// Every shape of the litmus crate, synchronized and relaxed, from data (`litmus_shape`).
fn all_shapes(ctx: &Ctx) -> Result<String, String> {
    use ptx_sync_litmus::tests::{Insn, SHAPES};
    const ROUNDS: u64 = 100;
    let (blocks, threads) = (ctx.gpu.sm_count(), 256u32);
    let n = (blocks * threads) as u64;
    let kernel = ctx.kernel("litmus_shape")?;
    let stream = ctx.gpu.stream();
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for s in SHAPES {
        let oracle = Oracle::new(s);
        let roles = s.threads.len() as u64;
        let locations = s.locations() as u64;
        let regs: u64 = (s.outcome_len() - s.finals.len()) as u64;
        let mut prog = vec![0u32; (roles * 5) as usize];
        let mut base = 0u32;
        for (r, th) in s.threads.iter().enumerate() {
            for (k, insn) in th.iter().enumerate() {
                prog[r * 4 + k] = match *insn {
                    Insn::St(l, v) => 1 | (l as u32) << 8 | v << 16,
                    Insn::Ld(l) => 2 | (l as u32) << 8,
                    Insn::Fence => 3,
                };
            }
            prog[roles as usize * 4 + r] = base;
            base += th.iter().filter(|i| matches!(i, Insn::Ld(_))).count() as u32;
        }
        let prog = stream.clone_htod(&prog).map_err(|e| e.to_string())?;
        for variant in [Variant::Synchronized, Variant::Relaxed] {
            let mut hist: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
            let group = Groups::new(n, threads as u64, roles as u32, 0)
                .ok_or("too few blocks for the roles")?
                .group;
            let mut mem = stream
                .alloc_zeros::<u32>((group * locations * STRIDE) as usize)
                .map_err(|e| e.to_string())?;
            let mut out = stream
                .alloc_zeros::<u32>((group * regs.max(1)) as usize)
                .map_err(|e| e.to_string())?;
            let mut start = stream.alloc_zeros::<u64>(1).map_err(|e| e.to_string())?;
            for launch in 0..ROUNDS {
                let g = Groups::new(n, threads as u64, roles as u32, launch * 7919)
                    .ok_or("too few blocks for the roles")?;
                let params = [
                    g.group,
                    g.multiplier,
                    0,
                    STRIDE,
                    (variant == Variant::Synchronized) as u64,
                    roles,
                    locations,
                    regs,
                ];
                let params = stream.clone_htod(&params).map_err(|e| e.to_string())?;
                stream.memset_zeros(&mut mem).map_err(|e| e.to_string())?;
                stream.memset_zeros(&mut out).map_err(|e| e.to_string())?;
                stream.memset_zeros(&mut start).map_err(|e| e.to_string())?;
                let cfg = ctx
                    .gpu
                    .cooperative_config(&kernel, blocks, threads, 0)
                    .map_err(|e| e.to_string())?;
                let mut b = stream.launch_builder(kernel.function());
                b.arg(&mem).arg(&out).arg(&start).arg(&params).arg(&prog);
                unsafe { b.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
                ctx.gpu.wait(TIMEOUT).map_err(|e| e.to_string())?;
                let o = stream.clone_dtoh(&out).map_err(|e| e.to_string())?;
                let m = if s.finals.is_empty() {
                    Vec::new()
                } else {
                    stream.clone_dtoh(&mem).map_err(|e| e.to_string())?
                };
                for i in 0..group {
                    let mut outcome: Vec<u32> =
                        o[(i * regs) as usize..((i + 1) * regs) as usize].to_vec();
                    for &l in s.finals {
                        outcome.push(m[((i * locations + l as u64) * STRIDE) as usize]);
                    }
                    *hist.entry(outcome).or_default() += 1;
                }
            }
            let count = |c: Class| -> u64 {
                hist.iter()
                    .filter(|(k, _)| oracle.classify(k, variant) == c)
                    .map(|(_, v)| v)
                    .sum()
            };
            let total: u64 = hist.values().sum();
            let (forbidden, impossible, weak) = (
                count(Class::Forbidden),
                count(Class::Impossible),
                count(Class::WeakAllowed),
            );
            lines.push(format!(
                "{} {variant:?}: {total} instances, weak {} ({:.1} per million), forbidden {forbidden}, impossible {impossible}",
                s.name,
                weak + forbidden,
                (weak + forbidden) as f64 * 1e6 / total as f64
            ));
            if forbidden != 0 || impossible != 0 {
                let shown: Vec<String> = hist.iter().map(|(k, v)| format!("{k:?}: {v}")).collect();
                bad.push(format!("{} {variant:?}: {}", s.name, shown.join(", ")));
            }
        }
    }
    if !bad.is_empty() {
        return Err(format!("{}; FAILED: {}", lines.join("; "), bad.join("; ")));
    }
    Ok(lines.join("; "))
}
