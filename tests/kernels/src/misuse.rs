//! Kernels of the misuse tests (tests/src/cases/misuse.rs): a deadlock the watchdog must
//! catch, the debug-build traps of over-released semaphores, over-counted latches and
//! primitives in local memory (Cargo.toml builds ptx-sync with `debug-assertions = true`), and
//! device-side timed waits given `Duration::MAX`.

use core::time::Duration;
use ptx_sync::{Barrier, Gpu, Latch, Mutex, Queue, RwLock, Semaphore, Sys, TicketLock};

/// Waits (`wait()`, no time limit) on the `Latch<Sys>` at `latch`, then sets `*passed = 1`.
/// A latch that nobody counts down deadlocks it; the host may open it (mapped memory).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_latch_never_opened(latch: *mut u32, passed: *mut u32) {
    Latch::<Sys>::from_ptr(latch).wait();
    *passed = 1;
}

/// `Semaphore<Gpu, 1>` at `count` (0): `release(1)`, then `release(extra)`; `*done = 1` after.
/// `extra = 1` exceeds MAX (a debug build traps), `extra = 0` is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_semaphore_over_release(
    count: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    let sem = Semaphore::<Gpu, 1>::from_ptr(count);
    sem.release(1);
    sem.release(extra);
    *done = 1;
}

/// `Latch<Gpu>` at `latch` (1): `count_down()`, then `count_down_n(extra)`; `*done = 1` after.
/// `extra = 1` counts below zero (a debug build traps), `extra = 0` is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_latch_count_below_zero(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    let latch = Latch::<Gpu>::from_ptr(latch);
    latch.count_down();
    latch.count_down_n(extra);
    *done = 1;
}

/// `extra = 1`: a `Barrier<Gpu>` as a kernel local (in `.local` memory, where the PTX ISA
/// leaves atomics undefined) arrives and waits: a debug build traps before touching it.
/// Both cases then count down the `Latch<Gpu>` at `latch` (1) and set `*done = 1`; `extra = 0`
/// is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_barrier_in_local_memory(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    if extra != 0 {
        let local = Barrier::<Gpu>::new(1);
        local.arrive_and_wait();
    }
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// `Semaphore<Gpu, 1>` at `count` (0): `init(1 + extra)`; `*done = 1` after. `extra = 1`
/// initializes it above MAX, which every build traps on (an always-on check), `extra = 0` is
/// the control (`*count` 1).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_semaphore_init_above_max(
    count: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    Semaphore::<Gpu, 1>::from_ptr(count).init(1 + extra);
    *done = 1;
}

/// A shared `BlockBarrier` initialized for `1 - extra` threads by thread 0: `extra = 1` is
/// `init(0)` (a debug build traps), `extra = 0` the control. Both then count down the
/// `Latch<Gpu>` at `latch` (1) and set `*done = 1`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_block_barrier_init_zero(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    ptx_sync::shared! {
        static BAR: ptx_sync::BlockBarrier;
    }
    BAR.get().init(1 - extra.min(1));
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// `extra = 1`: a `BlockBarrier` viewed over global memory (`latch`, 8-byte aligned: a device
/// allocation), where `mbarrier` would name another shared location (a debug build traps before
/// touching it). Both cases then count down the `Latch<Gpu>` at `latch` (1) and set `*done = 1`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_block_barrier_in_global_memory(
    latch: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    if extra != 0 {
        ptx_sync::BlockBarrier::from_ptr(latch.cast::<u64>()).init(1);
    }
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// `which != 0`: one primitive (by `which`: 1 `Latch`, 2 `Mutex`, 3 `TicketLock`, 4
/// `Semaphore`, 5 `RwLock`, 6 `Queue`, 7 `BlockBarrier`, sm_80+) as a kernel local (in `.local`
/// memory, where the PTX ISA leaves atomics undefined) used once; its address reaches the
/// debug check's `isspacep` (`.local` for the atomic-word primitives, `.shared::cta` for the
/// `mbarrier` of a `BlockBarrier`), so the local stays in memory, and a debug build traps before
/// touching it. Every case then counts down the `Latch<Gpu>` at `latch` (1) and sets
/// `*done = 1`; `which = 0` is the control.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_primitive_in_local_memory(
    latch: *mut u32,
    which: u32,
    done: *mut u32,
) {
    match which {
        1 => Latch::<Gpu>::new(1).count_down(),
        2 => drop(Mutex::<u32, Gpu>::new(0).lock()),
        3 => drop(TicketLock::<u32, Gpu>::new(0).lock()),
        4 => Semaphore::<Gpu>::new(1).acquire(),
        5 => drop(RwLock::<u32, Gpu>::new(0).write()),
        6 => Queue::<u32, 4, Gpu>::new().push(1),
        #[cfg(target_feature = "sm_80")]
        7 => {
            let mut word = 0u64;
            ptx_sync::BlockBarrier::from_ptr(&mut word).init(1);
        }
        _ => {}
    }
    Latch::<Gpu>::from_ptr(latch).count_down();
    *done = 1;
}

