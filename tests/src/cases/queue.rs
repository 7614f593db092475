//! `Queue` on the GPU, every value delivered exactly once (kernels:
//! tests/kernels/src/queue.rs; roles and values: queue_plan.rs, shared as source with the
//! kernels). Each case checks the values popped against the values pushed: count, sum, xor,
//! a bitmap of every value seen (set by the consumers with `atom.or`: a bit already set is a
//! value delivered twice), values that reached the wrong warp's or block's queue, and values
//! left over.
//! - `queue_global_across_blocks`: one queue of 1,024 slots in global memory, 66 producer and
//!   66 consumer blocks of 256 threads (132 SMs: half the grid each way; cooperative launch,
//!   since consumers wait for producer blocks), 4 values per thread; the queue's two tickets
//!   end at the total and every slot's turn word at twice its rounds.
//! - `queue_global_try_and_timed_forms`: the same with every thread cycling through the
//!   blocking, try and timed forms.
//! - `queue_per_warp_producers_consumers`: a queue of 8 slots per warp, its 32 lanes split
//!   into 16 producers and 16 consumers (even/odd lanes, halves, a bit-parity pattern), 132 x
//!   256 threads: producers wait for consumers of their own warp.
//! - `queue_per_warp_partial_warps`: the same with blocks of 48 threads (a full warp and a
//!   warp of 16 lanes).
//! - `queue_shared_one_block`: a queue of 64 slots per block in shared memory (Cta scope),
//!   producers and consumers in separate warps, and in the same warps (even/odd lanes).
//! - `pattern_queue_warp_shapes`: the lock matrix's shapes for queues, 8 queues of 32 slots
//!   per warp: a warp's lanes on 2 queues and on 8 (a new set of partners each iteration), odd
//!   lanes only, lane 0 alone, a data-dependent subset of lanes on 3, every lane on one queue;
//!   each lane pushes, then pops, cycling through the blocking, try and timed forms; at 132 x
//!   256 and at blocks of 48 threads (a warp of 16 lanes).

// Shared with the kernels (the kernels use the ranks and values; the host recomputes them in place).
#[allow(dead_code)]
#[path = "queue_plan.rs"]
mod plan;

use crate::{Ctx, GpuTest};
use plan::*;
use ptx_sync_host::cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use ptx_sync_host::ptx_sync::{Cta, Gpu, Queue};
use ptx_sync_testkit::{launch_config, Result};
use std::mem::size_of;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);

/// The kernels' queues.
type Ring = Queue<u32, RING, Gpu>;
type WarpRing = Queue<u32, WARP_RING, Gpu>;
type BlockRing = Queue<u32, BLOCK_RING, Cta>;
type ShapeRing = Queue<u32, SHAPE_RING, Gpu>;

/// The shapes of `queue_of`, by number.
const SHAPES: [(u32, &str); 6] = [
    (0, "lanes_2_queues"),
    (1, "lanes_8_queues"),
    (2, "odd_lanes"),
    (3, "lane_0_only"),
    (4, "data_dependent_lanes"),
    (5, "all_lanes_one_queue"),
];

