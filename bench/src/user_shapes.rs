//! The Rust side of the user-shaped rows (bench/kernels/src/user_shapes.rs): the same shapes,
//! work and checks as their C++ counterparts in bench/cpp/user_shapes.inc.
//!
//! - `binary_semaphore/lock/<shape>`: a `BinarySemaphore<Gpu>` as a lock around a plain
//!   counter, every thread `iters` times (the mutex rows' shapes). Checked: the counter is
//!   threads x iters, and the semaphore holds exactly one free unit again.
//! - `semaphore/mpmc_queue/66+66x<threads>`: 66 producer blocks and 66 consumer blocks move
//!   67,584 items through a ring of `QUEUE_SLOTS` slots whose free and full counts are two
//!   `Semaphore<Gpu, QUEUE_SLOTS>` (cooperative launch). Checked: every item consumed exactly
//!   once (count, sum, hash), both tickets at the total, every turn word at twice its slot's
//!   laps, and the semaphores at K free and 0 full units.
//! - `scan/decoupled_lookback/<n>`: a single-pass inclusive prefix sum of n u32 with decoupled
//!   look-back over `Atomic<u64, Gpu>` status words. Checked: equal to the host's prefix sum.
//! - `latch/per_tile/<blocks>x256`: a `Latch<Gpu>` per tile, `TILE_BLOCKS` blocks a tile, 8,448
//!   tiles (cooperative launch). Checked: every block of every tile ends with the tile's exact
//!   sum, and every latch counted down to 0.

use crate::reference::Sample;
use crate::rust_cases::{lock_shape, timed, timed_cooperative, LIMIT};
use crate::table::mix;
use ptx_sync::{BinarySemaphore, Gpu, Latch, Semaphore};
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{Device, Module};
use ptx_sync_testkit::{launch_config, Result};
use std::mem::size_of;
use std::sync::Mutex;

// The kernels use some of its items (the status encodings; here only the tests do).
#[allow(dead_code)]
#[path = "user_shapes_common.rs"]
mod common;
use common::*;

/// The queue's semaphores, as the kernel views them.
type Slots = Semaphore<Gpu, QUEUE_SLOTS>;

/// The rows, in table order.
pub fn names() -> Vec<String> {
    let mut v = Vec::new();
    for s in ["1x32", "132x32", "132x256"] {
        v.push(format!("binary_semaphore/lock/{s}"));
    }
    for s in ["66+66x256", "66+66x128", "66+66x64"] {
        v.push(format!("semaphore/mpmc_queue/{s}"));
    }
    for s in ["1M", "16M"] {
        v.push(format!("scan/decoupled_lookback/{s}"));
    }
    for s in ["132x256", "264x256"] {
        v.push(format!("latch/per_tile/{s}"));
    }
    v
}

/// One timed, checked launch of `case`, if it is one of these rows.
pub fn run(gpu: &Device, m: &Module, case: &str) -> Option<Sample> {
    let parts: Vec<&str> = case.split('/').collect();
    Some(match parts.as_slice() {
        ["binary_semaphore", "lock", shape] => binsem_lock(gpu, m, shape),
        ["semaphore", "mpmc_queue", shape] => queue(gpu, m, shape),
        ["scan", "decoupled_lookback", size] => scan(gpu, m, size),
        ["latch", "per_tile", shape] => tile_latch(gpu, m, shape),
        _ => return None,
    })
}

/// `value`'s bytes as u32 words, zero-padded to at least a 128-byte line (so a semaphore has
/// its line to itself): a primitive built by its host constructor, to upload. The device
/// crate's host build lays its primitives out as the GPU does (`repr(C)`).
///
/// # Safety
/// Every byte of `T` is initialized (no padding): atomics and zero-sized markers.
unsafe fn image<T>(value: &T) -> Vec<u32> {
    const { assert!(size_of::<T>().is_multiple_of(4)) };
    let mut words = vec![0u32; (size_of::<T>() / 4).max(32)];
    // SAFETY: `words` has room for `size_of::<T>()` bytes; the caller's contract on `T`.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (value as *const T).cast::<u8>(),
            words.as_mut_ptr().cast::<u8>(),
            size_of::<T>(),
        )
    };
    words
}

