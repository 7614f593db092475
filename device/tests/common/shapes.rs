//! Calling shapes for the warp-aggregated primitives (Mutex, the semaphores, Latch, Barrier) on
//! emulated warps (`warp::emulation`: a std thread per lane), the shapes kernels are written in:
//! lanes of one warp on different objects, on one object, only some lanes calling, partial
//! warps. Each subject's cases count what they check against the exact expected total.
// Each test target uses the part its subject needs.
#![allow(dead_code)]

use super::lanes::thread;
use ptx_sync::warp::emulation::{self, Thread};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// Long enough for 96 lane threads on two cores, short enough that a deadlock fails quickly.
pub const LIMIT: Duration = Duration::from_secs(60);

/// Which lanes call the primitive, and on which object.
#[derive(Clone, Copy)]
pub struct Shape {
    pub name: &'static str,
    pub threads: u32,
    pub objects: usize,
    pub calls: fn(Thread) -> bool,
    pub object: fn(Thread) -> usize,
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

pub fn shapes() -> Vec<Shape> {
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
    pub fn mask(&self, t: Thread) -> u32 {
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
    pub fn callers(&self) -> Vec<u32> {
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
    pub fn calls(&self, iters: u32) -> Vec<u64> {
        self.callers()
            .iter()
            .map(|&n| n as u64 * iters as u64)
            .collect()
    }

    /// Launches the shape: every calling thread runs `body(t, its object, the mask of the
    /// lanes of its warp that call)`.
    pub fn launch(self, body: impl Fn(Thread, usize, u32) + Send + Sync + 'static) {
        emulation::launch(self.threads, LIMIT, move |t| {
            if (self.calls)(t) {
                body(t, (self.object)(t), self.mask(t));
            }
        });
    }
}

/// `n` zeroed per-object counters, shared by the lanes of a launch.
pub fn zeros<A: Default>(n: usize) -> Arc<Vec<A>> {
    Arc::new((0..n).map(|_| A::default()).collect())
}

/// The values of per-object counters.
pub fn loads(counters: &[AtomicU32]) -> Vec<u32> {
    counters.iter().map(|c| c.load(Relaxed)).collect()
}
