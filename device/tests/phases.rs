//! Host-backend tests of the phase and count API borrowed from libcu++:
//! `Barrier::arrive_n`, `wait_parity` / `try_wait_parity`, `Token::parity`, `max()` on
//! Barrier, Latch and Semaphore, and in-place `init` of Latch and Semaphore.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use ptx_sync::{Barrier, Gpu, Latch, Semaphore};
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::thread;

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
    assert_eq!(Latch::<Gpu>::max(), u32::MAX);
    assert_eq!(Semaphore::<Gpu, 7>::max(), 7);
    assert_eq!(Semaphore::<Gpu>::max(), u32::MAX);
}

/// `init` re-arms a used latch and refills a semaphore in place.
#[test]
fn init_rearms_a_latch_and_refills_a_semaphore() {
    let latch = Latch::<Gpu>::new(1);
    latch.count_down();
    assert!(latch.try_wait());
    latch.init(2);
    assert!(!latch.try_wait());
    latch.count_down_n(2);
    assert!(latch.try_wait());

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
