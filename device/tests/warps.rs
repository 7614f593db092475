//! The warp-aggregated primitives (Mutex, Latch, Barrier) with real warps on the CPU
//! (`warp::emulation`: a std thread per lane), in the shapes kernels are written in: lanes of
//! one warp on different objects, on one object, only some lanes calling, partial warps.
//! Every case counts what it checks against the exact expected total.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

mod common {
    pub mod lanes;
}

use common::lanes::thread;
use ptx_sync::warp::emulation::{self, converged, Thread};
use ptx_sync::{Barrier, BinarySemaphore, Gpu, Latch, Mutex, Semaphore, Spin};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};
use std::sync::Arc;
use std::time::Duration;

/// Long enough for 96 lane threads on two cores, short enough that a deadlock fails quickly.
const LIMIT: Duration = Duration::from_secs(60);

/// Which lanes call the primitive, and on which object.
#[derive(Clone, Copy)]
struct Shape {
    name: &'static str,
    threads: u32,
    objects: usize,
    calls: fn(Thread) -> bool,
    object: fn(Thread) -> usize,
}

fn all(_: Thread) -> bool {
    true
}
fn odd(t: Thread) -> bool {
    t.lane % 2 == 1
}
fn lane0(t: Thread) -> bool {
    t.lane == 0
}
/// A data-dependent subset (about half the lanes, no pattern in the lane number).
fn hashed(t: Thread) -> bool {
    t.id.wrapping_mul(0x9e37_79b9).rotate_left(7) & 4 != 0
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "one object",
            threads: 64,
            objects: 1,
            calls: all,
            object: |_| 0,
        },
        Shape {
            name: "lanes on 2 objects",
            threads: 64,
            objects: 2,
            calls: all,
            object: |t| t.lane as usize % 2,
        },
        Shape {
            name: "lanes on 32 objects",
            threads: 64,
            objects: 32,
            calls: all,
            object: |t| t.lane as usize,
        },
        Shape {
            name: "odd lanes on 2 objects",
            threads: 64,
            objects: 2,
            calls: odd,
            object: |t| (t.lane / 2) as usize % 2,
        },
        Shape {
            name: "lane 0 of each warp",
            threads: 96,
            objects: 1,
            calls: lane0,
            object: |_| 0,
        },
        Shape {
            name: "hashed subset on 3 objects",
            threads: 96,
            objects: 3,
            calls: hashed,
            object: |t| (t.id as usize * 7 + 3) % 3,
        },
        Shape {
            name: "partial warp (48 threads) on 2 objects",
            threads: 48,
            objects: 2,
            calls: all,
            object: |t| t.lane as usize % 2,
        },
        Shape {
            name: "per-thread objects",
            threads: 64,
            objects: 64,
            calls: all,
            object: |t| t.id as usize,
        },
    ]
}

impl Shape {
    /// The lanes of `t`'s warp that call: they run the call converged.
    fn mask(&self, t: Thread) -> u32 {
        (0..32)
            .filter(|&l| t.warp_mask & (1 << l) != 0)
            .filter(|&l| {
                (self.calls)(Thread {
                    id: t.warp * 32 + l,
                    lane: l,
                    ..t
                })
            })
            .fold(0, |m, l| m | 1 << l)
    }

    /// How many threads call on each object.
    fn callers(&self) -> Vec<u32> {
        let mut n = vec![0; self.objects];
        for id in 0..self.threads {
            let t = thread(self.threads, id);
            if (self.calls)(t) {
                n[(self.object)(t)] += 1;
            }
        }
        n
    }

    /// `iters` calls by each caller, per object.
    fn calls(&self, iters: u32) -> Vec<u64> {
        self.callers()
            .iter()
            .map(|&n| n as u64 * iters as u64)
            .collect()
    }

    /// Launches the shape: every calling thread runs `body(t, its object, the mask of the
    /// lanes of its warp that call)`.
    fn launch(self, body: impl Fn(Thread, usize, u32) + Send + Sync + 'static) {
        emulation::launch(self.threads, LIMIT, move |t| {
            if (self.calls)(t) {
                body(t, (self.object)(t), self.mask(t));
            }
        });
    }
}

/// `n` zeroed per-object counters, shared by the lanes of a launch.
fn zeros<A: Default>(n: usize) -> Arc<Vec<A>> {
    Arc::new((0..n).map(|_| A::default()).collect())
}

/// The values of per-object counters.
fn loads(counters: &[AtomicU32]) -> Vec<u32> {
    counters.iter().map(|c| c.load(Relaxed)).collect()
}

