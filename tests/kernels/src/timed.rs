//! Kernels of the timed-wait tests (tests/src/cases/timed.rs): each timed operation, in its
//! `*_for(Duration)` and `*_until(Instant)` forms, waits on something that never becomes
//! available and must give up after about the time it was given; with a deadline that has
//! already passed, each makes exactly one attempt; and a timed `BlockBarrier` wait times out,
//! then succeeds.

use core::time::Duration;
use ptx_sync::clock::Instant;
use ptx_sync::wait::{poll_until_deadline, poll_until_for, NanoSleep, TimedOut};
use ptx_sync::{
    Atomic, AtomicFlag, Barrier, BinarySemaphore, Gpu, Latch, Mutex, Ordering::*, Semaphore, Sys,
    TicketLock,
};

/// u32 words of zeroed memory per block (a `TicketLock<u32, Gpu>` needs 65).
pub const REGION: usize = 128;
/// The timed operations, one per block (`block % VARIANTS`): even variants are the `*_for`
/// form, odd ones the `*_until` form of the same wait.
pub const VARIANTS: u32 = 20;

/// The `$sem` at `$p` (no free unit) `try_acquire_until($deadline)` (`$until`) or
/// `try_acquire_for($budget)`: true if it reported the failure. (A macro, not a generic fn:
/// the kernel's PTX stays what it was when each arm was written out.)
macro_rules! semaphore_expires {
    ($sem:ty, $p:expr, $until:expr, $deadline:expr, $budget:expr) => {{
        let s = <$sem>::from_ptr($p);
        !if $until {
            s.try_acquire_until($deadline)
        } else {
            s.try_acquire_for($budget)
        }
    }};
}

/// One thread per block. Block `k` runs variant `k % VARIANTS` with a budget of `short_ns`
/// (k < VARIANTS) or `long_ns`, on its own zeroed `REGION` of `mem`. Variants, `*_for(budget)`
/// then `*_until(start + budget)`:
/// 0, 1 `Semaphore<Gpu, 4>::try_acquire_*` on a semaphore of 0 units;
/// 2, 3 `BinarySemaphore<Gpu>::try_acquire_*` on a taken unit;
/// 4, 5 `Latch::wait_*` on a latch of 1 that nobody counts down;
/// 6, 7 `TicketLock::try_lock_*` on a lock this thread holds;
/// 8, 9 `Mutex::try_lock_*` on a mutex this thread holds;
/// 10, 11 `Atomic::wait_until_for` / `wait_until_deadline` a value nobody writes;
/// 12, 13 `AtomicFlag::wait_*` for a flag nobody sets;
/// 14, 15 `Barrier<Gpu>::wait_*` on a phase that needs a second arrival;
/// 16, 17 `Barrier<Gpu>::wait_parity_*` on phase 0 of a barrier of 2 nobody arrives at;
/// 18, 19 `wait::poll_until_for` / `poll_until_deadline` a condition that never holds.
/// `out[2k]` = the nanoseconds the operation took (`%globaltimer`), `out[2k + 1]` = 1 if it
/// reported the failure, 2 if it claimed success.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn timed_expire(
    mem: *mut u32,
    short_ns: u64,
    long_ns: u64,
    out: *mut u64,
) {
    let k = core::arch::nvptx::_block_idx_x() as u32;
    let region = mem.add(k as usize * REGION);
    let v = k % VARIANTS;
    let budget = Duration::from_nanos(if k < VARIANTS { short_ns } else { long_ns });
    // Everything the operation needs is set up before the clock starts.
    let latch = Latch::<Gpu>::from_ptr(region);
    let ticket = TicketLock::<u32, Gpu>::from_ptr(region.cast());
    let mutex = Mutex::<u32, Gpu>::from_ptr(region.cast());
    let word = Atomic::<u32, Gpu>::from_ptr(region);
    let flag = AtomicFlag::<Gpu>::from_ptr(region);
    let bar = Barrier::<Gpu>::from_ptr(region.cast());
    let mut token = None;
    match v / 2 {
        2 => word.store(1, Relaxed), // the latch expects one arrival
        3 => core::mem::forget(ticket.lock()),
        4 => core::mem::forget(mutex.lock()),
        7 => {
            bar.init(2);
            token = Some(bar.arrive());
        }
        8 => bar.init(2),
        _ => {}
    }
    let start = Instant::now();
    let deadline = start + budget;
    let until = v % 2 == 1;
    let failed = match v / 2 {
        0 => semaphore_expires!(Semaphore<Gpu, 4>, region, until, deadline, budget),
        1 => semaphore_expires!(BinarySemaphore<Gpu>, region, until, deadline, budget),
        2 if until => latch.wait_until(deadline).is_err(),
        2 => latch.wait_for(budget).is_err(),
        3 if until => ticket.try_lock_until(deadline).is_none(),
        3 => ticket.try_lock_for(budget).is_none(),
        4 if until => mutex.try_lock_until(deadline).is_none(),
        4 => mutex.try_lock_for(budget).is_none(),
        5 if until => word
            .wait_until_deadline(deadline, Acquire, |x| x == 1)
            .is_err(),
        5 => word.wait_until_for(budget, Acquire, |x| x == 1).is_err(),
        6 if until => flag.wait_until(deadline, false, Acquire).is_err(),
        6 => flag.wait_for(budget, false, Acquire).is_err(),
        7 => match &token {
            Some(t) if until => bar.wait_until(t, deadline).is_err(),
            Some(t) => bar.wait_for(t, budget).is_err(),
            None => false,
        },
        8 if until => bar.wait_parity_until(false, deadline).is_err(),
        8 => bar.wait_parity_for(false, budget).is_err(),
        _ => {
            let never = || (word.load(Acquire) == 7).then_some(());
            if until {
                poll_until_deadline::<NanoSleep, _>(deadline, never).is_err()
            } else {
                poll_until_for::<NanoSleep, _>(budget, never).is_err()
            }
        }
    };
    let took = start.elapsed().as_nanos() as u64;
    *out.add(2 * k as usize) = took;
    *out.add(2 * k as usize + 1) = if failed { 1 } else { 2 };
}

