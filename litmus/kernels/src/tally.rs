//! After each test launch: every instance's outcome into a histogram, on the GPU, and the
//! instance's words back to zero for the next launch (so the host copies 257 counters per
//! launch, not the outcomes).

use crate::launch::{bin, Launch, BINS, MAX_REGS, NO_FINAL};
use ptx_sync::{block, Atomic, Cta, Gpu, Ordering::Relaxed};

/// One thread per instance, `BINS * 4` bytes of dynamic shared memory per block.
/// `hist[bin] += count` (u64, accumulating over launches), `meet` reset to 0.
///
/// # Safety
/// The buffers of the test launch that just ran, and `hist` of `BINS` u64.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_tally(
    launch: *const Launch,
    mem: *mut u32,
    out: *mut u32,
    meet: *mut u32,
    hist: *mut u64,
) {
    let launch = *launch;
    let local = block::dynamic_shared_memory() as *mut u32;
    let (rank, threads) = (block::thread_rank(), block::dim_x());
    let mut k = rank;
    while k < BINS {
        *local.add(k as usize) = 0;
        k += threads;
    }
    block::sync();
    let i = block::rank() * threads + rank;
    if i == 0 {
        *meet = 0;
    }
    if i < launch.instances() {
        let mut values = [0u32; MAX_REGS as usize];
        let regs = out.add((i * MAX_REGS) as usize);
        let mut n = 0;
        while n < launch.regs as usize {
            values[n] = *regs.add(n);
            *regs.add(n) = 0;
            n += 1;
        }
        for f in launch.finals {
            if f != NO_FINAL {
                values[n] = *mem.add(launch.word(i, f) as usize);
                n += 1;
            }
        }
        let mut loc = 0;
        while loc < launch.locations {
            *mem.add(launch.word(i, loc) as usize) = 0;
            loc += 1;
        }
        Atomic::<u32, Cta>::from_ptr(local.add(bin(&values[..n]) as usize)).red_add(1, Relaxed);
    }
    block::sync();
    let mut k = rank;
    while k < BINS {
        let count = *local.add(k as usize);
        if count != 0 {
            Atomic::<u64, Gpu>::from_ptr(hist.add(k as usize)).red_add(count as u64, Relaxed);
        }
        k += threads;
    }
}
