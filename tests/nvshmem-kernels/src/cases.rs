//! NVSHMEM's own protocols: a ring of `put_signal` messages, an all-to-all with counted
//! signals, barrier rounds over remote atomic counters, a lock made of NVSHMEM's remote
//! atomics, the data-then-signal handoff litmus, and a kernel that waits for a PE that never
//! comes. Each adds its counts to `stats` ([`plan::stat`]) in this PE's device memory.

use crate::plan::{self, stat, tag};
use ptx_sync::clock::Instant;
use ptx_sync::nvshmem::{self, Cmp, SignalOp, Symmetric};
use ptx_sync::{block, Atomic, Gpu, Ordering::Relaxed};

/// `stats[i] += v` (`red.relaxed.gpu.add`: read after the kernel).
#[inline(always)]
pub(crate) unsafe fn add(stats: *mut u32, i: usize, v: u32) {
    if v != 0 {
        // SAFETY: the caller's `stats` holds plan::stat::LEN words.
        unsafe { Atomic::<u32, Gpu>::from_ptr(stats.add(i)) }.red_add(v, Relaxed);
    }
}

/// Checks `words` received words against PE `from`'s round-`r` payload (block-strided);
/// returns (right, wrong).
#[inline(always)]
unsafe fn check(recv: *const u64, from: u32, r: u32, words: u32) -> (u32, u32) {
    let (mut ok, mut wrong) = (0, 0);
    let mut i = block::thread_x();
    while i < words {
        // SAFETY: inside the receive area; read after the signal that published it.
        if unsafe { recv.add(i as usize).read_volatile() } == tag(from, r, i) {
            ok += 1;
        } else {
            wrong += 1;
        }
        i += block::dim_x();
    }
    (ok, wrong)
}

/// Thread 0 waits until `sig >= value`; then the block barrier hands what it observed to
/// every thread (bar.sync is cumulative: the data the signal published is visible to all).
#[inline(always)]
unsafe fn block_wait(sig: Symmetric<u64>, value: u64) {
    if block::thread_x() == 0 {
        // SAFETY: `sig` is a symmetric word of this kernel's protocol.
        unsafe { nvshmem::signal_wait_until(sig, Cmp::Ge, value) };
    }
    block::sync();
}

/// The ring ([`plan::ring`]): one block per PE. `stats` = words right, wrong, rounds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_ring(
    buf: Symmetric<u64>,
    sig: Symmetric<u64>,
    words: u32,
    rounds: u32,
    stats: *mut u32,
) {
    let (me, n) = (nvshmem::my_pe(), nvshmem::n_pes());
    let (next, prev) = ((me + 1) % n, (me + n - 1) % n);
    let t = block::thread_x();
    // SAFETY: `buf` holds plan::ring::len(words) symmetric words on every PE.
    let (recv, send) = (buf, unsafe { buf.add(words as usize) });
    let (mut ok, mut wrong) = (0, 0);
    for r in 0..rounds {
        if me != 0 {
            unsafe { block_wait(sig, r as u64 + 1) };
            let (o, w) = unsafe { check(recv.as_ptr(), prev, r, words) };
            ok += o;
            wrong += w;
        }
        let mut i = t;
        while i < words {
            unsafe { send.as_ptr().add(i as usize).write(tag(me, r, i)) };
            i += block::dim_x();
        }
        block::sync();
        // The block form: every thread calls it with the same arguments; it returns once the
        // source may be reused. The signal add lands after the data (put_signal's guarantee).
        unsafe {
            nvshmem::put_signal_block(
                recv,
                send.as_ptr(),
                words as usize,
                sig,
                1,
                SignalOp::Add,
                next,
            )
        };
        if me == 0 {
            unsafe { block_wait(sig, r as u64 + 1) };
            let (o, w) = unsafe { check(recv.as_ptr(), prev, r, words) };
            ok += o;
            wrong += w;
        }
        // Every thread has checked round r before thread 0 waits for round r + 1's signal.
        block::sync();
    }
    unsafe {
        add(stats, stat::OK, ok);
        add(stats, stat::WRONG, wrong);
        if t == 0 {
            add(stats, stat::ROUNDS, rounds);
        }
    }
}

