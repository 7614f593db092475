//! Kernels of the managed-memory tests (tests/src/cases/managed.rs): the GPU half of a
//! `Semaphore<Sys>`, a `Latch<Sys>` and a `Barrier<Sys>` that host threads read-modify-write
//! at the same time, on the same words of one `ManagedBuffer<u32>` (managed memory, where
//! `concurrentManagedAccess` makes host and GPU RMWs atomic with each other). Every wait is
//! bounded, so a lost unit or arrival shows as an error count instead of a hang.

use core::time::Duration;
use ptx_sync::{block, Atomic, Barrier, Cta, Latch, Ordering::*, Semaphore, Sys};

/// How long a GPU wait for the host may take before it counts as an error.
const WAIT: Duration = Duration::from_secs(10);

/// Units of the semaphore.
pub const UNITS: u32 = 4;
/// Layout of the semaphore buffer (u32 words, each on its own 128-byte line): the semaphore,
/// the holders now, the most holders seen, the critical sections run.
pub const SEM: usize = 0;
/// Holders now (`Atomic<u32, Sys>`: host and GPU add and subtract).
pub const HOLDERS: usize = 32;
/// Most holders seen (`fetch_max` from both sides).
pub const MOST: usize = 64;
/// Critical sections run (`fetch_add` from both sides).
pub const PASSES: usize = 96;

/// Every thread takes a unit of the `Semaphore<Sys, UNITS>` the host threads take from too,
/// `iters` times: counts itself in `HOLDERS` (and `MOST`) and `PASSES` while it holds it, then
/// gives it back. `stats[i]` = sections run by thread `i`, `stats[n + i]` = acquisitions that
/// timed out (then it stops).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn managed_semaphore(buf: *mut u32, iters: u32, stats: *mut u32) {
    let me = crate::global_id() as usize;
    let n = (block::dim_x() * block::grid_x()) as usize;
    let sem = Semaphore::<Sys, UNITS>::from_ptr(buf.add(SEM));
    let holders = Atomic::<u32, Sys>::from_ptr(buf.add(HOLDERS));
    let most = Atomic::<u32, Sys>::from_ptr(buf.add(MOST));
    let passes = Atomic::<u32, Sys>::from_ptr(buf.add(PASSES));
    let (mut done, mut errors) = (0u32, 0u32);
    for _ in 0..iters {
        if !sem.try_acquire_for(WAIT) {
            errors += 1;
            break;
        }
        // Ordered after the acquire and before the release: a holder count above UNITS would
        // be two sections overlapping that the semaphore should have kept apart.
        most.fetch_max(holders.fetch_add(1, Relaxed) + 1, Relaxed);
        passes.fetch_add(1, Relaxed);
        holders.fetch_sub(1, Relaxed);
        sem.release(1);
        done += 1;
    }
    *stats.add(me) = done;
    *stats.add(n + me) = errors;
}

/// What participant `p` writes in round (or phase) `r`.
#[inline(always)]
pub fn tag(r: u32, p: u32) -> u32 {
    r.wrapping_mul(0x9e37_79b9) ^ p.wrapping_mul(0x2545_f491) ^ 0x00c0_ffee
}

/// Layout of the latch buffer (u32 words): one `Latch<Sys>` per round from `LATCHES` (each
/// armed by the host with host threads + blocks), the data from `LATCH_DATA`: two buffers of
/// `host_threads + GPU threads` slots (round r uses buffer r % 2).
pub const LATCHES: usize = 128;
/// Start of the latch test's data.
pub const LATCH_DATA: usize = 512;

/// The GPU's half of a round's check: every host thread's slot and the slot of the thread with
/// the same index in the next block. Returns (checks, errors).
#[inline(always)]
unsafe fn check_round(data: *const u32, r: u32, host_threads: u32) -> (u32, u32) {
    let (t, threads) = (block::thread_x(), block::dim_x());
    let (b, blocks) = (block::index_x(), block::grid_x());
    let mut errors = 0;
    for h in 0..host_threads {
        errors += (data.add(h as usize).read() != tag(r, h)) as u32;
    }
    let next = host_threads + ((b + 1) % blocks) * threads + t;
    errors += (data.add(next as usize).read() != tag(r, next)) as u32;
    (host_threads + 1, errors)
}