/// `1,234,567`.
fn n(x: impl Into<u64>) -> String {
    let s = x.into().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The counters and the bitmap against `total` values `0..total`.
fn check_delivery(stats: &[u64], seen: &[u32], total: u64) -> Result<()> {
    let sum = total * total.saturating_sub(1) / 2;
    let want = [total, sum, xor_upto(total), 0, 0, 0];
    let missing = (0..total)
        .filter(|&v| seen[(v / 32) as usize] & 1 << (v % 32) == 0)
        .count();
    let extra = (total..seen.len() as u64 * 32)
        .filter(|&v| seen[(v / 32) as usize] & 1 << (v % 32) != 0)
        .count();
    if stats[..COUNTERS] != want || missing != 0 || extra != 0 {
        return Err(format!(
            "popped {} values (expected {total}), sum {} (expected {sum}), xor {:#x} (expected {:#x}), {} popped twice, {} from another queue, {} left over; bitmap: {missing} values never seen, {extra} never pushed",
            stats[COUNT], stats[SUM], stats[XOR], xor_upto(total), stats[TWICE], stats[ELSEWHERE], stats[LEFT]
        )
        .into());
    }
    Ok(())
}

/// Zeroed counters and a bitmap for `total` values.
fn buffers(ctx: &Ctx, total: u64) -> Result<(CudaSlice<u64>, CudaSlice<u32>)> {
    Ok((
        ctx.gpu.zeros::<u64>(COUNTERS)?,
        ctx.gpu.zeros::<u32>(total.div_ceil(32) as usize)?,
    ))
}

/// The global ring across blocks, `forms` 0 (blocking) or 1 (every form).
fn global(ctx: &Ctx, forms: u32) -> Result<String> {
    let kernel = ctx.kernel("queue_global_blocks")?;
    let (threads, iters) = (256u32, 4u32);
    let blocks = 2 * (ctx.gpu.sm_count() / 2).max(1);
    let cfg = ctx.gpu.cooperative_config(&kernel, blocks, threads, 0)?;
    let total = (blocks / 2 * threads * iters) as u64;
    let q = ctx.gpu.zeros::<u32>(size_of::<Ring>() / 4)?;
    let (stats, seen) = buffers(ctx, total)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&q).arg(&seen).arg(&stats).arg(&iters).arg(&forms);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    check_delivery(&ctx.gpu.download(&stats)?, &ctx.gpu.download(&seen)?, total)?;
    check_ring(&ctx.gpu.download(&q)?, total)?;
    Ok(format!(
        "{} values through one queue of {RING} slots in global memory, {} producer and {} consumer blocks x {threads} threads{}: each delivered exactly once (count, sum, xor, bitmap), both tickets at {}, every turn at twice its rounds; {:.2} ms",
        n(total),
        blocks / 2,
        blocks / 2,
        if forms == 0 { "" } else { ", cycling through push/try_push/push_for and pop/try_pop/pop_for" },
        n(total),
        took.as_secs_f64() * 1e3
    ))
}

/// The ring's image after `total` pushes and pops: tickets at `total`, slot `s`'s turn at
/// twice the rounds it served.
fn check_ring(img: &[u32], total: u64) -> Result<()> {
    let tail = img[0] as u64 | (img[1] as u64) << 32;
    let head = img[32] as u64 | (img[33] as u64) << 32;
    if (tail, head) != (total, total) {
        return Err(format!("tickets: tail {tail}, head {head} (expected {total})").into());
    }
    for s in 0..RING {
        let turn = img[(Ring::SLOTS_OFFSET + s * Ring::SLOT_SIZE) / 4];
        let rounds = (total.saturating_sub(s as u64)).div_ceil(RING as u64);
        if turn as u64 != 2 * rounds {
            return Err(format!("slot {s}: turn {turn} (expected {})", 2 * rounds).into());
        }
    }
    Ok(())
}

fn global_blocking(ctx: &Ctx) -> Result<String> {
    global(ctx, 0)
}

fn global_forms(ctx: &Ctx) -> Result<String> {
    global(ctx, 1)
}

