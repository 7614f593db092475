//! Kernels of the multi-GPU cases (tests/src/cases/multi_gpu.rs): each is one GPU's half of a
//! `Sys`-scope protocol whose other half runs on the other GPU at the same time, on the same
//! words of portable pinned host memory or of one GPU's memory that the other reaches as a peer.
//! The protocols themselves are shared as source with the host side, whose unit tests run them
//! on threads: tests/src/cases/multi_gpu_plan.rs. Every kernel writes its counts to `stats` in
//! its own GPU's device memory; the host checks them exactly.

#[path = "../../src/cases/multi_gpu_plan.rs"]
#[allow(dead_code)] // the expected-count helpers are the host's
mod plan;

use plan::*;
use ptx_sync::{block, Atomic, Cta, Gpu, Ordering::*};

/// A CUDA block for the protocols: its `stop` word is the first word of the launch's dynamic
/// shared memory (launch with at least 4 bytes).
struct GpuBlock {
    stop: &'static Atomic<u32, Cta>,
}

impl GpuBlock {
    /// Zeroes the stop word (dynamic shared memory starts undefined) and makes that visible to
    /// the block before anyone uses it.
    #[inline(always)]
    unsafe fn new() -> GpuBlock {
        // SAFETY: the launch has at least 4 bytes of dynamic shared memory, 16-byte aligned.
        let stop = unsafe { Atomic::<u32, Cta>::from_ptr(block::dynamic_shared_memory().cast()) };
        if block::thread_x() == 0 {
            stop.store(0, Relaxed);
        }
        block::sync();
        GpuBlock { stop }
    }
}

impl Block for GpuBlock {
    #[inline(always)]
    fn thread(&self) -> u32 {
        block::thread_x()
    }
    #[inline(always)]
    fn threads(&self) -> u32 {
        block::dim_x()
    }
    #[inline(always)]
    fn sync(&self) {
        block::sync()
    }
    #[inline(always)]
    fn stop(&self) -> &Atomic<u32, Cta> {
        self.stop
    }
}

/// `stats[i] += v` in this GPU's memory (`red.relaxed.gpu.add`: counted after the kernel).
#[inline(always)]
unsafe fn add(stats: *mut u32, i: usize, v: u32) {
    if v != 0 {
        // SAFETY: the caller's `stats` holds word `i`.
        unsafe { Atomic::<u32, Gpu>::from_ptr(stats.add(i)) }.red_add(v, Relaxed);
    }
}

/// GPU 0: the sender of channel `blockIdx.x` (blocks of 32 threads, 4 bytes of dynamic shared
/// memory). `stats[2c]` = messages sent, `stats[2c + 1]` = timed-out waits for a free slot.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_mp_send(buf: *mut u32, msgs: u32, stats: *mut u32) {
    unsafe {
        let k = GpuBlock::new();
        let c = block::index_x();
        let s = mp_send(&k, buf.add(c as usize * mp::CHANNEL), c, msgs);
        if k.thread() == 0 {
            *stats.add(2 * c as usize) = s.sent;
            *stats.add(2 * c as usize + 1) = s.timeouts;
        }
    }
}

/// GPU 1: the receiver of channel `blockIdx.x`. `stats[5c..5c + 5]` = messages received,
/// payload words right, words wrong, sequence words past the expected message, timed-out waits.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_mp_receive(buf: *mut u32, msgs: u32, stats: *mut u32) {
    unsafe {
        let k = GpuBlock::new();
        let c = block::index_x();
        let r = mp_receive(&k, buf.add(c as usize * mp::CHANNEL), c, msgs);
        let base = 5 * c as usize;
        add(stats, base + 1, r.ok);
        add(stats, base + 2, r.wrong);
        if k.thread() == 0 {
            add(stats, base, r.received);
            add(stats, base + 3, r.wrong_seq);
            add(stats, base + 4, r.timeouts);
        }
    }
}

/// Both GPUs: block `first + blockIdx.x` of `blocks` (over both GPUs) runs the latch rounds
/// (cooperative launch: this GPU's blocks are all resident; 4 bytes of dynamic shared memory).
/// `stats[4b..4b + 4]` for this GPU's block b = words right, stale, 0, timed-out waits.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_latch_rounds(
    buf: *mut u32,
    first: u32,
    blocks: u32,
    rounds: u32,
    stats: *mut u32,
) {
    unsafe {
        let k = GpuBlock::new();
        let b = block::index_x();
        let r = latch_rounds(&k, buf, first + b, blocks, rounds);
        rounds_stats(stats, b, r);
    }
}

/// Both GPUs: block `first + blockIdx.x` of `blocks` runs the barrier phases (cooperative
/// launch; 4 bytes of dynamic shared memory). `stats[4b..4b + 4]` = words right, stale, wrong
/// phase counts, 0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_barrier_phases(
    buf: *mut u32,
    first: u32,
    blocks: u32,
    phases: u32,
    stats: *mut u32,
) {
    unsafe {
        // The barrier waits without a stop word; GpuBlock only zeroes it.
        let k = GpuBlock::new();
        let b = block::index_x();
        let r = barrier_phases(&k, buf, first + b, blocks, phases);
        rounds_stats(stats, b, r);
    }
}

#[inline(always)]
unsafe fn rounds_stats(stats: *mut u32, b: u32, r: Rounds) {
    let base = 4 * b as usize;
    unsafe {
        add(stats, base, r.ok);
        add(stats, base + 1, r.stale);
        add(stats, base + 2, r.wrong_phase);
        add(stats, base + 3, r.timeouts);
    }
}

/// GPU 0: the ping side of channel `blockIdx.x` (blocks of one thread). `stats[3c..3c + 3]` =
/// replies right, wrong, timed-out acquires.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_pp_ping(buf: *mut u32, rounds: u32, stats: *mut u32) {
    unsafe {
        let c = block::index_x();
        let h = pp_ping(buf.add(c as usize * pp::CHANNEL), c, rounds);
        handoff_stats(stats, c, h);
    }
}

/// GPU 1: the pong side of channel `blockIdx.x` (blocks of one thread). `stats[3c..3c + 3]` =
/// messages right, wrong, timed-out acquires.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn multi_pp_pong(buf: *mut u32, rounds: u32, stats: *mut u32) {
    unsafe {
        let c = block::index_x();
        let h = pp_pong(buf.add(c as usize * pp::CHANNEL), c, rounds);
        handoff_stats(stats, c, h);
    }
}

#[inline(always)]
unsafe fn handoff_stats(stats: *mut u32, c: u32, h: Handoffs) {
    let base = 3 * c as usize;
    unsafe {
        *stats.add(base) = h.ok;
        *stats.add(base + 1) = h.wrong;
        *stats.add(base + 2) = h.timeouts;
    }
}
