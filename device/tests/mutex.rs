//! `Mutex`: mutual exclusion, counted exactly, on std threads, on emulated warps (the
//! warp-aggregated lock in the shapes kernels are written in, and nested locks), and in loom
//! models (exclusion, publication, `try_lock`).

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
    use crate::common::shapes::{shapes, zeros, LIMIT};
    use core::time::Duration;
    use ptx_sync::warp::emulation::{self, converged};
    use ptx_sync::{Atomic, Gpu, Mutex, Ordering::*, Spin, Sys};
    use std::sync::atomic::AtomicU32;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn every_increment_under_the_lock_counts_and_one_holder_at_a_time() {
        const THREADS: usize = 4;
        const ITERS: u64 = 20_000;
        let m = Arc::new(Mutex::<(u64, u64), Gpu>::new((0, 0)));
        let holders = Arc::new(Atomic::<u32, Gpu>::new(0));
        let most = Arc::new(Atomic::<u32, Gpu>::new(0));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (m, holders, most) = (m.clone(), holders.clone(), most.clone());
                thread::spawn(move || {
                    for _ in 0..ITERS {
                        let mut g = m.lock();
                        most.fetch_max(holders.fetch_add(1, Relaxed) + 1, Relaxed);
                        // A torn read-modify-write of two words shows up as a mismatch.
                        g.0 += 1;
                        g.1 += 2;
                        holders.fetch_sub(1, Relaxed);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let n = THREADS as u64 * ITERS;
        assert_eq!(*m.lock(), (n, 2 * n));
        assert_eq!(most.load(Relaxed), 1, "more than one holder at once");
    }

    #[test]
    fn try_lock_for_expires_on_a_lock_that_is_never_released() {
        let m = Mutex::<u32, Sys, Spin>::new(7);
        let held = m.lock();
        assert!(m.try_lock().is_none());
        assert!(m.try_lock_for(Duration::from_micros(10)).is_none());
        drop(held);
        assert_eq!(
            m.try_lock_for(Duration::from_micros(10)).map(|g| *g),
            Some(7)
        );
    }

    #[test]
    fn zeroed_memory_is_an_unlocked_mutex() {
        let mut raw = std::mem::MaybeUninit::<Mutex<u64, Gpu>>::zeroed();
        let m = unsafe { Mutex::from_ptr(raw.as_mut_ptr()) };
        *m.lock() += 5;
        assert_eq!(*m.try_lock().unwrap(), 5);
    }

    #[test]
    fn mutex_every_calling_shape_counts_exactly_with_one_holder_per_object() {
        const ITERS: u32 = 20;
        for shape in shapes() {
            let locks: Arc<Vec<Mutex<u64, Gpu, Spin>>> =
                Arc::new((0..shape.objects).map(|_| Mutex::new(0)).collect());
            let holders: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let most = Arc::new(AtomicU32::new(0));
            let (l, h, m) = (locks.clone(), holders.clone(), most.clone());
            shape.launch(move |_, k, mask| {
                for _ in 0..ITERS {
                    converged(mask, || {
                        let mut g = l[k].lock();
                        m.fetch_max(h[k].fetch_add(1, Relaxed) + 1, Relaxed);
                        // A plain read-modify-write: only mutual exclusion keeps it exact.
                        let v = *g;
                        std::thread::yield_now();
                        *g = v + 1;
                        h[k].fetch_sub(1, Relaxed);
                    });
                }
            });
            let want = shape.calls(ITERS);
            let got: Vec<u64> = locks
                .iter()
                .map(|m| *m.try_lock().expect("left locked"))
                .collect();
            assert_eq!(
                got, want,
                "mutex, {}: critical sections per object",
                shape.name
            );
            assert_eq!(
                most.load(Relaxed),
                1,
                "mutex, {}: two holders of one object at once",
                shape.name
            );
        }
    }

    /// Two locks in a fixed order, lanes on different objects at both levels: lane `l` takes
    /// `outer[l % 2]`, then `inner[l % 3]`. Inside the outer critical section a lane runs alone
    /// (its group's other lanes wait for their turn), which `converged(1 << lane)` declares.
    #[test]
    fn mutex_nested_locks_in_a_fixed_order_count_exactly() {
        const ITERS: u32 = 10;
        const THREADS: u32 = 64;
        let outer: Arc<Vec<Mutex<u64, Gpu, Spin>>> =
            Arc::new((0..2).map(|_| Mutex::new(0)).collect());
        let inner: Arc<Vec<Mutex<u64, Gpu, Spin>>> =
            Arc::new((0..3).map(|_| Mutex::new(0)).collect());
        let (o, i) = (outer.clone(), inner.clone());
        emulation::launch(THREADS, LIMIT, move |t| {
            for _ in 0..ITERS {
                let mut a = o[t.lane as usize % 2].lock();
                converged(1 << t.lane, || *i[t.lane as usize % 3].lock() += 1);
                *a += 1;
            }
        });
        let count = |k: u32, n: u32| {
            (0..THREADS).filter(|id| id % 32 % n == k).count() as u64 * ITERS as u64
        };
        let got: Vec<u64> = outer
            .iter()
            .chain(inner.iter())
            .map(|m| *m.try_lock().unwrap())
            .collect();
        let want = vec![
            count(0, 2),
            count(1, 2),
            count(0, 3),
            count(1, 3),
            count(2, 3),
        ];
        assert_eq!(
            got, want,
            "nested: sections per outer (2) and inner (3) lock"
        );
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the lock orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{bump, model, model_bounded, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Gpu, Mutex};

    #[test]
    fn mutex_excludes_and_publishes() {
        model(|| {
            let m = Arc::new(Mutex::<UnsafeCell<u32>, Gpu>::new(UnsafeCell::new(0)));
            let m2 = m.clone();
            let t = thread::spawn(move || bump(&m2.lock()));
            bump(&m.lock());
            t.join().unwrap();
            assert_eq!(read(&m.lock()), 2);
        });
    }

    #[test]
    fn mutex_three_threads() {
        model_bounded(1, || {
            let m = Arc::new(Mutex::<UnsafeCell<u32>, Gpu>::new(UnsafeCell::new(0)));
            let ts: Vec<_> = (0..2)
                .map(|_| {
                    let m = m.clone();
                    thread::spawn(move || bump(&m.lock()))
                })
                .collect();
            bump(&m.lock());
            ts.into_iter().for_each(|t| t.join().unwrap());
            assert_eq!(read(&m.lock()), 3);
        });
    }

    #[test]
    fn mutex_try_lock_never_overlaps_a_holder() {
        model(|| {
            let m = Arc::new(Mutex::<UnsafeCell<u32>, Gpu>::new(UnsafeCell::new(0)));
            let m2 = m.clone();
            let t = thread::spawn(move || m2.try_lock().map(|g| bump(&g)).is_some() as u32);
            let mine = m.try_lock().map(|g| bump(&g)).is_some() as u32;
            let theirs = t.join().unwrap();
            assert_eq!(read(&m.lock()), mine + theirs);
        });
    }
}