/// A queue per warp, each split `split`, at `blocks x threads`.
fn per_warp_run(
    ctx: &Ctx,
    blocks: u32,
    threads: u32,
    split: u32,
    iters: u32,
) -> Result<(u64, f64)> {
    let kernel = ctx.kernel("queue_per_warp")?;
    let warps = blocks * threads.div_ceil(32);
    // Producers per warp: 16 in a full warp, half the lanes of a partial one.
    let lanes_last = threads % 32;
    let producers = blocks as u64
        * ((threads / 32) as u64 * 16
            + (0..lanes_last).filter(|&l| produces(split, l)).count() as u64);
    let total = producers * iters as u64;
    // Values are (warp * 16 + rank) * iters + i: a bitmap over every warp's 16 ranks.
    let span = warps as u64 * 16 * iters as u64;
    let queues = ctx
        .gpu
        .zeros::<u32>(warps as usize * size_of::<WarpRing>() / 4)?;
    let (stats, seen) = buffers(ctx, span)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&queues)
        .arg(&seen)
        .arg(&stats)
        .arg(&iters)
        .arg(&split);
    let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }?;
    let stats = ctx.gpu.download(&stats)?;
    let seen = ctx.gpu.download(&seen)?;
    // The values pushed: every warp's producer ranks.
    let mut pushed = vec![0u32; seen.len()];
    let (mut sum, mut xor) = (0u64, 0u64);
    for warp in 0..warps {
        let lanes = if !threads.is_multiple_of(32) && warp % threads.div_ceil(32) == threads / 32 {
            lanes_last
        } else {
            32
        };
        for r in 0..(0..lanes).filter(|&l| produces(split, l)).count() as u32 {
            for i in 0..iters {
                let v = (warp * 16 + r) * iters + i;
                pushed[(v / 32) as usize] |= 1 << (v % 32);
                sum += v as u64;
                xor ^= v as u64;
            }
        }
    }
    if stats[..COUNTERS] != [total, sum, xor, 0, 0, 0] || seen != pushed {
        let differ = seen.iter().zip(&pushed).filter(|(a, b)| a != b).count();
        return Err(format!(
            "split {split}, {blocks}x{threads}: popped {} values (expected {total}), sum {} (expected {sum}), xor {:#x} (expected {xor:#x}), {} popped twice, {} from another warp's queue, {} left over; bitmap differs from the values pushed in {differ} words",
            stats[COUNT], stats[SUM], stats[XOR], stats[TWICE], stats[ELSEWHERE], stats[LEFT]
        )
        .into());
    }
    Ok((total, took.as_secs_f64() * 1e3))
}

fn per_warp(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 16u32);
    let mut parts = vec![];
    for (split, name) in [(0, "even/odd lanes"), (1, "halves"), (2, "bit parity")] {
        let (total, ms) = per_warp_run(ctx, blocks, threads, split, iters)?;
        parts.push(format!("{name} {} values in {ms:.1} ms", n(total)));
    }
    Ok(format!(
        "a queue of {WARP_RING} slots per warp, {blocks}x{threads} threads, 16 producer and 16 consumer lanes per warp, {iters} values each: every value delivered exactly once, within its warp, nothing left: {}",
        parts.join(", ")
    ))
}

fn partial_warps(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 48u32, 16u32);
    let mut parts = vec![];
    for (split, name) in [(0, "even/odd lanes"), (2, "bit parity")] {
        let (total, ms) = per_warp_run(ctx, blocks, threads, split, iters)?;
        parts.push(format!("{name} {} values in {ms:.1} ms", n(total)));
    }
    Ok(format!(
        "a queue of {WARP_RING} slots per warp, {blocks} blocks of {threads} threads (a full warp and a warp of 16 lanes), {iters} values per producer: every value delivered exactly once, within its warp, nothing left: {}",
        parts.join(", ")
    ))
}

fn shared(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("queue_shared_block")?;
    let blocks = ctx.gpu.sm_count();
    let smem = size_of::<BlockRing>() as u32;
    let mut parts = vec![];
    for (split, threads, name) in [
        (0u32, 256u32, "producer warps and consumer warps"),
        (1, 96, "even/odd lanes of every warp"),
    ] {
        let iters = 32u32;
        let total = (blocks * threads / 2 * iters) as u64;
        let (stats, seen) = buffers(ctx, total)?;
        let mut b = ctx.gpu.stream().launch_builder(kernel.function());
        b.arg(&seen).arg(&stats).arg(&iters).arg(&split);
        let cfg: LaunchConfig = launch_config(blocks, threads, smem);
        let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
        check_delivery(&ctx.gpu.download(&stats)?, &ctx.gpu.download(&seen)?, total)
            .map_err(|e| format!("{name}: {e}"))?;
        parts.push(format!(
            "{name}, {blocks}x{threads}: {} values in {:.1} ms",
            n(total),
            took.as_secs_f64() * 1e3
        ));
    }
    Ok(format!(
        "a queue of {BLOCK_RING} slots per block in shared memory, every value delivered exactly once within its block, nothing left: {}",
        parts.join("; ")
    ))
}

