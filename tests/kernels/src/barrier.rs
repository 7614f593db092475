//! Kernels of the barrier tests (tests/src/cases/barrier.rs): block barriers (`BlockBarrier`
//! on `mbarrier`, generic `Barrier<Cta>` in shared memory) and grid barriers (`GridBarrier`,
//! `Barrier<Gpu>` in global memory), each checked by a double-buffered neighbour exchange:
//! every participant writes its slot of phase `i`, passes the barrier, and reads its
//! neighbour's slot of phase `i`, which must already hold the value of phase `i`.

use crate::work;
#[cfg(target_feature = "sm_80")]
use ptx_sync::BlockBarrier;
use ptx_sync::{block, Atomic, Barrier, Cta, Gpu, GridBarrier, Ordering::*};

/// Adds a thread's counts to `stats` (u64): [0] stale neighbour reads, [1] neighbour checks,
/// [2] completion-counter errors, [3] phases (thread 0's, so per block), [4] never written
/// (keeps `acc` alive).
#[inline(always)]
unsafe fn report(
    stats: *mut u64,
    errors: u32,
    checks: u32,
    ctr_errors: u32,
    phases: u32,
    acc: u32,
) {
    let add = |i: usize, v: u32| {
        Atomic::<u64, Gpu>::from_ptr(stats.add(i)).fetch_add(v as u64, Relaxed);
    };
    add(0, errors);
    add(1, checks);
    add(2, ctr_errors);
    if block::thread_rank() == 0 {
        add(3, phases);
    }
    if acc == 0x1234_5678 {
        *stats.add(4) = acc as u64;
    }
}

/// Writes phase `i`'s value (`i + 1`) into block thread `t`'s slot of that phase's half of the
/// double buffer `buf` (`n` slots a half) and returns the half.
#[inline(always)]
unsafe fn write_slot(buf: *mut u32, i: u32, n: u32, t: u32) -> *mut u32 {
    let slots = buf.add((i & 1) as usize * n as usize);
    *slots.add(t as usize) = i + 1;
    slots
}

/// 1 if slot `k` of `slots` does not hold phase `i`'s value yet.
#[inline(always)]
unsafe fn stale(slots: *const u32, k: u32, i: u32) -> u32 {
    (*slots.add(k as usize) != i + 1) as u32
}

/// `BlockBarrier` (mbarrier) at the start of the dynamic shared memory, `2 * threads` u32
/// slots after it (launch with `16 + 8 * threads` bytes). Phase `i` uses `arrive_and_wait`
/// (i % 3 == 0), `arrive` + work + `wait` (1), or `arrive` + polling `test_wait` (2). At
/// phase `iters / 2` the odd threads write their slot, `arrive_and_drop` and leave; the even
/// threads go on (neighbour `t + 2` instead of `t + 1`), so the barrier must expect half.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier_exchange(iters: u32, stats: *mut u64) {
    let smem = block::dynamic_shared_memory();
    let bar = BlockBarrier::from_ptr(smem.cast());
    let buf = smem.add(16).cast::<u32>();
    let (t, n) = (block::thread_rank(), block::dim_x());
    if t == 0 {
        bar.init(n);
    }
    block::sync();
    let drop_at = iters / 2;
    let (mut errors, mut checks, mut phases, mut acc) = (0u32, 0u32, 0u32, t);
    for i in 0..iters {
        let slots = write_slot(buf, i, n, t);
        if i == drop_at && t % 2 == 1 {
            bar.arrive_and_drop();
            break;
        }
        match i % 3 {
            0 => bar.arrive_and_wait(),
            1 => {
                let token = bar.arrive();
                acc = work(acc);
                bar.wait(token);
            }
            _ => {
                let token = bar.arrive();
                while !bar.test_wait(&token) {}
            }
        }
        phases += 1;
        let next = if i < drop_at { t + 1 } else { t + 2 };
        errors += stale(slots, next % n, i);
        checks += 1;
    }
    report(stats, errors, checks, 0, phases, acc);
}

