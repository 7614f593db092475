//! The user-shaped rows: primitives used the way an application uses them, each
//! kernel with the shape, work and check of its CUDA C++ counterpart in
//! bench/cpp/user_shapes.inc (libcu++; named `k_*` there, so the SASS table leaves these out:
//! the primitives inside differ by design). Shapes and data: bench/src/user_shapes_common.rs.

use super::ShortSleep;
use crate::table::mix;
use ptx_sync::shared::Shared;
use ptx_sync::{block, volatile, Atomic, BinarySemaphore, Gpu, Latch, Ordering::*, Semaphore};

// The host runner uses some of its items (the expected results).
#[allow(dead_code)]
#[path = "../../src/user_shapes_common.rs"]
mod common;
use common::*;

// ---------------------------------------------------------------------------------------------
// `binary_semaphore/lock/*`: a `BinarySemaphore<Gpu>` used as a lock around a plain counter.

/// Every thread takes the semaphore `iters` times around `counter += 1` (volatile, as the C++'s
/// `*(volatile unsigned*)counter += 1`). The counter is on its own line (the host allocates it
/// apart from the semaphore).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn binary_semaphore__lock(
    s: *mut u32,
    counter: *mut u32,
    iters: i32,
) {
    let s = BinarySemaphore::<Gpu>::from_ptr(s);
    for _ in 0..iters {
        s.acquire();
        volatile::write_volatile(counter, volatile::read_volatile(counter).wrapping_add(1));
        s.release(1);
    }
}

/// The free units of a binary semaphore after a launch (not timed): how many of two
/// `try_acquire`s succeed (1: it was left released, exactly).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn binary_semaphore__units(s: *mut u32, out: *mut u32) {
    let s = BinarySemaphore::<Gpu>::from_ptr(s);
    *out = s.try_acquire() as u32 + s.try_acquire() as u32;
}

// ---------------------------------------------------------------------------------------------
// `semaphore/mpmc_queue/*`: a bounded multi-producer multi-consumer ring in global memory.

/// The queue's two counting semaphores: free slots (starts at `QUEUE_SLOTS`) and full slots
/// (starts at 0).
type Slots = Semaphore<Gpu, QUEUE_SLOTS>;

/// The first half of the grid produces, the second half consumes, `iters` items per thread.
///
/// A producer takes a free slot (`free.acquire()`: the semaphore does the waiting), claims the
/// next ticket `t` (relaxed `fetch_add` on the tail), writes its item into slot `t % K` and
/// releases one full slot. A consumer mirrors it: `full.acquire()`, ticket `h` from the head,
/// reads slot `h % K`, releases one free slot. The semaphore counts say how many slots are
/// free or full, not which: slot `s`'s turn word orders the handoff. Lap `l = t / K` of a slot
/// is written when its turn is `2l` (the previous lap's consumer is done) and read when it is
/// `2l + 1` (this lap's producer is done): release-stored after the slot access, acquire-loaded
/// before it. A thread holding a unit of its semaphore is at most K tickets ahead of the other
/// side, so the turn it waits for is almost always there already: the wait on it is a check,
/// rarely a spin.
///
/// `tickets`: the tail at word 0, the head at word 32 (separate lines). `totals`: the
/// consumers' item count, sum and `mix` hash (u64 each), added once per thread at the end.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore__mpmc_queue(
    free: *mut u32,
    full: *mut u32,
    tickets: *mut u32,
    turns: *mut u32,
    slots: *mut u32,
    totals: *mut u64,
    iters: i32,
) {
    let (free, full) = (Slots::from_ptr(free), Slots::from_ptr(full));
    let producers = block::grid_x() / 2;
    let b = block::index_x();
    if b < producers {
        let tail = Atomic::<u32, Gpu>::from_ptr(tickets);
        let me = b * block::dim_x() + block::thread_x();
        for i in 0..iters as u32 {
            let item = me * iters as u32 + i + 1;
            free.acquire();
            let t = tail.fetch_add(1, Relaxed);
            let (slot, lap) = ((t % QUEUE_SLOTS) as usize, t / QUEUE_SLOTS);
            let turn = Atomic::<u32, Gpu>::from_ptr(turns.add(slot));
            while turn.load(Acquire) != 2 * lap {}
            slots.add(slot).write(item);
            turn.store(2 * lap + 1, Release);
            full.release(1);
        }
    } else {
        let head = Atomic::<u32, Gpu>::from_ptr(tickets.add(32));
        let (mut count, mut sum, mut hash) = (0u64, 0u64, 0u64);
        for _ in 0..iters {
            full.acquire();
            let h = head.fetch_add(1, Relaxed);
            let (slot, lap) = ((h % QUEUE_SLOTS) as usize, h / QUEUE_SLOTS);
            let turn = Atomic::<u32, Gpu>::from_ptr(turns.add(slot));
            while turn.load(Acquire) != 2 * lap + 1 {}
            let item = slots.add(slot).read();
            turn.store(2 * lap + 2, Release);
            free.release(1);
            count += 1;
            sum += item as u64;
            hash = hash.wrapping_add(mix(item) as u64);
        }
        Atomic::<u64, Gpu>::from_ptr(totals).fetch_add(count, Relaxed);
        Atomic::<u64, Gpu>::from_ptr(totals.add(1)).fetch_add(sum, Relaxed);
        Atomic::<u64, Gpu>::from_ptr(totals.add(2)).fetch_add(hash, Relaxed);
    }
}

