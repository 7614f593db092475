//! The primitives on the host backend (core atomics) with real threads: the same algorithms
//! the GPU runs, counted exactly. (loom.rs checks them exhaustively on small cases.)
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use core::time::Duration;
use ptx_sync::barrier::init_word;
use ptx_sync::{
    Atomic, Backoff, Barrier, BinarySemaphore, Elapsed, Gpu, Latch, NanoSleep, Ordering, Semaphore,
    Spin, Sys, TicketLock, TimedOut,
};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::thread;

/// The budget of the host tests' timed waits (virtual time: see `ptx_sync::clock`).
const US10: Duration = Duration::from_micros(10);

const THREADS: usize = 4;

#[test]
fn ticket_lock_counts_and_serves_in_order() {
    let lock = TicketLock::<Vec<u32>, Gpu, Spin>::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..1000 {
                    let mut g = lock.lock();
                    let t = g.ticket();
                    g.push(t);
                }
            });
        }
    });
    let log = lock.into_inner();
    assert_eq!(log.len(), THREADS * 1000);
    assert!(
        log.iter().enumerate().all(|(i, &t)| t == i as u32),
        "served out of ticket order"
    );
}

#[test]
fn ticket_try_lock_fails_while_held_and_times_out() {
    let lock = TicketLock::<u32, Gpu>::new(0);
    let g = lock.lock();
    assert!(lock.try_lock().is_none());
    assert!(lock.try_lock_for(US10).is_none());
    drop(g);
    assert_eq!(lock.try_lock().unwrap().ticket(), 1);
}

#[test]
fn semaphore_bounds_holders_and_reaches_max() {
    let sem = Semaphore::<Gpu, 3, Spin>::new(3);
    let (holders, most, passes) = (AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0));
    thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..2000 {
                    sem.acquire();
                    let h = holders.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(h, SeqCst);
                    for _ in 0..50 {
                        std::hint::spin_loop();
                    }
                    holders.fetch_sub(1, SeqCst);
                    passes.fetch_add(1, SeqCst);
                    sem.release(1);
                }
            });
        }
    });
    assert_eq!(passes.load(SeqCst), 16_000);
    assert!(most.load(SeqCst) <= 3, "{} holders", most.load(SeqCst));
    assert_eq!(sem.available(), 3);
}

#[test]
fn semaphore_try_acquire_for_expires_on_zero() {
    let sem = Semaphore::<Gpu, 1>::new(0);
    assert!(!sem.try_acquire());
    assert!(!sem.try_acquire_for(US10));
    sem.release(1);
    assert!(sem.try_acquire_for(US10));
}

#[test]
#[should_panic(expected = "count would exceed MAX")]
fn semaphore_release_past_max_traps_in_debug() {
    let sem = Semaphore::<Gpu, 1>::new(1);
    sem.release(1);
}

#[test]
#[should_panic(expected = "initial count above MAX")]
fn semaphore_initial_above_max_panics() {
    let _ = Semaphore::<Gpu, 2>::new(3);
}

/// A `BinarySemaphore` as a lock around a plain (non-atomic) read-modify-write: only mutual
/// exclusion keeps the count exact, and only release/acquire makes each holder see the last
/// one's write. With the default policy (`Elapsed`), `Spin`, and at `Sys` (load first).
#[test]
fn binary_semaphore_is_a_lock() {
    fn run<S: ptx_sync::Scope, B: Backoff>(name: &str) {
        const ITERS: u32 = 2000;
        let sem = BinarySemaphore::<S, B>::new(1);
        let value = std::cell::UnsafeCell::new(0u32);
        struct Shared<'a>(&'a std::cell::UnsafeCell<u32>);
        // SAFETY: accessed only while holding the semaphore.
        unsafe impl Sync for Shared<'_> {}
        let shared = Shared(&value);
        let (holders, most) = (AtomicU32::new(0), AtomicU32::new(0));
        thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    let shared = &shared;
                    for _ in 0..ITERS {
                        sem.acquire();
                        most.fetch_max(holders.fetch_add(1, SeqCst) + 1, SeqCst);
                        // SAFETY: this thread holds the unit.
                        unsafe {
                            let v = *shared.0.get();
                            std::hint::spin_loop();
                            *shared.0.get() = v + 1;
                        }
                        holders.fetch_sub(1, SeqCst);
                        sem.release(1);
                    }
                });
            }
        });
        assert_eq!(
            value.into_inner(),
            THREADS as u32 * ITERS,
            "{name}: lost updates"
        );
        assert_eq!(most.load(SeqCst), 1, "{name}: two holders at once");
        assert_eq!(sem.available(), 1, "{name}: the unit is not back");
    }
    run::<Gpu, Elapsed>("Gpu, Elapsed");
    run::<Gpu, Spin>("Gpu, Spin");
    run::<Gpu, NanoSleep>("Gpu, NanoSleep");
    run::<Sys, Elapsed>("Sys, Elapsed");
}

