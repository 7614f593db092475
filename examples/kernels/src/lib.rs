//! The kernels of the ptx-sync examples. This crate only builds for `nvptx64-nvidia-cuda`
//! (`../app/build.rs` builds it with `ptx_sync_build`); the app embeds the PTX and runs each
//! kernel, checking its result exactly.
//!
//! Every kernel takes raw pointers to memory the host allocated (`gpu.zeros`, `gpu.upload`)
//! and views it through ptx-sync (`Atomic::from_ptr`, `Mutex::from_ptr`,
//! `GridBarrier::from_ptr`): primitives live in global memory, never in a kernel's locals.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use ptx_sync::block::{dim_x, grid_x, index_x, thread_x};
use ptx_sync::{Atomic, Gpu, GridBarrier, Mutex, Ordering::*};

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // Prints "panicked at file:line:col: message" on the GPU, then traps: the host sees the
    // launch fail and the message on its stdout.
    ptx_sync::report_panic(info)
}

// ---------------------------------------------------------------------------------------------
// 1. first_kernel: the README's first kernel.
// ---------------------------------------------------------------------------------------------

/// Sums `input` into `*total`; the last block to finish publishes the complete sum.
///
/// Why it is correct: `barrier.sync` orders each block's `red.relaxed` adds before its thread 0
/// increments `finished` with `atom.acq_rel.gpu`. Those increments form one chain of RMWs, so
/// the last one (the block that reads `blocks - 1`) acquires every earlier block's release and
/// with it every add: its relaxed load of `total` sees the complete sum.
///
/// # Safety
/// `input` holds `n` values; `total`, `finished` and `result` are zeroed `u32`s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sum_then_publish(
    input: *const u32,
    n: u32,
    total: *mut u32,
    finished: *mut u32,
    result: *mut u32,
) {
    // Edition 2024: the unsafe operations of an `unsafe fn` need their own `unsafe` block.
    unsafe {
        let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
        let total = Atomic::<u32, Gpu>::from_ptr(total);
        if (i as u32) < n {
            total.red_add(*input.add(i as usize), Relaxed); // red.relaxed.gpu.add.u32
        }
        ptx_sync::block::sync(); // barrier.sync 0: the block's adds are done
        if _thread_idx_x() == 0 {
            let blocks = core::arch::nvptx::_grid_dim_x() as u32;
            // atom.acq_rel.gpu.add.u32: releases this block's adds, acquires the earlier blocks'.
            let before = Atomic::<u32, Gpu>::from_ptr(finished).fetch_add(1, AcqRel);
            if before == blocks - 1 {
                *result = total.load(Relaxed); // ld.relaxed.gpu.b32: every add is visible
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. producer_consumer: a bounded ring buffer between producer blocks and consumer blocks.
// ---------------------------------------------------------------------------------------------

/// The first `producer_blocks` blocks produce, the others consume, through a ring of `cap`
/// slots in global memory (`turns[cap]` and `data[cap]`, zeroed). Each producer thread
/// pushes the `per_thread` items `id * per_thread + k` (`id`: its index among the producer
/// threads); each consumer thread pops `per_thread` items and, for each, adds 1 to
/// `seen[item]` and the item to `*sum`. The host launches as many consumer threads as
/// producer threads.
///
/// Tickets: `tickets[0]` hands out push tickets, `tickets[1]` pop tickets (`atom.add`,
/// relaxed: a ticket only names a slot and a round, it synchronizes nothing). Ticket `t` uses
/// slot `t % cap` in round `r = t / cap`. The slot's turn word says whose turn it is: `2r`
/// for the producer of round `r`, `2r + 1` for its consumer, which hands the slot to round
/// `r + 1` with `2r + 2`.
///
/// Why it is correct: the producer writes the item, then stores `2r + 1` with
/// `st.release.gpu`; the consumer waits for `2r + 1` with `ld.acquire.gpu`, so it reads that
/// item (release/acquire on the turn word). Symmetrically the consumer's `2r + 2` release
/// orders its read before the next producer's write: no item is overwritten before it is
/// read. Every ticket is taken exactly once, so every item is pushed once and popped once.
/// Progress: the producer of ticket `t` waits only for the consumer of `t - cap`, the consumer
/// of `t` only for the producer of `t`; each thread takes its tickets one at a time, in order,
/// and a cooperative launch keeps every block resident (every waiter keeps running), so the
/// lowest unfinished ticket always moves on.
///
/// # Safety
/// `turns` and `data` hold `cap` zeroed `u32`s, `tickets` two zeroed `u32`s, `seen`
/// `producer_blocks * block_dim * per_thread` zeroed `u32`s and `sum` a zeroed `u64`; the
/// launch is cooperative, with as many consumer blocks as producer blocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn producer_consumer(
    turns: *mut u32,
    data: *mut u32,
    cap: u32,
    tickets: *mut u32,
    producer_blocks: u32,
    per_thread: u32,
    seen: *mut u32,
    sum: *mut u64,
) {
    let producer = index_x() < producer_blocks;
    let role_block = if producer {
        index_x()
    } else {
        index_x() - producer_blocks
    };
    let id = role_block * dim_x() + thread_x();
    // SAFETY: the buffers are as the Safety section says.
    unsafe {
        let ticket = Atomic::<u32, Gpu>::from_ptr(tickets.add(if producer { 0 } else { 1 }));
        for k in 0..per_thread {
            let t = ticket.fetch_add(1, Relaxed);
            let (slot, round) = ((t % cap) as usize, t / cap);
            let turn = Atomic::<u32, Gpu>::from_ptr(turns.add(slot));
            if producer {
                turn.wait_until(Acquire, |v| v == 2 * round); // the slot is empty
                data.add(slot).write(id * per_thread + k);
                turn.store(2 * round + 1, Release); // st.release.gpu: the item is there
            } else {
                turn.wait_until(Acquire, |v| v == 2 * round + 1); // ld.acquire.gpu
                let item = data.add(slot).read();
                turn.store(2 * round + 2, Release); // the slot is free for the next round
                Atomic::<u32, Gpu>::from_ptr(seen.add(item as usize)).red_add(1, Relaxed);
                Atomic::<u64, Gpu>::from_ptr(sum).red_add(u64::from(item), Relaxed);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. hash_table: counting keys in a table with one Mutex per bucket.
// ---------------------------------------------------------------------------------------------

/// The bucket of `key` in a table of `1 << bucket_bits` buckets (Fibonacci hashing); the
/// app computes the same function to check the table.
#[inline(always)]
fn bucket_of(key: u32, bucket_bits: u32) -> u32 {
    key.wrapping_mul(0x9E37_79B9) >> (32 - bucket_bits)
}

/// Counts the occurrences of `keys[0..n]`, one key per thread. Bucket `b` is
/// `locks[b]` (a `Mutex<u32, Gpu>` in zeroed memory; its data is how many entries the bucket
/// uses) and the entries `table_keys/table_counts[b * slots ..][..slots]`. A thread locks its
/// key's bucket, finds the key's entry (or appends one) and adds 1 to its count. A bucket
/// that is full sets `*overflow` (the app sizes the table so that none is).
///
/// Why it is correct: the entries are plain memory, read and written only while holding the
/// bucket's mutex. Its `atom.cas.acquire.gpu` synchronizes with the previous holder's
/// `st.release.gpu`, and lanes of one warp on the same bucket hand it to each other with
/// `bar.warp.sync`, which orders their memory accesses (`Mutex` docs): each critical section
/// sees the previous one's writes, so no count is lost and no key gets two entries. Lanes of
/// one warp on different buckets lock them independently.
///
/// # Safety
/// `keys` holds `n` keys; `locks` `1 << bucket_bits` zeroed mutexes (`bucket_bits` in
/// 1..=31); `table_keys` and `table_counts` `slots << bucket_bits` zeroed `u32`s;
/// `overflow` a zeroed `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn count_keys(
    keys: *const u32,
    n: u32,
    locks: *mut Mutex<u32, Gpu>,
    bucket_bits: u32,
    slots: u32,
    table_keys: *mut u32,
    table_counts: *mut u32,
    overflow: *mut u32,
) {
    let i = index_x() * dim_x() + thread_x();
    if i >= n {
        return;
    }
    // SAFETY: the buffers are as the Safety section says; a bucket's entries are only
    // touched under its lock.
    unsafe {
        let key = *keys.add(i as usize);
        let bucket = bucket_of(key, bucket_bits);
        let mut used = Mutex::from_ptr(locks.add(bucket as usize)).lock();
        let base = (bucket * slots) as usize;
        match (0..*used as usize).find(|&j| *table_keys.add(base + j) == key) {
            Some(j) => *table_counts.add(base + j) += 1,
            None if *used < slots => {
                *table_keys.add(base + *used as usize) = key;
                *table_counts.add(base + *used as usize) = 1;
                *used += 1;
            }
            None => Atomic::<u32, Gpu>::from_ptr(overflow).store(1, Relaxed),
        }
    } // the guard's drop unlocks (st.release.gpu) or hands over to the next lane
}

// ---------------------------------------------------------------------------------------------
// 4. grid_reduction: a cooperative reduction with a GridBarrier.
// ---------------------------------------------------------------------------------------------

/// Sums `input[0..n]` as `u64` in two phases. Phase 1: each block sums a grid-stride share
/// into `partials[block]` (a tree in dynamic shared memory: `block_dim * 8` bytes, block size
/// a power of two). Grid barrier. Phase 2: every block sums all the partials and writes its
/// total to `totals[block]`, so the app checks that every block saw every partial.
///
/// Why it is correct: `GridBarrier::sync` is `barrier.sync`, then thread 0's
/// `atom.add.release.gpu` on the barrier word, its `ld.acquire.gpu` polling until the last
/// block's arrival flips the phase bit, and `barrier.sync` again. Each block's `partials`
/// write is ordered before its release; the poller acquires every block's release (they form
/// one chain of RMWs), and the second `barrier.sync` passes that on to its block. The launch
/// is cooperative, so every block is resident and the barrier cannot deadlock.
///
/// # Safety
/// `input` holds `n` values, `partials` and `totals` one `u64` per block, `barrier` a zeroed
/// `u32`; the launch is cooperative, 1-D, with a power-of-two block size and `block_dim * 8`
/// bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn grid_sum(
    input: *const u32,
    n: u32,
    partials: *mut u64,
    totals: *mut u64,
    barrier: *mut u32,
) {
    let (t, block, blocks) = (thread_x(), index_x(), grid_x());
    let scratch = ptx_sync::block::dynamic_shared_memory().cast::<u64>();
    // SAFETY: the buffers and the launch are as the Safety section says.
    unsafe {
        let grid = GridBarrier::<ptx_sync::Spin>::from_ptr(barrier);
        let mut acc = 0u64;
        let mut i = block * dim_x() + t;
        while i < n {
            acc += u64::from(*input.add(i as usize));
            i += blocks * dim_x();
        }
        let partial = block_sum(scratch, acc);
        if t == 0 {
            partials.add(block as usize).write(partial);
        }

        grid.sync(); // every block's partial is written and visible

        let mut acc = 0u64;
        let mut b = t;
        while b < blocks {
            acc += partials.add(b as usize).read();
            b += dim_x();
        }
        let total = block_sum(scratch, acc);
        if t == 0 {
            totals.add(block as usize).write(total);
        }
    }
}

/// The sum of `value` over the block (its size a power of two), returned to every thread:
/// a tree in `scratch` (one `u64` per thread of shared memory), `barrier.sync` between levels.
///
/// # Safety
/// `scratch` holds `dim_x()` `u64`s; every thread of the block calls this.
#[inline(always)]
unsafe fn block_sum(scratch: *mut u64, value: u64) -> u64 {
    let t = thread_x() as usize;
    // SAFETY: the caller's contract; each thread writes only its own element between barriers.
    unsafe {
        scratch.add(t).write(value);
        let mut half = dim_x() as usize / 2;
        while half > 0 {
            ptx_sync::block::sync();
            if t < half {
                scratch
                    .add(t)
                    .write(scratch.add(t).read() + scratch.add(t + half).read());
            }
            half /= 2;
        }
        ptx_sync::block::sync();
        let sum = scratch.read();
        ptx_sync::block::sync(); // everyone has read it before the scratch is reused
        sum
    }
}