/// An untimed one-thread launch of a `*_units` kernel: `(semaphores..., out)`; returns `out`.
fn free_units(gpu: &Device, m: &Module, kname: &str, sems: &[&CudaSlice<u32>]) -> Result<Vec<u32>> {
    let k = m.kernel(kname)?;
    let out: CudaSlice<u32> = gpu.zeros(sems.len())?;
    let mut b = gpu.stream().launch_builder(k.function());
    for s in sems {
        b.arg(*s);
    }
    b.arg(&out);
    unsafe { b.launch(launch_config(1, 1, 0)) }.map_err(|err| format!("launch {kname}: {err}"))?;
    gpu.wait(LIMIT)?;
    gpu.download(&out).map_err(Into::into)
}

/// `binary_semaphore/lock/*`: every thread takes the semaphore `iters` times around
/// `counter += 1`.
fn binsem_lock(gpu: &Device, m: &Module, shape: &str) -> Sample {
    let (blocks, threads, iters) = lock_shape(shape)?;
    let k = m.kernel("binary_semaphore__lock")?;
    // SAFETY: a semaphore is an atomic count and a marker.
    let sem = gpu.upload(&unsafe { image(&BinarySemaphore::<Gpu>::new(1)) })?;
    // The counter on a line of its own.
    let counter: CudaSlice<u32> = gpu.zeros(32)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&sem).arg(&counter).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let left = free_units(gpu, m, "binary_semaphore__units", &[&sem])?[0];
    let count = gpu.download(&counter)?[0];
    check_lock(blocks * threads * iters as u32, count, left)?;
    Ok((ms, (blocks * threads * iters as u32) as f64))
}

fn check_lock(total: u32, counter: u32, left: u32) -> Result<()> {
    if counter != total || left != 1 {
        return Err(format!(
            "wrong result: counter {counter} (expected {total}), free units after the launch {left} (expected 1)"
        ).into());
    }
    Ok(())
}

/// The queue rows: threads per block, items per thread (67,584 items in every shape).
fn queue_shape(shape: &str) -> Result<(u32, i32)> {
    Ok(match shape {
        "66+66x256" => (256, 4),
        "66+66x128" => (128, 8),
        "66+66x64" => (64, 16),
        _ => return Err(format!("unknown shape {shape}").into()),
    })
}

/// Producer and consumer blocks of every queue row.
const QUEUE_SIDE_BLOCKS: u32 = 66;

/// `semaphore/mpmc_queue/*`.
fn queue(gpu: &Device, m: &Module, shape: &str) -> Sample {
    let (threads, iters) = queue_shape(shape)?;
    let blocks = 2 * QUEUE_SIDE_BLOCKS;
    let k = m.kernel("semaphore__mpmc_queue")?;
    // SAFETY: a semaphore is an atomic count and a marker.
    let (free_img, full_img) = unsafe { (image(&Slots::new(QUEUE_SLOTS)), image(&Slots::new(0))) };
    let free = gpu.upload(&free_img)?;
    let full = gpu.upload(&full_img)?;
    let tickets: CudaSlice<u32> = gpu.zeros(64)?;
    let turns: CudaSlice<u32> = gpu.zeros(QUEUE_SLOTS as usize)?;
    let slots: CudaSlice<u32> = gpu.zeros(QUEUE_SLOTS as usize)?;
    let totals: CudaSlice<u64> = gpu.zeros(3)?;
    let cfg = gpu.cooperative_config(&k, blocks, threads, 0)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&free)
        .arg(&full)
        .arg(&tickets)
        .arg(&turns)
        .arg(&slots)
        .arg(&totals)
        .arg(&iters);
    let ms = timed_cooperative(gpu, b, cfg)?;
    let left = free_units(gpu, m, "semaphore__mpmc_queue_units", &[&free, &full])?;
    let total = (QUEUE_SIDE_BLOCKS * threads) as u64 * iters as u64;
    check_queue(
        total,
        &gpu.download(&totals)?,
        &gpu.download(&tickets)?,
        &gpu.download(&turns)?,
        &left,
    )?;
    Ok((ms, total as f64))
}