#[test]
fn binary_semaphore_try_forms_and_release_of_zero() {
    for sem in [
        BinarySemaphore::<Gpu>::new(0),
        BinarySemaphore::<Gpu>::new(1),
    ] {
        let free = sem.available() == 1;
        assert_eq!(sem.try_acquire(), free);
        assert!(!sem.try_acquire(), "taken twice");
        assert!(!sem.try_acquire_for(US10));
        sem.release(0); // gives nothing
        assert_eq!(sem.available(), 0);
        assert!(!sem.try_acquire());
        sem.release(1);
        assert!(sem.try_acquire_for(US10));
        assert_eq!(sem.available(), 0);
    }
    let sys = BinarySemaphore::<Sys>::new(1);
    assert!(sys.try_acquire());
    assert!(!sys.try_acquire());
    assert!(!sys.try_acquire_for(US10));
    sys.release(1);
    assert!(sys.try_acquire_for(US10));
    assert_eq!(BinarySemaphore::<Gpu>::MAX, 1);
}

/// A zeroed word is a binary semaphore whose unit is taken; the view releases into it.
#[test]
fn binary_semaphore_from_zeroed_memory() {
    let word = AtomicU32::new(0);
    // SAFETY: an aligned u32 that outlives the view, accessed only atomically.
    let sem = unsafe { BinarySemaphore::<Gpu>::from_ptr(word.as_ptr()) };
    assert!(!sem.try_acquire());
    sem.release(1);
    assert_eq!(word.load(SeqCst), 1);
    sem.acquire();
    assert_eq!(word.load(SeqCst), 0);
}

#[test]
#[should_panic(expected = "count would exceed MAX")]
fn binary_semaphore_release_of_two_traps_in_debug() {
    BinarySemaphore::<Gpu>::new(0).release(2);
}

#[test]
#[should_panic(expected = "count would exceed MAX")]
fn binary_semaphore_release_while_free_traps_in_debug() {
    let sem = BinarySemaphore::<Gpu>::new(0);
    sem.release(1);
    sem.release(1);
}

/// A producer/consumer ring with a counting semaphore for its free and its full slots (the
/// shape of a bounded MPMC queue): every item arrives exactly once, with its payload.
#[test]
fn counting_semaphores_run_a_bounded_mpmc_ring() {
    fn run<B: Backoff>(name: &str) {
        const SLOTS: usize = 4;
        const PER: u32 = 3000;
        let free = Semaphore::<Gpu, { SLOTS as u32 }, B>::new(SLOTS as u32);
        let full = Semaphore::<Gpu, { SLOTS as u32 }, B>::new(0);
        // Slot payloads (relaxed: the semaphores order them) and the ring's two tickets.
        let slots: Vec<AtomicU32> = (0..SLOTS).map(|_| AtomicU32::new(0)).collect();
        let (head, tail) = (Atomic::<u32, Gpu>::new(0), Atomic::<u32, Gpu>::new(0));
        let seen: Vec<AtomicU32> = (0..2 * PER).map(|_| AtomicU32::new(0)).collect();
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        thread::scope(|s| {
            for p in 0..2u32 {
                let (free, full, slots, tail) = (&free, &full, &slots, &tail);
                s.spawn(move || {
                    for i in 0..PER {
                        free.acquire();
                        // A slot of its own until `full.release`: the ticket picks it, the
                        // acquired free unit guarantees its consumer has taken it out.
                        let t = tail.fetch_add(1, Ordering::Relaxed) as usize % SLOTS;
                        let item = p * PER + i + 1;
                        while slots[t]
                            .compare_exchange(0, item, relaxed, relaxed)
                            .is_err()
                        {
                            std::hint::spin_loop(); // the previous consumer is still reading
                        }
                        full.release(1);
                    }
                });
            }
            for _ in 0..2 {
                let (free, full, slots, head, seen) = (&free, &full, &slots, &head, &seen);
                s.spawn(move || {
                    for _ in 0..PER {
                        full.acquire();
                        let h = head.fetch_add(1, Ordering::Relaxed) as usize % SLOTS;
                        let item = loop {
                            let v = slots[h].swap(0, relaxed);
                            if v != 0 {
                                break v;
                            }
                            std::hint::spin_loop(); // its producer is still writing
                        };
                        seen[item as usize - 1].fetch_add(1, relaxed);
                        free.release(1);
                    }
                });
            }
        });
        assert!(
            seen.iter().all(|n| n.load(SeqCst) == 1),
            "{name}: an item lost or delivered twice"
        );
        assert_eq!(
            (free.available(), full.available()),
            (SLOTS as u32, 0),
            "{name}"
        );
    }
    run::<Elapsed>("Elapsed");
    run::<Spin>("Spin");
    run::<NanoSleep>("NanoSleep");
}