/// Writes `stats[3i..3i + 3]` = (rounds passed, checks, errors) of thread `i`.
#[inline(always)]
unsafe fn store_stats(stats: *mut u32, passed: u32, checks: u32, errors: u32) {
    let i = crate::global_id() as usize;
    *stats.add(3 * i) = passed;
    *stats.add(3 * i + 1) = checks;
    *stats.add(3 * i + 2) = errors;
}

/// Rounds of one `Latch<Sys>` each, counted down by every host thread and every block (thread
/// 0, after a block barrier collects its threads' writes) and waited on by all of them. Round
/// r: every participant writes its slot, counts down latch r and waits for it (bounded); then
/// every GPU thread checks every host slot and a slot of the next block. Cooperative launch
/// (the blocks wait for each other); dynamic shared memory: 4 bytes (the block's stop flag).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn managed_latch(
    buf: *mut u32,
    rounds: u32,
    host_threads: u32,
    stats: *mut u32,
) {
    let t = block::thread_x();
    let slots = host_threads + block::dim_x() * block::grid_x();
    let me = host_threads + crate::global_id();
    let stop = Atomic::<u32, Cta>::from_ptr(block::dynamic_shared_memory().cast());
    if t == 0 {
        stop.store(0, Relaxed);
    }
    block::sync();
    let (mut passed, mut checks, mut errors) = (0u32, 0u32, 0u32);
    for r in 0..rounds {
        let data = buf.add(LATCH_DATA + (r % 2) as usize * slots as usize);
        data.add(me as usize).write(tag(r, me));
        // The block's writes are ordered before thread 0's release (`atom.release.sys`).
        block::sync();
        if t == 0 {
            let latch = Latch::<Sys>::from_ptr(buf.add(LATCHES + r as usize));
            latch.count_down();
            if latch.wait_for(WAIT).is_err() {
                errors += 1;
                stop.store(1, Relaxed);
            }
        }
        block::sync();
        if stop.load(Relaxed) != 0 {
            break;
        }
        passed += 1;
        let (c, e) = check_round(data, r, host_threads);
        checks += c;
        errors += e;
    }
    store_stats(stats, passed, checks, errors);
}

/// Layout of the barrier buffer (u32 words): the `Barrier<Sys>` (one u64: words 0 and 1,
/// initialized by the host for host threads + blocks), then the data from `BARRIER_DATA`, as in
/// the latch test.
pub const BARRIER: usize = 0;
/// Start of the barrier test's data.
pub const BARRIER_DATA: usize = 128;

/// `phases` phases of one `Barrier<Sys>` whose participants are the host threads and the blocks
/// (thread 0, after a block barrier): each phase every participant writes its slot, arrives and
/// waits (bounded), then checks the phase's data as in [`managed_latch`]. Cooperative launch;
/// dynamic shared memory: 4 bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn managed_barrier(
    buf: *mut u32,
    phases: u32,
    host_threads: u32,
    stats: *mut u32,
) {
    let t = block::thread_x();
    let slots = host_threads + block::dim_x() * block::grid_x();
    let me = host_threads + crate::global_id();
    let barrier = Barrier::<Sys>::from_ptr(buf.add(BARRIER).cast::<u64>());
    let stop = Atomic::<u32, Cta>::from_ptr(block::dynamic_shared_memory().cast());
    if t == 0 {
        stop.store(0, Relaxed);
    }
    block::sync();
    let (mut passed, mut checks, mut errors) = (0u32, 0u32, 0u32);
    for k in 0..phases {
        let data = buf.add(BARRIER_DATA + (k % 2) as usize * slots as usize);
        data.add(me as usize).write(tag(k, me));
        block::sync();
        if t == 0 {
            let token = barrier.arrive();
            if barrier.wait_for(&token, WAIT).is_err() {
                errors += 1;
                stop.store(1, Relaxed);
            }
        }
        block::sync();
        if stop.load(Relaxed) != 0 {
            break;
        }
        passed += 1;
        let (c, e) = check_round(data, k, host_threads);
        checks += c;
        errors += e;
    }
    store_stats(stats, passed, checks, errors);
}