/// Bytes of each primitive's slot in [`misuse_device_timed_waits_of_max`]'s region.
const MAX_WAIT_SLOT: usize = 1024;
/// The slots per thread: mutex, ticket lock, semaphore, latch, rwlock, queue, barrier.
const MAX_WAIT_SLOTS: usize = 7;
/// `u32` words of `mem` (zeroed) that [`misuse_device_timed_waits_of_max`] uses per thread.
pub const MAX_WAIT_REGION: usize = MAX_WAIT_SLOT * MAX_WAIT_SLOTS / 4;
/// The timed calls each thread of [`misuse_device_timed_waits_of_max`] makes.
pub const MAX_WAIT_CALLS: u32 = 10;
const _: () = assert!(
    core::mem::size_of::<Mutex<u32, Gpu>>() <= MAX_WAIT_SLOT
        && core::mem::size_of::<TicketLock<u32, Gpu>>() <= MAX_WAIT_SLOT
        && core::mem::size_of::<RwLock<u32, Gpu>>() <= MAX_WAIT_SLOT
        && core::mem::size_of::<Queue<u32, 4, Gpu>>() <= MAX_WAIT_SLOT
        && core::mem::size_of::<Barrier<Gpu>>() <= MAX_WAIT_SLOT
);

/// Adds `ok` and `timed_out` to the `u32` counters at `oks` and `timeouts` (relaxed: the host
/// reads them after the kernel).
unsafe fn add_counts(oks: *mut u32, timeouts: *mut u32, ok: u32, timed_out: u32) {
    use ptx_sync::{Atomic, Ordering::Relaxed};
    Atomic::<u32, Gpu>::from_ptr(oks).fetch_add(ok, Relaxed);
    Atomic::<u32, Gpu>::from_ptr(timeouts).fetch_add(timed_out, Relaxed);
}

