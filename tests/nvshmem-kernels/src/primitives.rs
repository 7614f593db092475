//! ptx-sync's own `Sys`-scope primitives on PE 0's symmetric memory, reached from every PE
//! through `Symmetric::ptr(0)` (NVLink or PCIe peer mappings): the multi-GPU suite's latch
//! rounds and barrier phases (tests/src/cases/multi_gpu_plan.rs, the same protocols), and a
//! `Mutex<u64, Sys>` protecting a counter.

use crate::cases::add;
use crate::multi_gpu_plan::{barrier_phases, latch_rounds, Block, Rounds};
use crate::plan::stat;
use ptx_sync::nvshmem::{self, Symmetric};
use ptx_sync::{block, Atomic, Cta, Mutex, Ordering::Relaxed, Sys};

/// A CUDA block for the protocols: its `stop` word is the first word of the launch's dynamic
/// shared memory (launch with at least 4 bytes).
struct GpuBlock {
    stop: &'static Atomic<u32, Cta>,
}

impl GpuBlock {
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

/// PE 0's copy of `buf` as this PE reaches it with loads, stores and atomics, or `None`
/// (counted as a wrong word by the caller, and the host says the path is missing).
#[inline(always)]
fn pe0<T>(buf: Symmetric<T>) -> Option<*mut T> {
    buf.ptr(0)
}

#[inline(always)]
unsafe fn rounds_stats(stats: *mut u32, r: Rounds) {
    unsafe {
        add(stats, stat::OK, r.ok);
        add(stats, stat::WRONG, r.stale + r.wrong_phase);
        add(stats, stat::EXTRA, r.timeouts);
    }
}

/// Every PE: block `my_pe * gridDim.x + blockIdx.x` of `n_pes * gridDim.x` runs the latch
/// rounds on PE 0's `buf` (u32 words, multi_gpu_plan::latch layout, armed by PE 0's host).
/// 4 bytes of dynamic shared memory. `stats` = words right, stale, 0, timed-out waits;
/// `stats[ROUNDS]` = 1 where `ptr(0)` was `None`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_latch_rounds(
    buf: Symmetric<u32>,
    rounds: u32,
    stats: *mut u32,
) {
    let Some(p) = pe0(buf) else {
        if block::thread_x() == 0 {
            unsafe { add(stats, stat::ROUNDS, 1) };
        }
        return;
    };
    unsafe {
        let k = GpuBlock::new();
        let blocks = nvshmem::n_pes() * block::grid_x();
        let me = nvshmem::my_pe() * block::grid_x() + block::index_x();
        let r = latch_rounds(&k, p, me, blocks, rounds);
        rounds_stats(stats, r);
    }
}

/// As [`nv_latch_rounds`] for the barrier phases (multi_gpu_plan::barrier layout: the
/// `Barrier<Sys>` word at 0 initialised by PE 0's host, the completion's count at word 32).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_barrier_phases(
    buf: Symmetric<u32>,
    phases: u32,
    stats: *mut u32,
) {
    let Some(p) = pe0(buf) else {
        if block::thread_x() == 0 {
            unsafe { add(stats, stat::ROUNDS, 1) };
        }
        return;
    };
    unsafe {
        let k = GpuBlock::new();
        let blocks = nvshmem::n_pes() * block::grid_x();
        let me = nvshmem::my_pe() * block::grid_x() + block::index_x();
        let r = barrier_phases(&k, p, me, blocks, phases);
        rounds_stats(stats, r);
    }
}

/// Every thread of every PE takes the `Mutex<u64, Sys>` at word 0 of PE 0's `buf` (zeroed:
/// unlocked, 0) `iters` times and increments its value. `stats[OK]` = acquisitions;
/// `stats[ROUNDS]` = 1 where `ptr(0)` was `None`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_sys_mutex(buf: Symmetric<u64>, iters: u32, stats: *mut u32) {
    let Some(p) = pe0(buf) else {
        if block::thread_x() == 0 {
            unsafe { add(stats, stat::ROUNDS, 1) };
        }
        return;
    };
    // SAFETY: PE 0's host zeroed the buffer: an unlocked Mutex holding 0; every PE reaches
    // it only through this mutex while the kernel runs.
    let m = unsafe { Mutex::<u64, Sys>::from_ptr(p.cast()) };
    for _ in 0..iters {
        *m.lock() += 1;
    }
    unsafe { add(stats, stat::OK, iters) };
}