/// All-to-all ([`plan::all_to_all`]): one block per PE. `stats` = words right, wrong, rounds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_all_to_all(
    buf: Symmetric<u64>,
    sig: Symmetric<u64>,
    words: u32,
    rounds: u32,
    stats: *mut u32,
) {
    let (me, n) = (nvshmem::my_pe(), nvshmem::n_pes());
    let t = block::thread_x();
    let w = words as usize;
    // SAFETY: `buf` holds plan::all_to_all::len(words, n) symmetric words on every PE.
    let send = unsafe { buf.add(n as usize * w) };
    let (mut ok, mut wrong) = (0, 0);
    for r in 0..rounds {
        let mut i = t;
        while i < words {
            unsafe { send.as_ptr().add(i as usize).write(tag(me, r, i)) };
            i += block::dim_x();
        }
        block::sync();
        for q in (0..n).filter(|&q| q != me) {
            unsafe {
                nvshmem::put_signal_block(
                    buf.add(me as usize * w),
                    send.as_ptr(),
                    w,
                    sig,
                    1,
                    SignalOp::Add,
                    q,
                )
            };
        }
        unsafe { block_wait(sig, (n as u64 - 1) * (r as u64 + 1)) };
        for q in (0..n).filter(|&q| q != me) {
            let (o, x) = unsafe { check(buf.as_ptr().add(q as usize * w), q, r, words) };
            ok += o;
            wrong += x;
        }
        // Every PE has checked round r before anyone puts round r + 1 into its slots.
        block::sync();
        nvshmem::sync_all_block();
    }
    unsafe {
        add(stats, stat::OK, ok);
        add(stats, stat::WRONG, wrong);
        if t == 0 {
            add(stats, stat::ROUNDS, rounds);
        }
    }
}

/// Barrier rounds over remote atomic counters ([`plan::rounds`]): one block per PE; word 0
/// of `counter` on every PE. `stats` = counter reads right (local + one per peer per thread
/// 0), wrong, rounds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_barrier_atomics(
    counter: Symmetric<u64>,
    rounds: u32,
    stats: *mut u32,
) {
    let (me, n) = (nvshmem::my_pe(), nvshmem::n_pes());
    let t = block::thread_x();
    let (mut ok, mut wrong) = (0, 0);
    for r in 0..rounds {
        for q in 0..n {
            // A different first target per thread, so not every thread hits one PE at once.
            unsafe { nvshmem::atomic_add(counter, 1u64, (q + me + t) % n) };
        }
        // barrier_all completes every PE's outstanding AMOs (it includes quiet) before
        // anyone leaves it.
        block::sync();
        nvshmem::barrier_all_block();
        if t == 0 {
            let want = plan::rounds::expected(n, block::dim_x(), r);
            // SAFETY: word 0 of this PE's copy; no AMO targets it until the next barrier.
            let local = unsafe { counter.as_ptr().read_volatile() };
            if local == want {
                ok += 1
            } else {
                wrong += 1
            }
            for q in (0..n).filter(|&q| q != me) {
                if unsafe { nvshmem::atomic_fetch(counter, q) } == want {
                    ok += 1
                } else {
                    wrong += 1
                }
            }
        }
        // Every PE has read round r's value before anyone adds for round r + 1.
        block::sync();
        nvshmem::barrier_all_block();
    }
    unsafe {
        add(stats, stat::OK, ok);
        add(stats, stat::WRONG, wrong);
        if t == 0 {
            add(stats, stat::ROUNDS, rounds);
        }
    }
}

