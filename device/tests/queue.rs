//! `Queue` on std threads and emulated warps (`warp::emulation`), every item delivered exactly
//! once: per run, the values popped are checked against the values pushed by count, sum, xor
//! and a bitmap of every value seen (a value lost or delivered twice fails at least the
//! bitmap), and where one producer's values reach one consumer, in the order they were
//! pushed; and in loom models (handover through reused slots, racing producers and consumers,
//! the try and timed forms losing nothing).

mod common {
    #[cfg(not(loom))]
    pub mod lanes;
    #[cfg(loom)]
    pub mod models;
}

/// Std threads and emulated warps (`warp::emulation`: a std thread per lane) running the
/// algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use crate::common::lanes::thread;
    use ptx_sync::clock::Instant;
    use ptx_sync::warp::emulation::{self, converged, Thread};
    use ptx_sync::{Cta, Gpu, Queue, Sys};
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// Long enough for 96 lane threads on two cores, short enough that a deadlock fails quickly.
    const LIMIT: Duration = Duration::from_secs(60);

    /// Every value of `0..total` popped exactly once: count, sum, xor, and the bitmap.
    #[track_caller]
    fn exactly_once(popped: &[u32], total: u32, what: &str) {
        assert_eq!(popped.len(), total as usize, "{what}: values popped");
        let sum: u64 = popped.iter().map(|&v| v as u64).sum();
        assert_eq!(sum, (0..total as u64).sum::<u64>(), "{what}: sum");
        let xor = popped.iter().fold(0, |a, &v| a ^ v);
        assert_eq!(xor, (0..total).fold(0, |a, v| a ^ v), "{what}: xor");
        let mut seen = vec![false; total as usize];
        for &v in popped {
            assert!(v < total, "{what}: {v} was never pushed");
            assert!(!seen[v as usize], "{what}: {v} popped twice");
            seen[v as usize] = true;
        }
    }

    /// `producers` threads push `per` values each (producer `p`: `p * per ..`), `consumers`
    /// threads pop `producers * per / consumers` each; returns what each consumer popped, in
    /// order.
    fn run<const N: usize>(
        q: Arc<Queue<u32, N, Gpu>>,
        producers: u32,
        consumers: u32,
        per: u32,
    ) -> Vec<Vec<u32>> {
        let total = producers * per;
        assert_eq!(total % consumers, 0);
        let pushers: Vec<_> = (0..producers)
            .map(|p| {
                let q = q.clone();
                std::thread::spawn(move || (p * per..(p + 1) * per).for_each(|v| q.push(v)))
            })
            .collect();
        let poppers: Vec<_> = (0..consumers)
            .map(|_| {
                let q = q.clone();
                std::thread::spawn(move || {
                    (0..total / consumers)
                        .map(|_| q.pop())
                        .collect::<Vec<u32>>()
                })
            })
            .collect();
        pushers.into_iter().for_each(|h| h.join().unwrap());
        poppers.into_iter().map(|h| h.join().unwrap()).collect()
    }

    /// Per consumer, each producer's values arrive in the order they were pushed (a consumer's
    /// tickets increase, and so do a producer's).
    #[track_caller]
    fn in_producer_order(per_consumer: &[Vec<u32>], per: u32, what: &str) {
        for (c, vals) in per_consumer.iter().enumerate() {
            let mut last: std::collections::HashMap<u32, u32> = Default::default();
            for &v in vals {
                let p = v / per;
                if let Some(&prev) = last.get(&p) {
                    assert!(
                        prev < v,
                        "{what}: consumer {c} got {v} after {prev} of the same producer"
                    );
                }
                last.insert(p, v);
            }
        }
    }

    macro_rules! capacities {
    ($($n:literal),*) => {$(
        {
            for (producers, consumers) in [(1u32, 1u32), (2, 2), (3, 1), (1, 3)] {
                let per = 2_400 / producers;
                let q = Arc::new(Queue::<u32, $n, Gpu>::new());
                let got = run(q.clone(), producers, consumers, per);
                let what = format!("N = {}, {producers} producers, {consumers} consumers", $n);
                exactly_once(&got.concat(), producers * per, &what);
                in_producer_order(&got, per, &what);
                assert_eq!(q.try_pop(), None, "{what}: left over");
                assert_eq!(format!("{q:?}"), format!("Queue {{ pushes: {0}, pops: {0}, capacity: {1} }}", producers * per, $n));
            }
        }
    )*};
}

    /// Capacities 1, 2, 3 and 7 (not powers of two), 64 and 1024, with one and several producers
    /// and consumers: everything pushed is popped once, in each producer's order.
    #[test]
    fn every_value_arrives_exactly_once_at_every_capacity() {
        capacities!(1, 2, 3, 7, 64, 1024);
    }

    /// Producers and consumers that use every form (blocking, try in a loop, timed in a loop with
    /// short timeouts, for and until): all values arrive once.
    #[test]
    fn every_form_together_delivers_exactly_once() {
        const PRODUCERS: u32 = 2;
        const PER: u32 = 1_500;
        let q = Arc::new(Queue::<u32, 5, Gpu>::new());
        let d = Duration::from_nanos(300);
        let pushers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let q = q.clone();
                std::thread::spawn(move || {
                    for v in p * PER..(p + 1) * PER {
                        match v % 4 {
                            0 => q.push(v),
                            1 => {
                                let mut v = v;
                                while let Err(back) = q.try_push(v) {
                                    v = back;
                                    std::thread::yield_now();
                                }
                            }
                            2 => {
                                let mut v = v;
                                while let Err(back) = q.push_for(v, d) {
                                    v = back;
                                }
                            }
                            _ => {
                                let mut v = v;
                                while let Err(back) = q.push_until(v, Instant::now() + d) {
                                    v = back;
                                }
                            }
                        }
                    }
                })
            })
            .collect();
        let poppers: Vec<_> = (0..2u32)
            .map(|c| {
                let q = q.clone();
                std::thread::spawn(move || {
                    (0..PER)
                        .map(|i| match (i + c) % 4 {
                            0 => q.pop(),
                            1 => loop {
                                if let Some(v) = q.try_pop() {
                                    break v;
                                }
                                std::thread::yield_now();
                            },
                            2 => loop {
                                if let Some(v) = q.pop_for(d) {
                                    break v;
                                }
                            },
                            _ => loop {
                                if let Some(v) = q.pop_until(Instant::now() + d) {
                                    break v;
                                }
                            },
                        })
                        .collect::<Vec<u32>>()
                })
            })
            .collect();
        pushers.into_iter().for_each(|h| h.join().unwrap());
        let got: Vec<Vec<u32>> = poppers.into_iter().map(|h| h.join().unwrap()).collect();
        exactly_once(&got.concat(), PRODUCERS * PER, "every form");
        in_producer_order(&got, PER, "every form");
        assert_eq!(q.try_pop(), None);
    }

    #[test]
    fn try_forms_report_full_and_empty() {
        let q = Queue::<u64, 3, Cta>::new();
        assert_eq!(q.try_pop(), None);
        for i in 0..3 {
            assert_eq!(q.try_push(i), Ok(()));
        }
        assert_eq!(q.try_push(9), Err(9));
        assert_eq!(q.push_for(9, Duration::from_micros(10)), Err(9));
        assert_eq!(q.push_until(9, Instant::now()), Err(9));
        assert_eq!(q.try_pop(), Some(0));
        q.push(3); // the freed slot, next round
        assert_eq!(q.try_push(9), Err(9));
        assert_eq!(
            (q.pop(), q.try_pop(), q.pop_for(Duration::ZERO)),
            (1, Some(2), Some(3))
        );
        assert_eq!(q.pop_for(Duration::from_micros(10)), None);
        assert_eq!(
            q.pop_until(Instant::now() + Duration::from_micros(10)),
            None
        );
        // Many rounds through a capacity of 1 (the turn goes 0, 1, 2, 3, ...).
        let one = Queue::<u32, 1, Sys>::new();
        for i in 0..100 {
            assert_eq!(one.try_push(i), Ok(()));
            assert_eq!(one.try_push(i), Err(i));
            assert_eq!(one.try_pop(), Some(i));
            assert_eq!(one.try_pop(), None);
        }
    }

    #[test]
    fn zeroed_memory_is_an_empty_queue_and_the_layout_is_documented() {
        type Q = Queue<u64, 4, Gpu>;
        let mut raw = Box::new(std::mem::MaybeUninit::<Q>::zeroed());
        let q = unsafe { Q::from_ptr(raw.as_mut_ptr()) };
        assert_eq!(q.try_pop(), None);
        q.push(11);
        q.push(12);
        assert_eq!((q.pop(), q.pop()), (11, 12));
        assert_eq!(Q::SLOTS_OFFSET, 256);
        assert_eq!(Q::SLOT_SIZE, 16);
        assert_eq!(Queue::<u32, 1024, Gpu>::SLOT_SIZE, 8);
        assert_eq!(std::mem::size_of::<Queue<u32, 1024, Gpu>>(), 256 + 8 * 1024);
        assert_eq!(Q::CAPACITY, 4);
        // The turn word of slot 1 after two rounds through it: 4 (free for round 2).
        let q = Q::new();
        for i in 0..8 {
            q.push(i);
            assert_eq!(q.pop(), i);
        }
        let base = &q as *const Q as *const u8;
        let turn = unsafe { *base.add(Q::SLOTS_OFFSET + Q::SLOT_SIZE).cast::<u32>() };
        assert_eq!(turn, 4);
        let tickets = unsafe { [*base.cast::<u64>(), *base.add(128).cast::<u64>()] };
        assert_eq!(tickets, [8, 8]);
    }

    /// Values left in the queue are dropped with it, once each; values popped are not.
    #[test]
    fn dropping_the_queue_drops_what_it_holds() {
        struct Counted(Arc<AtomicU32>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_add(1, Relaxed);
            }
        }
        let drops = Arc::new(AtomicU32::new(0));
        let q = Queue::<Counted, 4, Gpu>::new();
        for _ in 0..6 {
            q.push(Counted(drops.clone()));
            if q.try_push(Counted(drops.clone())).is_err() {
                break;
            }
            drop(q.pop());
        }
        let popped = drops.load(Relaxed);
        let held = 4;
        assert!(q.try_push(Counted(drops.clone())).is_err()); // full: the value comes back
        drop(q);
        // The rejected value (dropped by the assert), then the four held.
        assert_eq!(drops.load(Relaxed), popped + 1 + held);
    }

    // -------------------------------------------------------------------------------------------
    // Emulated warps.

    /// How the lanes of a launch use the queues: which lanes call, which queue, who produces.
    #[derive(Clone, Copy)]
    struct Shape {
        name: &'static str,
        threads: u32,
        queues: usize,
        calls: fn(Thread) -> bool,
        queue: fn(Thread) -> usize,
        produces: fn(Thread) -> bool,
    }

    fn all(_: Thread) -> bool {
        true
    }
    fn even(t: Thread) -> bool {
        t.lane.is_multiple_of(2)
    }

    fn shapes() -> Vec<Shape> {
        vec![
            Shape {
                name: "one warp: even lanes push, odd lanes pop, one queue",
                threads: 32,
                queues: 1,
                calls: all,
                queue: |_| 0,
                produces: even,
            },
            Shape {
                name: "one warp: lanes 0-7 push, lanes 8-31 pop, one queue",
                threads: 32,
                queues: 1,
                calls: all,
                queue: |_| 0,
                produces: |t| t.lane < 8,
            },
            Shape {
                name: "two warps: lanes on 2 queues, producers and consumers in each warp",
                threads: 64,
                queues: 2,
                calls: all,
                queue: |t| t.lane as usize % 2,
                produces: |t| (t.lane / 2) % 2 == 0,
            },
            Shape {
                name: "partial warp (48 threads): 3 queues, warp 0 pushes, warp 1 pops",
                threads: 48,
                queues: 3,
                calls: |t| t.warp == 1 || t.lane < 16,
                queue: |t| t.lane as usize % 3,
                produces: |t| t.warp == 0,
            },
            Shape {
                name: "a data-dependent subset of one warp on one queue",
                threads: 32,
                queues: 1,
                calls: |t| !matches!(t.lane, 3 | 9 | 10 | 17 | 30),
                queue: |_| 0,
                produces: |t| (t.lane * 7 + 3) % 5 < 2,
            },
        ]
    }

    impl Shape {
        /// The lanes of `t`'s warp that call and do what `t` does (push or pop): they run the call
        /// converged, as the lanes of one branch on the GPU.
        fn mask(&self, t: Thread) -> u32 {
            (0..32)
                .filter(|&l| t.warp_mask & (1 << l) != 0)
                .map(|l| Thread {
                    id: t.warp * 32 + l,
                    lane: l,
                    ..t
                })
                .filter(|&u| (self.calls)(u) && (self.produces)(u) == (self.produces)(t))
                .fold(0, |m, u| m | 1 << u.lane)
        }
    }

    /// Every shape, with a capacity of 4 (producers wait for consumers of their own warp) and of
    /// 3 (not a power of two): per queue, the producers' values (value `id * ITERS + i` for thread
    /// `id`) all arrive once, the consumers pop exactly as many as were pushed (each consumer pops
    /// its share, the last ones take the remainder).
    #[test]
    fn every_calling_shape_delivers_exactly_once() {
        const ITERS: u32 = 24;
        fn check<const N: usize>(shape: Shape) {
            let queues: Arc<Vec<Queue<u32, N, Gpu>>> =
                Arc::new((0..shape.queues).map(|_| Queue::new()).collect());
            // Per queue: producers and consumers, and each consumer's share of the pops.
            let mut producers = vec![0u32; shape.queues];
            let mut consumers = vec![Vec::new(); shape.queues];
            for id in 0..shape.threads {
                let t = thread(shape.threads, id);
                if (shape.calls)(t) {
                    if (shape.produces)(t) {
                        producers[(shape.queue)(t)] += 1;
                    } else {
                        consumers[(shape.queue)(t)].push(id);
                    }
                }
            }
            let share = |k: usize, id: u32| -> u32 {
                let total = producers[k] * ITERS;
                let c = consumers[k].len() as u32;
                let i = consumers[k].iter().position(|&x| x == id).unwrap() as u32;
                total / c + u32::from(i < total % c)
            };
            let shares: Arc<Vec<u32>> = Arc::new(
                (0..shape.threads)
                    .map(|id| {
                        let t = thread(shape.threads, id);
                        if (shape.calls)(t) && !(shape.produces)(t) {
                            share((shape.queue)(t), id)
                        } else {
                            0
                        }
                    })
                    .collect(),
            );
            let popped: Arc<Vec<Mutex<Vec<u32>>>> =
                Arc::new((0..shape.queues).map(|_| Mutex::new(Vec::new())).collect());
            let max_share = *shares.iter().max().unwrap();
            let (q, p, s) = (queues.clone(), popped.clone(), shares.clone());
            emulation::launch(shape.threads, LIMIT, move |t| {
                if !(shape.calls)(t) {
                    return;
                }
                let k = (shape.queue)(t);
                let mask = shape.mask(t);
                if (shape.produces)(t) {
                    for i in 0..ITERS {
                        converged(mask, || q[k].push(t.id * ITERS + i));
                    }
                } else {
                    // Every lane of the group calls `pop` as often as the group's largest share
                    // (lanes with a smaller share stop calling: the mask shrinks to the lanes
                    // that still pop).
                    let mine = s[t.id as usize];
                    let mut got = Vec::new();
                    for i in 0..max_share {
                        let still = (0..32)
                            .filter(|&l| mask & (1 << l) != 0)
                            .filter(|&l| s[(t.warp * 32 + l) as usize] > i)
                            .fold(0, |m, l| m | 1 << l);
                        if i < mine {
                            got.push(converged(still, || q[k].pop()));
                        }
                    }
                    p[k].lock().unwrap().extend(got);
                }
            });
            for k in 0..shape.queues {
                let ids: Vec<u32> = (0..shape.threads)
                    .filter(|&id| {
                        let t = thread(shape.threads, id);
                        (shape.calls)(t) && (shape.produces)(t) && (shape.queue)(t) == k
                    })
                    .collect();
                let mut got = popped[k].lock().unwrap().clone();
                // Values are `id * ITERS + i`: map them to 0.. for the exact check.
                got.iter_mut().for_each(|v| {
                    let (id, i) = (*v / ITERS, *v % ITERS);
                    let p = ids
                        .iter()
                        .position(|&x| x == id)
                        .expect("a value no producer of this queue pushed");
                    *v = p as u32 * ITERS + i;
                });
                exactly_once(
                    &got,
                    ids.len() as u32 * ITERS,
                    &format!("{}, N = {N}, queue {k}", shape.name),
                );
                assert_eq!(queues[k].try_pop(), None, "{}: left over", shape.name);
            }
        }
        for shape in shapes() {
            check::<4>(shape);
            check::<3>(shape);
        }
    }

    /// Aggregated tickets: a full warp pushing at once takes 32 consecutive tickets with one add,
    /// in lane order (one producer per lane, a consumer thread outside the warp sees lane `l`'s
    /// value at ticket `l` of each round).
    #[test]
    fn a_warp_takes_consecutive_tickets_in_lane_order() {
        const ROUNDS: u32 = 8;
        let q = Arc::new(Queue::<u32, 64, Gpu>::new());
        let q2 = q.clone();
        let order = Arc::new(AtomicU64::new(0));
        let o = order.clone();
        let consumer = std::thread::spawn(move || {
            for r in 0..ROUNDS {
                for l in 0..32 {
                    let v = q2.pop();
                    assert_eq!(v, r * 32 + l, "ticket {} of round {r}", l);
                    o.fetch_add(1, Relaxed);
                }
            }
        });
        emulation::launch(32, LIMIT, move |t| {
            for r in 0..ROUNDS {
                // The whole warp converged; each round ends with a warp barrier so that the next
                // round's tickets all come after this one's.
                q.push(r * 32 + t.lane);
                ptx_sync::warp::sync(u32::MAX);
            }
        });
        consumer.join().unwrap();
        assert_eq!(order.load(Relaxed), (ROUNDS * 32) as u64);
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the queue orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{model, model_bounded, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::Gpu;

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
}