/// `Barrier<Cta>` (one u64) at the start of the dynamic shared memory, a phase counter at
/// byte 16, `2 * threads` u32 slots at byte 32 (launch with `32 + 8 * threads` bytes). Phase
/// `i` uses `arrive_and_wait_with` a completion step that increments the counter (i % 3 == 0),
/// `arrive` + work + `wait` (1), or `arrive_and_wait` (2); after every phase each thread
/// checks that the counter is `i / 3 + 1`. At phase `iters / 2` the odd threads
/// `arrive_and_drop` and leave, as in `block_barrier_exchange` (so the even lanes aggregate
/// as half-warps from then on).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn barrier_cta_exchange(iters: u32, stats: *mut u64) {
    let smem = block::dynamic_shared_memory();
    let bar = Barrier::<Cta>::from_ptr(smem.cast());
    let counter = smem.add(16).cast::<u32>();
    let buf = smem.add(32).cast::<u32>();
    let (t, n) = (block::thread_rank(), block::dim_x());
    if t == 0 {
        bar.init(n);
        *counter = 0;
    }
    block::sync();
    let drop_at = iters / 2;
    let (mut errors, mut checks, mut ctr_errors, mut phases, mut acc) = (0u32, 0u32, 0u32, 0u32, t);
    for i in 0..iters {
        let slots = write_slot(buf, i, n, t);
        if i == drop_at && t % 2 == 1 {
            bar.arrive_and_drop();
            break;
        }
        match i % 3 {
            0 => bar.arrive_and_wait_with(|| *counter += 1),
            1 => {
                let token = bar.arrive();
                acc = work(acc);
                bar.wait(token);
            }
            _ => bar.arrive_and_wait(),
        }
        phases += 1;
        ctr_errors += (*counter != i / 3 + 1) as u32;
        let next = if i < drop_at { t + 1 } else { t + 2 };
        errors += stale(slots, next % n, i);
        checks += 1;
    }
    report(stats, errors, checks, ctr_errors, phases, acc);
}

/// `GridBarrier` at `bar` (zeroed) over a cooperative launch: every thread writes
/// `slots[r & 1][its index] = r + 1`, the grid syncs, and it reads the same thread's slot in
/// the next block (`2 * blocks * threads` u32 slots).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn grid_barrier_exchange(
    bar: *mut u32,
    rounds: u32,
    slots: *mut u32,
    stats: *mut u64,
) {
    let grid = GridBarrier::<ptx_sync::Spin>::from_ptr(bar);
    grid_exchange(rounds, slots, stats, || grid.sync());
}

/// `grid_barrier_exchange` through `GridBarrier::sync_aligned` (`bar.sync`): every warp
/// reaches the call converged.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn grid_barrier_exchange_aligned(
    bar: *mut u32,
    rounds: u32,
    slots: *mut u32,
    stats: *mut u64,
) {
    let grid = GridBarrier::<ptx_sync::Spin>::from_ptr(bar);
    grid_exchange(rounds, slots, stats, || grid.sync_aligned());
}

/// The exchange of `grid_barrier_exchange`, with `sync` for the grid barrier.
#[inline(always)]
unsafe fn grid_exchange(rounds: u32, slots: *mut u32, stats: *mut u64, sync: impl Fn()) {
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let (b, blocks) = (block::rank(), block::count());
    let n = (blocks * threads) as usize;
    let (mut errors, mut checks, mut phases) = (0u32, 0u32, 0u32);
    for r in 0..rounds {
        let buf = slots.add((r & 1) as usize * n);
        *buf.add((b * threads + t) as usize) = r + 1;
        sync();
        phases += 1;
        errors += stale(buf, ((b + 1) % blocks) * threads + t, r);
        checks += 1;
    }
    report(stats, errors, checks, 0, phases, 0);
}

/// `Barrier<Gpu>` at `bar` (the host writes `barrier::init_word(blocks)`) over a cooperative launch:
/// thread 0 of each block arrives for its block between two block barriers, by
/// `arrive_and_wait_with` a completion step that increments `*counter` (r % 3 == 0), by
/// `arrive` then `wait` (1), or by `arrive_and_wait` (2). Every thread then checks the counter
/// (`r / 3 + 1`) and the neighbour exchange of `grid_barrier_exchange`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn barrier_gpu_exchange(
    bar: *mut u64,
    counter: *mut u32,
    rounds: u32,
    slots: *mut u32,
    stats: *mut u64,
) {
    let bar = Barrier::<Gpu>::from_ptr(bar);
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let (b, blocks) = (block::rank(), block::count());
    let n = (blocks * threads) as usize;
    let (mut errors, mut checks, mut ctr_errors, mut phases) = (0u32, 0u32, 0u32, 0u32);
    for r in 0..rounds {
        let buf = slots.add((r & 1) as usize * n);
        *buf.add((b * threads + t) as usize) = r + 1;
        block::sync();
        if t == 0 {
            match r % 3 {
                0 => bar.arrive_and_wait_with(|| *counter += 1),
                1 => {
                    let token = bar.arrive();
                    bar.wait(token);
                }
                _ => bar.arrive_and_wait(),
            }
        }
        block::sync();
        phases += 1;
        ctr_errors += (*counter != r / 3 + 1) as u32;
        errors += stale(buf, ((b + 1) % blocks) * threads + t, r);
        checks += 1;
    }
    report(stats, errors, checks, ctr_errors, phases, 0);
}