/// `Elapsed` on the host: the first `POLLS` pauses count 1 ns each, the spinning ones up to
/// `SPIN_NS` count `SPIN_NS / 64 + 1` each, then each sleeps a quarter of the nominal time so
/// far, capped, so the sum grows geometrically to the cap and a timed wait always expires
/// (even with no polls at all).
#[test]
fn elapsed_policy_spins_then_grows_with_the_time_waited_and_caps() {
    let mut b = Elapsed::<4, 640, 1000>::default();
    let mut waited = Vec::new();
    for _ in 0..200 {
        b.pause();
        waited.push(b.waited_ns());
    }
    assert_eq!(&waited[..4], &[1, 2, 3, 4], "polls");
    let steps: Vec<u64> = waited.windows(2).map(|w| w[1] - w[0]).collect();
    let spinning = steps.iter().filter(|&&s| s == 11).count();
    assert_eq!(spinning, 58, "spinning pauses until 640 ns: {steps:?}");
    assert!(
        steps.windows(2).all(|w| w[1] >= w[0]),
        "steps shrink: {steps:?}"
    );
    assert_eq!(*steps.last().unwrap(), 1000, "capped at MAX_NS");
    let mut none = Elapsed::<0, 0, 1000>::default();
    for _ in 0..10 {
        none.pause();
    }
    assert!(none.waited_ns() >= 10);
    let sem = Semaphore::<Gpu, 2, Elapsed<0, 0, 50>>::new(0);
    assert!(!sem.try_acquire_for(Duration::from_micros(100)));
}

/// After a lost race `Elapsed` keeps half of the time waited (what a counting semaphore's
/// waiter does when another thread took the unit it saw); the default policy starts over.
#[test]
fn lost_race_halves_elapsed_and_restarts_the_others() {
    let mut b = Elapsed::<4, 640, 1000>::default();
    for _ in 0..100 {
        b.pause();
    }
    let before = b.waited_ns();
    b.lost_race();
    assert_eq!(b.waited_ns(), before / 2);
    let mut n = NanoSleep::<32, 1024>::default();
    for _ in 0..10 {
        n.pause();
    }
    assert!(n.waited_ns() > 0);
    n.lost_race();
    assert_eq!(n.waited_ns(), 0);
}

#[test]
fn latch_fan_in_sees_every_arrival() {
    let latch = Latch::<Gpu>::new(THREADS as u32);
    let arrived = AtomicU32::new(0);
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                arrived.fetch_add(1, SeqCst);
                latch.arrive_and_wait();
                assert_eq!(arrived.load(SeqCst), THREADS as u32);
            });
        }
    });
    assert!(latch.try_wait());
}

#[test]
fn latch_of_zero_is_open_and_wait_for_expires() {
    assert!(Latch::<Gpu>::new(0).try_wait());
    let l = Latch::<Gpu>::new(1);
    assert_eq!(l.wait_for(US10), Err(TimedOut));
    l.count_down_n(0); // counts nothing
    assert!(!l.try_wait());
    l.count_down();
    assert_eq!(l.wait_for(US10), Ok(()));
}