/// The `*_until` operations with a deadline that has passed, one per block (`PAST_VARIANTS`).
pub const PAST_VARIANTS: u32 = 12;
/// u64 words of `out` per block.
pub const PAST_OUT: usize = 8;

/// `timed_past_deadline`'s pair of `$sem`s (`$busy` with no unit, `$free` with one), each
/// `try_acquire_until($past())`: (failed on `$busy`, succeeded on `$free`, no polls).
macro_rules! semaphore_past {
    ($sem:ty, $busy:expr, $free:expr, $past:expr) => {{
        let (b, f) = (<$sem>::from_ptr($busy), <$sem>::from_ptr($free));
        f.init(1);
        let p = $past();
        (!b.try_acquire_until(p), f.try_acquire_until(p), 0)
    }};
}

/// `timed_past_deadline`'s pair of locks of type `$lock` (`busy` held by this thread, `free`
/// unlocked), each `try_lock_until(past())`: (failed on `busy`, succeeded on `free`, no polls).
macro_rules! lock_past {
    ($lock:ty, $busy:expr, $free:expr, $past:expr) => {{
        let (b, f) = (
            <$lock>::from_ptr($busy.cast()),
            <$lock>::from_ptr($free.cast()),
        );
        let held = b.lock();
        let p = $past();
        let r = (
            b.try_lock_until(p).is_none(),
            f.try_lock_until(p).is_some(), // the guard unlocks it again
            0,
        );
        drop(held);
        r
    }};
}