/// The free units of the queue's semaphores after a launch (not timed): `out[0]` how many
/// `try_acquire`s of up to K + 1 succeed on `free` (K: every slot free again), `out[1]` on
/// `full` (0).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore__mpmc_queue_units(
    free: *mut u32,
    full: *mut u32,
    out: *mut u32,
) {
    for (i, s) in [free, full].into_iter().enumerate() {
        let s = Slots::from_ptr(s);
        let mut n = 0;
        while n <= QUEUE_SLOTS && s.try_acquire() {
            n += 1;
        }
        *out.add(i) = n;
    }
}

// ---------------------------------------------------------------------------------------------
// `scan/decoupled_lookback/*`: a single-pass inclusive prefix sum of u32 (wrapping).

/// One block per tile of `SCAN_TILE` elements, in the order the blocks start: thread 0 takes
/// the next tile index from `tile_counter` (a relaxed `fetch_add`), so every tile before it
/// belongs to a block that is already running and the look-back never waits on one that has
/// not been scheduled. The block sums its tile (each thread `SCAN_ITEMS` consecutive elements,
/// then a block-wide scan in shared memory), and thread 0 publishes the tile's aggregate in its
/// status word (`status << 32 | value`, a release store), walks back over the predecessors'
/// words (acquire loads) adding aggregates until it meets an inclusive prefix, and publishes
/// its own inclusive prefix. Tile 0 publishes its prefix at once. Dynamic shared memory:
/// `SCAN_SMEM_WORDS` u32 (the tile, the block scan's double buffer, the tile index and the
/// tile's exclusive prefix).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn scan__decoupled_lookback(
    input: *const u32,
    output: *mut u32,
    status: *mut u64,
    tile_counter: *mut u32,
) {
    // `.shared` addresses (`ld/st.shared`, as nvcc emits for the C++'s `__shared__` arrays).
    let smem = Shared::dynamic().cast::<u32>();
    let (tile_buf, sums) = (smem, smem.add(SCAN_TILE as usize));
    let misc = sums.add(2 * SCAN_THREADS as usize);
    let t = block::thread_x() as usize;
    let (threads, items) = (SCAN_THREADS as usize, SCAN_ITEMS as usize);
    if t == 0 {
        misc.write(Atomic::<u32, Gpu>::from_ptr(tile_counter).fetch_add(1, Relaxed));
    }
    block::sync_aligned();
    let tile = misc.read() as usize;
    let base = tile * SCAN_TILE as usize;
    // Coalesced loads into shared memory, then each thread's consecutive elements.
    for j in 0..items {
        tile_buf
            .add(j * threads + t)
            .write(*input.add(base + j * threads + t));
    }
    block::sync_aligned();
    let mut local = [0u32; SCAN_ITEMS as usize];
    let mut acc = 0u32;
    for (j, l) in local.iter_mut().enumerate() {
        acc = acc.wrapping_add(tile_buf.add(t * items + j).read());
        *l = acc;
    }
    // Block-wide inclusive scan of the threads' sums (Kogge-Stone, double-buffered).
    sums.add(t).write(acc);
    block::sync_aligned();
    let mut src = 0;
    let mut off = 1;
    while off < threads {
        let mine = sums.add(src * threads + t).read();
        let v = if t >= off {
            mine.wrapping_add(sums.add(src * threads + t - off).read())
        } else {
            mine
        };
        sums.add((1 - src) * threads + t).write(v);
        src = 1 - src;
        off *= 2;
        block::sync_aligned();
    }
    let before_me = sums.add(src * threads + t).read().wrapping_sub(acc);
    if t == 0 {
        let aggregate = sums.add(src * threads + threads - 1).read();
        let mine = Atomic::<u64, Gpu>::from_ptr(status.add(tile));
        let mut exclusive = 0u32;
        if tile == 0 {
            mine.store(SCAN_PREFIX | aggregate as u64, Release);
        } else {
            mine.store(SCAN_AGGREGATE | aggregate as u64, Release);
            let mut j = tile - 1;
            loop {
                let s = Atomic::<u64, Gpu>::from_ptr(status.add(j)).load(Acquire);
                if s >= SCAN_PREFIX {
                    exclusive = exclusive.wrapping_add(s as u32);
                    break;
                }
                if s >= SCAN_AGGREGATE {
                    exclusive = exclusive.wrapping_add(s as u32);
                    j -= 1;
                }
            }
            mine.store(
                SCAN_PREFIX | exclusive.wrapping_add(aggregate) as u64,
                Release,
            );
        }
        misc.add(1).write(exclusive);
    }
    block::sync_aligned();
    let prefix = misc.add(1).read().wrapping_add(before_me);
    for (j, l) in local.iter().enumerate() {
        tile_buf.add(t * items + j).write(prefix.wrapping_add(*l));
    }
    block::sync_aligned();
    for j in 0..items {
        *output.add(base + j * threads + t) = tile_buf.add(j * threads + t).read();
    }
}