/// The values `blocks x threads` threads push in `iters` iterations of `shape`: the bitmap
/// over every warp's 32 lanes, their count, sum and xor.
fn shape_pushes(blocks: u32, threads: u32, shape: u32, iters: u32) -> (Vec<u32>, u64, u64, u64) {
    let per_block = threads.div_ceil(32);
    let mut bits = vec![0u32; (blocks * per_block * 32 * iters).div_ceil(32) as usize];
    let (mut count, mut sum, mut xor) = (0u64, 0u64, 0u64);
    for block in 0..blocks {
        for t in 0..threads {
            let (warp, lane) = (block * per_block + t / 32, t % 32);
            for it in 0..iters {
                if queue_of(shape, warp, lane, it) != NONE {
                    let v = shape_value(warp, lane, it, iters);
                    bits[(v / 32) as usize] |= 1 << (v % 32);
                    count += 1;
                    sum += v as u64;
                    xor ^= v as u64;
                }
            }
        }
    }
    (bits, count, sum, xor)
}

/// Expected: for each of the six shapes ([`SHAPES`]), at every SM x 256 threads and at every
/// SM x 48 threads (a full warp and a warp of 16 lanes), 8 iterations: 8 queues of 32 slots
/// per warp, each lane that the shape puts on a queue pushes its own distinct value, then pops
/// one from the same queue (blocking, try and timed forms by `(iteration + lane) % 3`). The
/// values popped are exactly the values pushed: count, sum and xor exact, the bitmap of
/// values seen equal to the bitmap of values pushed, none popped twice, every value popped
/// from the queue (of its own warp) it was pushed onto, nothing left in any queue. The
/// kernel's comment says why no lane can wait forever.
fn warp_shapes(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("pattern_queue_shapes")?;
    let (blocks, iters) = (ctx.gpu.sm_count(), 8u32);
    let mut parts = vec![];
    let start = std::time::Instant::now();
    for threads in [256u32, 48] {
        let warps = blocks * threads.div_ceil(32);
        let mut counts = vec![];
        for (shape, name) in SHAPES {
            let (pushed, total, sum, xor) = shape_pushes(blocks, threads, shape, iters);
            let queues = ctx
                .gpu
                .zeros::<u32>(warps as usize * QUEUES_PER_WARP * size_of::<ShapeRing>() / 4)?;
            let stats = ctx.gpu.zeros::<u64>(COUNTERS)?;
            let seen = ctx.gpu.zeros::<u32>(pushed.len())?;
            let mut b = ctx.gpu.stream().launch_builder(kernel.function());
            b.arg(&queues)
                .arg(&seen)
                .arg(&stats)
                .arg(&iters)
                .arg(&shape);
            unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }
                .map_err(|e| format!("{name}, {blocks}x{threads}: {e}"))?;
            let stats = ctx.gpu.download(&stats)?;
            let seen = ctx.gpu.download(&seen)?;
            if stats[..COUNTERS] != [total, sum, xor, 0, 0, 0] || seen != pushed {
                let differ = seen.iter().zip(&pushed).filter(|(a, b)| a != b).count();
                return Err(format!(
                    "{name}, {blocks}x{threads}: popped {} values (expected {total}), sum {} (expected {sum}), xor {:#x} (expected {xor:#x}), {} popped twice, {} from a queue they were not pushed onto, {} left over; bitmap differs from the values pushed in {differ} words",
                    stats[COUNT], stats[SUM], stats[XOR], stats[TWICE], stats[ELSEWHERE], stats[LEFT]
                )
                .into());
            }
            counts.push(format!("{name} {}", n(total)));
        }
        parts.push(format!("{blocks}x{threads}: {}", counts.join(", ")));
    }
    Ok(format!(
        "{QUEUES_PER_WARP} queues of {SHAPE_RING} slots per warp, each lane push then pop x {iters} iters, cycling through the blocking, try and timed forms; every value delivered exactly once from the queue it was pushed onto, nothing left: {}; {:.0} ms",
        parts.join("; "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "queue_global_across_blocks" => global_blocking,
        "queue_global_try_and_timed_forms" => global_forms,
        "queue_per_warp_producers_consumers" => per_warp,
        "queue_per_warp_partial_warps" => partial_warps,
        "queue_shared_one_block" => shared,
        "pattern_queue_warp_shapes" => warp_shapes,
    ]
}

#[cfg(test)]
mod host_checks {
    use super::*;

    #[test]
    fn splits_and_values() {
        for split in 0..3 {
            assert_eq!(
                (0..32).filter(|&l| produces(split, l)).count(),
                16,
                "split {split}"
            );
            let ranks: Vec<u32> = (0..32)
                .filter(|&l| produces(split, l))
                .map(|l| rank(split, l))
                .collect();
            assert_eq!(ranks, (0..16).collect::<Vec<_>>());
        }
        for split in [0, 2] {
            assert_eq!(
                (0..16).filter(|&l| produces(split, l)).count(),
                8,
                "split {split}"
            );
        }
        for n in 0..40u64 {
            assert_eq!(xor_upto(n), (0..n).fold(0, |a, v| a ^ v), "{n}");
        }
    }

    #[test]
    fn delivery_check_catches_a_lost_and_a_repeated_value() {
        let total = 100u64;
        let mut seen = vec![0u32; 4];
        for v in 0..total {
            seen[(v / 32) as usize] |= 1 << (v % 32);
        }
        let good = [total, total * (total - 1) / 2, xor_upto(total), 0, 0, 0];
        check_delivery(&good, &seen, total).unwrap();
        let mut dup = good;
        dup[SUM] = dup[SUM] + 9 - 7;
        dup[XOR] ^= 7 ^ 9;
        assert!(check_delivery(&dup, &seen, total).is_err());
        let mut hole = seen.clone();
        hole[1] &= !4;
        assert!(check_delivery(&good, &hole, total).is_err());
        let mut twice = good;
        twice[TWICE] = 1;
        assert!(check_delivery(&twice, &seen, total).is_err());
    }

    /// The shapes put a warp's lanes on several queues, lane 0 alone, a data-dependent subset;
    /// no queue has more lanes in one iteration than slots.
    #[test]
    fn queue_shapes() {
        for (shape, _) in SHAPES {
            for warp in 0..64 {
                for it in 0..8 {
                    let mut lanes = [0usize; QUEUES_PER_WARP];
                    for lane in 0..32 {
                        let q = queue_of(shape, warp, lane, it);
                        if q != NONE {
                            lanes[q as usize] += 1;
                        }
                    }
                    assert!(lanes.iter().all(|&l| l <= SHAPE_RING));
                    let used = lanes.iter().filter(|&&l| l > 0).count();
                    match shape {
                        0 | 2 => assert_eq!(used, 2),
                        1 => assert_eq!(used, 8),
                        3 | 5 => assert_eq!(
                            (used, lanes.iter().sum::<usize>()),
                            (1, if shape == 3 { 1 } else { 32 })
                        ),
                        _ => {}
                    }
                }
            }
        }
        let (_, count, _, _) = shape_pushes(4, 48, 4, 8);
        assert!(
            count > 4 * 48 * 8 / 4 && count < 4 * 48 * 8 * 3 / 4,
            "{count}"
        );
        for v in [0, 7, 1234] {
            let (w, l, i) = origin(v, 8);
            assert_eq!(shape_value(w, l, i, 8), v);
        }
    }

    #[test]
    fn layouts() {
        assert_eq!(size_of::<Ring>(), 256 + 8 * RING);
        assert_eq!(Ring::SLOTS_OFFSET, 256);
        assert_eq!(size_of::<BlockRing>(), 256 + 8 * BLOCK_RING);
        assert_eq!(size_of::<WarpRing>() % 8, 0);
        let mut img = vec![0u32; size_of::<Ring>() / 4];
        img[0] = 5;
        img[32] = 5;
        for s in 0..5 {
            img[(Ring::SLOTS_OFFSET + s * Ring::SLOT_SIZE) / 4] = 2;
        }
        check_ring(&img, 5).unwrap();
        img[(Ring::SLOTS_OFFSET + 4 * Ring::SLOT_SIZE) / 4] = 1;
        assert!(check_ring(&img, 5).is_err());
    }
}