/// One thread per block; block `k` runs variant `k` on its own zeroed `REGION` of `mem`, with
/// two deadlines that have passed (`Instant::from_nanos(0)`, and `Instant::now()` read before
/// the call), each against an object that is not available (the wait must return its
/// failure) and one that is (the one attempt must see it). `out[PAST_OUT * k ..]`:
/// `[0]` failures reported on the unavailable object (want 2), `[1]` successes on the
/// available one (want 2), `[2]` polls counted (variants 10 and 11: want 4, one per call),
/// `[3]` the longest pair of calls (with their setup) in ns.
///
/// Variants: 0 `Semaphore<Gpu, 4>::try_acquire_until`, 1 `BinarySemaphore<Gpu>::
/// try_acquire_until`, 2 `BinarySemaphore<Sys>::try_acquire_until` (load first), 3
/// `Latch::wait_until`, 4 `TicketLock::try_lock_until`, 5 `Mutex::try_lock_until`, 6
/// `Atomic::wait_until_deadline`, 7 `AtomicFlag::wait_until`, 8 `Barrier::wait_until`, 9
/// `Barrier::wait_parity_until`, 10 `wait::poll_until_deadline`, 11 `wait::poll_until_for`
/// with `Duration::ZERO`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn timed_past_deadline(mem: *mut u32, out: *mut u64) {
    let k = core::arch::nvptx::_block_idx_x() as u32;
    if k >= PAST_VARIANTS {
        return;
    }
    // Two objects per variant: `busy` (never available) and `free` (available).
    let busy = mem.add(2 * k as usize * REGION);
    let free = busy.add(REGION);
    let o = out.add(PAST_OUT * k as usize);
    for d in 0..2 {
        let past = || {
            if d == 0 {
                Instant::from_nanos(0)
            } else {
                Instant::now()
            }
        };
        // (the unavailable object's result is a failure, the available one's a success)
        let start = Instant::now();
        let (failed, succeeded, polls) = match k {
            0 => semaphore_past!(Semaphore<Gpu, 4>, busy, free, past),
            1 => semaphore_past!(BinarySemaphore<Gpu>, busy, free, past),
            2 => semaphore_past!(BinarySemaphore<Sys>, busy, free, past),
            3 => {
                let (b, f) = (Latch::<Gpu>::from_ptr(busy), Latch::<Gpu>::from_ptr(free));
                b.init(1);
                let p = past();
                (b.wait_until(p).is_err(), f.wait_until(p).is_ok(), 0)
            }
            4 => lock_past!(TicketLock<u32, Gpu>, busy, free, past),
            5 => lock_past!(Mutex<u32, Gpu>, busy, free, past),
            6 => {
                let (b, f) = (
                    Atomic::<u32, Gpu>::from_ptr(busy),
                    Atomic::<u32, Gpu>::from_ptr(free),
                );
                f.store(1, Relaxed);
                let p = past();
                (
                    b.wait_until_deadline(p, Acquire, |x| x == 1).is_err(),
                    f.wait_until_deadline(p, Acquire, |x| x == 1) == Ok(1),
                    0,
                )
            }
            7 => {
                let (b, f) = (
                    AtomicFlag::<Gpu>::from_ptr(busy),
                    AtomicFlag::<Gpu>::from_ptr(free),
                );
                f.test_and_set(Relaxed);
                let p = past();
                (
                    b.wait_until(p, false, Acquire).is_err(),
                    f.wait_until(p, false, Acquire).is_ok(),
                    0,
                )
            }
            8 => {
                let (b, f) = (
                    Barrier::<Gpu>::from_ptr(busy.cast()),
                    Barrier::<Gpu>::from_ptr(free.cast()),
                );
                b.init(2);
                f.init(1);
                let (tb, tf) = (b.arrive(), f.arrive()); // `f`'s phase completes
                let p = past();
                (
                    b.wait_until(&tb, p).is_err(),
                    f.wait_until(&tf, p).is_ok(),
                    0,
                )
            }
            9 => {
                let (b, f) = (
                    Barrier::<Gpu>::from_ptr(busy.cast()),
                    Barrier::<Gpu>::from_ptr(free.cast()),
                );
                b.init(2);
                f.init(1);
                let _ = (b.arrive(), f.arrive());
                let p = past();
                (
                    b.wait_parity_until(false, p).is_err(),
                    f.wait_parity_until(false, p).is_ok(),
                    0,
                )
            }
            _ => {
                let mut polls = 0u64;
                let mut count = |hit: bool| {
                    polls += 1;
                    hit.then_some(())
                };
                let r = if k == 10 {
                    let p = past();
                    (
                        poll_until_deadline::<NanoSleep, ()>(p, || count(false)) == Err(TimedOut),
                        poll_until_deadline::<NanoSleep, ()>(p, || count(true)).is_ok(),
                    )
                } else {
                    (
                        poll_until_for::<NanoSleep, ()>(Duration::ZERO, || count(false))
                            == Err(TimedOut),
                        poll_until_for::<NanoSleep, ()>(Duration::ZERO, || count(true)).is_ok(),
                    )
                };
                (r.0, r.1, polls)
            }
        };
        let took = start.elapsed().as_nanos() as u64;
        *o.add(3) = (*o.add(3)).max(took);
        *o += failed as u64;
        *o.add(1) += succeeded as u64;
        *o.add(2) += polls;
    }
}

