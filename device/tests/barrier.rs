//! `Barrier`: phases over many rounds, `arrive_and_drop`, the exact barrier word after every
//! phase, `arrive_n` and parity waits, `max`, the refused sizes, and a completion stored in
//! the barrier (`Barrier::with_completion`, libcu++'s `barrier<Scope, CompletionF>`) that runs
//! exactly once per phase, in whichever arrival completes it, before anyone is released, on
//! std threads; every calling shape of the warp-aggregated arrival, with and without a
//! completion, on emulated warps; the ordering of phases, drops and completions in loom
//! models.

mod common {
    #[cfg(not(loom))]
    pub mod lanes;
    #[cfg(loom)]
    pub mod models;
    #[cfg(not(loom))]
    pub mod shapes;
}

/// Std threads and emulated warps (`warp::emulation`: a std thread per lane) running the
/// algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use crate::common::shapes::{loads, shapes, zeros};
    use core::cell::UnsafeCell;
    use core::time::Duration;
    use ptx_sync::barrier::{init_word, NoCompletion};
    use ptx_sync::warp::emulation::converged;
    use ptx_sync::{Barrier, Cta, Gpu, NanoSleep, Spin, TimedOut};
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
    use std::sync::Arc;
    use std::thread;

    /// The budget of the host tests' timed waits (virtual time: see `ptx_sync::clock`).
    const US10: Duration = Duration::from_micros(10);

    const THREADS: usize = 4;

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
                                    assert_eq!(
                                        bar.wait_for(&token, Duration::from_secs(60)),
                                        Ok(())
                                    );
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

    /// `arrive_n` counts several arrivals at once: 3 threads arriving for 2 each complete a
    /// barrier of 6, for 40 phases; each phase's parity alternates from even, and every thread
    /// waits on the parity it counts itself.
    #[test]
    fn arrive_n_and_parity_waits_complete_every_phase() {
        const PHASES: u32 = 40;
        let bar = Barrier::<Gpu>::new(6);
        let done = AtomicU32::new(0);
        thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for k in 0..PHASES {
                        let token = bar.arrive_n(2);
                        assert_eq!(token.parity(), k % 2 == 1, "phase {k}");
                        bar.wait_parity(k % 2 == 1);
                        assert!(bar.try_wait_parity(k % 2 == 1));
                        done.fetch_add(1, SeqCst);
                    }
                });
            }
        });
        assert_eq!(done.load(SeqCst), 3 * PHASES);
        // Back at an even phase, none of whose arrivals has come: the odd one (the previous
        // phase, 39) is complete, the even one is not.
        assert!(bar.try_wait_parity(true));
        assert!(!bar.try_wait_parity(false));
    }

    #[test]
    fn a_phase_is_not_complete_before_its_last_arrival() {
        let bar = Barrier::<Gpu>::new(3);
        let t = bar.arrive_n(2);
        assert!(!t.parity());
        assert!(!bar.try_wait_parity(false));
        let last = bar.arrive();
        assert!(!last.parity());
        assert!(bar.try_wait_parity(false));
    }

    #[test]
    #[should_panic(expected = "Barrier::arrive_n: counts at least one arrival")]
    fn arrive_n_of_zero_panics_with_a_message() {
        let _ = Barrier::<Gpu>::new(1).arrive_n(0);
    }

    #[test]
    fn max_matches_what_new_accepts() {
        assert_eq!(Barrier::<Gpu>::max(), (1 << 31) - 1);
        let _ = Barrier::<Gpu>::new(Barrier::<Gpu>::max());
    }

    /// Per object: `2 * rounds` phases for a barrier with callers, none for an unused one.
    fn phases(callers: &[u32], rounds: u32) -> Vec<u32> {
        callers
            .iter()
            .map(|&n| if n > 0 { 2 * rounds } else { 0 })
            .collect()
    }

    #[test]
    fn barrier_every_calling_shape_runs_each_barrier_one_phase_per_round() {
        const ROUNDS: u32 = 6;
        for shape in shapes() {
            let callers = shape.callers();
            let barriers: Arc<Vec<Barrier<Gpu, Spin>>> =
                Arc::new(callers.iter().map(|&n| Barrier::new(n.max(1))).collect());
            // Per object: completions run, and callers that saw every arrival of the round.
            let completions: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let arrived: Arc<Vec<AtomicU64>> = zeros(shape.objects);
            let saw_all: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let want = Arc::new(callers.clone());
            let (b, c, a, s, w) = (
                barriers.clone(),
                completions.clone(),
                arrived.clone(),
                saw_all.clone(),
                want.clone(),
            );
            shape.launch(move |_, k, mask| {
                for r in 0..ROUNDS as u64 {
                    a[k].fetch_add(1, Relaxed);
                    converged(mask, || {
                        b[k].arrive_and_wait_with(|| {
                            c[k].fetch_add(1, Relaxed);
                        })
                    });
                    // Nobody of this barrier can arrive for round r + 1 before everyone has left
                    // round r's first barrier, so the count is exactly (r + 1) rounds' worth here.
                    if a[k].load(Relaxed) == (r + 1) * w[k] as u64 {
                        s[k].fetch_add(1, Relaxed);
                    }
                    converged(mask, || b[k].arrive_and_wait());
                }
            });
            let used = phases(&callers, ROUNDS);
            let got: Vec<u32> = completions.iter().map(|c| c.load(Relaxed) * 2).collect();
            assert_eq!(
                got, used,
                "barrier, {}: phases per barrier (2 per round)",
                shape.name
            );
            let seen = loads(&saw_all);
            let want: Vec<u32> = callers.iter().map(|&n| n * ROUNDS).collect();
            assert_eq!(
                seen, want,
                "barrier, {}: callers x rounds that saw every arrival",
                shape.name
            );
        }
    }

    /// Lanes of one warp on different barriers, each with its own completion
    /// (`Barrier::with_completion`), arriving converged (`arrive_and_wait`, warp-aggregated per
    /// barrier) or split (`arrive` then `wait`, one lane at a time): each completion runs exactly
    /// once per phase (two per round), sees every arrival of its round, and every caller released
    /// from round `r`'s first phase sees its barrier's completion count `2r + 1`.
    #[test]
    fn barriers_with_completions_each_run_theirs_once_per_phase() {
        const ROUNDS: u32 = 6;
        for shape in shapes() {
            let callers = shape.callers();
            // Per object: completions run, completions that saw the round's every arrival, and
            // callers that saw their round's completion.
            let completions: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let complete_views: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let arrived: Arc<Vec<AtomicU64>> = zeros(shape.objects);
            let saw_completion: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let barriers: Arc<Vec<_>> = Arc::new(
                callers
                    .iter()
                    .enumerate()
                    .map(|(k, &n)| {
                        let (c, v, a) =
                            (completions.clone(), complete_views.clone(), arrived.clone());
                        Barrier::<Gpu, Spin>::with_completion(n.max(1), move || {
                            // Two phases per round; both see the round's every arrival.
                            let q = c[k].fetch_add(1, Relaxed) as u64;
                            if a[k].load(Relaxed) == (q / 2 + 1) * n as u64 {
                                v[k].fetch_add(1, Relaxed);
                            }
                        })
                    })
                    .collect(),
            );
            let (b, c, a, s) = (
                barriers.clone(),
                completions.clone(),
                arrived.clone(),
                saw_completion.clone(),
            );
            shape.launch(move |t, k, mask| {
                for r in 0..ROUNDS {
                    a[k].fetch_add(1, Relaxed);
                    if (r + t.lane) % 2 == 0 {
                        // The lanes of this branch run it together.
                        let even = (0..32)
                            .filter(|&l| mask & (1 << l) != 0 && (r + l) % 2 == 0)
                            .fold(0u32, |m, l| m | 1 << l);
                        converged(even, || b[k].arrive_and_wait());
                    } else {
                        let token = b[k].arrive();
                        b[k].wait(token);
                    }
                    if c[k].load(Relaxed) == 2 * r + 1 {
                        s[k].fetch_add(1, Relaxed);
                    }
                    // Nobody arrives for round r + 1 before everyone has read round r's count.
                    converged(mask, || b[k].arrive_and_wait());
                }
            });
            let used = phases(&callers, ROUNDS);
            let runs = loads(&completions);
            assert_eq!(runs, used, "{}: completion runs per barrier", shape.name);
            let views = loads(&complete_views);
            assert_eq!(
                views, used,
                "{}: completions that saw every arrival of their round",
                shape.name
            );
            let seen = loads(&saw_completion);
            let want: Vec<u32> = callers.iter().map(|&n| n * ROUNDS).collect();
            assert_eq!(
                seen, want,
                "{}: callers x rounds released after their completion",
                shape.name
            );
        }
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the barrier orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{bump, model, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Barrier, Gpu};

    #[test]
    fn barrier_phases_publish_writes_and_completion() {
        model(|| {
            const N: usize = 2;
            let bar = Arc::new(Barrier::<Gpu>::new(N as u32));
            let slots: Arc<Vec<UnsafeCell<u32>>> =
                Arc::new((0..N).map(|_| UnsafeCell::new(0)).collect());
            let completed = Arc::new(UnsafeCell::new(0u32));
            let run = |i: usize,
                       bar: Arc<Barrier<Gpu>>,
                       slots: Arc<Vec<UnsafeCell<u32>>>,
                       done: Arc<UnsafeCell<u32>>| {
                for phase in 1..=2u32 {
                    slots[i].with_mut(|p| unsafe { *p = phase });
                    bar.arrive_and_wait_with(|| bump(&done));
                    // The neighbour's write of this phase, and the completion step, are visible.
                    assert_eq!(read(&slots[(i + 1) % N]), phase);
                    assert_eq!(read(&done), phase);
                    // Nobody writes the next phase before everyone has read this one.
                    bar.arrive_and_wait();
                }
            };
            let t = {
                let (b, s, d) = (bar.clone(), slots.clone(), completed.clone());
                thread::spawn(move || run(1, b, s, d))
            };
            run(0, bar, slots, completed);
            t.join().unwrap();
        });
    }

    #[test]
    fn barrier_split_arrive_wait_and_drop() {
        model(|| {
            let bar = Arc::new(Barrier::<Gpu>::new(2));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (b2, d2) = (bar.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 5 });
                b2.arrive_and_drop(); // leaves: later phases expect one thread
            });
            let token = bar.arrive();
            bar.wait(token);
            assert_eq!(read(&data), 5);
            // A phase of one now: this thread alone completes it.
            bar.arrive_and_wait();
            t.join().unwrap();
        });
    }

    /// A drop that is the last arrival of phase 0 releases the other thread, which arrives at
    /// phases 1 and 2 alone: in every interleaving both phases complete. (If the drop flipped the
    /// phase and restarted the counter in two RMWs, the other thread's arrival at phase 1 could
    /// land between them: phase 1 would then complete by the restart, with no restart of its own,
    /// and phase 2 never.)
    #[test]
    fn barrier_drop_as_the_last_arrival() {
        model(|| {
            let bar = Arc::new(Barrier::<Gpu>::new(2));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (b2, d2) = (bar.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 7 });
                b2.arrive_and_drop();
            });
            bar.arrive_and_wait();
            assert_eq!(read(&data), 7);
            bar.arrive_and_wait();
            bar.arrive_and_wait();
            t.join().unwrap();
        });
    }

    /// One thread arrives through the plain path (`arrive_and_wait`, whose completing arrival
    /// flips the phase, then restarts the counter), the other through the completion path (load,
    /// then CAS, or the flip-and-restart add when last), for three phases: the completion path
    /// reads words between a flip and its restart and must not take them for a complete count.
    #[test]
    fn barrier_plain_and_completion_paths_together() {
        model(|| {
            let bar = Arc::new(Barrier::<Gpu>::new(2));
            let slots = Arc::new([UnsafeCell::new(0u32), UnsafeCell::new(0u32)]);
            let done = Arc::new(UnsafeCell::new(0u32));
            let (b2, s2, d2) = (bar.clone(), slots.clone(), done.clone());
            let t = thread::spawn(move || {
                for phase in 1..=3u32 {
                    s2[1].with_mut(|p| unsafe { *p = phase });
                    b2.arrive_and_wait_with(|| bump(&d2));
                    assert_eq!(read(&s2[0]), phase);
                    b2.arrive_and_wait_with(|| bump(&d2));
                }
            });
            for phase in 1..=3u32 {
                slots[0].with_mut(|p| unsafe { *p = phase });
                bar.arrive_and_wait();
                assert_eq!(read(&slots[1]), phase);
                bar.arrive_and_wait();
            }
            t.join().unwrap();
            // One completion per phase that the completion path ended, at most six.
            assert!(read(&done) <= 6);
        });
    }

    /// A completion stored in the barrier (`Barrier::with_completion`), two threads, three phases:
    /// thread 1 arrives split (`arrive`, then `wait` on the token) at phase 0 and drops out at
    /// phase 1 (`arrive_and_drop`), thread 0 uses `arrive_and_wait` for all three. The completion
    /// reads both threads' slots of the phase and bumps a count, all in loom `UnsafeCell`s: loom
    /// reports any of those accesses that the barrier does not order (a completion that ran before
    /// an arrival's write was visible, a released thread reading the count before the completion's
    /// write). Every released thread reads exactly its phase's count, and the completion ran
    /// exactly three times, whichever thread completed each phase.
    #[test]
    fn barrier_completion_runs_once_per_phase_and_publishes_to_every_released_thread() {
        model(|| {
            let slots = Arc::new([UnsafeCell::new(0u32), UnsafeCell::new(0u32)]);
            let count = Arc::new(UnsafeCell::new(0u32));
            let (s, c) = (slots.clone(), count.clone());
            let bar = Arc::new(Barrier::<Gpu>::with_completion(2, move || {
                let phase = read(&c);
                // Phase 0 and 1: both threads wrote `phase + 1`; phase 2: thread 0 alone.
                assert_eq!(read(&s[0]), phase + 1);
                if phase < 2 {
                    assert_eq!(read(&s[1]), phase + 1);
                }
                bump(&c);
            }));
            let (b2, s2, c2) = (bar.clone(), slots.clone(), count.clone());
            let t = thread::spawn(move || {
                s2[1].with_mut(|p| unsafe { *p = 1 });
                let token = b2.arrive();
                b2.wait(token);
                assert_eq!(read(&c2), 1);
                s2[1].with_mut(|p| unsafe { *p = 2 });
                b2.arrive_and_drop();
            });
            for phase in 0..3u32 {
                slots[0].with_mut(|p| unsafe { *p = phase + 1 });
                bar.arrive_and_wait();
                assert_eq!(read(&count), phase + 1);
            }
            t.join().unwrap();
        });
    }
}
