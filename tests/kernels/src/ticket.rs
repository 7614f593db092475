//! Kernels of the ticket lock tests (tests/src/cases/ticket.rs).

use ptx_sync::{Atomic, Gpu, Ordering::*, TicketLock};

/// Every thread takes the lock `iters` times. Inside, the holder writes its ticket into
/// `log[count]` and bumps `count` (the lock's data, a plain `u32`), and the holder probe.
/// FIFO order means `log[i] == i` for every `i`. `stats`: [0] holders now, [32] most holders
/// ever seen, [64] critical sections run.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn ticket_fifo(
    lock: *mut TicketLock<u32, Gpu>,
    log: *mut u32,
    stats: *mut u32,
    iters: u32,
) {
    let lock = TicketLock::from_ptr(lock);
    let holders = Atomic::<u32, Gpu>::from_ptr(stats);
    let most = Atomic::<u32, Gpu>::from_ptr(stats.add(32));
    let passes = Atomic::<u32, Gpu>::from_ptr(stats.add(64));
    for _ in 0..iters {
        let mut g = lock.lock();
        most.fetch_max(holders.fetch_add(1, Relaxed) + 1, Relaxed);
        // Plain (non-atomic) accesses: only mutual exclusion in ticket order keeps them exact.
        let i = *g;
        *log.add(i as usize) = g.ticket();
        *g = i + 1;
        passes.fetch_add(1, Relaxed);
        holders.fetch_sub(1, Relaxed);
    }
}