// ---------------------------------------------------------------------------------------------
// `latch/per_tile/*`: a latch per tile, counted down by the tile's blocks.

/// Blocks `TILE_BLOCKS * g .. TILE_BLOCKS * (g + 1)` form group `g`; in round `r` group `g`
/// works on tile `r * groups + g`, which has a latch of its own (`TILE_BLOCKS` arrivals). Each
/// block sums its part of the tile (shared-memory tree), thread 0 writes the part's sum to
/// `partials`, arrives at the tile's latch and waits, then adds the tile's `TILE_BLOCKS`
/// partials (what the latch made visible) into `results[tile * TILE_BLOCKS + part]`: every
/// block of a tile must end with the whole tile's sum. Cooperative launch (the blocks of a
/// group wait for each other).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn latch__per_tile(
    latches: *mut u32,
    partials: *mut u32,
    results: *mut u32,
    rounds: i32,
) {
    let sh = Shared::dynamic().cast::<u32>();
    let t = block::thread_x();
    let (b, groups) = (block::index_x(), block::grid_x() / TILE_BLOCKS);
    let (g, part) = (b / TILE_BLOCKS, b % TILE_BLOCKS);
    for r in 0..rounds as u32 {
        let tile = r * groups + g;
        let first = (tile * TILE_BLOCKS + part) * TILE_THREADS;
        sh.add(t as usize).write(tile_value(first + t));
        block::sync_aligned();
        let mut s = TILE_THREADS / 2;
        while s > 0 {
            if t < s {
                let (mine, other) = (sh.add(t as usize), sh.add((t + s) as usize));
                mine.write(mine.read().wrapping_add(other.read()));
            }
            block::sync_aligned();
            s /= 2;
        }
        if t == 0 {
            let at = (tile * TILE_BLOCKS) as usize;
            *partials.add(at + part as usize) = sh.read();
            Latch::<Gpu, ShortSleep>::from_ptr(latches.add(tile as usize)).arrive_and_wait();
            let mut whole = 0u32;
            for p in 0..TILE_BLOCKS as usize {
                whole = whole.wrapping_add(*partials.add(at + p));
            }
            *results.add(at + part as usize) = whole;
        }
        block::sync_aligned();
    }
}
