//! `AtomicU128` on the host backend, where every operation runs under a lock picked by the
//! value's address (device/src/atomic/wide.rs): contended compare-exchanges and swaps are
//! exact, no load sees half of an update, two views of one address share one lock, neighbours
//! in an array stay independent, a release store publishes what was written before it, and
//! the orders each operation refuses panic as core's do. Exact values throughout. Loom models
//! check the same lock for linearizability and publication.

mod common {
    #[cfg(loom)]
    pub mod models;
    #[cfg(not(loom))]
    pub mod threads;
}

/// Std threads running the algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use crate::common::threads::{on_threads, THREADS};
    use ptx_sync::{AtomicU128, Cta, Gpu, Ordering::*, Sys};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// Adds `step` with a compare-exchange loop; returns the value replaced.
    fn add(a: &AtomicU128<Gpu>, step: u128) -> u128 {
        let mut old = a.load(Relaxed);
        loop {
            match a.compare_exchange(old, old.wrapping_add(step), AcqRel, Relaxed) {
                Ok(prev) => return prev,
                Err(now) => old = now,
            }
        }
    }

    #[test]
    fn contended_compare_exchange_counts_both_halves_exactly_and_never_tears() {
        const ROUNDS: u128 = 50_000;
        // Both halves count the same updates: a load that saw half of one would see them differ.
        let pair = Arc::new(AtomicU128::<Gpu>::new(0));
        let torn = Arc::new(AtomicBool::new(false));
        let (p, t) = (pair.clone(), torn.clone());
        let start = Arc::new(std::sync::Barrier::new(THREADS as usize));
        on_threads(move |_| {
            start.wait(); // all at once: the most overlap
            for _ in 0..ROUNDS {
                let before = add(&p, 1 << 64 | 1);
                let now = p.load(Acquire);
                for v in [before, now] {
                    if v as u64 != (v >> 64) as u64 {
                        t.store(true, Relaxed);
                    }
                }
            }
        });
        assert!(!torn.load(Relaxed), "a load saw half of an update");
        let n = ROUNDS * u128::from(THREADS);
        assert_eq!(pair.load(SeqCst), n << 64 | n);
    }

    #[test]
    fn swaps_hand_every_token_on_exactly_once() {
        // Each thread swaps in its own tokens (above 2^64, so both halves matter); every value
        // swapped in comes out exactly once: from a later swap, or as the final value.
        const PER: u128 = 5_000;
        let a = Arc::new(AtomicU128::<Sys>::new(0));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (a2, seen2) = (a.clone(), seen.clone());
        on_threads(move |t| {
            let mut mine = Vec::with_capacity(PER as usize);
            for i in 0..PER {
                let token = (u128::from(t) + 1) << 100 | (i + 1) << 64 | i;
                mine.push(a2.swap(token, AcqRel));
            }
            seen2.lock().unwrap().extend(mine);
        });
        let mut all = seen.lock().unwrap().clone();
        all.push(a.load(Acquire));
        all.sort_unstable();
        let mut want: Vec<u128> = (0..THREADS)
            .flat_map(|t| (0..PER).map(move |i| (u128::from(t) + 1) << 100 | (i + 1) << 64 | i))
            .collect();
        want.push(0);
        want.sort_unstable();
        assert_eq!(all.len(), want.len());
        assert!(all == want, "a token was lost or handed on twice");
    }

    #[test]
    fn two_views_of_one_address_share_its_lock() {
        // A `Cta` view and a `Gpu` view of the same `u128`: increments through either are exact.
        const ROUNDS: u128 = 10_000;
        let word: &'static mut u128 = Box::leak(Box::new(0));
        let addr = word as *mut u128 as usize;
        on_threads(move |t| {
            let p = addr as *mut u128;
            for _ in 0..ROUNDS {
                if t % 2 == 0 {
                    let a = unsafe { AtomicU128::<Cta>::from_ptr(p) };
                    let mut old = a.load(Relaxed);
                    while let Err(now) = a.compare_exchange(old, old + 3, AcqRel, Relaxed) {
                        old = now;
                    }
                } else {
                    add(unsafe { AtomicU128::<Gpu>::from_ptr(p) }, 3);
                }
            }
        });
        let a = unsafe { AtomicU128::<Gpu>::from_ptr(addr as *mut u128) };
        assert_eq!(a.load(Acquire), 3 * ROUNDS * u128::from(THREADS));
    }

    #[test]
    fn neighbours_in_an_array_count_on_their_own() {
        // 100 adjacent values (more than there are locks, so some share one): every thread adds
        // its own step to every value; each ends with the sum of the steps times the rounds.
        const ROUNDS: u128 = 500;
        let table: Arc<Vec<AtomicU128<Gpu>>> =
            Arc::new((0..100).map(|_| AtomicU128::new(0)).collect());
        let t2 = table.clone();
        on_threads(move |t| {
            for r in 0..ROUNDS as usize {
                for k in 0..t2.len() {
                    let i = (k * 7 + r + t as usize * 13) % t2.len();
                    add(&t2[i], (u128::from(t) + 1) << 64 | 1);
                }
            }
        });
        let steps: u128 = (1..=u128::from(THREADS)).sum();
        for (i, a) in table.iter().enumerate() {
            assert_eq!(
                a.load(Relaxed),
                (steps * ROUNDS) << 64 | (ROUNDS * u128::from(THREADS)),
                "value {i}"
            );
        }
    }

    #[test]
    fn a_release_store_publishes_the_writes_before_it() {
        // Message passing: the payload (plain data) is written, then a `u128` (round, checksum)
        // is stored with Release; the reader that acquires a round reads that round's payload.
        const ROUNDS: u64 = 2_000;
        struct Payload(std::cell::UnsafeCell<[u64; 4]>);
        // SAFETY: written only by the writer while no reader may read it (see below).
        unsafe impl Sync for Payload {}
        let flag = Arc::new(AtomicU128::<Sys>::new(0));
        let ack = Arc::new(AtomicU128::<Sys>::new(0));
        let payload = Arc::new(Payload(std::cell::UnsafeCell::new([0; 4])));
        let (f2, a2, p2) = (flag.clone(), ack.clone(), payload.clone());
        let writer = std::thread::spawn(move || {
            for r in 1..=ROUNDS {
                // The reader has acknowledged round r - 1: it no longer reads the payload.
                while a2.load(Acquire) != u128::from(r - 1) {
                    std::thread::yield_now();
                }
                unsafe { *p2.0.get() = [r, r * 3, r * 5, r * 7] };
                f2.store(u128::from(r) << 64 | u128::from(r * 16), Release);
            }
        });
        for r in 1..=ROUNDS {
            let v = loop {
                let v = flag.load(Acquire);
                if v >> 64 == u128::from(r) {
                    break v;
                }
                std::thread::yield_now();
            };
            assert_eq!(v as u64, r * 16);
            let got = unsafe { *payload.0.get() };
            assert_eq!(got, [r, r * 3, r * 5, r * 7], "round {r}");
            ack.store(u128::from(r), Release);
        }
        writer.join().unwrap();
    }

    #[test]
    fn every_order_each_operation_accepts_works_and_the_others_panic() {
        let a = AtomicU128::<Gpu>::new(1);
        for o in [Relaxed, Acquire, SeqCst] {
            assert_eq!(a.load(o), 1);
        }
        for o in [Relaxed, Release, SeqCst] {
            a.store(1, o);
        }
        for o in [Relaxed, Acquire, Release, AcqRel, SeqCst] {
            assert_eq!(a.swap(1, o), 1);
            assert_eq!(a.compare_exchange(1, 1, o, Relaxed), Ok(1));
            assert_eq!(a.compare_exchange(2, 1, o, SeqCst), Err(1));
        }
        let message = |f: Box<dyn FnOnce()>| {
            let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .expect_err("should panic");
            e.downcast_ref::<String>().cloned().unwrap_or_default()
        };
        let a: &'static AtomicU128<Gpu> = Box::leak(Box::new(AtomicU128::new(0)));
        assert_eq!(
            message(Box::new(|| {
                let _ = a.load(Release);
            })),
            "there is no such thing as a release load"
        );
        assert_eq!(
            message(Box::new(|| a.store(0, Acquire))),
            "there is no such thing as an acquire store"
        );
        assert_eq!(
            message(Box::new(|| {
                let _ = a.compare_exchange(0, 1, AcqRel, Release);
            })),
            "there is no such thing as a release failure ordering"
        );
        // A refused order changes nothing (and leaves no lock held: this still works).
        assert_eq!(a.swap(5, SeqCst), 0);
    }

    #[test]
    fn layout_matches_u128_and_debug_prints_the_value() {
        assert_eq!(std::mem::size_of::<AtomicU128<Gpu>>(), 16);
        assert_eq!(
            std::mem::align_of::<AtomicU128<Gpu>>(),
            std::mem::align_of::<u128>()
        );
        let mut a = AtomicU128::<Gpu>::new(u128::MAX);
        assert_eq!(format!("{a:?}"), u128::MAX.to_string());
        *a.get_mut() = 7;
        assert_eq!(a.into_inner(), 7);
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the lock of each value orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{model, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{AtomicU128, Gpu, Ordering, Sys};

    /// `AtomicU128` on the host: every operation runs under the value's lock (under loom, a lock
    /// word of its own and loom's cell, which reports any access the lock leaves unordered). A
    /// compare-exchange loop and a swap race: exactly one order happens, and the other sees it
    /// whole (both halves).
    #[test]
    fn atomic_u128_compare_exchange_and_swap_are_linearizable() {
        model(|| {
            let a = Arc::new(AtomicU128::<Gpu>::new(0));
            let a2 = a.clone();
            let t = thread::spawn(move || {
                let mut old = a2.load(Ordering::Relaxed);
                while let Err(now) = a2.compare_exchange(
                    old,
                    old + (1 << 64 | 1),
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                ) {
                    old = now;
                }
            });
            let before = a.swap(1 << 127, Ordering::AcqRel);
            t.join().unwrap();
            let v = a.load(Ordering::Acquire);
            let add_first = before == 1 << 64 | 1 && v == 1 << 127;
            let swap_first = before == 0 && v == 1 << 127 | 1 << 64 | 1;
            assert!(add_first || swap_first, "swap saw {before:#x}, then {v:#x}");
        });
    }

    /// A reader that acquires a `u128` flag reads the data stored before its release store:
    /// without the lock's acquire and release, loom reports the data access as a race.
    #[test]
    fn atomic_u128_release_store_publishes_to_an_acquire_load() {
        model(|| {
            let flag = Arc::new(AtomicU128::<Sys>::new(0));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (f2, d2) = (flag.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 42 });
                f2.store(1 << 64, Ordering::Release);
            });
            if flag.load(Ordering::Acquire) == 1 << 64 {
                assert_eq!(read(&data), 42);
            }
            t.join().unwrap();
        });
    }
}
