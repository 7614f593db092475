//! `RwLock` on std threads (exclusion, consistency, exact counts, both sides' progress, the
//! try and timed forms), on emulated warps (`warp::emulation`: the lanes of one warp on one
//! lock, on several, only some lanes, partial warps, readers and writers of one warp on the
//! same lock at once), and in loom models (exclusion and publication between writers and
//! readers, the try and timed forms withdrawing cleanly).
//!
//! After every host case the lock's four words are checked too: as many reader departures as
//! arrivals, no writer bits, as many writer tickets served as taken (`balanced`).

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
    use crate::common::lanes::thread;
    use crate::common::shapes::{shapes, Shape, LIMIT};
    use ptx_sync::clock::Instant;
    use ptx_sync::warp::emulation::{self, converged, Thread};
    use ptx_sync::{Atomic, Cta, Gpu, RwLock, Spin, Sys};
    use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
    use std::sync::Arc;
    use std::time::Duration;

    /// A writer in the holders probe (readers count 1 each, below it).
    const WRITER: u32 = 1 << 16;

    /// The lock's four words (reader arrivals | writer bits, departures, tickets taken, served),
    /// read while no thread uses it.
    fn words<T, S: ptx_sync::Scope, B: ptx_sync::Backoff>(l: &RwLock<T, S, B>) -> [u32; 4] {
        // SAFETY: the first 16 bytes are the four `u32` words (`repr(C)`); no thread touches the
        // lock while the test reads them.
        unsafe { *(l as *const RwLock<T, S, B>).cast::<[u32; 4]>() }
    }

    /// Asserts the lock is idle and its counts agree.
    #[track_caller]
    fn balanced<T, S: ptx_sync::Scope, B: ptx_sync::Backoff>(l: &RwLock<T, S, B>, what: &str) {
        let [rin, rout, win, wout] = words(l);
        assert!(
        rin == rout && win == wout,
        "{what}: lock words rin {rin:#x} rout {rout:#x} win {win} wout {wout} (expected rin == rout, win == wout)"
    );
    }

    /// lowbias32: which operation a thread runs in an iteration.
    fn hash(mut x: u32) -> u32 {
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^= x >> 16;
        x
    }

    /// Holders probe: a reader enters (no writer may be in), or a writer (nobody else may be).
    fn enter(state: &AtomicU32, write: bool, most_readers: &AtomicU32) {
        if write {
            let before = state.fetch_add(WRITER, SeqCst);
            assert_eq!(
                before, 0,
                "a writer entered with holders inside ({before:#x})"
            );
        } else {
            let before = state.fetch_add(1, SeqCst);
            assert_eq!(
                before & !0xffff,
                0,
                "a reader entered while a writer was inside"
            );
            most_readers.fetch_max((before & 0xffff) + 1, Relaxed);
        }
    }

    fn leave(state: &AtomicU32, write: bool) {
        state.fetch_sub(if write { WRITER } else { 1 }, SeqCst);
    }

    /// Four words written one at a time (with a yield in the middle) by writers, read by readers:
    /// a reader must never see a write half done, and the plain counter must end at exactly the
    /// number of writes. Two readers and two writers, then one of each and three readers.
    #[test]
    fn readers_see_whole_writes_and_every_write_counts() {
        for (readers, writers) in [(2u32, 2u32), (3, 1), (1, 3)] {
            const ITERS: u64 = 3_000;
            let l = Arc::new(RwLock::<[u64; 4], Gpu>::new([0; 4]));
            let state = Arc::new(AtomicU32::new(0));
            let most = Arc::new(AtomicU32::new(0));
            let reads = Arc::new(AtomicU64::new(0));
            let handles: Vec<_> = (0..readers + writers)
                .map(|t| {
                    let (l, state, most, reads) =
                        (l.clone(), state.clone(), most.clone(), reads.clone());
                    std::thread::spawn(move || {
                        for i in 0..ITERS {
                            if t < writers {
                                let mut g = l.write();
                                enter(&state, true, &most);
                                let v = g[0] + 1;
                                g[0] = v;
                                g[1] = v;
                                if i % 64 == 0 {
                                    std::thread::yield_now();
                                }
                                g[2] = v;
                                g[3] = v;
                                leave(&state, true);
                            } else {
                                let g = l.read();
                                enter(&state, false, &most);
                                let first = g[0];
                                if i % 64 == 0 {
                                    std::thread::yield_now();
                                }
                                assert!(g.iter().all(|&x| x == first), "torn read {:?}", *g);
                                leave(&state, false);
                                reads.fetch_add(1, Relaxed);
                            }
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            let total = writers as u64 * ITERS;
            assert_eq!(
                *l.read(),
                [total; 4],
                "{readers} readers, {writers} writers"
            );
            assert_eq!(reads.load(Relaxed), readers as u64 * ITERS);
            balanced(&l, "after the mix");
        }
    }

    /// Read-heavy (9 in 10 operations read) and write-heavy (3 in 4 write) mixes on 4 threads,
    /// every operation chosen by a hash: every thread finishes (both sides make progress), the
    /// writes count exactly, the reads are all counted.
    #[test]
    fn read_heavy_and_write_heavy_mixes_count_exactly() {
        const THREADS: u32 = 4;
        const OPS: u32 = 4_000;
        for (name, writes_in_16) in [("read-heavy", 2u32), ("write-heavy", 12)] {
            let l = Arc::new(RwLock::<(u64, u64), Gpu>::new((0, 0)));
            let reads = Arc::new(AtomicU64::new(0));
            let state = Arc::new(AtomicU32::new(0));
            let most = Arc::new(AtomicU32::new(0));
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (l, reads, state, most) =
                        (l.clone(), reads.clone(), state.clone(), most.clone());
                    std::thread::spawn(move || {
                        for i in 0..OPS {
                            if hash(t * OPS + i) % 16 < writes_in_16 {
                                let mut g = l.write();
                                enter(&state, true, &most);
                                g.0 += 1;
                                g.1 = 3 * g.0;
                                leave(&state, true);
                            } else {
                                let g = l.read();
                                enter(&state, false, &most);
                                assert_eq!(g.1, 3 * g.0);
                                leave(&state, false);
                                reads.fetch_add(1, Relaxed);
                            }
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            let writes: u64 = (0..THREADS * OPS)
                .filter(|&k| hash(k) % 16 < writes_in_16)
                .count() as u64;
            assert_eq!(l.read().0, writes, "{name}: writes");
            assert_eq!(
                reads.load(Relaxed),
                (THREADS * OPS) as u64 - writes,
                "{name}: reads"
            );
            balanced(&l, name);
        }
    }

    /// Two readers whose holds overlap: each stays inside until the other has entered after it
    /// (or 2 ms have passed), so while the lock admits readers next to a reader it is never free of
    /// them. A writer still gets in, because once it has announced itself new readers wait for it;
    /// a reader-preferring lock starves it until the readers give up (after 10 s).
    #[test]
    fn a_writer_is_not_starved_by_overlapping_readers() {
        let l = Arc::new(RwLock::<u64, Gpu>::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let entries = Arc::new(AtomicU32::new(0));
        let give_up = std::time::Instant::now() + Duration::from_secs(10);
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (l, stop, entries) = (l.clone(), stop.clone(), entries.clone());
                std::thread::spawn(move || {
                    let mut reads = 0u64;
                    while !stop.load(Relaxed) && std::time::Instant::now() < give_up {
                        let g = l.read();
                        let me = entries.fetch_add(1, SeqCst) + 1;
                        let start = std::time::Instant::now();
                        while entries.load(SeqCst) == me
                            && start.elapsed() < Duration::from_millis(2)
                        {
                            std::thread::yield_now();
                        }
                        drop(g);
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(20));
        let start = std::time::Instant::now();
        for _ in 0..20 {
            *l.write() += 1;
        }
        let took = start.elapsed();
        stop.store(true, Relaxed);
        let reads: u64 = readers.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(*l.read(), 20);
        assert!(reads > 0);
        assert!(
            took < Duration::from_secs(5),
            "20 writes took {took:?} against two overlapping readers"
        );
        balanced(&l, "after the writer");
    }

    /// Two writers that write back to back until told to stop: a reader still gets in, after one
    /// writer phase at worst (a writer-preferring lock that lets queued writers go first starves
    /// it until the writers give up, after 10 s).
    #[test]
    fn a_reader_is_not_starved_by_back_to_back_writers() {
        let l = Arc::new(RwLock::<(u64, u64), Gpu>::new((0, 0)));
        let stop = Arc::new(AtomicBool::new(false));
        let give_up = std::time::Instant::now() + Duration::from_secs(10);
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let (l, stop) = (l.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(Relaxed) && std::time::Instant::now() < give_up {
                        let mut g = l.write();
                        g.0 += 1;
                        std::thread::sleep(Duration::from_micros(20));
                        g.1 += 1;
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(5));
        let start = std::time::Instant::now();
        for _ in 0..200 {
            let g = l.read();
            assert_eq!(g.0, g.1);
        }
        let took = start.elapsed();
        stop.store(true, Relaxed);
        let writes: u64 = writers.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(*l.read(), (writes, writes));
        assert!(
            took < Duration::from_secs(5),
            "200 reads took {took:?} against two writers"
        );
        balanced(&l, "after the reader");
    }

    #[test]
    fn try_forms_follow_the_holders() {
        let l = RwLock::<u32, Cta>::new(1);
        {
            let a = l.try_read().unwrap();
            let b = l.try_read().unwrap();
            assert_eq!(*a + *b, 2);
            assert!(l.try_write().is_none());
            // A reader inside: the attempt leaves no trace (no ticket, no bits).
            balanced_while_reading(&l, 2);
        }
        {
            let mut w = l.try_write().unwrap();
            *w += 1;
            assert!(l.try_write().is_none());
            assert!(l.try_read().is_none());
            assert_eq!(format!("{l:?}"), "RwLock { data: <locked>, .. }");
        }
        assert_eq!(format!("{l:?}"), "RwLock { data: 2, .. }");
        let r = l.read();
        assert_eq!(format!("{r:?}"), "2");
        drop(r);
        let w = l.write();
        assert_eq!(format!("{w:?}"), "2");
        drop(w);
        balanced(&l, "after the try forms");
    }

    /// With `n` readers inside and nothing else: `n` more arrivals than departures, no writer.
    #[track_caller]
    fn balanced_while_reading<T>(l: &RwLock<T, Cta>, n: u32) {
        let [rin, rout, win, wout] = words(l);
        assert_eq!((rin.wrapping_sub(rout), win, wout), (4 * n, 0, 0));
    }

    #[test]
    fn zeroed_memory_is_an_unlocked_lock_and_the_data_follows_the_four_words() {
        let mut raw = std::mem::MaybeUninit::<RwLock<u64, Gpu>>::zeroed();
        let l = unsafe { RwLock::from_ptr(raw.as_mut_ptr()) };
        *l.write() += 5;
        assert_eq!(*l.try_read().unwrap(), 5);
        assert_eq!(RwLock::<u64, Gpu>::DATA_OFFSET, 16);
        assert_eq!(RwLock::<u32, Sys>::DATA_OFFSET, 16);
        assert_eq!(RwLock::<u8, Cta>::DATA_OFFSET, 16);
        assert_eq!(std::mem::size_of::<RwLock<u32, Gpu>>(), 20);
        assert_eq!(unsafe { *l.data_ptr() }, 5);
        let mut owned = RwLock::<u32, Gpu>::new(3);
        *owned.get_mut() += 1;
        assert_eq!(owned.into_inner(), 4);
    }

    /// Timed reads and writes give up on a lock held by the other side, and leave it as they
    /// found it: a timed reader withdraws its arrival, a timed writer its ticket and bits.
    #[test]
    fn timed_forms_expire_and_leave_the_lock_consistent() {
        let l = RwLock::<u32, Sys, Spin>::new(7);
        let us10 = Duration::from_micros(10);
        std::thread::scope(|s| {
            let w = l.write();
            s.spawn(|| {
                assert!(l.try_read_for(us10).is_none());
                assert!(l.try_read_until(Instant::now() + us10).is_none());
                assert!(l.try_write_for(us10).is_none());
                assert!(l.try_write_until(Instant::now()).is_none());
            })
            .join()
            .unwrap();
            drop(w);
        });
        balanced(&l, "after timed attempts on a writer");
        std::thread::scope(|s| {
            let r = l.read();
            s.spawn(|| {
                // Announces itself, waits for the reader, gives up: the reader is unaffected, and
                // new readers get in again once it has left.
                assert!(l.try_write_for(us10).is_none());
                assert!(l.try_write_until(Instant::now() + us10).is_none());
                assert_eq!(l.try_read_for(Duration::ZERO).map(|g| *g), Some(7));
            })
            .join()
            .unwrap();
            drop(r);
        });
        balanced(&l, "after timed attempts on a reader");
        assert_eq!(l.try_write_for(Duration::ZERO).map(|g| *g), Some(7));
        assert_eq!(l.try_read_until(Instant::now()).map(|g| *g), Some(7));
        balanced(&l, "after timed holds");
    }

    /// Word `i` of a lock in use (an atomic load: other threads are using it).
    fn word<T>(l: &RwLock<T, Gpu>, i: usize) -> u32 {
        // SAFETY: the first 16 bytes are four `u32` words, accessed only atomically.
        unsafe {
            Atomic::<u32, Gpu>::from_ptr(
                (l as *const RwLock<T, Gpu>).cast::<u32>().cast_mut().add(i),
            )
        }
        .load(SeqCst)
    }

    /// A reader inside, a writer that has counted it and waits, and a timed reader that arrives
    /// after the writer, gives up and withdraws: the writer must still wait for the first reader.
    /// (Withdrawing by counting a departure would let the writer in next to it.)
    #[test]
    fn a_timed_reader_that_gives_up_does_not_let_a_writer_past_a_reader() {
        let l = RwLock::<u32, Gpu>::new(0);
        let entered = AtomicBool::new(false);
        std::thread::scope(|s| {
            let first = l.read();
            let writer = s.spawn(|| {
                *l.write() += 1;
                entered.store(true, SeqCst);
            });
            // The writer has announced itself once its bits are in `rin` (word 0).
            while word(&l, 0) & 3 == 0 {
                std::thread::yield_now();
            }
            s.spawn(|| assert!(l.try_read_for(Duration::from_micros(10)).is_none()))
                .join()
                .unwrap();
            std::thread::sleep(Duration::from_millis(20));
            assert!(
                !entered.load(SeqCst),
                "the writer entered while the first reader was still inside"
            );
            drop(first);
            writer.join().unwrap();
        });
        assert!(entered.load(SeqCst));
        assert_eq!(*l.read(), 1);
        balanced(&l, "after the withdrawal");
    }

    /// Every form at once on 4 threads (blocking, try and timed, reads and writes), short
    /// timeouts so that both withdrawals happen often: writes count exactly, reads never see a
    /// half write, and the words balance at the end.
    #[test]
    fn every_form_together_counts_exactly() {
        const THREADS: u32 = 4;
        const OPS: u32 = 3_000;
        let l = Arc::new(RwLock::<(u64, u64), Gpu, Spin>::new((0, 0)));
        let writes = Arc::new(AtomicU64::new(0));
        let state = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (l, writes, state, most) =
                    (l.clone(), writes.clone(), state.clone(), most.clone());
                std::thread::spawn(move || {
                    let d = Duration::from_nanos(200);
                    for i in 0..OPS {
                        let k = hash(t * OPS + i) % 8;
                        let w = match k {
                            0 => Some(l.write()),
                            1 => l.try_write(),
                            2 => l.try_write_for(d),
                            3 => l.try_write_until(Instant::now() + d),
                            _ => None,
                        };
                        if let Some(mut g) = w {
                            enter(&state, true, &most);
                            g.0 += 1;
                            g.1 += 2;
                            leave(&state, true);
                            writes.fetch_add(1, Relaxed);
                            continue;
                        }
                        let r = match k {
                            4 => Some(l.read()),
                            5 => l.try_read(),
                            6 => l.try_read_for(d),
                            7 => l.try_read_until(Instant::now() + d),
                            _ => None,
                        };
                        if let Some(g) = r {
                            enter(&state, false, &most);
                            assert_eq!(g.1, 2 * g.0);
                            leave(&state, false);
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let n = writes.load(Relaxed);
        assert_eq!(*l.read(), (n, 2 * n));
        balanced(&l, "after every form");
    }

    // -------------------------------------------------------------------------------------------
    // Emulated warps.

    // The calling shapes (which lanes call, on which lock) are every primitive's
    // (`common::shapes`); the mixes below say which of the calling lanes write.

    /// Which lanes write in iteration `it`: all read, all write, half and half (readers and
    /// writers of one warp on the same lock at once), and a pattern that moves with `it`.
    #[derive(Clone, Copy, Debug)]
    enum Mix {
        AllRead,
        AllWrite,
        HalfHalf,
        Rotating,
    }

    impl Mix {
        fn writes(self, t: Thread, it: u32) -> bool {
            match self {
                Mix::AllRead => false,
                Mix::AllWrite => true,
                Mix::HalfHalf => t.lane.is_multiple_of(2),
                Mix::Rotating => (t.lane + it).is_multiple_of(4),
            }
        }
    }

    /// The lanes of `t`'s warp that call in iteration `it` and do what `t` does (read or
    /// write): they run the call converged, as the lanes of one branch on the GPU.
    fn mix_mask(shape: &Shape, t: Thread, mix: Mix, it: u32) -> u32 {
        let me = mix.writes(t, it);
        shape.mask(t)
            & (0..32).fold(0, |m, l| {
                let u = Thread {
                    id: t.warp * 32 + l,
                    lane: l,
                    ..t
                };
                if mix.writes(u, it) == me {
                    m | 1 << l
                } else {
                    m
                }
            })
    }

    const EMU_ITERS: u32 = 12;

    /// The emulated cases' lock: two words a writer keeps in step.
    type Pair = RwLock<(u64, u64), Gpu>;

    /// Every shape x every mix: per lock, the plain write counter ends at exactly its writes,
    /// the reads are all counted, no reader ever sees a writer inside (or half a write), no
    /// writer ever sees anyone else inside, and the words balance. A shape whose readers share
    /// a lock must show two readers inside at once somewhere (lanes of one warp read together).
    #[test]
    fn every_calling_shape_and_mix_counts_exactly_with_exclusive_writers() {
        for shape in shapes() {
            for mix in [Mix::AllRead, Mix::AllWrite, Mix::HalfHalf, Mix::Rotating] {
                let locks: Arc<Vec<Pair>> =
                    Arc::new((0..shape.objects).map(|_| RwLock::new((0, 0))).collect());
                let states: Arc<Vec<AtomicU32>> =
                    Arc::new((0..shape.objects).map(|_| AtomicU32::new(0)).collect());
                let reads: Arc<Vec<AtomicU64>> =
                    Arc::new((0..shape.objects).map(|_| AtomicU64::new(0)).collect());
                let most = Arc::new(AtomicU32::new(0));
                let (l, st, rd, m) = (locks.clone(), states.clone(), reads.clone(), most.clone());
                emulation::launch(shape.threads, LIMIT, move |t| {
                    if !(shape.calls)(t) {
                        return;
                    }
                    let k = (shape.object)(t);
                    for it in 0..EMU_ITERS {
                        let mask = mix_mask(&shape, t, mix, it);
                        if mix.writes(t, it) {
                            converged(mask, || {
                                let mut g = l[k].write();
                                // Inside, this lane runs alone (the other writers poll for
                                // the lock).
                                converged(1 << t.lane, || {
                                    enter(&st[k], true, &m);
                                    let v = g.0;
                                    std::thread::yield_now();
                                    *g = (v + 1, 2 * (v + 1));
                                    leave(&st[k], true);
                                });
                            });
                        } else {
                            converged(mask, || {
                                let g = l[k].read();
                                enter(&st[k], false, &m);
                                let (a, b) = *g;
                                std::thread::yield_now();
                                assert_eq!(b, 2 * a, "a half write");
                                leave(&st[k], false);
                                rd[k].fetch_add(1, Relaxed);
                            });
                        }
                    }
                });
                let (mut want_w, mut want_r) =
                    (vec![0u64; shape.objects], vec![0u64; shape.objects]);
                for id in 0..shape.threads {
                    let t = thread(shape.threads, id);
                    if (shape.calls)(t) {
                        for it in 0..EMU_ITERS {
                            if mix.writes(t, it) {
                                want_w[(shape.object)(t)] += 1;
                            } else {
                                want_r[(shape.object)(t)] += 1;
                            }
                        }
                    }
                }
                let got_w: Vec<u64> = locks.iter().map(|l| l.try_read().unwrap().0).collect();
                let got_r: Vec<u64> = reads.iter().map(|r| r.load(Relaxed)).collect();
                let what = format!("{}, {mix:?}", shape.name);
                assert_eq!(got_w, want_w, "{what}: writes per lock");
                assert_eq!(got_r, want_r, "{what}: reads per lock");
                for l in locks.iter() {
                    balanced(l, &what);
                }
                if matches!(mix, Mix::AllRead) && shape.name == "one object" {
                    assert!(
                        most.load(Relaxed) >= 2,
                        "{what}: never two readers inside at once"
                    );
                }
            }
        }
    }

    /// Nested: lane `l` reads `outer[l % 2]` and, inside, writes `inner[l % 3]` (lanes that read
    /// one lock together queue for the write), in a fixed order across lanes.
    #[test]
    fn nested_read_then_write_counts_exactly() {
        const THREADS: u32 = 64;
        let outer: Arc<Vec<RwLock<u64, Gpu, Spin>>> =
            Arc::new((0..2).map(|_| RwLock::new(0)).collect());
        let inner: Arc<Vec<RwLock<u64, Gpu, Spin>>> =
            Arc::new((0..3).map(|_| RwLock::new(0)).collect());
        let (o, i) = (outer.clone(), inner.clone());
        emulation::launch(THREADS, LIMIT, move |t| {
            for _ in 0..EMU_ITERS {
                let r = o[t.lane as usize % 2].read();
                converged(
                    (0..32)
                        .filter(|l| l % 2 == t.lane % 2 && t.warp_mask & (1 << l) != 0)
                        .fold(0, |m, l| m | 1 << l),
                    || *i[t.lane as usize % 3].write() += *r + 1,
                );
            }
        });
        let count = |k: u32, n: u32| {
            (0..THREADS).filter(|id| id % 32 % n == k).count() as u64 * EMU_ITERS as u64
        };
        let got: Vec<u64> = inner.iter().map(|l| *l.read()).collect();
        assert_eq!(got, vec![count(0, 3), count(1, 3), count(2, 3)]);
        for l in outer.iter().chain(inner.iter()) {
            balanced(l, "nested");
        }
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
    use ptx_sync::Gpu;

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
}
