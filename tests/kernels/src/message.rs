//! Message passing: release/acquire handoffs between blocks (`Gpu` scope) and between a host
//! thread and the GPU (`Sys` scope on mapped pinned host memory). Every round's payload is
//! checked; every wait is bounded so a lost message shows as an error count, not a hang.

use crate::round_tag as expected;
use core::arch::nvptx::_block_idx_x;
use ptx_sync::{fence, Atomic, Gpu, Ordering::*, Scope, Sys};

/// u32 words per pair's region: flag, ack and payload on separate 128-byte lines, and pairs
/// 4 KiB apart.
pub const REGION: usize = 1024;
const FLAG: usize = 0;
const ACK: usize = 32;
const PAYLOAD: usize = 64;
/// Polls before a wait gives up and reports an error.
const SPIN_LIMIT: u32 = 1 << 26;

/// The publish half: `st.release` (mode 0) or `fence.acq_rel` + `st.relaxed` (mode 1).
#[inline(always)]
fn publish<S: Scope>(flag: &Atomic<u32, S>, value: u32, mode: u32) {
    if mode == 0 {
        flag.store(value, Release);
    } else {
        fence::<S>(Release);
        flag.store(value, Relaxed);
    }
}

/// The consume half: `ld.acquire` (mode 0) or `ld.relaxed` + `fence.acq_rel` (mode 1).
/// Returns false if `value` did not arrive within the spin limit.
#[inline(always)]
fn await_value<S: Scope>(flag: &Atomic<u32, S>, value: u32, mode: u32) -> bool {
    let mut polls = 0;
    loop {
        let seen = if mode == 0 {
            flag.load(Acquire)
        } else {
            flag.load(Relaxed)
        };
        if seen == value {
            if mode != 0 {
                fence::<S>(Acquire);
            }
            return true;
        }
        polls += 1;
        if polls == SPIN_LIMIT {
            return false;
        }
    }
}

/// Blocks 2p (producer) and 2p+1 (consumer) pass `rounds` messages of `len` words through
/// their region with plain (non-atomic) payload accesses. `stats[2p]` = rounds the consumer
/// verified, `stats[2p+1]` = errors (wrong payload words + timed-out waits). One thread a block.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mp_blocks(
    buf: *mut u32,
    rounds: u32,
    len: u32,
    mode: u32,
    stats: *mut u32,
) {
    let pair = (_block_idx_x() / 2) as usize;
    let producer = (_block_idx_x() as u32).is_multiple_of(2);
    let region = buf.add(pair * REGION);
    let flag = Atomic::<u32, Gpu>::from_ptr(region.add(FLAG));
    let ack = Atomic::<u32, Gpu>::from_ptr(region.add(ACK));
    let payload = region.add(PAYLOAD);
    let (mut verified, mut errors) = (0u32, 0u32);
    for round in 1..=rounds {
        if producer {
            for i in 0..len {
                payload.add(i as usize).write(expected(round, i));
            }
            publish(flag, round, mode);
            if !await_value(ack, round, mode) {
                errors += 1;
                break;
            }
        } else {
            if !await_value(flag, round, mode) {
                errors += 1;
                break;
            }
            let mut ok = true;
            for i in 0..len {
                if payload.add(i as usize).read() != expected(round, i) {
                    errors += 1;
                    ok = false;
                }
            }
            verified += ok as u32;
            publish(ack, round, mode);
        }
    }
    if !producer {
        *stats.add(2 * pair) = verified;
    }
    Atomic::<u32, Gpu>::from_ptr(stats.add(2 * pair + 1)).fetch_add(errors, Relaxed);
}

/// Host <-> GPU ping-pong at `Sys` scope on mapped host memory (one GPU thread). Layout of `buf`
/// (u32 words): h2g flag at 0, g2h flag at 32, h2g payload at 64.., g2h payload at 64+len...
/// Round r: the host writes the h2g payload and releases h2g = r; the GPU acquires it, checks
/// the payload, writes the g2h payload (the h2g words + 1) and releases g2h = r.
/// `stats[0]` = rounds verified on the GPU, `stats[1]` = errors.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mp_host(buf: *mut u32, rounds: u32, len: u32, stats: *mut u32) {
    let h2g = Atomic::<u32, Sys>::from_ptr(buf);
    let g2h = Atomic::<u32, Sys>::from_ptr(buf.add(32));
    let to_gpu = buf.add(64);
    let to_host = buf.add(64 + len as usize);
    let (mut verified, mut errors) = (0u32, 0u32);
    for round in 1..=rounds {
        if !await_value(h2g, round, 0) {
            errors += 1;
            break;
        }
        let mut ok = true;
        for i in 0..len as usize {
            let v = to_gpu.add(i).read();
            if v != expected(round, i as u32) {
                errors += 1;
                ok = false;
            }
            to_host.add(i).write(v.wrapping_add(1));
        }
        verified += ok as u32;
        g2h.store(round, Release);
    }
    *stats = verified;
    *stats.add(1) = errors;
}