#[test]
#[should_panic(expected = "counted below zero")]
fn latch_counting_below_zero_traps_in_debug() {
    Latch::<Gpu>::new(1).count_down_n(2);
}

#[test]
fn barrier_neighbour_exchange_over_many_phases() {
    const PHASES: u32 = 500;
    let bar = Barrier::<Gpu, Spin>::new(THREADS as u32);
    let slots: Vec<AtomicU32> = (0..THREADS).map(|_| AtomicU32::new(0)).collect();
    let completions = AtomicU32::new(0);
    let errors = AtomicU32::new(0);
    thread::scope(|s| {
        for i in 0..THREADS {
            let (bar, slots, completions, errors) = (&bar, &slots, &completions, &errors);
            s.spawn(move || {
                for p in 1..=PHASES {
                    slots[i].store(p, std::sync::atomic::Ordering::Relaxed);
                    bar.arrive_and_wait_with(|| {
                        completions.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    });
                    let n = slots[(i + 1) % THREADS].load(std::sync::atomic::Ordering::Relaxed);
                    let c = completions.load(std::sync::atomic::Ordering::Relaxed);
                    if n != p || c != p {
                        errors.fetch_add(1, SeqCst);
                    }
                    let t = bar.arrive(); // split form for the second phase
                    bar.wait(t);
                }
            });
        }
    });
    assert_eq!(errors.load(SeqCst), 0);
    assert_eq!(completions.load(SeqCst), PHASES);
}

/// A barrier over a word this test owns, so it can read the word (device/src/barrier.rs)
/// while no thread is inside a barrier call.
fn barrier_over(word: &AtomicU64) -> &Barrier<Gpu, Spin> {
    // SAFETY: an 8-byte aligned u64 (an `AtomicU64` is one) that outlives the view, written
    // only through it; the test reads it only between barrier calls.
    unsafe { Barrier::from_ptr(word.as_ptr()) }
}

/// `[pending, expected, phase]` of a barrier word between phases (device/src/barrier.rs: bit
/// 63 the phase, bits 32..=62 a counter that completes the phase at 2^31, bits 0..=31 where
/// it restarts, 2^31 - expected): the arrivals still missing in this phase, the threads the
/// next phase expects, the phase bit.
fn barrier_state(word: &AtomicU64) -> [u64; 3] {
    let w = word.load(SeqCst);
    [
        (1 << 31) - ((w >> 32) & 0x7FFF_FFFF),
        (1 << 31) - (w & 0xFFFF_FFFF),
        w >> 63,
    ]
}

/// `arrive_and_drop` arrives at the current phase (which still needs all three arrivals) and
/// lowers every later phase to two, step by step.
#[test]
fn barrier_arrive_and_drop_counts_now_and_lowers_later_phases() {
    let word = AtomicU64::new(init_word(3));
    let bar = barrier_over(&word);
    assert_eq!(barrier_state(&word), [3, 3, 0]);
    let t0 = bar.arrive();
    assert_eq!(barrier_state(&word), [2, 3, 0]);
    bar.arrive_and_drop();
    assert_eq!(
        barrier_state(&word),
        [1, 2, 0],
        "the drop is an arrival at phase 0 and leaves later phases 2"
    );
    assert_eq!(
        bar.wait_for(&t0, US10),
        Err(TimedOut),
        "phase 0 still needs its third arrival"
    );
    let last = bar.arrive();
    assert_eq!(
        barrier_state(&word),
        [2, 2, 1],
        "phase 0 completed, phase 1 expects 2"
    );
    assert_eq!(bar.wait_for(&t0, US10), Ok(()));
    bar.wait(last);
    for p in 1..=3 {
        let first = bar.arrive();
        assert_eq!(barrier_state(&word), [1, 2, p & 1]);
        assert_eq!(
            bar.wait_for(&first, US10),
            Err(TimedOut),
            "phase {p} needs a second arrival"
        );
        let second = bar.arrive();
        assert_eq!(
            barrier_state(&word),
            [2, 2, (p + 1) & 1],
            "phase {p} completed by two arrivals"
        );
        bar.wait(first);
        bar.wait(second);
    }
}