/// The queue's check (reference.cu's `run_queue` does the same): the consumers' count, sum and
/// hash of items 1..=total, the tail (word 0) and head (word 32) tickets, every slot's turn
/// word at twice the laps it served, and the free units left in `free` and `full`.
fn check_queue(
    total: u64,
    totals: &[u64],
    tickets: &[u32],
    turns: &[u32],
    left: &[u32],
) -> Result<()> {
    let sum = total * (total + 1) / 2;
    let hash = (1..=total).fold(0u64, |h, i| h.wrapping_add(mix(i as u32) as u64));
    if totals != [total, sum, hash] {
        return Err(format!(
            "wrong result: consumed {} items (expected {total}), sum {} (expected {sum}), hash {} (expected {hash})",
            totals[0], totals[1], totals[2]
        ).into());
    }
    if tickets[0] as u64 != total || tickets[32] as u64 != total {
        return Err(format!(
            "wrong result: tail {}, head {} (expected {total})",
            tickets[0], tickets[32]
        )
        .into());
    }
    for (s, &turn) in turns.iter().enumerate() {
        let s = s as u64;
        let laps = if s < total {
            (total - s).div_ceil(QUEUE_SLOTS as u64)
        } else {
            0
        };
        if turn as u64 != 2 * laps {
            return Err(format!(
                "wrong result: slot {s}: turn {turn} (expected {})",
                2 * laps
            )
            .into());
        }
    }
    if left != [QUEUE_SLOTS, 0] {
        return Err(format!(
            "wrong result: after the launch {} free units (expected {QUEUE_SLOTS}), {} full (expected 0)",
            left[0], left[1]
        ).into());
    }
    Ok(())
}

/// The scan's input and the host's inclusive prefix sum for `n` elements, made once per size.
fn scan_data(n: u32) -> &'static (Vec<u32>, Vec<u32>) {
    type Data = &'static (Vec<u32>, Vec<u32>);
    static CACHE: Mutex<Vec<(u32, Data)>> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap();
    if let Some(&(_, d)) = cache.iter().find(|(k, _)| *k == n) {
        return d;
    }
    let input: Vec<u32> = (0..n).map(scan_input).collect();
    let mut acc = 0u32;
    let expected = input
        .iter()
        .map(|&x| {
            acc = acc.wrapping_add(x);
            acc
        })
        .collect();
    let d: Data = Box::leak(Box::new((input, expected)));
    cache.push((n, d));
    d
}

fn scan_size(size: &str) -> Result<u32> {
    match size {
        "1M" => Ok(1 << 20),
        "16M" => Ok(1 << 24),
        _ => Err(format!("unknown size {size}").into()),
    }
}

/// `scan/decoupled_lookback/*`: one block per tile.
fn scan(gpu: &Device, m: &Module, size: &str) -> Sample {
    let n = scan_size(size)?;
    let (input, expected) = scan_data(n);
    let tiles = n / SCAN_TILE;
    let k = m.kernel("scan__decoupled_lookback")?;
    let d_in = gpu.upload(input)?;
    // All ones: an element no block wrote cannot pass for the last launch's (same memory).
    let out = gpu.upload(&vec![u32::MAX; n as usize])?;
    let status: CudaSlice<u64> = gpu.zeros(tiles as usize)?;
    let counter: CudaSlice<u32> = gpu.zeros(1)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&d_in).arg(&out).arg(&status).arg(&counter);
    let c = launch_config(tiles, SCAN_THREADS, SCAN_SMEM_WORDS * 4);
    let ms = timed(gpu, b, c)?;
    check_scan(expected, &gpu.download(&out)?)?;
    Ok((ms, n as f64))
}

fn check_scan(expected: &[u32], got: &[u32]) -> Result<()> {
    match expected.iter().zip(got).position(|(w, g)| w != g) {
        None if expected.len() == got.len() => Ok(()),
        None => Err(format!(
            "wrong result: {} elements, expected {}",
            got.len(),
            expected.len()
        )
        .into()),
        Some(i) => Err(format!(
            "wrong result: out[{i}] = {} (expected {})",
            got[i], expected[i]
        )
        .into()),
    }
}

/// The latch rows: blocks, rounds (8,448 tiles each).
fn tile_shape(shape: &str) -> Result<(u32, i32)> {
    Ok(match shape {
        "132x256" => (132, 256),
        "264x256" => (264, 128),
        _ => return Err(format!("unknown shape {shape}").into()),
    })
}

/// Each tile's sum: what every block of the tile must end with.
fn tile_sums(tiles: u32) -> Vec<u32> {
    let per_tile = TILE_BLOCKS * TILE_THREADS;
    (0..tiles)
        .map(|t| {
            (t * per_tile..(t + 1) * per_tile).fold(0u32, |a, i| a.wrapping_add(tile_value(i)))
        })
        .collect()
}

