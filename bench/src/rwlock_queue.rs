//! The Rust side of the `rwlock/*` and `queue/turn_ring/*` rows (bench/kernels/src/
//! rwlock_queue.rs), with the shapes and checks of their C++ counterparts in
//! bench/cpp/rwlock_queue.inc (the same algorithms on `cuda::atomic_ref`, the same kernel names).
//!
//! - `rwlock/read_mostly/132x256`, `rwlock/write_heavy/132x256`: one `RwLock<[u32; 2], Gpu>`,
//!   132 x 256 threads, `RW_ITERS` operations each, 10% / 75% of them writing (by a hash of
//!   thread and iteration, so every warp mixes readers and writers). Checked: both data words at
//!   the number of writes, every read counted, none torn, and the lock free again (reader
//!   arrivals equal to departures, no writer bits, every writer ticket served). Units:
//!   operations.
//! - `queue/turn_ring/66+66x<threads>`: the `semaphore/mpmc_queue/*` rows' shapes and items
//!   (67,584 items, a ring of 1,024 slots, 66 producer and 66 consumer blocks, cooperative
//!   launch) through `Queue<u32, 1024, Gpu>`, its turn words alone. Checked: every item consumed
//!   once (count, sum, hash), both tickets at the total, every turn word at twice its slot's
//!   rounds. Units: items; compare with the `semaphore/mpmc_queue/*` row of the same shape.

use crate::reference::Sample;
use crate::rust_cases::{timed, timed_cooperative};
use crate::table::mix;
use ptx_sync::{Gpu, Queue, RwLock};
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{Device, Module};
use ptx_sync_testkit::{launch_config, Result};
use std::mem::size_of;

#[path = "rwlock_queue_common.rs"]
mod common;
use common::*;

/// The rows' lock and ring, as the kernels view them.
type Lock = RwLock<[u32; 2], Gpu>;
type Ring = Queue<u32, TURN_RING, Gpu>;

/// Producer and consumer blocks of every ring row.
const SIDE_BLOCKS: u32 = 66;

/// The rows, in table order.
pub fn names() -> Vec<String> {
    let mut v = vec![
        "rwlock/read_mostly/132x256".to_string(),
        "rwlock/write_heavy/132x256".to_string(),
    ];
    for s in ["66+66x256", "66+66x128", "66+66x64"] {
        v.push(format!("queue/turn_ring/{s}"));
    }
    v
}

/// One timed, checked launch of `case`, if it is one of these rows.
pub fn run(gpu: &Device, m: &Module, case: &str) -> Option<Sample> {
    let parts: Vec<&str> = case.split('/').collect();
    Some(match parts.as_slice() {
        ["rwlock", mix, "132x256"] => rwlock(gpu, m, mix),
        ["queue", "turn_ring", shape] => ring(gpu, m, shape),
        _ => return None,
    })
}

/// The writers' share of a `rwlock/*` row, in percent.
fn percent(mix: &str) -> Result<u32> {
    match mix {
        "read_mostly" => Ok(10),
        "write_heavy" => Ok(75),
        _ => Err(format!("unknown mix {mix}").into()),
    }
}

/// Writes among `threads` threads' `RW_ITERS` operations at `percent`.
fn writes(threads: u32, percent: u32) -> u32 {
    (0..threads)
        .flat_map(|g| (0..RW_ITERS).map(move |it| (g, it)))
        .filter(|&(g, it)| rw_writes(g, it, percent))
        .count() as u32
}

fn rwlock(gpu: &Device, m: &Module, mix: &str) -> Sample {
    let (blocks, threads) = (132u32, 256u32);
    let percent = percent(mix)?;
    let k = m.kernel("rwlock__mix")?;
    // The lock on lines of its own (zeroed: unlocked, data 0); the counters apart from it.
    let lock: CudaSlice<u32> = gpu.zeros(32)?;
    let stats: CudaSlice<u32> = gpu.zeros(64)?;
    let iters = RW_ITERS as i32;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&lock).arg(&stats).arg(&iters).arg(&percent);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let total = blocks * threads * RW_ITERS;
    check_rwlock(
        &gpu.download(&lock)?,
        &gpu.download(&stats)?,
        total,
        writes(blocks * threads, percent),
    )?;
    Ok((ms, total as f64))
}