/// A spin lock made of NVSHMEM's remote atomics over PE 0's memory ([`plan::lock`]): every
/// thread of every PE takes it `iters` times and increments the counter it protects with a
/// plain remote read and write (`g`, then `p`): a lost update shows as a final count below
/// the total. Acquire: `atomic_compare_swap` 0 -> 1 until it returns 0. Release: `quiet`
/// (the counter's `p` is complete, visible at PE 0) then `atomic_set` 0. `stats` = lock
/// acquisitions; PE 0's thread 0 of block 0 adds nothing here: the host reads the counter.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_amo_lock(buf: Symmetric<u64>, iters: u32, stats: *mut u32) {
    use plan::lock::{COUNTER, LOCK};
    let (lock, counter) = unsafe { (buf.add(LOCK), buf.add(COUNTER)) };
    let mut taken = 0;
    for _ in 0..iters {
        while unsafe { nvshmem::atomic_compare_swap(lock, 0u64, 1, 0) } != 0 {}
        unsafe {
            let v = nvshmem::g(counter, 0);
            nvshmem::p(counter, v + 1, 0);
        }
        nvshmem::quiet();
        unsafe { nvshmem::atomic_set(lock, 0u64, 0) };
        taken += 1;
    }
    unsafe { add(stats, stat::OK, taken) };
}

/// The handoff litmus ([`plan::handoff`]), `rounds` rounds of `words` words, PE 0 to PE 1.
/// `data` and `sig` (word 0: the data signal on PE 1, word 16: the ack on PE 0) symmetric.
/// One thread per PE. PE 1's `stats` = words right, stale, rounds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_handoff(
    data: Symmetric<u64>,
    sig: Symmetric<u64>,
    variant: u32,
    words: u32,
    rounds: u32,
    stats: *mut u32,
) {
    use plan::handoff::Variant;
    let me = nvshmem::my_pe();
    let (data_sig, ack) = (sig, unsafe { sig.add(16) });
    let (mut ok, mut stale) = (0, 0);
    for r in 0..rounds {
        let value = r as u64 + 1;
        if me == 0 {
            let v = variant;
            if v == Variant::SignalFirst as u32 {
                unsafe { nvshmem::signal_op(data_sig, value, SignalOp::Set, 1) };
                // Over NVLink a word stored right after the signal lands before PE 1 has even
                // seen the signal (0 stale of 128,000 without this pause, on two H100s): the
                // pause holds the data back long enough for the control to show what a
                // signal that overtakes its data does to the reader.
                let until = Instant::now().as_nanos() + SIGNAL_FIRST_PAUSE_NS;
                while Instant::now().as_nanos() < until {}
            }
            if v == Variant::PutSignal as u32 {
                // The payload staged in this PE's own copy, then one put_signal.
                for i in 0..words {
                    unsafe { data.as_ptr().add(i as usize).write(tag(0, r, i)) };
                }
                unsafe {
                    nvshmem::put_signal(
                        data,
                        data.as_ptr(),
                        words as usize,
                        data_sig,
                        value,
                        SignalOp::Set,
                        1,
                    )
                };
            } else {
                for i in 0..words {
                    unsafe { nvshmem::p(data.add(i as usize), tag(0, r, i), 1) };
                }
                if v == Variant::PutFenceSignal as u32 {
                    nvshmem::fence();
                }
                if v != Variant::SignalFirst as u32 {
                    unsafe { nvshmem::signal_op(data_sig, value, SignalOp::Set, 1) };
                }
            }
            // PE 1 has read round r before round r + 1's data lands.
            unsafe { nvshmem::signal_wait_until(ack, Cmp::Ge, value) };
        } else if me == 1 {
            unsafe { nvshmem::signal_wait_until(data_sig, Cmp::Ge, value) };
            for i in 0..words {
                if unsafe { data.as_ptr().add(i as usize).read_volatile() } == tag(0, r, i) {
                    ok += 1;
                } else {
                    stale += 1;
                }
            }
            unsafe { nvshmem::signal_op(ack, value, SignalOp::Set, 0) };
        }
    }
    // The SignalFirst data of the last round may still be in flight: complete it.
    nvshmem::quiet();
    unsafe {
        add(stats, stat::OK, ok);
        add(stats, stat::WRONG, stale);
        add(stats, stat::ROUNDS, rounds);
    }
}

/// How long the `SignalFirst` control holds its data back after the signal.
const SIGNAL_FIRST_PAUSE_NS: u64 = 20_000;

/// Waits (thread 0) until `sig >= 1`: a signal that only a PE which has exited would send.
/// The host's watchdog ends it.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn nv_wait_forever(sig: Symmetric<u64>) {
    if block::thread_x() == 0 {
        unsafe { nvshmem::signal_wait_until(sig, Cmp::Ge, 1) };
    }
}
