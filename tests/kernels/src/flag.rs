//! Kernels of tests/src/cases/flag.rs: `AtomicFlag` as a lock, `AtomicPtr` publishing a
//! pointer between blocks, `AtomicBool` flags and operations.

use core::time::Duration;
use ptx_sync::block::{dim_x, grid_x, index_x, thread_x};
use ptx_sync::{block, Atomic, AtomicBool, AtomicFlag, AtomicPtr, Gpu, Ordering::*};

/// Takes `flag` as a spin lock: `atom.acquire.gpu.exch` of 1 until it returns 0, polling
/// (`wait`, `ld.relaxed`) while it is set.
#[inline(always)]
fn lock(flag: &AtomicFlag<Gpu>) {
    while flag.test_and_set(Acquire) {
        flag.wait(true, Relaxed);
    }
}

/// Every thread, `iters` times: takes its group's flag (`flags[1 + tid / 64]`) and bumps the
/// group's plain counter (`counters[1 + tid / 64]`), then takes the grid's flag (`flags[0]`)
/// and bumps `counters[0]`, with a holder probe (`stats[0]`: holders now, `stats[32]`: most
/// holders seen). The counters are plain `u32` read-modify-writes: only the lock keeps them
/// exact.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn flag_lock_counter(
    flags: *mut u32,
    counters: *mut u32,
    stats: *mut u32,
    iters: u32,
) {
    let group = 1 + crate::global_id() as usize / 64;
    let all = AtomicFlag::<Gpu>::from_ptr(flags);
    let mine = AtomicFlag::<Gpu>::from_ptr(flags.add(group));
    let holders = Atomic::<u32, Gpu>::from_ptr(stats);
    let most = Atomic::<u32, Gpu>::from_ptr(stats.add(32));
    for _ in 0..iters {
        lock(mine);
        *counters.add(group) += 1;
        mine.clear(Release);
        mine.notify_one();

        lock(all);
        most.fetch_max(holders.fetch_add(1, Relaxed) + 1, Relaxed);
        *counters += 1;
        holders.fetch_sub(1, Relaxed);
        all.clear(Release);
        all.notify_all();
    }
}

/// Block `b` fills its slice `data[b * n..][..n]` (`n` = threads per block: thread `t` writes
/// `b * 1000 + t`), `block::sync()`, then its thread 0 publishes the slice's address in
/// `slots[b]` (`st.release.gpu.b64`), races for `winner` (`compare_exchange` from null) and
/// swaps its address into `ring`. Every thread of block `b` then waits for `slots[b + 1]`
/// (`ld.acquire.gpu.b64`, at most `ns`) and checks its element through the pointer.
///
/// `out[b * 4..]`: mismatches seen (pointer or element), 1 if this block won the CAS, the
/// winner's block + 1 as this block then saw it, the block + 1 whose address its swap took out
/// of `ring` (0: null). `out[4 * blocks]`: waits that timed out.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_ptr_publish(
    slots: *mut *mut u32,
    data: *mut u32,
    winner: *mut *mut u32,
    ring: *mut *mut u32,
    out: *mut u32,
    ns: u64,
) {
    let (b, t, n, blocks) = (index_x(), thread_x(), dim_x(), grid_x());
    let index_of = |p: *mut u32| {
        if p.is_null() {
            0
        } else {
            (p.offset_from(data) as usize / n as usize) as u32 + 1
        }
    };
    let mine = data.add((b * n) as usize);
    *mine.add(t as usize) = b * 1000 + t;
    // The block's writes happen before thread 0's release (bar.sync, then st.release).
    block::sync();
    let o = out.add(4 * b as usize);
    if t == 0 {
        AtomicPtr::<u32, Gpu>::from_ptr(slots.add(b as usize)).store(mine, Release);
        let w = AtomicPtr::<u32, Gpu>::from_ptr(winner);
        let won = w
            .compare_exchange(core::ptr::null_mut(), mine, AcqRel, Acquire)
            .is_ok();
        *o.add(1) = won as u32;
        *o.add(2) = index_of(w.load(Acquire));
        *o.add(3) = index_of(AtomicPtr::<u32, Gpu>::from_ptr(ring).swap(mine, AcqRel));
    }
    let src = (b + 1) % blocks;
    let slot = AtomicPtr::<u32, Gpu>::from_ptr(slots.add(src as usize));
    match slot.wait_until_for(Duration::from_nanos(ns), Acquire, |p| !p.is_null()) {
        Ok(p) => {
            let bad = (p != data.add((src * n) as usize)) as u32
                + (*p.add(t as usize) != src * 1000 + t) as u32;
            Atomic::<u32, Gpu>::from_ptr(o).fetch_add(bad, Relaxed);
        }
        Err(_) => {
            Atomic::<u32, Gpu>::from_ptr(out.add(4 * blocks as usize)).fetch_add(1, Relaxed);
        }
    }
}