/// The lock's image (four words, then the two data words) and the counters after `total`
/// operations of which `writes` wrote (bench/cpp/rwlock_queue.inc `run_rwlock` checks the same).
fn check_rwlock(lock: &[u32], stats: &[u32], total: u32, writes: u32) -> Result<()> {
    let at = Lock::DATA_OFFSET / 4;
    let (rin, rout, win, wout) = (lock[0], lock[1], lock[2], lock[3]);
    if lock[at..at + 2] != [writes, writes] || stats[0] != total - writes || stats[32] != 0 {
        return Err(format!(
            "wrong result: data {:?} (expected [{writes}, {writes}]), reads {} (expected {}), torn reads {}",
            &lock[at..at + 2],
            stats[0],
            total - writes,
            stats[32]
        )
        .into());
    }
    if rin != rout || win != wout {
        return Err(format!(
            "wrong result: lock not free after the launch: arrivals|bits {rin:#x}, departures {rout:#x}, tickets {win}/{wout}"
        )
        .into());
    }
    Ok(())
}

/// The ring rows: threads per block, items per thread (67,584 items in every shape).
fn ring_shape(shape: &str) -> Result<(u32, i32)> {
    Ok(match shape {
        "66+66x256" => (256, 4),
        "66+66x128" => (128, 8),
        "66+66x64" => (64, 16),
        _ => return Err(format!("unknown shape {shape}").into()),
    })
}

fn ring(gpu: &Device, m: &Module, shape: &str) -> Sample {
    let (threads, iters) = ring_shape(shape)?;
    let blocks = 2 * SIDE_BLOCKS;
    let k = m.kernel("queue__turn_ring")?;
    let q: CudaSlice<u32> = gpu.zeros(size_of::<Ring>() / 4)?;
    let totals: CudaSlice<u64> = gpu.zeros(3)?;
    let cfg = gpu.cooperative_config(&k, blocks, threads, 0)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&q).arg(&totals).arg(&iters);
    let ms = timed_cooperative(gpu, b, cfg)?;
    let total = (SIDE_BLOCKS * threads) as u64 * iters as u64;
    check_ring(total, &gpu.download(&totals)?, &gpu.download(&q)?)?;
    Ok((ms, total as f64))
}

