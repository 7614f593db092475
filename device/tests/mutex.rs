//! `Mutex` on the host backend with real threads: mutual exclusion, counted exactly.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use core::time::Duration;
use ptx_sync::{Atomic, Gpu, Mutex, Ordering::*, Spin, Sys};
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
