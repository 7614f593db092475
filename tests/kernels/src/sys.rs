//! Kernels of the host <-> GPU primitive tests (tests/src/cases/sys.rs): the GPU half of a
//! `Semaphore<Sys>` ping-pong, of a producer/consumer whose units the host releases, and of a
//! `Latch<Sys>` the host waits on. The host half runs the same types on the same words of
//! mapped pinned memory (ptx_sync_host::sys). Every wait is bounded, so a lost unit shows as
//! an error count instead of a hang.

use core::time::Duration;
use ptx_sync::{block, Atomic, Cta, Gpu, Latch, Ordering::*, Semaphore, Sys};

/// How long a GPU wait for the host may take before it counts as an error.
const WAIT: Duration = Duration::from_secs(5);

/// u32 words per ping-pong channel: `to_gpu` at 0, `to_host` at 32, payload at 64, reply at 96.
pub const CHANNEL: usize = 128;
/// Payload words per ping-pong message.
pub const LEN: usize = 4;

/// What the host writes into word `i` of channel `c`'s payload in round `r`.
#[inline(always)]
fn tag(c: u32, r: u32, i: u32) -> u32 {
    (r.wrapping_mul(0x9e37_79b9) ^ (c << 24)).wrapping_add(i)
}

/// Ping-pong through two `BinarySemaphore<Sys>`s per channel, one channel per block (thread 0;
/// blocks of one thread). Round r: acquire `to_gpu` (the host released it after writing the
/// payload), check the payload, write the reply (the payload's complement), release `to_host`.
/// `stats[2c]` = rounds verified, `stats[2c + 1]` = errors (wrong words, timed-out waits).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sys_ping_pong(buf: *mut u32, rounds: u32, stats: *mut u32) {
    let c = block::index_x();
    let ch = buf.add(c as usize * CHANNEL);
    let to_gpu = Semaphore::<Sys, 1>::from_ptr(ch);
    let to_host = Semaphore::<Sys, 1>::from_ptr(ch.add(32));
    let (payload, reply) = (ch.add(64), ch.add(96));
    let (mut verified, mut errors) = (0u32, 0u32);
    for r in 1..=rounds {
        if !to_gpu.try_acquire_for(WAIT) {
            errors += 1;
            break;
        }
        let mut ok = true;
        for i in 0..LEN {
            let v = payload.add(i).read();
            if v != tag(c, r, i as u32) {
                errors += 1;
                ok = false;
            }
            reply.add(i).write(!v);
        }
        verified += ok as u32;
        to_host.release(1);
    }
    *stats.add(2 * c as usize) = verified;
    *stats.add(2 * c as usize + 1) = errors;
}

/// Layout of the producer/consumer buffer (u32 words): the semaphore, the ticket counter and
/// the done counter on their own 128-byte lines, then `n` inputs and `n` outputs.
pub const SEM: usize = 0;
/// The ticket counter (`Atomic<u32, Sys>`, GPU-only RMWs).
pub const TICKET: usize = 32;
/// Units finished (`Atomic<u32, Sys>`: GPU adds, the host polls).
pub const DONE: usize = 64;
/// Start of the inputs; the outputs follow at `INPUT + n`.
pub const INPUT: usize = 128;

/// Consumers of units the host releases (one at a time or in batches) into one
/// `Semaphore<Sys>` (thread 0 of each block, blocks of one thread). A unit taken, the consumer draws a ticket `t`
/// (`fetch_add` acq_rel: the chain of tickets carries every earlier acquisition, so the host's
/// input for unit `t`, written before it released unit `t`, is visible); `t >= n` is a stop
/// unit. Otherwise it checks `input[t]`, writes `output[t] = !input[t]`, and counts it done
/// (release). `stats[b]` = units consumed by block b, `stats[blocks + b]` = errors.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sys_consume(buf: *mut u32, n: u32, stats: *mut u32) {
    let (b, blocks) = (block::index_x() as usize, block::grid_x() as usize);
    let sem = Semaphore::<Sys>::from_ptr(buf.add(SEM));
    let ticket = Atomic::<u32, Sys>::from_ptr(buf.add(TICKET));
    let done = Atomic::<u32, Sys>::from_ptr(buf.add(DONE));
    let (input, output) = (buf.add(INPUT), buf.add(INPUT + n as usize));
    let (mut consumed, mut errors) = (0u32, 0u32);
    loop {
        if !sem.try_acquire_for(WAIT) {
            errors += 1;
            break;
        }
        let t = ticket.fetch_add(1, AcqRel);
        if t >= n {
            break;
        }
        let v = input.add(t as usize).read();
        if v != unit_tag(t) {
            errors += 1;
        }
        output.add(t as usize).write(!v);
        done.fetch_add(1, Release);
        consumed += 1;
    }
    *stats.add(b) = consumed;
    *stats.add(blocks + b) = errors;
}

