//! Kernels of the timed-wait tests (tests/src/cases/timed.rs): each timed operation waits on
//! something that never becomes available and must give up after about the time it was given.

use ptx_sync::wait::global_timer_ns;
use ptx_sync::{Atomic, Barrier, Gpu, Latch, Ordering::*, Semaphore, TicketLock};

/// u32 words of zeroed memory per block (a `TicketLock<u32, Gpu>` needs 65).
pub const REGION: usize = 128;
/// The timed operations, one per block (`block % VARIANTS`).
pub const VARIANTS: u32 = 5;

/// One thread per block. Block `k` runs variant `k % VARIANTS` with a budget of `short_ns`
/// (k < VARIANTS) or `long_ns`, on its own zeroed `REGION` of `mem`:
/// 0 `Semaphore<Gpu, 4>::try_acquire_for` on a semaphore of 0 units,
/// 1 `Latch::wait_for` on a latch of 1 that nobody counts down,
/// 2 `TicketLock::try_lock_for` on a lock this thread holds,
/// 3 `Atomic::wait_until_for` a value nobody writes,
/// 4 `Barrier<Gpu>::wait_for` a phase that needs a second arrival.
/// `out[2k]` = the nanoseconds the operation took (`%globaltimer`), `out[2k + 1]` = 1 if it
/// reported the failure, 2 if it claimed success.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn timed_expire(
    mem: *mut u32,
    short_ns: u64,
    long_ns: u64,
    out: *mut u64,
) {
    let k = core::arch::nvptx::_block_idx_x() as u32;
    let region = mem.add(k as usize * REGION);
    let ns = if k < VARIANTS { short_ns } else { long_ns };
    // Everything the operation needs is set up before the clock starts.
    let latch = Latch::<Gpu>::from_ptr(region);
    let lock = TicketLock::<u32, Gpu>::from_ptr(region.cast());
    let word = Atomic::<u32, Gpu>::from_ptr(region);
    let bar = Barrier::<Gpu>::from_ptr(region.cast());
    let mut token = None;
    match k % VARIANTS {
        1 => word.store(1, Relaxed), // the latch expects one arrival
        2 => core::mem::forget(lock.lock()),
        4 => {
            bar.init(2);
            token = Some(bar.arrive());
        }
        _ => {}
    }
    let start = global_timer_ns();
    let failed = match k % VARIANTS {
        0 => !Semaphore::<Gpu, 4>::from_ptr(region).try_acquire_for(ns),
        1 => latch.wait_for(ns).is_err(),
        2 => lock.try_lock_for(ns).is_none(),
        3 => word.wait_until_for(ns, Acquire, |v| v == 1).is_err(),
        _ => match &token {
            Some(t) => bar.wait_for(t, ns).is_err(),
            None => false,
        },
    };
    let took = global_timer_ns() - start;
    *out.add(2 * k as usize) = took;
    *out.add(2 * k as usize + 1) = if failed { 1 } else { 2 };
}