/// Every thread of the grid (global rank `t`), on its own zeroed `MAX_WAIT_REGION` words of
/// `mem` (from `t * MAX_WAIT_REGION`, one 1 KiB slot per primitive), makes `MAX_WAIT_CALLS`
/// timed calls with `Duration::MAX`, each on a primitive that is available, and adds the calls
/// that succeeded to `*ok` and those that reported a timeout to `*timed_out`:
/// `Mutex::try_lock_for`, `TicketLock::try_lock_for`, `Semaphore<Gpu>::try_acquire_for` (one
/// unit), `Latch::wait_for` (a latch of 0: open), `RwLock::try_read_for` then `try_write_for`,
/// `Queue::push_for` then `pop_for` (the value pushed must come back),
/// `Barrier<Gpu>::wait_for` (a barrier of 1, after this thread's arrival) and
/// `Barrier::wait_parity_for(false)` (phase 0 of the same barrier, complete). Each succeeds at
/// its first poll, which reads no clock; [`misuse_latch_wait_for_max_opened_later`] covers the
/// waits that compute a deadline from `Duration::MAX`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_device_timed_waits_of_max(
    mem: *mut u32,
    ok: *mut u32,
    timed_out: *mut u32,
) {
    let region = mem
        .cast::<u8>()
        .add(ptx_sync::index::global_rank() * MAX_WAIT_REGION * 4);
    let slot = |i: usize| region.add(i * MAX_WAIT_SLOT);
    let max = Duration::MAX;
    // One statement per call, so that each guard is dropped at the end of its own statement: in
    // one array expression every guard would live to its end, and the read guard would keep the
    // writer below waiting for ever (a wait of `Duration::MAX` never gives up).
    let mut results = [false; MAX_WAIT_CALLS as usize];
    results[0] = Mutex::<u32, Gpu>::from_ptr(slot(0).cast())
        .try_lock_for(max)
        .is_some();
    results[1] = TicketLock::<u32, Gpu>::from_ptr(slot(1).cast())
        .try_lock_for(max)
        .is_some();
    let sem = Semaphore::<Gpu>::from_ptr(slot(2).cast());
    sem.init(1);
    results[2] = sem.try_acquire_for(max);
    results[3] = Latch::<Gpu>::from_ptr(slot(3).cast()).wait_for(max).is_ok();
    results[4] = RwLock::<u32, Gpu>::from_ptr(slot(4).cast())
        .try_read_for(max)
        .is_some();
    results[5] = RwLock::<u32, Gpu>::from_ptr(slot(4).cast())
        .try_write_for(max)
        .is_some();
    results[6] = Queue::<u32, 4, Gpu>::from_ptr(slot(5).cast())
        .push_for(7, max)
        .is_ok();
    results[7] = Queue::<u32, 4, Gpu>::from_ptr(slot(5).cast()).pop_for(max) == Some(7);
    let bar = Barrier::<Gpu>::from_ptr(slot(6).cast());
    bar.init(1);
    let token = bar.arrive();
    results[8] = bar.wait_for(&token, max).is_ok();
    results[9] = bar.wait_parity_for(false, max).is_ok();
    let good = results.iter().filter(|&&r| r).count() as u32;
    add_counts(ok, timed_out, good, results.len() as u32 - good);
}

/// How long block 1 of [`misuse_latch_wait_for_max_opened_later`] waits before it opens the
/// latch, and again before it releases the semaphore, in nanoseconds (`%globaltimer`).
const OPEN_AFTER_NS: u64 = 2_000_000;

/// Two blocks (both resident at once on any GPU). Block 0's threads wait on the `Latch<Gpu>` at
/// `latch` (1) with `wait_for(Duration::MAX)`, then take a unit of the `Semaphore<Gpu>` at
/// `sem` (0 units) with `try_acquire_for(Duration::MAX)`; thread 0 of block 1 waits 2 ms,
/// counts the latch down, waits 2 ms more, then releases one unit per thread of block 0. Each
/// wait of block 0 fails its first poll (nothing is available for 2 ms), so it computes a
/// deadline `Duration::MAX` away; a deadline that overflowed to the past would time out at
/// once. Each call that succeeded adds 1 to `*ok`, each that reported a timeout 1 to
/// `*timed_out`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn misuse_latch_wait_for_max_opened_later(
    latch: *mut u32,
    sem: *mut u32,
    ok: *mut u32,
    timed_out: *mut u32,
) {
    let latch = Latch::<Gpu>::from_ptr(latch);
    let sem = Semaphore::<Gpu>::from_ptr(sem);
    if ptx_sync::index::block_rank() == 1 {
        if ptx_sync::index::thread_rank() == 0 {
            let pause = || {
                let start = ptx_sync::clock::Instant::now();
                while start.elapsed() < Duration::from_nanos(OPEN_AFTER_NS) {}
            };
            pause();
            latch.count_down();
            pause();
            sem.release(ptx_sync::index::block_size());
        }
        return;
    }
    let max = Duration::MAX;
    let results = [latch.wait_for(max).is_ok(), sem.try_acquire_for(max)];
    let good = results.iter().filter(|&&r| r).count() as u32;
    add_counts(ok, timed_out, good, results.len() as u32 - good);
}