/// What the host writes as the input of unit `t`.
#[inline(always)]
pub fn unit_tag(t: u32) -> u32 {
    t.wrapping_mul(0x2545_f491) ^ 0x5a5a_0000
}

/// Layout of the latch buffer (u32 words): the host's round flag, the latch, the round's
/// input, then one output word per GPU thread.
pub const GO: usize = 0;
/// The `Latch<Sys>` the host re-arms each round (to the number of blocks) and waits on.
pub const LATCH: usize = 32;
/// The round's input, written by the host before it raises `GO`.
pub const ROUND_INPUT: usize = 64;
/// Start of the outputs (`blocks * threads` words).
pub const OUT: usize = 128;

/// Rounds of fan-in to the host (cooperative launch: the host waits for every block). Round r
/// (1-based): thread 0 waits until the host's `GO` flag reaches r (acquire), a block barrier
/// passes that on, every thread writes `input + its global index` to `OUT`, a second barrier
/// collects the block's writes, then thread 0 counts down the host's `Latch<Sys>`
/// (`atom.release.sys.add`), so the host's wait on it sees every write:
/// - `aggregate` 0: every block counts down (the host arms the latch with `blocks`);
/// - `aggregate` 1: every block adds to `arrived` in device memory (`atom.acq_rel.gpu`, a
///   running total over the rounds), and only the round's last block counts down the latch
///   (armed with 1): the acq_rel chain carries every block's writes to it, and its
///   `atom.release.sys` carries them on to the host. One RMW on host memory per round instead
///   of one per block (the polling of `GO` by every block is unchanged).
///
/// Dynamic shared memory: 4 bytes (the block's stop flag). `stats[b]` = errors of block b.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn sys_latch_rounds(
    buf: *mut u32,
    rounds: u32,
    stats: *mut u32,
    arrived: *mut u32,
    aggregate: u32,
) {
    let (t, threads) = (block::thread_x(), block::dim_x());
    let (b, blocks) = (block::index_x(), block::grid_x());
    let go = Atomic::<u32, Sys>::from_ptr(buf.add(GO));
    let latch = Latch::<Sys>::from_ptr(buf.add(LATCH));
    let arrived = Atomic::<u32, Gpu>::from_ptr(arrived);
    let stop = Atomic::<u32, Cta>::from_ptr(block::dynamic_shared_memory().cast());
    if t == 0 {
        stop.store(0, Relaxed);
    }
    let mut errors = 0u32;
    for r in 1..=rounds {
        if t == 0 && go.wait_until_for(WAIT, Acquire, |v| v >= r).is_err() {
            errors += 1;
            stop.store(1, Relaxed);
        }
        block::sync();
        if stop.load(Relaxed) != 0 {
            break;
        }
        let input = buf.add(ROUND_INPUT).read();
        let me = b * threads + t;
        buf.add(OUT + me as usize).write(input.wrapping_add(me));
        block::sync();
        // Aggregated: only the round's last block (by the running total) counts down.
        if t == 0 && (aggregate == 0 || arrived.fetch_add(1, AcqRel) == r * blocks - 1) {
            latch.count_down();
        }
    }
    if t == 0 {
        Atomic::<u32, Gpu>::from_ptr(stats.add(b as usize)).store(errors, Relaxed);
    }
}
