//! A ring all-reduce across PEs (one GPU each) with NVSHMEM's signals: the sum, element by
//! element, of every PE's `data`, left in every PE's `data`.
//!
//! With `n` PEs the vector is cut into `n` chunks. Reduce-scatter: in step `s` (of `n - 1`)
//! PE `p` sends chunk `p - s` to the next PE with `put_signal_block` (the data, then a signal
//! add of 1 that NVSHMEM applies only after the data), waits for the signal from the previous
//! PE, and adds what arrived to its chunk `p - s - 1`; after the last step PE `p` holds chunk
//! `p + 1` fully summed. All-gather: `n - 1` more steps pass the summed chunks around. Every
//! step has its own receive slot, so no put overwrites a slot its reader still needs, and the
//! signal counts steps, so one word serves the whole exchange.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
use ptx_sync::nvshmem::{self, Cmp, SignalOp, Symmetric};

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    ptx_sync::report_panic(info)
}

/// One block per PE, every PE at once (a cooperative launch). `data`: `len` words, the input
/// and the result; `recv`: `2 * (n - 1) * (len / n)` words; `sig`: one word, zero at the start.
/// `len` must be a multiple of the number of PEs.
///
/// # Safety
/// All three are symmetric allocations of those sizes on every PE, used by nothing else while
/// the kernel runs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn ring_allreduce(
    data: Symmetric<u64>,
    recv: Symmetric<u64>,
    sig: Symmetric<u64>,
    len: u32,
) {
    let (p, n) = (nvshmem::my_pe(), nvshmem::n_pes());
    let next = (p + 1) % n;
    let chunk = (len / n) as usize;
    let (t, threads) = unsafe { (_thread_idx_x() as usize, _block_dim_x() as usize) };
    let at = |c: u32| unsafe { data.as_ptr().add(c as usize % n as usize * chunk) };
    let slot = |s: u32| unsafe { recv.add(s as usize * chunk) };
    for step in 0..2 * (n - 1) {
        let reduce = step < n - 1;
        // Reduce-scatter sends chunk p - s; all-gather sends chunk p + 1 - s (fully summed).
        let s = if reduce { step } else { step - (n - 1) };
        let send = if reduce { p + n - s } else { p + 1 + n - s };
        // Every thread of the block calls the block form with the same arguments.
        unsafe {
            nvshmem::put_signal_block(slot(step), at(send), chunk, sig, 1, SignalOp::Add, next)
        };
        if t == 0 {
            // The signal from the previous PE counts its steps: step `step` has arrived once
            // it reaches step + 1, and NVSHMEM makes the data visible before the signal.
            unsafe { nvshmem::signal_wait_until(sig, Cmp::Ge, step as u64 + 1) };
        }
        // Thread 0's observation of the signal reaches every thread of the block.
        unsafe { _syncthreads() };
        let (into, from) = (
            at(if reduce { p + n - s - 1 } else { p + n - s }),
            slot(step).as_ptr(),
        );
        let mut i = t;
        while i < chunk {
            unsafe {
                let v = from.add(i).read_volatile();
                *into.add(i) = if reduce { *into.add(i) + v } else { v };
            }
            i += threads;
        }
        // This step's chunk is written before the next step sends it.
        unsafe { _syncthreads() };
    }
}
