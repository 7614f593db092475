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