/// A drop that is the last arrival of its phase flips the phase and restarts the counter in
/// one RMW: the phase after it needs exactly the two that stayed (the next two phases are
/// completed by one thread each, through both arrival paths).
#[test]
fn barrier_drop_as_the_last_arrival_restarts_the_next_phase() {
    let word = AtomicU64::new(init_word(3));
    let bar = barrier_over(&word);
    let (a, b) = (bar.arrive(), bar.arrive());
    bar.arrive_and_drop();
    assert_eq!(
        barrier_state(&word),
        [2, 2, 1],
        "the drop completed phase 0"
    );
    assert_eq!(
        (
            bar.wait_for(&a, Duration::ZERO),
            bar.wait_for(&b, Duration::ZERO)
        ),
        (Ok(()), Ok(()))
    );
    let first = bar.arrive();
    bar.arrive_and_wait();
    bar.wait(first);
    assert_eq!(barrier_state(&word), [2, 2, 0], "phase 1: two arrivals");
    let first = bar.arrive();
    bar.arrive_and_wait_with(|| {});
    bar.wait(first);
    assert_eq!(barrier_state(&word), [2, 2, 1], "phase 2: two arrivals");
    // Down to one thread, then to none.
    let first = bar.arrive();
    bar.arrive_and_drop();
    bar.wait(first);
    assert_eq!(barrier_state(&word), [1, 1, 0]);
    bar.arrive_and_drop();
    assert_eq!(
        word.load(SeqCst),
        1 << 63 | 1 << 31,
        "nobody left: phase bit 1, counter 0, restart 2^31 (0 expected)"
    );
}

/// The same with threads: one drops at phase 0, two go through `PHASES` phases; each wait is
/// bounded, so a barrier that still expects three fails instead of hanging.
#[test]
fn barrier_arrive_and_drop_shrinks_later_phases() {
    const PHASES: u64 = 101;
    /// Polls of `Spin` (its nominal nanoseconds): seconds, for a phase that never completes.
    const LIMIT: Duration = Duration::from_millis(100);
    let word = AtomicU64::new(init_word(3));
    let bar = barrier_over(&word);
    let (passed, stuck) = (AtomicU64::new(0), AtomicU64::new(0));
    thread::scope(|s| {
        s.spawn(|| bar.arrive_and_drop());
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..PHASES {
                    let t = bar.arrive();
                    if bar.wait_for(&t, LIMIT).is_err() {
                        stuck.fetch_add(1, SeqCst);
                        return;
                    }
                    passed.fetch_add(1, SeqCst);
                }
            });
        }
    });
    assert_eq!(
        (passed.load(SeqCst), stuck.load(SeqCst)),
        (2 * PHASES, 0),
        "(phases passed, threads stuck in a phase) of the two threads that stayed"
    );
    assert_eq!(
        barrier_state(&word),
        [2, 2, PHASES & 1],
        "[pending, expected, phase]: phase 0 with three arrivals, every later one with two"
    );
}

/// Threads race a drop that is the last arrival of phase 0 into phase 1 (they are released by
/// the drop's RMW): with the drop's flip and its restart in two RMWs, both could complete phase
/// 1 before the restart and phase 2 would never complete. Each wait is bounded.
#[test]
fn barrier_drop_as_the_last_arrival_with_threads_racing_into_the_next_phase() {
    const ROUNDS: usize = 300;
    const PHASES: u32 = 4;
    const LIMIT: Duration = Duration::from_millis(100);
    for round in 0..ROUNDS {
        let word = AtomicU64::new(init_word(3));
        let bar = barrier_over(&word);
        let stuck = AtomicU32::new(0);
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    for _ in 0..PHASES {
                        let t = bar.arrive();
                        if bar.wait_for(&t, LIMIT).is_err() {
                            stuck.fetch_add(1, SeqCst);
                            return;
                        }
                    }
                });
            }
            // The drop waits until both others have arrived at phase 0, so it is the last.
            s.spawn(|| {
                while barrier_state(&word)[0] != 1 {
                    std::hint::spin_loop();
                }
                bar.arrive_and_drop();
            });
        });
        assert_eq!(stuck.load(SeqCst), 0, "round {round}: a thread stuck");
        assert_eq!(
            word.load(SeqCst),
            init_word(2) | (PHASES as u64 & 1) << 63,
            "round {round}: the word after phase 0 and {} phases of two",
            PHASES - 1
        );
    }
}

