//! A completion stored in the barrier (`Barrier::with_completion`, libcu++'s
//! `barrier<Scope, CompletionF>`) on the host backend with real threads: it runs exactly once
//! per phase, in whichever arrival completes the phase (split `arrive`, `arrive_n`,
//! `arrive_and_wait`, `arrive_and_wait_with`, `arrive_and_drop`), before anyone is released.
//! (loom.rs checks the ordering exhaustively; warps.rs with emulated warps.)
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use core::cell::UnsafeCell;
use core::time::Duration;
use ptx_sync::barrier::NoCompletion;
use ptx_sync::{Barrier, Cta, Gpu, NanoSleep, Spin};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::thread;

/// Plain data that only the barrier's ordering protects (as on the GPU: the completion writes
/// it with ordinary stores, the released threads read it with ordinary loads).
struct Plain(UnsafeCell<u32>);
// SAFETY: accessed only where the barrier orders the accesses (the tests' point).
unsafe impl Sync for Plain {}

impl Plain {
    fn get(&self) -> u32 {
        // SAFETY: see the `Sync` impl.
        unsafe { *self.0.get() }
    }
    fn bump(&self) {
        // SAFETY: see the `Sync` impl.
        unsafe { *self.0.get() += 1 }
    }
}

#[test]
fn without_a_completion_the_barrier_is_one_word() {
    assert_eq!(size_of::<Barrier<Gpu>>(), 8);
    assert_eq!(size_of::<Barrier<Cta, Spin, NoCompletion>>(), 8);
    let counter = AtomicU32::new(0);
    let b = Barrier::<Gpu>::with_completion(1, || {
        counter.fetch_add(1, Relaxed);
    });
    assert_eq!(size_of_val(&b), 16); // the word, then the closure's one reference
}

#[test]
fn split_arrive_n_runs_it_in_the_completing_arrival() {
    let runs = AtomicU32::new(0);
    let b = Barrier::<Gpu>::with_completion(3, || {
        runs.fetch_add(1, Relaxed);
    });
    let t = b.arrive_n(2);
    assert_eq!(runs.load(Relaxed), 0);
    assert!(!b.try_wait_parity(false));
    let last = b.arrive(); // completes phase 0
    assert_eq!(runs.load(Relaxed), 1);
    b.wait(t);
    b.wait(last);
    assert_eq!(b.wait_parity_for(false, Duration::ZERO), Ok(()));
    // Phase 1: one arrival of 3 at once.
    b.wait(b.arrive_n(3));
    assert_eq!(runs.load(Relaxed), 2);
}

#[test]
fn a_drop_that_completes_the_phase_runs_it() {
    let runs = AtomicU32::new(0);
    let b = Barrier::<Gpu>::with_completion(2, || {
        runs.fetch_add(1, Relaxed);
    });
    let t = b.arrive();
    b.arrive_and_drop(); // last of phase 0
    assert_eq!(runs.load(Relaxed), 1);
    b.wait(t);
    b.arrive_and_wait(); // phase 1 expects one thread
    assert_eq!(runs.load(Relaxed), 2);
}

#[test]
fn arrive_and_wait_with_runs_its_step_then_the_barriers() {
    let order = std::sync::Mutex::new(Vec::new());
    let b = Barrier::<Gpu>::with_completion(1, || order.lock().unwrap().push("barrier"));
    b.arrive_and_wait_with(|| order.lock().unwrap().push("step"));
    b.arrive_and_wait();
    assert_eq!(*order.lock().unwrap(), ["step", "barrier", "barrier"]);
}

/// `THREADS` threads, `PHASES` phases, every way of arriving; half the threads drop out at
/// phase `DROP`. The completion (plain `u32` writes) ran exactly once per phase, and every
/// thread released from phase `p` reads `p + 1` from it.
#[test]
fn it_runs_once_per_phase_before_anyone_is_released() {
    const THREADS: u32 = 6;
    const PHASES: u32 = 300;
    const DROP: u32 = 200;
    for round in 0..5 {
        let count = Plain(UnsafeCell::new(0));
        let slots: Vec<AtomicU64> = (0..THREADS).map(|_| AtomicU64::new(0)).collect();
        let stale_slots = Plain(UnsafeCell::new(0));
        let bar = Barrier::<Gpu, NanoSleep, _>::with_completion(THREADS, || {
            // Every participant of this phase stored its slot before arriving.
            let p = count.get() as u64;
            let active = if p <= DROP as u64 {
                THREADS
            } else {
                THREADS / 2
            };
            for (t, slot) in slots.iter().enumerate().take(active as usize) {
                if slot.load(Relaxed) != p << 8 | t as u64 {
                    stale_slots.bump();
                }
            }
            count.bump();
        });
        let stale = AtomicU32::new(0);
        thread::scope(|s| {
            for t in 0..THREADS {
                let (bar, count, slots, stale) = (&bar, &count, &slots, &stale);
                s.spawn(move || {
                    for p in 0..PHASES {
                        slots[t as usize].store((p as u64) << 8 | t as u64, Relaxed);
                        if t >= THREADS / 2 && p == DROP {
                            bar.arrive_and_drop();
                            return;
                        }
                        match (t + p + round) % 5 {
                            0 => bar.arrive_and_wait(),
                            1 => bar.wait(bar.arrive()),
                            2 => bar.wait_parity(bar.arrive().parity()),
                            3 => {
                                let token = bar.arrive();
                                assert_eq!(bar.wait_for(&token, Duration::from_secs(60)), Ok(()));
                            }
                            _ => bar.arrive_and_wait_with(|| {}),
                        }
                        if count.get() != p + 1 {
                            stale.fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(count.get(), PHASES, "completion runs");
        assert_eq!(stale_slots.get(), 0, "slots the completion saw stale");
        assert_eq!(
            stale.load(Relaxed),
            0,
            "released threads that saw a stale count"
        );
    }
}
