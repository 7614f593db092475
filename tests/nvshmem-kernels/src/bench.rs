//! The NVSHMEM benchmarks' Rust side (bench/src/nvshmem.rs runs them; bench/cpp/nvshmem.cu
//! holds the same kernels in CUDA C++, for the side-by-side rows). Each times itself with
//! `%globaltimer` and writes nanoseconds to `out`.

use ptx_sync::clock::Instant;
use ptx_sync::nvshmem::{self, Cmp, SignalOp, Symmetric};
use ptx_sync::wait::Spin;
use ptx_sync::{Atomic, Barrier, Gpu, Ordering::Relaxed, Sys};

/// Ping-pong between PE 0 and PE 1 (one thread each): PE 0 puts one word with its signal
/// (`put_signal`, `SignalOp::Set` to the round), PE 1 waits for it and answers the same way.
/// PE 0 writes the total time to `out[0]`; per round trip: `out[0] / rounds`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_pingpong(
    data: Symmetric<u64>,
    sig: Symmetric<u64>,
    rounds: u32,
    out: *mut u64,
) {
    let me = nvshmem::my_pe();
    if me > 1 {
        return;
    }
    let start = Instant::now();
    for r in 0..rounds {
        let v = r as u64 + 1;
        // SAFETY: word 1 of this PE's copy is the source; word 0 of the peer's the target.
        unsafe {
            if me == 0 {
                data.as_ptr().add(1).write(v);
                nvshmem::put_signal(data, data.as_ptr().add(1), 1, sig, v, SignalOp::Set, 1);
                nvshmem::signal_wait_until(sig, Cmp::Ge, v);
            } else {
                nvshmem::signal_wait_until(sig, Cmp::Ge, v);
                data.as_ptr().add(1).write(v);
                nvshmem::put_signal(data, data.as_ptr().add(1), 1, sig, v, SignalOp::Set, 0);
            }
        }
    }
    if me == 0 {
        unsafe { out.write(Instant::now().duration_since(start).as_nanos() as u64) };
    }
}

/// `rounds` calls of `barrier_all` by one thread per PE; `out[0]` = the time.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_barrier_all(rounds: u32, out: *mut u64) {
    let start = Instant::now();
    for _ in 0..rounds {
        nvshmem::barrier_all();
    }
    unsafe { out.write(Instant::now().duration_since(start).as_nanos() as u64) };
}

/// `rounds` phases of ptx-sync's `Barrier<Sys>` in PE 0's memory (word 0 of `buf`, armed by
/// PE 0's host for `n_pes` arrivals), reached through `ptr(0)`, one thread per PE; `out[0]` =
/// the time, `out[1]` = 1 where `ptr(0)` was `None`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_sys_barrier(buf: Symmetric<u64>, rounds: u32, out: *mut u64) {
    let Some(p) = buf.ptr(0) else {
        unsafe { out.add(1).write(1) };
        return;
    };
    // SAFETY: PE 0's host wrote barrier::init_word(n_pes) there before the launch.
    let bar = unsafe { Barrier::<Sys>::from_ptr(p) };
    let start = Instant::now();
    for _ in 0..rounds {
        bar.arrive_and_wait();
    }
    unsafe { out.write(Instant::now().duration_since(start).as_nanos() as u64) };
}

/// [`nvb_sys_barrier`] with the `Spin` backoff (back-to-back polls, no `nanosleep`): one waiter
/// per GPU has nobody to yield to, and each poll of the peer's word is an NVLink round trip.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_sys_barrier_spin(
    buf: Symmetric<u64>,
    rounds: u32,
    out: *mut u64,
) {
    let Some(p) = buf.ptr(0) else {
        unsafe { out.add(1).write(1) };
        return;
    };
    // SAFETY: as in nvb_sys_barrier.
    let bar = unsafe { Barrier::<Sys, Spin>::from_ptr(p) };
    let start = Instant::now();
    for _ in 0..rounds {
        bar.arrive_and_wait();
    }
    unsafe { out.write(Instant::now().duration_since(start).as_nanos() as u64) };
}

/// Every thread adds 1 to word 0 of the next PE `iters` times (`atomic_add`), then `quiet`.
/// `out[0]` / `out[1]`: the earliest start and latest end over the grid (ns), for the
/// throughput; the host checks every PE's word afterwards.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_atomic_add(
    counter: Symmetric<u64>,
    iters: u32,
    out: *mut u64,
) {
    let peer = (nvshmem::my_pe() + 1) % nvshmem::n_pes();
    let start = Instant::now();
    for _ in 0..iters {
        unsafe { nvshmem::atomic_add(counter, 1u64, peer) };
    }
    nvshmem::quiet();
    let end = Instant::now();
    // SAFETY: out[0] starts at u64::MAX and out[1] at 0 (the host's upload).
    unsafe {
        Atomic::<u64, Gpu>::from_ptr(out).fetch_min(start.as_nanos(), Relaxed);
        Atomic::<u64, Gpu>::from_ptr(out.add(1)).fetch_max(end.as_nanos(), Relaxed);
    }
}

/// What one phase of a barrier in PE 0's memory costs PE 1, piece by piece: `rounds` dependent
/// `atom.acq_rel.sys.add`s on PE 0's word (each waits for the one before: its operand is the
/// previous result times `zero`, plus 1), then `rounds` dependent `ld.acquire.sys` loads of it
/// (the address depends on the previous value the same way), both through `ptr(0)`, one thread
/// of PE 1. `zero` is 0, passed at run time so the compiler cannot drop the dependency.
/// The two times (ns) go to words 8 and 9 of PE 0's copy (so PE 0's host reports them), and
/// `out[2]` = 1 where `ptr(0)` was `None`. PE 0 does nothing.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nvb_link_round_trips(
    buf: Symmetric<u64>,
    rounds: u32,
    zero: u64,
    out: *mut u64,
) {
    if nvshmem::my_pe() != 1 {
        return;
    }
    let Some(p) = buf.ptr(0) else {
        unsafe { out.add(2).write(1) };
        return;
    };
    use ptx_sync::Ordering::{AcqRel, Acquire};
    let start = Instant::now();
    let mut v = 0u64;
    for _ in 0..rounds {
        // SAFETY: word 0 of PE 0's copy, which nothing else touches during this kernel.
        v = unsafe { Atomic::<u64, Sys>::from_ptr(p) }.fetch_add(v.wrapping_mul(zero) + 1, AcqRel);
    }
    let atomics = Instant::now();
    for _ in 0..rounds {
        // SAFETY: `v * zero` is 0: still word 0.
        let at = unsafe { p.add(v.wrapping_mul(zero) as usize) };
        v = unsafe { Atomic::<u64, Sys>::from_ptr(at) }.load(Acquire);
    }
    let loads = Instant::now();
    unsafe {
        p.add(8)
            .write(atomics.duration_since(start).as_nanos() as u64);
        p.add(9)
            .write(loads.duration_since(atomics).as_nanos() as u64);
        // Keeps the chain's result alive.
        out.add(3).write(v);
    }
}
