//! `Semaphore` and `BinarySemaphore`: holders bounded, units counted, the try and timed forms,
//! `max` and in-place `init`, the traps of a release past `MAX`, and a bounded ring built on
//! two counting semaphores, on std threads; every calling shape of the warp-aggregated acquire
//! on emulated warps; exclusion, handover and publication of every release in loom models.

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
    use crate::common::shapes::{shapes, zeros};
    use core::time::Duration;
    use ptx_sync::warp::emulation::converged;
    use ptx_sync::{
        Atomic, Backoff, BinarySemaphore, Elapsed, Gpu, NanoSleep, Ordering, Semaphore, Spin, Sys,
    };
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
    use std::sync::Arc;
    use std::thread;

    /// The budget of the host tests' timed waits (virtual time: see `ptx_sync::clock`).
    const US10: Duration = Duration::from_micros(10);

    const THREADS: usize = 4;

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

    #[test]
    fn max_matches_what_new_accepts() {
        assert_eq!(Semaphore::<Gpu, 7>::max(), 7);
        assert_eq!(Semaphore::<Gpu>::max(), u32::MAX);
    }

    /// `init` refills a semaphore in place.
    #[test]
    fn init_refills_a_semaphore() {
        let sem = Semaphore::<Gpu, 4>::new(0);
        assert!(!sem.try_acquire());
        sem.init(3);
        assert_eq!(sem.available(), 3);
        let took = (0..5).filter(|_| sem.try_acquire()).count();
        assert_eq!(took, 3);
    }

    #[test]
    #[should_panic(expected = "Semaphore::init: initial count above MAX")]
    fn semaphore_init_above_max_panics_with_a_message() {
        Semaphore::<Gpu, 4>::new(0).init(5);
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

    /// Semaphores are not warp-aggregated (device/src/binary_semaphore.rs says why): lanes of a
    /// warp that call `acquire` together each take a unit of their own object. Every calling
    /// shape, with `BinarySemaphore` as a lock (one holder per object, a plain read-modify-write
    /// kept exact) and `Semaphore<_, 4>` holding four units (at most four holders), both with the
    /// default waiting policy (`Elapsed`).
    #[test]
    fn semaphores_every_calling_shape_count_exactly_within_their_units() {
        const ITERS: u32 = 20;
        for (units, what) in [(1u32, "binary semaphore"), (4, "semaphore of 4")] {
            for shape in shapes() {
                let binary: Arc<Vec<BinarySemaphore<Gpu>>> = Arc::new(
                    (0..shape.objects)
                        .map(|_| BinarySemaphore::new(1))
                        .collect(),
                );
                let counting: Arc<Vec<Semaphore<Gpu, 4>>> =
                    Arc::new((0..shape.objects).map(|_| Semaphore::new(4)).collect());
                let values: Arc<Vec<AtomicU64>> = zeros(shape.objects);
                let holders: Arc<Vec<AtomicU32>> = zeros(shape.objects);
                let most = Arc::new(AtomicU32::new(0));
                let (bs, cs, v, h, m) = (
                    binary.clone(),
                    counting.clone(),
                    values.clone(),
                    holders.clone(),
                    most.clone(),
                );
                shape.launch(move |_, k, mask| {
                    for _ in 0..ITERS {
                        converged(mask, || {
                            if units == 1 {
                                bs[k].acquire();
                            } else {
                                cs[k].acquire();
                            }
                            m.fetch_max(h[k].fetch_add(1, Relaxed) + 1, Relaxed);
                            if units == 1 {
                                // A plain read-modify-write: only mutual exclusion keeps it exact.
                                let x = v[k].load(Relaxed);
                                std::thread::yield_now();
                                v[k].store(x + 1, Relaxed);
                            } else {
                                v[k].fetch_add(1, Relaxed);
                                std::thread::yield_now();
                            }
                            h[k].fetch_sub(1, Relaxed);
                            if units == 1 {
                                bs[k].release(1);
                            } else {
                                cs[k].release(1);
                            }
                        });
                    }
                });
                let want = shape.calls(ITERS);
                let got: Vec<u64> = values.iter().map(|x| x.load(Relaxed)).collect();
                assert_eq!(got, want, "{what}, {}: sections per object", shape.name);
                assert!(
                    most.load(Relaxed) <= units,
                    "{what}, {}: {} holders of one object at once",
                    shape.name,
                    most.load(Relaxed)
                );
                let free: Vec<u32> = if units == 1 {
                    binary.iter().map(|s| s.available()).collect()
                } else {
                    counting.iter().map(|s| s.available()).collect()
                };
                assert!(
                    free.iter().all(|&f| f == units),
                    "{what}, {}: units not returned: {free:?}",
                    shape.name
                );
            }
        }
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the semaphore orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{bump, model, model_bounded, read};
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{BinarySemaphore, Gpu, Semaphore, Sys};

    #[test]
    fn semaphore_never_exceeds_max_and_wakes_waiters() {
        model_bounded(2, || {
            let sem = Arc::new(Semaphore::<Gpu, 2>::new(2));
            let holders = Arc::new(AtomicUsize::new(0));
            let passes = Arc::new(AtomicUsize::new(0));
            let ts: Vec<_> = (0..3)
                .map(|_| {
                    let (sem, holders, passes) = (sem.clone(), holders.clone(), passes.clone());
                    thread::spawn(move || {
                        sem.acquire();
                        let now = holders.fetch_add(1, SeqCst) + 1;
                        assert!(now <= 2, "{now} holders of a semaphore of 2");
                        holders.fetch_sub(1, SeqCst);
                        passes.fetch_add(1, SeqCst);
                        sem.release(1);
                    })
                })
                .collect();
            // A lost wake-up would leave a thread polling forever: loom reports that.
            ts.into_iter().for_each(|t| t.join().unwrap());
            assert_eq!(passes.load(SeqCst), 3);
            assert_eq!(sem.available(), 2);
        });
    }

    #[test]
    fn binary_semaphore_hands_over_data() {
        model(|| {
            let sem = Arc::new(Semaphore::<Gpu, 1>::new(0));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (s2, d2) = (sem.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 7 });
                s2.release(1);
            });
            sem.acquire();
            assert_eq!(read(&data), 7);
            t.join().unwrap();
        });
    }

    /// `BinarySemaphore` as a lock (device/src/semaphore/one_unit.rs: `atom.exch` acquire, polling
    /// loads, `st.release` release): a plain counter in a loom cell, bumped by two threads. A
    /// missing acquire or release is a data race loom reports; a lost unit a thread that never
    /// finishes; two holders a lost bump.
    #[test]
    fn binary_semaphore_excludes_and_publishes() {
        model(|| {
            let sem = Arc::new(BinarySemaphore::<Gpu>::new(1));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (s2, d2) = (sem.clone(), data.clone());
            let t = thread::spawn(move || {
                s2.acquire();
                bump(&d2);
                s2.release(1);
            });
            sem.acquire();
            bump(&data);
            sem.release(1);
            t.join().unwrap();
            sem.acquire();
            assert_eq!(read(&data), 2);
        });
    }

    #[test]
    fn binary_semaphore_three_threads() {
        model_bounded(1, || {
            let sem = Arc::new(BinarySemaphore::<Gpu>::new(1));
            let data = Arc::new(UnsafeCell::new(0u32));
            let ts: Vec<_> = (0..2)
                .map(|_| {
                    let (sem, data) = (sem.clone(), data.clone());
                    thread::spawn(move || {
                        sem.acquire();
                        bump(&data);
                        sem.release(1);
                    })
                })
                .collect();
            sem.acquire();
            bump(&data);
            sem.release(1);
            ts.into_iter().for_each(|t| t.join().unwrap());
            assert!(sem.try_acquire());
            assert_eq!(read(&data), 3);
        });
    }

    /// `try_acquire` (one exchange) never takes a unit that a holder has, and a successful one
    /// sees the previous holder's writes.
    #[test]
    fn binary_semaphore_try_acquire_never_overlaps_a_holder() {
        model(|| {
            let sem = Arc::new(BinarySemaphore::<Gpu>::new(1));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (s2, d2) = (sem.clone(), data.clone());
            let t = thread::spawn(move || {
                let got = s2.try_acquire();
                if got {
                    bump(&d2);
                    s2.release(1);
                }
                got as u32
            });
            let mine = sem.try_acquire();
            if mine {
                bump(&data);
                sem.release(1);
            }
            let theirs = t.join().unwrap();
            sem.acquire();
            assert_eq!(read(&data), mine as u32 + theirs);
        });
    }

    /// At `Sys` scope the waiter loads before it exchanges; the handoff still publishes.
    #[test]
    fn binary_semaphore_sys_ping_pong_hands_over_data_both_ways() {
        model(|| {
            let to_b = Arc::new(BinarySemaphore::<Sys>::new(0));
            let to_a = Arc::new(BinarySemaphore::<Sys>::new(0));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (tb, ta, d) = (to_b.clone(), to_a.clone(), data.clone());
            let t = thread::spawn(move || {
                tb.acquire();
                assert_eq!(read(&d), 1);
                bump(&d);
                ta.release(1);
            });
            bump(&data);
            to_b.release(1);
            to_a.acquire();
            assert_eq!(read(&data), 2);
            t.join().unwrap();
        });
    }

    /// A counting semaphore's units carry their releaser's writes: two producers each fill
    /// their own cell and release one unit; the consumer takes both units and reads both cells.
    #[test]
    fn counting_semaphore_publishes_every_release() {
        model(|| {
            let sem = Arc::new(Semaphore::<Gpu, 2>::new(0));
            let cells: Arc<[UnsafeCell<u32>; 2]> =
                Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
            let ts: Vec<_> = (0..2)
                .map(|i| {
                    let (sem, cells) = (sem.clone(), cells.clone());
                    thread::spawn(move || {
                        cells[i].with_mut(|p| unsafe { *p = i as u32 + 1 });
                        sem.release(1);
                    })
                })
                .collect();
            sem.acquire();
            sem.acquire();
            assert_eq!(read(&cells[0]) + read(&cells[1]), 3);
            ts.into_iter().for_each(|t| t.join().unwrap());
        });
    }
}
