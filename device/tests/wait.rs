//! Waiting (`ptx_sync::wait`, `ptx_sync::clock`) on the host backend: the backoff policies
//! (`Elapsed`, `NanoSleep`), `Duration` budgets, `Instant` deadlines, the virtual clock
//! (device/src/clock.rs), and every primitive's `*_for` / `*_until`; a loom model checks that a
//! timed wait that succeeds has acquired what the releasing thread wrote.

mod common {
    #[cfg(loom)]
    pub mod models;
}

/// Std threads running the algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use core::time::Duration;
    use ptx_sync::clock::{nanos, Instant};
    use ptx_sync::wait::{poll_until_deadline, poll_until_for, TimedOut};
    use ptx_sync::{
        Atomic, AtomicFlag, Backoff, Barrier, BinarySemaphore, Elapsed, Gpu, Latch, Mutex,
        NanoSleep, Ordering::*, Semaphore, Spin, Sys, TicketLock,
    };
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::thread;

    const US10: Duration = Duration::from_micros(10);

    #[test]
    fn instant_arithmetic_saturates_and_never_panics() {
        let t = Instant::from_nanos(1_000);
        assert_eq!((t + Duration::from_nanos(1)).as_nanos(), 1_001);
        assert_eq!((t + Duration::MAX).as_nanos(), u64::MAX);
        assert_eq!((t - Duration::from_secs(1)).as_nanos(), 0);
        assert_eq!(t.checked_add(Duration::MAX), None);
        assert_eq!(
            Instant::from_nanos(u64::MAX - 1).checked_add(Duration::from_nanos(2)),
            None
        );
        assert_eq!(t.checked_sub(Duration::from_nanos(1_001)), None);
        assert_eq!(
            t.checked_sub(Duration::from_nanos(1_000)),
            Some(Instant::from_nanos(0))
        );
        assert_eq!(Instant::from_nanos(0).duration_since(t), Duration::ZERO);
        assert_eq!(Instant::from_nanos(0).checked_duration_since(t), None);
        assert_eq!(t - Instant::from_nanos(400), Duration::from_nanos(600));
        let mut u = t;
        u += Duration::from_micros(1);
        u -= Duration::from_nanos(500);
        assert_eq!(u.as_nanos(), 1_500);
        // Durations past u64::MAX ns: exactly at the edge, and one ns past it.
        let edge = Duration::new(u64::MAX / 1_000_000_000, (u64::MAX % 1_000_000_000) as u32);
        assert_eq!(nanos(edge), u64::MAX);
        assert_eq!(nanos(edge + Duration::from_nanos(1)), u64::MAX);
        assert_eq!(
            Instant::from_nanos(0).checked_add(edge),
            Some(Instant::from_nanos(u64::MAX))
        );
        assert_eq!(
            Instant::from_nanos(0).checked_add(edge + Duration::from_nanos(1)),
            None
        );
    }

    /// `NanoSleep<32, 1024>` pauses 32, 64, ..., 1024, 1024, ... ns: a budget of 10 us is spent
    /// after 14 pauses (2016 + 8 x 1024 = 10,208 ns), so 15 polls, on every run and whatever other
    /// threads do (the budget is this wait's own backoff, not the shared clock).
    #[test]
    fn a_timed_wait_polls_a_number_of_times_fixed_by_its_budget() {
        for _ in 0..3 {
            let mut polls = 0;
            let r = poll_until_for::<NanoSleep, ()>(US10, || {
                polls += 1;
                None
            });
            assert_eq!((r, polls), (Err(TimedOut), 15));
        }
        // Spin counts 1 ns per pause: a budget of 100 ns is 101 polls.
        let mut polls = 0;
        let r = poll_until_for::<Spin, ()>(Duration::from_nanos(100), || {
            polls += 1;
            None
        });
        assert_eq!((r, polls), (Err(TimedOut), 101));
    }

    #[test]
    fn the_virtual_clock_advances_by_what_timed_waits_waited() {
        let start = Instant::now();
        let l: Latch<Gpu> = Latch::new(1);
        assert_eq!(l.wait_for(US10), Err(TimedOut));
        // At least this wait's 10,208 ns (other tests' timed waits may add theirs).
        assert!(
            start.elapsed() >= Duration::from_nanos(10_208),
            "{:?}",
            start.elapsed()
        );
        l.count_down();
        assert_eq!(l.wait_for(US10), Ok(()));
    }

    #[test]
    fn a_deadline_that_has_passed_is_exactly_one_poll() {
        for past in [Instant::from_nanos(0), Instant::now()] {
            for hit in [false, true] {
                let mut polls = 0;
                let r = poll_until_deadline::<NanoSleep, ()>(past, || {
                    polls += 1;
                    hit.then_some(())
                });
                assert_eq!((r.is_ok(), polls), (hit, 1));
            }
        }
        let mut polls = 0;
        let r = poll_until_for::<NanoSleep, ()>(Duration::ZERO, || {
            polls += 1;
            None
        });
        assert_eq!((r, polls), (Err(TimedOut), 1));
    }

    #[test]
    fn a_deadline_in_the_future_is_waited_for() {
        let deadline = Instant::now() + US10;
        let mut polls = 0;
        let r = poll_until_deadline::<NanoSleep, ()>(deadline, || {
            polls += 1;
            None
        });
        assert_eq!(r, Err(TimedOut));
        // At most the 15 polls of a 10 us budget: fewer if other tests' waits moved the shared
        // clock on between `now()` and the first poll.
        assert!((1..=15).contains(&polls), "{polls} polls");
        assert!(Instant::now() >= deadline);
    }

    /// Every primitive's `*_until` with a deadline that has passed: its one attempt fails on an
    /// object that is not available and succeeds on one that is.
    #[test]
    fn every_until_makes_its_one_attempt() {
        let past = Instant::from_nanos(0);

        let (busy, free) = (Semaphore::<Gpu, 4>::new(0), Semaphore::<Gpu, 4>::new(1));
        assert!(!busy.try_acquire_until(past) && free.try_acquire_until(past));
        let (busy, free) = (
            BinarySemaphore::<Gpu>::new(0),
            BinarySemaphore::<Gpu>::new(1),
        );
        assert!(!busy.try_acquire_until(past) && free.try_acquire_until(past));
        let (busy, free) = (
            BinarySemaphore::<Sys>::new(0),
            BinarySemaphore::<Sys>::new(1),
        );
        assert!(!busy.try_acquire_until(past) && free.try_acquire_until(past));

        let (busy, free) = (Latch::<Gpu>::new(1), Latch::<Gpu>::new(0));
        assert_eq!(
            (busy.wait_until(past), free.wait_until(past)),
            (Err(TimedOut), Ok(()))
        );

        let (busy, free) = (
            TicketLock::<u32, Gpu>::new(0),
            TicketLock::<u32, Gpu>::new(0),
        );
        let held = busy.lock();
        assert!(busy.try_lock_until(past).is_none() && free.try_lock_until(past).is_some());
        drop(held);

        let (busy, free) = (Mutex::<u32, Gpu>::new(0), Mutex::<u32, Gpu>::new(0));
        let held = busy.lock();
        assert!(busy.try_lock_until(past).is_none() && free.try_lock_until(past).is_some());
        drop(held);

        let (busy, free) = (Atomic::<u32, Gpu>::new(0), Atomic::<u32, Gpu>::new(1));
        assert_eq!(
            busy.wait_until_deadline(past, Acquire, |v| v == 1),
            Err(TimedOut)
        );
        assert_eq!(free.wait_until_deadline(past, Acquire, |v| v == 1), Ok(1));

        let (busy, free) = (AtomicFlag::<Gpu>::new(), AtomicFlag::<Gpu>::new());
        free.test_and_set(Relaxed);
        assert_eq!(busy.wait_until(past, false, Acquire), Err(TimedOut));
        assert_eq!(free.wait_until(past, false, Acquire), Ok(()));

        let (busy, free) = (Barrier::<Gpu>::new(2), Barrier::<Gpu>::new(1));
        let (tb, tf) = (busy.arrive(), free.arrive());
        assert_eq!(busy.wait_until(&tb, past), Err(TimedOut));
        assert_eq!(free.wait_until(&tf, past), Ok(()));
        assert_eq!(busy.wait_parity_until(false, past), Err(TimedOut));
        assert_eq!(free.wait_parity_until(false, past), Ok(()));
        assert_eq!(free.wait_parity_until(true, past), Err(TimedOut));
    }

    /// The same with `*_for`: a budget runs out on an unavailable object, a zero budget is one
    /// attempt on an available one.
    #[test]
    fn every_for_gives_up_or_succeeds() {
        let s = Semaphore::<Gpu, 4, NanoSleep>::new(0);
        assert!(!s.try_acquire_for(US10));
        s.release(1);
        assert!(s.try_acquire_for(Duration::ZERO));
        let b = BinarySemaphore::<Sys, NanoSleep>::new(0);
        assert!(!b.try_acquire_for(US10));
        b.release(1);
        assert!(b.try_acquire_for(Duration::ZERO));

        let t = TicketLock::<u32, Gpu>::new(0);
        let held = t.lock();
        assert!(t.try_lock_for(US10).is_none());
        drop(held);
        assert!(t.try_lock_for(Duration::ZERO).is_some());

        let f = AtomicFlag::<Gpu>::new();
        assert_eq!(f.wait_for(US10, false, Acquire), Err(TimedOut));
        f.test_and_set(Relaxed);
        assert_eq!(f.wait_for(Duration::ZERO, false, Acquire), Ok(()));

        let bar = Barrier::<Gpu>::new(2);
        assert_eq!(bar.wait_parity_for(false, US10), Err(TimedOut));
        let _ = bar.arrive();
        let _ = bar.arrive();
        assert_eq!(bar.wait_parity_for(false, Duration::ZERO), Ok(()));
    }

    /// A timed wait that another thread ends before the deadline returns `Ok`, with the other
    /// thread's writes visible (the budget is long: 1 s of virtual time).
    #[test]
    fn timed_waits_see_what_another_thread_publishes() {
        const LONG: Duration = Duration::from_secs(1);
        for _ in 0..20 {
            let sem = Semaphore::<Gpu, 4, NanoSleep>::new(0);
            let latch = Latch::<Gpu>::new(1);
            let data = Atomic::<u32, Gpu>::new(0);
            let started = AtomicBool::new(false);
            thread::scope(|s| {
                s.spawn(|| {
                    while !started.load(SeqCst) {
                        std::hint::spin_loop();
                    }
                    data.store(7, Relaxed);
                    latch.count_down();
                    sem.release(1);
                });
                started.store(true, SeqCst);
                let deadline = Instant::now() + LONG;
                assert_eq!(latch.wait_until(deadline), Ok(()));
                assert_eq!(data.load(Relaxed), 7);
                assert!(sem.try_acquire_for(LONG));
            });
        }
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
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the wait orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{model, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Gpu, Latch, Semaphore};

    /// Timed waits under loom: the host clock is each wait's own backoff budget (device/src/
    /// clock.rs), so a model with a timed wait is as deterministic as one without, and a wait
    /// that returns `Ok` has acquired what the releasing thread wrote. `wait_for` a latch and
    /// `try_acquire_until` a semaphore that another thread opens: every interleaving either times
    /// out (after its fixed number of polls) or sees the payload.
    #[test]
    fn timed_waits_time_out_or_see_the_payload() {
        use core::time::Duration;
        use ptx_sync::clock::Instant;
        model(|| {
            let latch = Arc::new(Latch::<Gpu>::new(1));
            let sem = Arc::new(Semaphore::<Gpu, 2, ptx_sync::NanoSleep>::new(0));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (l2, s2, d2) = (latch.clone(), sem.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 4 });
                l2.count_down();
                s2.release(1);
            });
            if latch.wait_for(Duration::from_nanos(100)).is_ok() {
                assert_eq!(read(&data), 4);
            }
            let deadline = Instant::now() + Duration::from_nanos(100);
            if sem.try_acquire_until(deadline) {
                assert_eq!(read(&data), 4);
            }
            t.join().unwrap();
        });
    }
}
