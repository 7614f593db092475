//! Kernels of the mutex tests (tests/src/cases/mutex.rs).

use crate::Probe;
use ptx_sync::{Gpu, Mutex};

/// Every thread takes the lock `iters` times and, inside, bumps two counters and the holder
/// probe. `stats`: [0] holders now, [32] most holders ever seen, [64] critical sections run.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mutex_stress(
    m: *mut Mutex<[u32; 2], Gpu>,
    stats: *mut u32,
    iters: u32,
) {
    let m = Mutex::from_ptr(m);
    let probe = Probe::new(stats);
    for _ in 0..iters {
        let mut g = m.lock();
        probe.enter();
        // Plain (non-atomic) read-modify-writes: only mutual exclusion keeps them exact.
        g[0] += 1;
        g[1] += 3;
        probe.leave();
    }
}

/// Holds the lock (never releases it) while `try_lock_for` in the other blocks must time out.
/// `out[block]` = 1 if that block got the lock, 2 if its timed attempt expired.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mutex_try_lock_for_expires(
    m: *mut Mutex<u32, Gpu>,
    out: *mut u32,
    ns: u64,
) {
    let m = Mutex::from_ptr(m);
    let block = core::arch::nvptx::_block_idx_x() as usize;
    if block == 0 {
        if let Some(g) = m.try_lock() {
            core::mem::forget(g); // never released
            *out = 1;
        }
    } else {
        // Let block 0 take it first.
        ptx_sync::wait::sleep_ns(100_000);
        *out.add(block) = match m.try_lock_for(core::time::Duration::from_nanos(ns)) {
            Some(_) => 1,
            None => 2,
        };
    }
}

/// The same lock taken at two call sites of one warp at once: by a hash of (thread,
/// iteration) a lane locks at site A (adds 1 to word 0) or at site B (adds 1 to word 1), so
/// the lanes of each warp split between the two sites every iteration and drift apart across
/// iterations. `stats` as for `mutex_stress`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mutex_two_sites(
    m: *mut Mutex<[u32; 2], Gpu>,
    stats: *mut u32,
    iters: u32,
) {
    let m = Mutex::from_ptr(m);
    let probe = Probe::new(stats);
    let g = ptx_sync::block::rank() * ptx_sync::block::dim_x() + ptx_sync::block::thread_rank();
    for it in 0..iters {
        if site_a(g, it) {
            let mut guard = m.lock();
            probe.enter();
            guard[0] += 1;
            probe.leave();
        } else {
            let mut guard = m.lock();
            probe.enter();
            guard[1] += 1;
            probe.leave();
        }
    }
}

/// Whether thread `g` locks at site A in iteration `it` (about half the time; the host counts
/// the same).
#[inline(always)]
pub fn site_a(g: u32, it: u32) -> bool {
    let mut x = g.wrapping_mul(64).wrapping_add(it) ^ 0x2545_f491;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x & 1 == 0
}
