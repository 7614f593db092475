//! `Latch`: a fan-in that sees every arrival, a latch of zero, timed waits, `max` and in-place
//! `init`, and the trap of counting below zero, on std threads; every calling shape of the
//! warp-aggregated arrival on emulated warps; publication of every arrival's writes in loom
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
    use core::time::Duration;
    use ptx_sync::warp::emulation::converged;
    use ptx_sync::{Gpu, Latch, Spin, TimedOut};
    use std::sync::atomic::{AtomicU32, Ordering::*};
    use std::sync::Arc;
    use std::thread;

    /// The budget of the host tests' timed waits (virtual time: see `ptx_sync::clock`).
    const US10: Duration = Duration::from_micros(10);

    const THREADS: usize = 4;

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
    fn max_matches_what_new_accepts() {
        assert_eq!(Latch::<Gpu>::max(), u32::MAX);
    }

    /// `init` re-arms a used latch in place.
    #[test]
    fn init_rearms_a_used_latch() {
        let latch = Latch::<Gpu>::new(1);
        latch.count_down();
        assert!(latch.try_wait());
        latch.init(2);
        assert!(!latch.try_wait());
        latch.count_down_n(2);
        assert!(latch.try_wait());
    }

    #[test]
    fn latch_every_calling_shape_opens_each_latch_after_exactly_its_arrivals() {
        for shape in shapes() {
            let callers = shape.callers();
            let latches: Arc<Vec<Latch<Gpu, Spin>>> =
                Arc::new(callers.iter().map(|&n| Latch::new(n)).collect());
            let arrived: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            // Per object: how many of its callers saw all of its arrivals on leaving.
            let saw_all: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let want = Arc::new(callers.clone());
            let (l, a, s, w) = (
                latches.clone(),
                arrived.clone(),
                saw_all.clone(),
                want.clone(),
            );
            shape.launch(move |t, k, mask| {
                a[k].fetch_add(1, Relaxed);
                converged(mask, || l[k].arrive_and_wait());
                assert!(
                    l[k].try_wait(),
                    "thread {} left arrive_and_wait before its latch opened",
                    t.id
                );
                if a[k].load(Relaxed) == w[k] {
                    s[k].fetch_add(1, Relaxed);
                }
            });
            let got = loads(&saw_all);
            assert_eq!(
                got, callers,
                "latch, {}: callers that saw every arrival of their latch",
                shape.name
            );
            assert!(
                latches.iter().all(|l| l.try_wait()),
                "latch, {}: a latch not open",
                shape.name
            );
        }
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the latch orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{model, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Gpu, Latch};

    #[test]
    fn latch_opens_after_every_arrival_with_their_writes() {
        model(|| {
            let latch = Arc::new(Latch::<Gpu>::new(2));
            let cells: Arc<[UnsafeCell<u32>; 2]> =
                Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
            let ts: Vec<_> = (0..2)
                .map(|i| {
                    let (latch, cells) = (latch.clone(), cells.clone());
                    thread::spawn(move || {
                        cells[i].with_mut(|p| unsafe { *p = i as u32 + 1 });
                        latch.count_down();
                    })
                })
                .collect();
            latch.wait();
            assert_eq!(read(&cells[0]) + read(&cells[1]), 3);
            ts.into_iter().for_each(|t| t.join().unwrap());
        });
    }

    #[test]
    fn latch_arrive_and_wait_releases_all() {
        model(|| {
            let latch = Arc::new(Latch::<Gpu>::new(2));
            let cells: Arc<[UnsafeCell<u32>; 2]> =
                Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
            let (l2, c2) = (latch.clone(), cells.clone());
            let t = thread::spawn(move || {
                c2[1].with_mut(|p| unsafe { *p = 2 });
                l2.arrive_and_wait();
                assert_eq!(read(&c2[0]), 1);
            });
            cells[0].with_mut(|p| unsafe { *p = 1 });
            latch.arrive_and_wait();
            // Whichever thread opened the latch (and so did not poll) sees the other's write.
            assert_eq!(read(&cells[1]), 2);
            assert!(latch.try_wait());
            t.join().unwrap();
        });
    }
}
