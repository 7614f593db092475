//! Kernels of the ticket lock tests (tests/src/cases/ticket.rs).

use crate::Probe;
use ptx_sync::{Gpu, TicketLock};

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
    let probe = Probe::new(stats);
    for _ in 0..iters {
        let mut g = lock.lock();
        probe.enter();
        // Plain (non-atomic) accesses: only mutual exclusion in ticket order keeps them exact.
        let i = *g;
        *log.add(i as usize) = g.ticket();
        *g = i + 1;
        probe.leave();
    }
}