/// Per object: `2 * rounds` phases for a barrier with callers, none for an unused one.
fn phases(callers: &[u32], rounds: u32) -> Vec<u32> {
    callers
        .iter()
        .map(|&n| if n > 0 { 2 * rounds } else { 0 })
        .collect()
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

/// Semaphores are not warp-aggregated (device/src/binary_semaphore.rs says why): lanes of a
/// warp that call `acquire` together each take a unit of their own object. Every calling
/// shape, with `BinarySemaphore` as a lock (one holder per object, a plain read-modify-write
/// kept exact) and `Semaphore<_, 4>` holding four units (at most four holders), both with the
/// default waiting policy (`Elapsed`).
#[test]
fn semaphores_every_calling_shape_count_exactly_within_their_units() {
    const ITERS: u32 = 20;
    for (units, what) in [(1u32, "binary semaphore"), (4, "semaphore of 4")] {
        for shape in shapes() {
            let binary: Arc<Vec<BinarySemaphore<Gpu>>> = Arc::new(
                (0..shape.objects)
                    .map(|_| BinarySemaphore::new(1))
                    .collect(),
            );
            let counting: Arc<Vec<Semaphore<Gpu, 4>>> =
                Arc::new((0..shape.objects).map(|_| Semaphore::new(4)).collect());
            let values: Arc<Vec<AtomicU64>> = zeros(shape.objects);
            let holders: Arc<Vec<AtomicU32>> = zeros(shape.objects);
            let most = Arc::new(AtomicU32::new(0));
            let (bs, cs, v, h, m) = (
                binary.clone(),
                counting.clone(),
                values.clone(),
                holders.clone(),
                most.clone(),
            );
            shape.launch(move |_, k, mask| {
                for _ in 0..ITERS {
                    converged(mask, || {
                        if units == 1 {
                            bs[k].acquire();
                        } else {
                            cs[k].acquire();
                        }
                        m.fetch_max(h[k].fetch_add(1, Relaxed) + 1, Relaxed);
                        if units == 1 {
                            // A plain read-modify-write: only mutual exclusion keeps it exact.
                            let x = v[k].load(Relaxed);
                            std::thread::yield_now();
                            v[k].store(x + 1, Relaxed);
                        } else {
                            v[k].fetch_add(1, Relaxed);
                            std::thread::yield_now();
                        }
                        h[k].fetch_sub(1, Relaxed);
                        if units == 1 {
                            bs[k].release(1);
                        } else {
                            cs[k].release(1);
                        }
                    });
                }
            });
            let want = shape.calls(ITERS);
            let got: Vec<u64> = values.iter().map(|x| x.load(Relaxed)).collect();
            assert_eq!(got, want, "{what}, {}: sections per object", shape.name);
            assert!(
                most.load(Relaxed) <= units,
                "{what}, {}: {} holders of one object at once",
                shape.name,
                most.load(Relaxed)
            );
            let free: Vec<u32> = if units == 1 {
                binary.iter().map(|s| s.available()).collect()
            } else {
                counting.iter().map(|s| s.available()).collect()
            };
            assert!(
                free.iter().all(|&f| f == units),
                "{what}, {}: units not returned: {free:?}",
                shape.name
            );
        }
    }
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

#[test]
fn barrier_every_calling_shape_runs_each_barrier_one_phase_per_round() {
    const ROUNDS: u32 = 6;
    for shape in shapes() {
        let callers = shape.callers();
        let barriers: Arc<Vec<Barrier<Gpu, Spin>>> =
            Arc::new(callers.iter().map(|&n| Barrier::new(n.max(1))).collect());
        // Per object: completions run, and callers that saw every arrival of the round.
        let completions: Arc<Vec<AtomicU32>> = zeros(shape.objects);
        let arrived: Arc<Vec<AtomicU64>> = zeros(shape.objects);
        let saw_all: Arc<Vec<AtomicU32>> = zeros(shape.objects);
        let want = Arc::new(callers.clone());
        let (b, c, a, s, w) = (
            barriers.clone(),
            completions.clone(),
            arrived.clone(),
            saw_all.clone(),
            want.clone(),
        );
        shape.launch(move |_, k, mask| {
            for r in 0..ROUNDS as u64 {
                a[k].fetch_add(1, Relaxed);
                converged(mask, || {
                    b[k].arrive_and_wait_with(|| {
                        c[k].fetch_add(1, Relaxed);
                    })
                });
                // Nobody of this barrier can arrive for round r + 1 before everyone has left
                // round r's first barrier, so the count is exactly (r + 1) rounds' worth here.
                if a[k].load(Relaxed) == (r + 1) * w[k] as u64 {
                    s[k].fetch_add(1, Relaxed);
                }
                converged(mask, || b[k].arrive_and_wait());
            }
        });
        let used = phases(&callers, ROUNDS);
        let got: Vec<u32> = completions.iter().map(|c| c.load(Relaxed) * 2).collect();
        assert_eq!(
            got, used,
            "barrier, {}: phases per barrier (2 per round)",
            shape.name
        );
        let seen = loads(&saw_all);
        let want: Vec<u32> = callers.iter().map(|&n| n * ROUNDS).collect();
        assert_eq!(
            seen, want,
            "barrier, {}: callers x rounds that saw every arrival",
            shape.name
        );
    }
}

/// Lanes of one warp on different barriers, each with its own completion
/// (`Barrier::with_completion`), arriving converged (`arrive_and_wait`, warp-aggregated per
/// barrier) or split (`arrive` then `wait`, one lane at a time): each completion runs exactly
/// once per phase (two per round), sees every arrival of its round, and every caller released
/// from round `r`'s first phase sees its barrier's completion count `2r + 1`.
#[test]
fn barriers_with_completions_each_run_theirs_once_per_phase() {
    const ROUNDS: u32 = 6;
    for shape in shapes() {
        let callers = shape.callers();
        // Per object: completions run, completions that saw the round's every arrival, and
        // callers that saw their round's completion.
        let completions: Arc<Vec<AtomicU32>> = zeros(shape.objects);
        let complete_views: Arc<Vec<AtomicU32>> = zeros(shape.objects);
        let arrived: Arc<Vec<AtomicU64>> = zeros(shape.objects);
        let saw_completion: Arc<Vec<AtomicU32>> = zeros(shape.objects);
        let barriers: Arc<Vec<_>> = Arc::new(
            callers
                .iter()
                .enumerate()
                .map(|(k, &n)| {
                    let (c, v, a) = (completions.clone(), complete_views.clone(), arrived.clone());
                    Barrier::<Gpu, Spin>::with_completion(n.max(1), move || {
                        // Two phases per round; both see the round's every arrival.
                        let q = c[k].fetch_add(1, Relaxed) as u64;
                        if a[k].load(Relaxed) == (q / 2 + 1) * n as u64 {
                            v[k].fetch_add(1, Relaxed);
                        }
                    })
                })
                .collect(),
        );
        let (b, c, a, s) = (
            barriers.clone(),
            completions.clone(),
            arrived.clone(),
            saw_completion.clone(),
        );
        shape.launch(move |t, k, mask| {
            for r in 0..ROUNDS {
                a[k].fetch_add(1, Relaxed);
                if (r + t.lane) % 2 == 0 {
                    // The lanes of this branch run it together.
                    let even = (0..32)
                        .filter(|&l| mask & (1 << l) != 0 && (r + l) % 2 == 0)
                        .fold(0u32, |m, l| m | 1 << l);
                    converged(even, || b[k].arrive_and_wait());
                } else {
                    let token = b[k].arrive();
                    b[k].wait(token);
                }
                if c[k].load(Relaxed) == 2 * r + 1 {
                    s[k].fetch_add(1, Relaxed);
                }
                // Nobody arrives for round r + 1 before everyone has read round r's count.
                converged(mask, || b[k].arrive_and_wait());
            }
        });
        let used = phases(&callers, ROUNDS);
        let runs = loads(&completions);
        assert_eq!(runs, used, "{}: completion runs per barrier", shape.name);
        let views = loads(&complete_views);
        assert_eq!(
            views, used,
            "{}: completions that saw every arrival of their round",
            shape.name
        );
        let seen = loads(&saw_completion);
        let want: Vec<u32> = callers.iter().map(|&n| n * ROUNDS).collect();
        assert_eq!(
            seen, want,
            "{}: callers x rounds released after their completion",
            shape.name
        );
    }
}

/// The emulation itself: a misused collective fails with a message instead of hanging.
#[test]
#[should_panic(expected = "which have returned")]
fn a_warp_barrier_waiting_for_a_returned_lane_fails_with_its_name() {
    emulation::launch(2, LIMIT, |t| {
        if t.lane == 0 {
            ptx_sync::warp::sync(0b11);
        }
    });
}

#[test]
#[should_panic(expected = "still running")]
fn a_deadlocked_launch_fails_at_its_limit() {
    let never = Arc::new(AtomicU32::new(0));
    emulation::launch(1, Duration::from_millis(300), move |_| {
        while never.load(Relaxed) == 0 {
            std::thread::yield_now();
        }
    });
}

/// Two locks in a fixed order, lanes on different objects at both levels: lane `l` takes
/// `outer[l % 2]`, then `inner[l % 3]`. Inside the outer critical section a lane runs alone
/// (its group's other lanes wait for their turn), which `converged(1 << lane)` declares.
#[test]
fn mutex_nested_locks_in_a_fixed_order_count_exactly() {
    const ITERS: u32 = 10;
    const THREADS: u32 = 64;
    let outer: Arc<Vec<Mutex<u64, Gpu, Spin>>> = Arc::new((0..2).map(|_| Mutex::new(0)).collect());
    let inner: Arc<Vec<Mutex<u64, Gpu, Spin>>> = Arc::new((0..3).map(|_| Mutex::new(0)).collect());
    let (o, i) = (outer.clone(), inner.clone());
    emulation::launch(THREADS, LIMIT, move |t| {
        for _ in 0..ITERS {
            let mut a = o[t.lane as usize % 2].lock();
            converged(1 << t.lane, || *i[t.lane as usize % 3].lock() += 1);
            *a += 1;
        }
    });
    let count =
        |k: u32, n: u32| (0..THREADS).filter(|id| id % 32 % n == k).count() as u64 * ITERS as u64;
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