/// The ring's check (bench/cpp/rwlock_queue.inc `run_turn_ring` does the same): the consumers'
/// count, sum and hash of items `1..=total`, the tail (u64 at word 0) and head (word 32)
/// tickets, and every slot's turn word (`SLOTS_OFFSET + s * SLOT_SIZE`) at twice its rounds.
fn check_ring(total: u64, totals: &[u64], img: &[u32]) -> Result<()> {
    let sum = total * (total + 1) / 2;
    let hash = (1..=total).fold(0u64, |h, i| h.wrapping_add(mix(i as u32) as u64));
    if totals != [total, sum, hash] {
        return Err(format!(
            "wrong result: consumed {} items (expected {total}), sum {} (expected {sum}), hash {} (expected {hash})",
            totals[0], totals[1], totals[2]
        )
        .into());
    }
    let word = |i: usize| img[i] as u64 | (img[i + 1] as u64) << 32;
    let (tail, head) = (word(0), word(32));
    if (tail, head) != (total, total) {
        return Err(format!("wrong result: tail {tail}, head {head} (expected {total})").into());
    }
    for s in 0..TURN_RING {
        let turn = img[(Ring::SLOTS_OFFSET + s * Ring::SLOT_SIZE) / 4] as u64;
        let rounds = total.saturating_sub(s as u64).div_ceil(TURN_RING as u64);
        if turn != 2 * rounds {
            return Err(format!(
                "wrong result: slot {s}: turn {turn} (expected {})",
                2 * rounds
            )
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ring protocol on the host, one item at a time, as any completing interleaving ends.
    fn simulate_ring(total: u64) -> (Vec<u64>, Vec<u32>) {
        let q: Ring = Ring::new();
        let (mut count, mut sum, mut hash) = (0, 0, 0u64);
        for i in 1..=total {
            q.push(i as u32);
            let item = q.pop();
            count += 1;
            sum += item as u64;
            hash = hash.wrapping_add(mix(item) as u64);
        }
        // SAFETY: the host build lays the queue out as the GPU does; no thread uses it.
        let img = unsafe {
            std::slice::from_raw_parts((&q as *const Ring).cast::<u32>(), size_of::<Ring>() / 4)
        }
        .to_vec();
        (vec![count, sum, hash], img)
    }

    #[test]
    fn ring_check_passes_a_complete_run_and_fails_a_lost_or_repeated_item() {
        for shape in ["66+66x256", "66+66x128", "66+66x64"] {
            let (threads, iters) = ring_shape(shape).unwrap();
            assert_eq!(SIDE_BLOCKS * threads * iters as u32, 67_584);
        }
        let total = 67_584;
        let (totals, img) = simulate_ring(total);
        check_ring(total, &totals, &img).unwrap();
        let mut dup = totals.clone();
        dup[1] = dup[1] - 7 + 9;
        dup[2] = dup[2]
            .wrapping_sub(mix(7) as u64)
            .wrapping_add(mix(9) as u64);
        assert!(check_ring(total, &dup, &img).is_err());
        let mut stuck = img.clone();
        stuck[(Ring::SLOTS_OFFSET + 5 * Ring::SLOT_SIZE) / 4] -= 1;
        assert!(check_ring(total, &totals, &stuck).is_err());
        let mut short = img.clone();
        short[32] -= 1;
        assert!(check_ring(total, &totals, &short).is_err());
    }

    #[test]
    fn rwlock_check_and_mixes() {
        let (blocks, threads) = (132u32, 256u32);
        let total = blocks * threads * RW_ITERS;
        for (mix, want) in [("read_mostly", 10.0), ("write_heavy", 75.0)] {
            let w = writes(blocks * threads, percent(mix).unwrap());
            let share = 100.0 * w as f64 / total as f64;
            assert!((share - want).abs() < 1.0, "{mix}: {share}% writes");
        }
        let w = 1234;
        let mut lock = vec![0u32; 32];
        lock[0] = 40;
        lock[1] = 40;
        lock[2] = 9;
        lock[3] = 9;
        let at = Lock::DATA_OFFSET / 4;
        lock[at] = w;
        lock[at + 1] = w;
        let mut stats = vec![0u32; 64];
        stats[0] = total - w;
        check_rwlock(&lock, &stats, total, w).unwrap();
        let mut torn = stats.clone();
        torn[32] = 1;
        assert!(check_rwlock(&lock, &torn, total, w).is_err());
        let mut held = lock.clone();
        held[0] |= 2;
        assert!(check_rwlock(&held, &stats, total, w).is_err());
        let mut lost = lock.clone();
        lost[at] -= 1;
        assert!(check_rwlock(&lost, &stats, total, w).is_err());
    }

    #[test]
    fn names_are_the_references() {
        // The C++ reference's list (rwlock_queue.inc `rwlock_queue_names`), in the same order.
        let cpp = include_str!("../cpp/rwlock_queue.inc");
        for name in names() {
            let (prefix, shape) = name.rsplit_once('/').unwrap();
            let whole = cpp.contains(&format!("\"{name}\""));
            let parts =
                cpp.contains(&format!("\"{prefix}/\"")) && cpp.contains(&format!("\"{shape}\""));
            assert!(whole || parts, "{name}");
        }
    }
}