/// A timed `BlockBarrier` wait that times out, then succeeds (sm_80; the hardware suspend
/// with a time hint on sm_90). Each block: the barrier for all its threads at the start of
/// dynamic shared memory, a flag at byte 8, one `u32` per thread from byte 16. Thread 0
/// arrives, then `wait_for(short_ns)` must time out (every other thread waits for the flag
/// before it arrives) and `wait_until(now)` too; then it raises the flag and
/// `wait_for(1 s)` must succeed. The others, once the flag is up, write their slot, arrive and
/// `wait_parity_for(false, 1 s)`, then check thread 0's slot. Phase 1: everyone arrives again,
/// thread 0 `wait_parity_until(true, now + 1 s)`, the others `wait_until(token, now + 1 s)`.
/// `out[8 * block ..]` (u64): `[0]` timeouts (want 2), `[1]` waits that succeeded (want
/// 2 x threads), `[2]` stale slots (want 0), `[3]` ns the first timed-out wait took (at least
/// `short_ns`), `[4]` parity tests right after phase 0 (want 1: phase 0 done, phase 1 not).
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier_timed(short_ns: u64, out: *mut u64) {
    use ptx_sync::{block, BlockBarrier, Cta};
    let smem = block::dynamic_shared_memory();
    let bar = BlockBarrier::from_ptr(smem.cast());
    let flag = Atomic::<u32, Cta>::from_ptr(smem.add(8).cast());
    let slots = smem.add(16).cast::<u32>();
    let (t, n, b) = (block::thread_x(), block::dim_x(), block::index_x());
    let o = out.add(8 * b as usize);
    let add = |i: usize, x: u64| {
        Atomic::<u64, Gpu>::from_ptr(o.add(i)).fetch_add(x, Relaxed);
    };
    if t == 0 {
        bar.init(n);
        flag.store(0, Relaxed);
    }
    ptx_sync::block::sync();
    let long = Duration::from_secs(1);
    if t == 0 {
        *slots = 1000 + b;
        let token = bar.arrive();
        let start = Instant::now();
        if bar
            .wait_for(&token, Duration::from_nanos(short_ns))
            .is_err()
        {
            *o.add(3) = start.elapsed().as_nanos() as u64;
            add(0, 1);
        }
        add(0, bar.wait_until(&token, Instant::now()).is_err() as u64);
        // Release: the others arrive only after they have seen it.
        flag.store(1, Release);
        if bar.wait_for(&token, long).is_ok() {
            add(1, 1);
            let stale = (1..n).filter(|&i| *slots.add(i as usize) != i + 1).count();
            add(2, stale as u64);
        }
        // Phase 0 is over, phase 1 cannot be: it needs this thread's arrival.
        add(
            4,
            (bar.try_wait_parity(false) && !bar.try_wait_parity(true)) as u64,
        );
        let _ = bar.arrive();
        add(
            1,
            bar.wait_parity_until(true, Instant::now() + long).is_ok() as u64,
        );
    } else {
        flag.wait(0, Acquire);
        *slots.add(t as usize) = t + 1;
        let _ = bar.arrive();
        if bar.wait_parity_for(false, long).is_ok() {
            add(1, 1);
            add(2, (*slots != 1000 + b) as u64);
        }
        let token = bar.arrive();
        add(
            1,
            bar.wait_until(&token, Instant::now() + long).is_ok() as u64,
        );
    }
}
