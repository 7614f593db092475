//! `TicketLock`: every holder counted and served in ticket order, and the try forms, on std
//! threads; service in ticket order in a loom model.

mod common {
    #[cfg(loom)]
    pub mod models;
}

/// Std threads running the algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use core::time::Duration;
    use ptx_sync::{Gpu, Spin, TicketLock};
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
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the lock orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::model;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Gpu, TicketLock};

    #[test]
    fn ticket_lock_serves_in_ticket_order() {
        model(|| {
            let m = Arc::new(TicketLock::<UnsafeCell<Vec<u32>>, Gpu>::new(
                UnsafeCell::new(Vec::new()),
            ));
            let ts: Vec<_> = (0..2)
                .map(|_| {
                    let m = m.clone();
                    thread::spawn(move || {
                        let g = m.lock();
                        let t = g.ticket();
                        g.with_mut(|v| unsafe { (*v).push(t) });
                    })
                })
                .collect();
            ts.into_iter().for_each(|t| t.join().unwrap());
            let g = m.lock();
            assert_eq!(g.ticket(), 2);
            g.with(|v| assert_eq!(unsafe { &*v }, &[0, 1]));
        });
    }
}