/// `latch/per_tile/*`.
fn tile_latch(gpu: &Device, m: &Module, shape: &str) -> Sample {
    // The kernel indexes an array of latches as u32 counts.
    const { assert!(size_of::<Latch<Gpu>>() == 4) };
    let (blocks, rounds) = tile_shape(shape)?;
    let tiles = blocks / TILE_BLOCKS * rounds as u32;
    let parts = (tiles * TILE_BLOCKS) as usize;
    let k = m.kernel("latch__per_tile")?;
    let latches = gpu.upload(&vec![TILE_BLOCKS; tiles as usize])?;
    let partials = gpu.upload(&vec![u32::MAX; parts])?;
    let results = gpu.upload(&vec![u32::MAX; parts])?;
    let cfg = gpu.cooperative_config(&k, blocks, TILE_THREADS, TILE_THREADS * 4)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&latches).arg(&partials).arg(&results).arg(&rounds);
    let ms = timed_cooperative(gpu, b, cfg)?;
    check_tiles(
        &tile_sums(tiles),
        &gpu.download(&results)?,
        &gpu.download(&latches)?,
    )?;
    Ok((ms, tiles as f64))
}

fn check_tiles(sums: &[u32], results: &[u32], latches: &[u32]) -> Result<()> {
    for (i, &got) in results.iter().enumerate() {
        let (tile, part) = (i / TILE_BLOCKS as usize, i % TILE_BLOCKS as usize);
        if got != sums[tile] {
            return Err(format!(
                "wrong result: tile {tile}, block {part}: {got} (expected {})",
                sums[tile]
            )
            .into());
        }
    }
    if let Some(t) = latches.iter().position(|&l| l != 0) {
        return Err(format!(
            "wrong result: latch {t} left at {} (expected 0)",
            latches[t]
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the queue protocol on the host, one item at a time (producer ticket t, then
    /// consumer ticket t), as the GPU's threads would with any interleaving that completes.
    fn simulate_queue(total: u64) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
        let k = QUEUE_SLOTS as u64;
        let mut turns = vec![0u32; QUEUE_SLOTS as usize];
        let mut slots = vec![0u32; QUEUE_SLOTS as usize];
        let mut tickets = vec![0u32; 64];
        let mut totals = vec![0u64; 3];
        for t in 0..total {
            let (slot, lap) = ((t % k) as usize, (t / k) as u32);
            assert_eq!(turns[slot], 2 * lap);
            slots[slot] = t as u32 + 1;
            turns[slot] = 2 * lap + 1;
            tickets[0] += 1;
            tickets[32] += 1;
            let item = slots[slot];
            turns[slot] = 2 * lap + 2;
            totals[0] += 1;
            totals[1] += item as u64;
            totals[2] = totals[2].wrapping_add(mix(item) as u64);
        }
        (totals, tickets, turns)
    }

    #[test]
    fn queue_check_passes_a_complete_run_and_fails_a_lost_or_repeated_item() {
        for shape in ["66+66x256", "66+66x128", "66+66x64"] {
            let (threads, iters) = queue_shape(shape).unwrap();
            assert_eq!(QUEUE_SIDE_BLOCKS * threads * iters as u32, 67_584);
        }
        let total = 67_584;
        let (totals, tickets, turns) = simulate_queue(total);
        check_queue(total, &totals, &tickets, &turns, &[QUEUE_SLOTS, 0]).unwrap();
        // One item consumed twice and another never: the count still matches.
        let mut dup = totals.clone();
        dup[1] = dup[1] - 7 + 9;
        dup[2] = dup[2]
            .wrapping_sub(mix(7) as u64)
            .wrapping_add(mix(9) as u64);
        assert!(check_queue(total, &dup, &tickets, &turns, &[QUEUE_SLOTS, 0]).is_err());
        let mut stuck = turns.clone();
        stuck[5] -= 1;
        assert!(check_queue(total, &totals, &tickets, &stuck, &[QUEUE_SLOTS, 0]).is_err());
        assert!(check_queue(total, &totals, &tickets, &turns, &[QUEUE_SLOTS - 1, 0]).is_err());
        assert!(check_queue(total, &totals, &tickets, &turns, &[QUEUE_SLOTS, 1]).is_err());
        let mut short = tickets.clone();
        short[32] -= 1;
        assert!(check_queue(total, &totals, &short, &turns, &[QUEUE_SLOTS, 0]).is_err());
    }

    /// The decoupled look-back on the host, tiles finishing in a scrambled order: every tile
    /// publishes its aggregate, then resolves its prefix by looking back (a tile whose
    /// predecessor has published nothing yet waits: here, is retried later).
    #[test]
    fn lookback_arithmetic_gives_the_prefix_sum() {
        let n = 16 * SCAN_TILE;
        let (input, expected) = scan_data(n);
        let tiles = (n / SCAN_TILE) as usize;
        let tile_sum = |t: usize| {
            input[t * SCAN_TILE as usize..(t + 1) * SCAN_TILE as usize]
                .iter()
                .fold(0u32, |a, &x| a.wrapping_add(x))
        };
        let mut status = vec![0u64; tiles];
        let mut exclusive = vec![None; tiles];
        let order = [3, 0, 7, 1, 15, 2, 9, 4, 8, 5, 14, 6, 10, 13, 11, 12];
        for &t in &order {
            status[t] = if t == 0 { SCAN_PREFIX } else { SCAN_AGGREGATE } | tile_sum(t) as u64;
        }
        while exclusive.iter().any(Option::is_none) {
            for &t in &order {
                if exclusive[t].is_some() {
                    continue;
                }
                if t == 0 {
                    exclusive[0] = Some(0);
                    continue;
                }
                let (mut acc, mut j) = (0u32, t - 1);
                let found = loop {
                    let s = status[j];
                    acc = acc.wrapping_add(s as u32);
                    if s >= SCAN_PREFIX {
                        break true;
                    }
                    assert!(s >= SCAN_AGGREGATE);
                    if j == 0 {
                        break false;
                    }
                    j -= 1;
                };
                assert!(found, "tile 0 publishes its prefix at once");
                exclusive[t] = Some(acc);
                status[t] = SCAN_PREFIX | acc.wrapping_add(tile_sum(t)) as u64;
            }
        }
        let mut got = Vec::new();
        for (t, ex) in exclusive.iter().enumerate() {
            let mut acc = ex.unwrap();
            for &x in &input[t * SCAN_TILE as usize..(t + 1) * SCAN_TILE as usize] {
                acc = acc.wrapping_add(x);
                got.push(acc);
            }
        }
        check_scan(expected, &got).unwrap();
        let mut bad = got.clone();
        bad[12345] ^= 1;
        assert!(check_scan(expected, &bad)
            .unwrap_err()
            .to_string()
            .contains("out[12345]"));
        assert!(check_scan(expected, &got[1..]).is_err());
        assert_eq!(scan_size("16M").unwrap() % SCAN_TILE, 0);
        assert_eq!(scan_size("1M").unwrap() % SCAN_TILE, 0);
    }

    #[test]
    fn tile_check_wants_every_block_to_hold_its_tiles_sum() {
        for shape in ["132x256", "264x256"] {
            let (blocks, rounds) = tile_shape(shape).unwrap();
            assert_eq!(blocks % TILE_BLOCKS, 0);
            assert_eq!(blocks / TILE_BLOCKS * rounds as u32, 8448);
        }
        let sums = tile_sums(3);
        assert_eq!(
            sums[1],
            (1024..2048).fold(0u32, |a, i| a.wrapping_add(mix(i)))
        );
        let results: Vec<u32> = sums
            .iter()
            .flat_map(|&s| [s; TILE_BLOCKS as usize])
            .collect();
        check_tiles(&sums, &results, &[0; 3]).unwrap();
        let mut bad = results.clone();
        bad[6] = bad[6].wrapping_add(1);
        assert!(check_tiles(&sums, &bad, &[0; 3])
            .unwrap_err()
            .to_string()
            .contains("tile 1, block 2"));
        assert!(check_tiles(&sums, &results, &[0, 1, 0]).is_err());
    }

    #[test]
    fn lock_check_and_images() {
        check_lock(100, 100, 1).unwrap();
        assert!(check_lock(100, 99, 1).is_err());
        assert!(check_lock(100, 100, 0).is_err());
        // A semaphore's image is its count (the device crate's layout), padded to a line.
        // SAFETY: a semaphore is an atomic count and a marker.
        let img = unsafe { image(&Slots::new(QUEUE_SLOTS)) };
        assert_eq!(img.len(), 32);
        // SAFETY: the image holds a semaphore at its start, aligned (a Vec<u32>).
        let s = unsafe { Slots::from_ptr(img.as_ptr().cast_mut()) };
        assert_eq!(s.available(), QUEUE_SLOTS);
        let mut img = unsafe { image(&BinarySemaphore::<Gpu>::new(1)) };
        let s = unsafe { BinarySemaphore::<Gpu>::from_ptr(img.as_mut_ptr()) };
        assert!(s.try_acquire() && !s.try_acquire());
    }

    #[test]
    fn names_are_the_references() {
        // The C++ reference's list (user_shapes.inc `user_shape_names`), in the same order.
        let cpp = include_str!("../cpp/user_shapes.inc");
        for name in names() {
            let (prefix, shape) = name.rsplit_once('/').unwrap();
            assert!(cpp.contains(&format!("\"{prefix}/\"")), "{prefix}");
            assert!(cpp.contains(&format!("\"{shape}\"")), "{shape}");
        }
    }
}
