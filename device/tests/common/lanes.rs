//! Lanes of an emulated launch (`ptx_sync::warp::emulation`), numbered as the emulation
//! numbers them, for tests that recompute on their own what each lane should see.

use ptx_sync::warp::emulation::Thread;

/// Thread `id` of a launch of `threads`, as `emulation::launch` numbers it.
pub fn thread(threads: u32, id: u32) -> Thread {
    let (warp, lane) = (id / 32, id % 32);
    let n = (threads - warp * 32).min(32);
    Thread {
        id,
        warp,
        lane,
        warp_mask: if n == 32 { u32::MAX } else { (1 << n) - 1 },
    }
}
