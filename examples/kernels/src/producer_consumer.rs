//! Example 2: a bounded ring buffer between producer blocks and consumer blocks, each slot
//! handed on by a turn word (`store(Release)` / `wait_until(Acquire)`). The app runs it in
//! `app/examples/02-producer-consumer.rs`.

use ptx_sync::block::{dim_x, index_x, thread_x};
use ptx_sync::{Atomic, Gpu, Ordering::*};

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