/// `AtomicBool` at `Gpu` scope. `words`: [0] `elected` (every thread's `fetch_or(true)`),
/// [1] threads that found it false, [2] `toggle` (every thread's `fetch_not`), [3] threads that
/// found it true, [4] payload mismatches, [5] timed-out waits, [64..96] the truth-table words,
/// [128 + b] block `b`'s payload, [128 + blocks + b] its `ready` flag.
///
/// Block 0's first 32 threads run the truth table: thread `i` has its own word, stores
/// `i & 1` into it, applies operation `i / 4` (and, or, xor, nand, not, swap,
/// `compare_exchange(true, ..)`, `fetch_update(|_| Some(!operand))`) with operand `i >> 1 & 1`,
/// and writes `old | new << 1` to `table[i]`. Thread 0 of block `b` writes its payload and
/// sets `ready[b]` (`st.release`), then waits for `ready[b + 1]` (`ld.acquire`, at most `ns`)
/// and checks that block's payload.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_bool_flags(words: *mut u32, table: *mut u32, ns: u64) {
    let (b, t, blocks) = (index_x(), thread_x(), grid_x());
    let w = |i: usize| Atomic::<u32, Gpu>::from_ptr(words.add(i));
    let flag = |i: usize| AtomicBool::<Gpu>::from_ptr(words.add(i));
    if b == 0 && t < 32 {
        let mine = flag(64 + t as usize);
        let (start, operand) = (t & 1 != 0, t >> 1 & 1 != 0);
        mine.store(start, Relaxed);
        let old = match t / 4 {
            0 => mine.fetch_and(operand, AcqRel),
            1 => mine.fetch_or(operand, AcqRel),
            2 => mine.fetch_xor(operand, AcqRel),
            3 => mine.fetch_nand(operand, AcqRel),
            4 => mine.fetch_not(SeqCst),
            5 => mine.swap(operand, Release),
            6 => mine
                .compare_exchange(true, operand, AcqRel, Acquire)
                .unwrap_or_else(|x| x),
            _ => mine
                .fetch_update(AcqRel, Acquire, |_| Some(!operand))
                .unwrap_or_else(|x| x),
        };
        let new = mine.load(Acquire);
        *table.add(t as usize) = old as u32 | (new as u32) << 1;
    }
    if !flag(0).fetch_or(true, AcqRel) {
        w(1).fetch_add(1, Relaxed);
    }
    w(3).fetch_add(flag(2).fetch_not(AcqRel) as u32, Relaxed);
    if t == 0 {
        let payload = |i: u32| words.add(128 + i as usize);
        *payload(b) = b * 7 + 1;
        flag(128 + (blocks + b) as usize).store(true, Release);
        flag(128 + (blocks + b) as usize).notify_all();
        let src = (b + 1) % blocks;
        match flag(128 + (blocks + src) as usize).wait_until_for(
            Duration::from_nanos(ns),
            Acquire,
            |r| r,
        ) {
            Ok(_) => w(4).fetch_add((*payload(src) != src * 7 + 1) as u32, Relaxed),
            Err(_) => w(5).fetch_add(1, Relaxed),
        };
    }
}
