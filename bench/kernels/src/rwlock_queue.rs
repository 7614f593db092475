//! The `rwlock/*` and `queue/turn_ring/*` rows: ptx-sync's `RwLock` and `Queue`, each against
//! the same algorithm written in CUDA C++ on `cuda::atomic_ref` (bench/cpp/rwlock_queue.inc;
//! libcu++ has neither). The kernels have the same names on both sides, so the SASS table
//! compares them. Shapes and data: bench/src/rwlock_queue_common.rs.

use crate::table::mix;
use ptx_sync::{block, volatile, Atomic, Gpu, Ordering::Relaxed, Queue, RwLock};

// The host runner uses the rest (the operations per thread).
#[allow(dead_code)]
#[path = "../../src/rwlock_queue_common.rs"]
mod common;
use common::*;

/// Every thread reads or writes the lock `iters` times, `percent` of the operations writing
/// (`rw_writes`): a writer adds one to the first word and copies it to the second, a reader
/// loads both (all volatile, as the C++'s `volatile unsigned*`) and counts a torn read when
/// they differ. `stats`: `[0]` reads, `[32]` torn reads (added once per thread).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock__mix(
    lock: *mut RwLock<[u32; 2], Gpu>,
    stats: *mut u32,
    iters: i32,
    percent: u32,
) {
    let l = RwLock::from_ptr(lock);
    let g = block::index_x() * block::dim_x() + block::thread_x();
    let (mut reads, mut torn) = (0u32, 0u32);
    for it in 0..iters as u32 {
        if rw_writes(g, it, percent) {
            let mut w = l.write();
            let p = w.as_mut_ptr();
            let v = volatile::read_volatile(p).wrapping_add(1);
            volatile::write_volatile(p, v);
            volatile::write_volatile(p.add(1), v);
        } else {
            let r = l.read();
            let p = r.as_ptr();
            let (a, b) = (
                volatile::read_volatile(p),
                volatile::read_volatile(p.add(1)),
            );
            reads += 1;
            torn += (a != b) as u32;
        }
    }
    Atomic::<u32, Gpu>::from_ptr(stats).fetch_add(reads, Relaxed);
    Atomic::<u32, Gpu>::from_ptr(stats.add(32)).fetch_add(torn, Relaxed);
}

/// The `semaphore/mpmc_queue/*` rows' work through `Queue<u32, TURN_RING, Gpu>` (zeroed: empty)
/// alone: the first half of the grid pushes items `1..=total` (thread `me` its `iters` items
/// `me * iters + 1 ..`), the second half pops `iters` each and adds count, sum and `mix` hash
/// into `totals` (u64 each, once per thread). Cooperative launch (consumers wait for producer
/// blocks).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn queue__turn_ring(
    q: *mut Queue<u32, TURN_RING, Gpu>,
    totals: *mut u64,
    iters: i32,
) {
    let q = Queue::from_ptr(q);
    let producers = block::grid_x() / 2;
    let b = block::index_x();
    if b < producers {
        let me = b * block::dim_x() + block::thread_x();
        for i in 0..iters as u32 {
            q.push(me * iters as u32 + i + 1);
        }
    } else {
        let (mut count, mut sum, mut hash) = (0u64, 0u64, 0u64);
        for _ in 0..iters {
            let item = q.pop();
            count += 1;
            sum += item as u64;
            hash = hash.wrapping_add(mix(item) as u64);
        }
        Atomic::<u64, Gpu>::from_ptr(totals).fetch_add(count, Relaxed);
        Atomic::<u64, Gpu>::from_ptr(totals.add(1)).fetch_add(sum, Relaxed);
        Atomic::<u64, Gpu>::from_ptr(totals.add(2)).fetch_add(hash, Relaxed);
    }
}
