//! Model checks of the primitives with loom: every interleaving (up to loom's bounds) of 2-3
//! threads running the SAME algorithm the GPU runs, over loom's atomics (`--cfg loom` swaps
//! the host backend). Data written under a lock or before an arrival lives in
//! `loom::cell::UnsafeCell`, so loom also reports any access not ordered by happens-before:
//! that is how a missing release or acquire shows up.
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p ptx-sync --release --test '*'`
#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;
use ptx_sync::{
    Atomic, AtomicBool, AtomicFlag, AtomicPtr, Barrier, BinarySemaphore, Gpu, Latch, Mutex,
    Ordering, Semaphore, Sys, TicketLock,
};

/// Explores with a preemption bound, which keeps 3-thread models to seconds while still
/// covering every schedule with up to that many forced switches.
fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(3, f)
}

/// 3-thread models with fewer forced switches (a bound of 3 takes minutes to hours there;
/// most concurrency bugs need only one or two preemptions to show, per the CHESS results
/// loom's bound is modelled on).
fn model_bounded(preemptions: u8, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions as usize);
    // Waiting threads yield on every poll; each yield is a branch loom must explore.
    b.max_branches = 100_000;
    b.check(f);
}

fn bump(cell: &UnsafeCell<u32>) {
    cell.with_mut(|p| unsafe { *p += 1 });
}

fn read(cell: &UnsafeCell<u32>) -> u32 {
    cell.with(|p| unsafe { *p })
}

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

/// `BinarySemaphore` as a lock (device/src/binary_semaphore.rs: `atom.exch` acquire, polling
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
        let cells: Arc<[UnsafeCell<u32>; 2]> = Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
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

#[test]
fn latch_opens_after_every_arrival_with_their_writes() {
    model(|| {
        let latch = Arc::new(Latch::<Gpu>::new(2));
        let cells: Arc<[UnsafeCell<u32>; 2]> = Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
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
        let cells: Arc<[UnsafeCell<u32>; 2]> = Arc::new([UnsafeCell::new(0), UnsafeCell::new(0)]);
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

/// A completion stored in the barrier (`Barrier::with_completion`), two threads, three
/// phases: thread 1 arrives split (`arrive`, then `wait` on the token) at phase 0 and drops
/// out at phase 1 (`arrive_and_drop`), thread 0 uses `arrive_and_wait` for all three. The completion reads both threads'
/// slots of the phase and bumps a count, all in loom `UnsafeCell`s: loom reports any of those
/// accesses that the barrier does not order (a completion that ran before an arrival's write
/// was visible, a released thread reading the count before the completion's write). Every
/// released thread reads exactly its phase's count, and the completion ran exactly three
/// times, whichever thread completed each phase.
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

#[test]
fn atomic_wait_sees_the_change_and_its_payload() {
    model(|| {
        let flag = Arc::new(Atomic::<u32, Gpu>::new(0));
        let data = Arc::new(UnsafeCell::new(0u32));
        let (f2, d2) = (flag.clone(), data.clone());
        let t = thread::spawn(move || {
            d2.with_mut(|p| unsafe { *p = 9 });
            f2.store(1, Ordering::Release);
        });
        assert_eq!(flag.wait(0, Ordering::Acquire), 1);
        assert_eq!(read(&data), 9);
        t.join().unwrap();
    });
}

/// `AtomicFlag` as a spin lock (device/src/flag.rs: `test_and_set(Acquire)` is `atom.exch`,
/// `wait(true)` polls, `clear(Release)` is `st.release`): a plain counter in a loom cell,
/// bumped by two threads. A missing acquire or release is a data race loom reports; two
/// holders a lost bump.
#[test]
fn atomic_flag_lock_excludes_and_publishes() {
    fn lock(f: &AtomicFlag<Gpu>) {
        while f.test_and_set(Ordering::Acquire) {
            f.wait(true, Ordering::Relaxed);
        }
    }
    model(|| {
        let flag = Arc::new(AtomicFlag::<Gpu>::new());
        let data = Arc::new(UnsafeCell::new(0u32));
        let (f2, d2) = (flag.clone(), data.clone());
        let t = thread::spawn(move || {
            lock(&f2);
            bump(&d2);
            f2.clear(Ordering::Release);
            f2.notify_one();
        });
        lock(&flag);
        bump(&data);
        flag.clear(Ordering::Release);
        t.join().unwrap();
        lock(&flag);
        assert_eq!(read(&data), 2);
    });
}

/// `AtomicPtr` publishing a node: the release store of the pointer makes the node's contents
/// visible to the thread that loads it with acquire (`AtomicBool` flags the end).
#[test]
fn atomic_ptr_publishes_its_pointee() {
    model(|| {
        let slot = Arc::new(AtomicPtr::<UnsafeCell<u32>, Gpu>::new(std::ptr::null_mut()));
        let done = Arc::new(AtomicBool::<Gpu>::new(false));
        let (s2, d2) = (slot.clone(), done.clone());
        let t = thread::spawn(move || {
            let node = Box::into_raw(Box::new(UnsafeCell::new(0u32)));
            unsafe { (*node).with_mut(|p| *p = 11) };
            s2.store(node, Ordering::Release);
            d2.wait(false, Ordering::Acquire);
            drop(unsafe { Box::from_raw(node) });
        });
        let node = slot.wait(std::ptr::null_mut(), Ordering::Acquire);
        assert_eq!(unsafe { read(&*node) }, 11);
        done.store(true, Ordering::Release);
        t.join().unwrap();
    });
}

/// `AtomicU128` on the host: every operation runs under the value's lock (under loom, a lock
/// word of its own and loom's cell, which reports any access the lock leaves unordered). A
/// compare-exchange loop and a swap race: exactly one order happens, and the other sees it
/// whole (both halves).
#[test]
fn atomic_u128_compare_exchange_and_swap_are_linearizable() {
    use ptx_sync::AtomicU128;
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
    use ptx_sync::AtomicU128;
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

/// Data a reader-writer lock guards, in loom cells: `RwLock<T>` is `Sync` only for `T: Sync`
/// (readers share it), which loom's `UnsafeCell` is not; the lock is what makes sharing sound.
struct Guarded([UnsafeCell<u32>; 2]);
// SAFETY: only accessed under the `RwLock` of the models below (loom checks that it is).
unsafe impl Sync for Guarded {}

impl Guarded {
    fn new() -> Self {
        Guarded([UnsafeCell::new(0), UnsafeCell::new(0)])
    }
    /// A writer's update: both words, one after the other.
    fn bump(&self) {
        bump(&self.0[0]);
        bump(&self.0[1]);
    }
    /// A reader's look: both words, which must agree.
    fn read(&self) -> u32 {
        let (a, b) = (read(&self.0[0]), read(&self.0[1]));
        assert_eq!(a, b, "a reader saw half a write");
        a
    }
}

type Rw = ptx_sync::RwLock<Guarded, Gpu>;

/// `RwLock` (device/src/rwlock.rs, the phase-fair ticket lock): a writer and a reader. A
/// missing acquire or release is a data race on the guarded cells, which loom reports.
#[test]
fn rwlock_writer_and_reader_exclude_and_publish() {
    model(|| {
        let l = Arc::new(Rw::new(Guarded::new()));
        let l2 = l.clone();
        let t = thread::spawn(move || l2.write().bump());
        let seen = l.read().read();
        assert!(seen <= 1);
        t.join().unwrap();
        assert_eq!(l.read().read(), 1);
        // Idle again: a writer gets in at once (no ticket or bits left behind).
        assert!(l.try_write().is_some());
    });
}

/// Two writers and a reader: writers exclude each other (no lost bump) and the reader.
#[test]
fn rwlock_two_writers_and_a_reader() {
    model_bounded(2, || {
        let l = Arc::new(Rw::new(Guarded::new()));
        let ts: Vec<_> = (0..2)
            .map(|_| {
                let l = l.clone();
                thread::spawn(move || l.write().bump())
            })
            .collect();
        assert!(l.read().read() <= 2);
        ts.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(l.read().read(), 2);
        assert!(l.try_write().is_some());
    });
}

/// Two readers and a writer: the readers may overlap each other, never the writer.
#[test]
fn rwlock_two_readers_and_a_writer() {
    model_bounded(1, || {
        let l = Arc::new(Rw::new(Guarded::new()));
        let ts: Vec<_> = (0..2)
            .map(|_| {
                let l = l.clone();
                thread::spawn(move || assert!(l.read().read() <= 1))
            })
            .collect();
        l.write().bump();
        ts.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(l.read().read(), 1);
        assert!(l.try_write().is_some());
    });
}

/// `try_write` against a reader and a blocking writer: its look at the counts, its ticket, its
/// announcement by CAS, and (when a reader arrives in between) the empty phase that gives the
/// ticket back. Every interleaving ends with every bump counted and the lock free.
#[test]
fn rwlock_try_write_against_a_reader_and_a_writer() {
    model_bounded(2, || {
        let l = Arc::new(Rw::new(Guarded::new()));
        let (l2, l3) = (l.clone(), l.clone());
        let t = thread::spawn(move || l2.try_write().map(|g| g.bump()).is_some() as u32);
        let r = thread::spawn(move || l3.read().read());
        l.write().bump();
        let tried = t.join().unwrap();
        assert!(r.join().unwrap() <= 2);
        assert_eq!(l.read().read(), 1 + tried);
        assert!(l.try_write().is_some());
    });
}

/// `try_read` (a CAS while no writer bits) against a writer: a successful one sees whole
/// writes, a failed one leaves nothing behind.
#[test]
fn rwlock_try_read_against_a_writer() {
    model(|| {
        let l = Arc::new(Rw::new(Guarded::new()));
        let l2 = l.clone();
        let t = thread::spawn(move || l2.write().bump());
        if let Some(g) = l.try_read() {
            assert!(g.read() <= 1);
        }
        t.join().unwrap();
        assert!(l.try_write().is_some());
    });
}

/// A reader inside, a writer that counted it, and a timed reader that arrives after the
/// writer: whether the timed reader gets in (after the writer) or withdraws, the writer never
/// enters while the first reader is inside (loom would report the race between the writer's
/// bump and the first reader's look), and the lock ends free.
#[test]
fn rwlock_timed_read_withdraws_without_letting_a_writer_past_a_reader() {
    use core::time::Duration;
    model_bounded(2, || {
        let l = Arc::new(Rw::new(Guarded::new()));
        let first = l.read();
        let (l2, l3) = (l.clone(), l.clone());
        let w = thread::spawn(move || l2.write().bump());
        let t = thread::spawn(move || {
            if let Some(g) = l3.try_read_for(Duration::from_nanos(100)) {
                assert!(g.read() <= 1);
            }
        });
        // The timed reader is done (in before the writer, or withdrawn): still no writer.
        t.join().unwrap();
        assert_eq!(first.read(), 0);
        drop(first);
        w.join().unwrap();
        assert_eq!(l.read().read(), 1);
        assert!(l.try_write().is_some());
    });
}

/// A timed writer against a reader inside and a reader arriving: it gets in after the reader
/// leaves, or gives up (clearing its bits, serving its ticket); readers never overlap it and
/// the lock ends free.
#[test]
fn rwlock_timed_write_enters_or_gives_up_cleanly() {
    use core::time::Duration;
    use ptx_sync::clock::Instant;
    model_bounded(2, || {
        let l = Arc::new(Rw::new(Guarded::new()));
        let first = l.read();
        let (l2, l3) = (l.clone(), l.clone());
        let w = thread::spawn(move || {
            l2.try_write_until(Instant::now() + Duration::from_nanos(100))
                .map(|g| g.bump())
                .is_some() as u32
        });
        let r = thread::spawn(move || l3.read().read());
        let mine = first.read();
        drop(first);
        let wrote = w.join().unwrap();
        assert!(r.join().unwrap() <= wrote);
        assert_eq!(mine, 0);
        assert_eq!(l.read().read(), wrote);
        assert!(l.try_write().is_some());
    });
}

/// A value the queue models carry: a loom cell the producer writes before `push` and the
/// consumer reads after `pop`, so a handoff the turn words do not order is a race loom reports.
type Parcel = Box<UnsafeCell<u32>>;

fn parcel(v: u32) -> Parcel {
    let p = Box::new(UnsafeCell::new(0));
    p.with_mut(|x| unsafe { *x = v });
    p
}

fn open(p: Parcel) -> u32 {
    read(&p)
}

/// `Queue` (device/src/queue.rs, a turn word per slot): one producer pushes three values
/// through two slots (the third waits for the first pop and reuses its slot in round 1), one
/// consumer pops them in order.
#[test]
fn queue_hands_values_over_in_order_through_reused_slots() {
    model(|| {
        let q = Arc::new(ptx_sync::Queue::<Parcel, 2, Gpu>::new());
        let q2 = q.clone();
        let t = thread::spawn(move || (1..=3).for_each(|v| q2.push(parcel(v))));
        let got: Vec<u32> = (0..3).map(|_| open(q.pop())).collect();
        assert_eq!(got, [1, 2, 3]);
        t.join().unwrap();
        assert!(q.try_pop().is_none());
    });
}

/// Two producers and a consumer on one slot: every push waits for the pop before it.
#[test]
fn queue_two_producers_one_slot() {
    model_bounded(1, || {
        let q = Arc::new(ptx_sync::Queue::<Parcel, 1, Gpu>::new());
        let ts: Vec<_> = (1..=2)
            .map(|v| {
                let q = q.clone();
                thread::spawn(move || q.push(parcel(v)))
            })
            .collect();
        let (a, b) = (open(q.pop()), open(q.pop()));
        assert_eq!(a + b, 3);
        ts.into_iter().for_each(|t| t.join().unwrap());
    });
}

/// Three consumers racing for three values: a blocking `pop` started before the pushes, and
/// two `try_pop`s (one on another thread, started after the pushes so that only one thread
/// ever spins, which keeps the model small). Each value reaches exactly one consumer: the
/// `pop` always gets one (at most two tickets are ahead of it), whatever the `try_pop`s leave
/// is still there.
#[test]
fn queue_consumers_race_for_values() {
    model_bounded(2, || {
        let q = Arc::new(ptx_sync::Queue::<Parcel, 4, Gpu>::new());
        let q1 = q.clone();
        let c1 = thread::spawn(move || open(q1.pop()));
        for v in [1, 2, 4] {
            q.push(parcel(v));
        }
        let q2 = q.clone();
        let c2 = thread::spawn(move || q2.try_pop().map_or(0, open));
        let mine = q.try_pop().map_or(0, open);
        let (a, b) = (c1.join().unwrap(), c2.join().unwrap());
        let rest: u32 = std::iter::from_fn(|| q.try_pop().map(open)).sum();
        // Distinct powers of two: a value delivered twice or lost changes the sum.
        assert_eq!(a + b + mine + rest, 7);
        assert_eq!(a & b | a & mine | b & mine, 0, "a value delivered twice");
    });
}

/// The try forms (a turn check, then a CAS of the ticket) against each other and a blocking
/// push: whatever succeeds is delivered once, whatever fails comes back, nothing is lost.
#[test]
fn queue_try_forms_lose_nothing() {
    model_bounded(2, || {
        let q = Arc::new(ptx_sync::Queue::<Parcel, 1, Gpu>::new());
        let (q2, q3) = (q.clone(), q.clone());
        let p = thread::spawn(move || match q2.try_push(parcel(1)) {
            Ok(()) => 1,
            Err(back) => {
                assert_eq!(open(back), 1);
                0
            }
        });
        let c = thread::spawn(move || q3.try_pop().map_or(0, open));
        let pushed = p.join().unwrap();
        let popped = c.join().unwrap();
        let left = q.try_pop().map_or(0, open);
        assert_eq!(pushed, popped + left);
        // The ring still works: a second round through the slot.
        q.push(parcel(5));
        assert_eq!(q.try_pop().map(open), Some(5));
    });
}

/// Timed pop against a push, timed push against a full slot: each either succeeds with the
/// value (published by the other thread) or times out leaving the queue as it was.
#[test]
fn queue_timed_forms_succeed_or_leave_no_trace() {
    use core::time::Duration;
    use ptx_sync::clock::Instant;
    model(|| {
        let q = Arc::new(ptx_sync::Queue::<Parcel, 1, Gpu>::new());
        let q2 = q.clone();
        let t = thread::spawn(move || {
            q2.push(parcel(7));
            // Full until the main thread pops: a timed push may get in after it, or not.
            q2.push_until(parcel(8), Instant::now() + Duration::from_nanos(100))
                .map_or(0, |()| 8)
        });
        let first = q.pop_for(Duration::from_nanos(100)).map(open);
        let second = t.join().unwrap();
        let rest: u32 = std::iter::from_fn(|| q.try_pop().map(open)).sum();
        assert_eq!(first.unwrap_or(0) + rest, 7 + second);
    });
}