/// The completion step runs once per phase, by the last arrival, before any thread returns
/// from that phase: every thread has returned from the phase before (each counted its return
/// before arriving) and none from this one. It sleeps now and then, so a waiter released
/// before it ran would have time to return and be counted.
#[test]
fn barrier_completion_runs_once_per_phase_before_any_waiter_returns() {
    const PHASES: u32 = 300;
    let bar = Barrier::<Gpu, Spin>::new(THREADS as u32);
    let completions = AtomicU32::new(0);
    let returned = AtomicU32::new(0);
    let (early, missed) = (AtomicU32::new(0), AtomicU32::new(0));
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for p in 1..=PHASES {
                    bar.arrive_and_wait_with(|| {
                        if returned.load(SeqCst) != (p - 1) * THREADS as u32 {
                            early.fetch_add(1, SeqCst);
                        }
                        if p % 4 == 0 {
                            thread::sleep(std::time::Duration::from_micros(100));
                        }
                        completions.fetch_add(1, SeqCst);
                    });
                    // Exactly this phase's completion: the next one needs this thread.
                    if completions.load(SeqCst) != p {
                        missed.fetch_add(1, SeqCst);
                    }
                    returned.fetch_add(1, SeqCst);
                }
            });
        }
    });
    assert_eq!(
        (
            early.load(SeqCst),
            missed.load(SeqCst),
            completions.load(SeqCst)
        ),
        (0, 0, PHASES),
        "(completions that found a thread already returned, returns that did not see exactly \
         their phase's completions, completions)"
    );
}

/// Many phases on one barrier, never re-initialized: the phase bit wraps through the carry
/// out of bit 63 every second phase, and after every phase the word is the fresh word with
/// that phase's bit, whichever way the last arrival came (`arrive`, `arrive_and_wait`,
/// `arrive_and_wait_with`).
#[test]
fn barrier_word_is_exact_after_every_one_of_many_phases() {
    const PHASES: u64 = 10_000;
    let word = AtomicU64::new(init_word(3));
    let bar = barrier_over(&word);
    let mut completions = 0;
    for p in 1..=PHASES {
        let (a, b) = (bar.arrive(), bar.arrive());
        assert_eq!(
            bar.wait_for(&a, Duration::ZERO),
            Err(TimedOut),
            "phase {p} opened early"
        );
        match p % 3 {
            0 => bar.wait(bar.arrive()),
            1 => bar.arrive_and_wait(),
            _ => bar.arrive_and_wait_with(|| completions += 1),
        }
        assert_eq!(
            word.load(SeqCst),
            init_word(3) | (p & 1) << 63,
            "the word after phase {p}"
        );
        bar.wait(a);
        bar.wait(b);
    }
    assert_eq!(completions, PHASES / 3);
}

#[test]
fn barrier_init_word_is_libcus() {
    // libcu++'s `__barrier_base<__empty_completion>::__init`: the counter and the restart
    // value both 2^31 - expected.
    assert_eq!(init_word(1), 0x7FFF_FFFF_7FFF_FFFF);
    assert_eq!(init_word(132), 0x7FFF_FF7C_7FFF_FF7C);
    assert_eq!(init_word((1 << 31) - 1), 0x0000_0001_0000_0001);
    assert_eq!(size_of::<Barrier<Gpu>>(), 8);
    assert_eq!(align_of::<Barrier<Gpu>>(), 8);
}

#[test]
#[should_panic(expected = "at least one thread")]
fn barrier_of_zero_panics() {
    let _ = Barrier::<Gpu>::new(0);
}

#[test]
#[should_panic(expected = "at most 2^31 - 1 threads")]
fn barrier_of_2_pow_31_panics() {
    let _ = Barrier::<Gpu>::new(1 << 31);
}

#[test]
fn atomic_wait_returns_the_new_value_or_times_out() {
    let a = Atomic::<u64, Gpu>::new(0);
    thread::scope(|s| {
        s.spawn(|| a.store(5, Ordering::Release));
        assert_eq!(a.wait_until(Ordering::Acquire, |v| v == 5), 5);
    });
    assert_eq!(a.wait(0, Ordering::Acquire), 5);
    assert_eq!(
        a.wait_until_for(US10, Ordering::Acquire, |v| v == 6),
        Err(TimedOut)
    );
}
