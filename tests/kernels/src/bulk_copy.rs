//! Kernels of the bulk-copy tests (tests/src/cases/bulk_copy.rs), sm_90 only: global memory
//! copied into dynamic shared memory by `bulk::copy_global_to_shared` (TMA), completion
//! tracked by a `BlockBarrier`'s transaction count (`arrive_expect_tx`, `expect_tx`,
//! `complete_tx`). Dynamic shared memory: the barrier at 0, the buffer at 16.
#![cfg(target_feature = "sm_90")]

use core::time::Duration;
use ptx_sync::shared::Shared;
use ptx_sync::{block, bulk, Atomic, BlockBarrier, BlockToken, Gpu, Ordering::*};

/// Word `i` of the source buffer (tests/src/cases/bulk_copy.rs fills it the same way). Odd,
/// so it never equals a [`sentinel`].
#[inline(always)]
fn pattern(i: u32) -> u32 {
    (i.wrapping_mul(0x9E37_79B9) ^ (i >> 13)) | 1
}

/// What the threads write into the destination before stage `s`'s copy (even).
#[inline(always)]
fn sentinel(s: u32) -> u32 {
    0xDEAD_BEE0 ^ (s << 4)
}

/// The first source word of block `b`'s stage `s` (a multiple of 4 words: 16-byte aligned),
/// so that `words` words fit in a source of `src_words`. The host computes the same.
#[inline(always)]
fn chunk_offset(b: u32, s: u32, words: u32, src_words: u32) -> u32 {
    let mut h = b.wrapping_mul(0x85EB_CA6B) ^ s.wrapping_mul(0xC2B2_AE35) ^ 0x2718_2818;
    h ^= h >> 16;
    h = h.wrapping_mul(0x7FEB_352D);
    h ^= h >> 15;
    let slots = (src_words - words) / 4 + 1;
    (h % slots) * 4
}

/// The barrier at the start of the dynamic shared memory, initialized for the block; the
/// buffer after it.
#[inline(always)]
unsafe fn setup() -> (&'static BlockBarrier, Shared<u32>) {
    let smem = Shared::dynamic();
    let bar = BlockBarrier::from_ptr(smem.generic().cast());
    if block::thread_rank() == 0 {
        bar.init(block::dim_x());
    }
    block::sync();
    (bar, smem.add(16).cast::<u32>())
}

/// Writes the sentinel of stage `s` over this thread's words of `buf[..words]`, with ordinary
/// stores, then `fence.proxy.async.shared::cta` and `block::sync()`: the copy (async proxy)
/// that overwrites them is issued after every thread's fence (bulk.rs's rule).
#[inline(always)]
unsafe fn poison(buf: Shared<u32>, words: u32, s: u32) {
    let (t, n) = (block::thread_rank(), block::dim_x());
    let mut j = t;
    while j < words {
        buf.add(j as usize).write(sentinel(s));
        j += n;
    }
    bulk::fence_proxy_async_shared();
    block::sync();
}

/// Checks this thread's words of `buf[..words]` against the source from word `off`:
/// (mismatches, sum of the values read, words read).
#[inline(always)]
unsafe fn check(buf: Shared<u32>, words: u32, off: u32) -> (u32, u64, u32) {
    let (t, n) = (block::thread_rank(), block::dim_x());
    let (mut bad, mut sum, mut count) = (0u32, 0u64, 0u32);
    let mut j = t;
    while j < words {
        let got = buf.add(j as usize).read();
        bad += (got != pattern(off + j)) as u32;
        sum += got as u64;
        count += 1;
        j += n;
    }
    (bad, sum, count)
}

/// `rounds` x `nsizes` stages on one barrier (a phase each, so its phase bit flips every
/// stage). Stage `s` copies `sizes[s % nsizes]` bytes (multiples of 16) from the source at
/// `chunk_offset(block, s, ..)` into the buffer, which the threads poisoned first, and the
/// phase's bytes are announced three ways by turns (`s % 3`):
/// 0. thread 0 copies, then `arrive_expect_tx(bytes)`; the others `arrive`;
/// 1. thread 0 `expect_tx(bytes)`, copies in up to three pieces, then `arrive`s;
/// 2. lane 0 of each warp copies its share of the 16-byte units and `arrive_expect_tx(share)`
///    (one phase, several announcing threads); lanes without a share `arrive`.
///
/// Then everyone waits and checks its words. `stats[block * 4 ..]` (u64): mismatches, sum of
/// the words read, words read, phases (thread 0's). Dynamic shared memory: 16 + the largest
/// size.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn bulk_copy_stages(
    src: *const u32,
    src_words: u32,
    sizes: *const u32,
    nsizes: u32,
    rounds: u32,
    stats: *mut u64,
) {
    let (bar, buf) = setup();
    let (t, n, b) = (block::thread_rank(), block::dim_x(), block::rank());
    let (mut bad, mut sum, mut count, mut phases) = (0u32, 0u64, 0u32, 0u32);
    for s in 0..rounds * nsizes {
        let bytes = *sizes.add((s % nsizes) as usize);
        let words = bytes / 4;
        let off = chunk_offset(b, s, words, src_words);
        let from = src.add(off as usize);
        poison(buf, words, s);
        let token: BlockToken = match s % 3 {
            0 if t == 0 => {
                bulk::copy_global_to_shared(buf, from, bytes, bar);
                bar.arrive_expect_tx(bytes)
            }
            1 if t == 0 => {
                bar.expect_tx(bytes);
                let units = bytes / 16;
                for k in 0..3 {
                    let (lo, hi) = (units * k / 3, units * (k + 1) / 3);
                    if hi > lo {
                        let at = (lo * 4) as usize;
                        bulk::copy_global_to_shared(buf.add(at), from.add(at), (hi - lo) * 16, bar);
                    }
                }
                bar.arrive()
            }
            2 => {
                let (warps, w) = (n.div_ceil(32), t / 32);
                let units = bytes / 16;
                let (lo, hi) = (units * w / warps, units * (w + 1) / warps);
                if t % 32 == 0 && hi > lo {
                    let at = (lo * 4) as usize;
                    bulk::copy_global_to_shared(buf.add(at), from.add(at), (hi - lo) * 16, bar);
                    bar.arrive_expect_tx((hi - lo) * 16)
                } else {
                    bar.arrive()
                }
            }
            _ => bar.arrive(),
        };
        bar.wait(token);
        phases += 1;
        let (x, y, z) = check(buf, words, off);
        bad += x;
        sum = sum.wrapping_add(y);
        count += z;
        // Everyone has read the buffer before the next stage poisons it.
        block::sync();
    }
    let o = stats.add(b as usize * 4);
    let g = |i: usize| Atomic::<u64, Gpu>::from_ptr(o.add(i));
    g(0).fetch_add(bad as u64, Relaxed);
    g(1).fetch_add(sum, Relaxed);
    g(2).fetch_add(count as u64, Relaxed);
    if t == 0 {
        g(3).store(phases as u64, Relaxed);
    }
}

/// One 4096-byte copy whose phase announces `4096 + extra` bytes. Every thread waits with
/// `wait_for(limit_ns)` (`%globaltimer`-bounded `try_wait`); then the block
/// synchronizes, thread 0 counts the `extra` bytes that will never come as done
/// (`complete_tx(extra)`), and everyone waits for the phase and checks its words. With
/// `extra > 0` every wait must time out (the arrivals alone do not complete a phase that
/// still expects bytes) and the data must be exact after `complete_tx`; `extra = 0` is the
/// control (no wait times out). `stats[block * 4 ..]` (u64): waits that timed out, mismatches,
/// words read, sum of the words read. Dynamic shared memory: 16 + 4096.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn bulk_copy_expect_more(
    src: *const u32,
    src_words: u32,
    extra: u32,
    limit_ns: u32,
    stats: *mut u64,
) {
    const BYTES: u32 = 4096;
    let (bar, buf) = setup();
    let (t, b) = (block::thread_rank(), block::rank());
    let off = chunk_offset(b, 0, BYTES / 4, src_words);
    poison(buf, BYTES / 4, 0);
    let token = if t == 0 {
        bulk::copy_global_to_shared(buf, src.add(off as usize), BYTES, bar);
        bar.arrive_expect_tx(BYTES + extra)
    } else {
        bar.arrive()
    };
    let timed_out = bar
        .wait_for(&token, Duration::from_nanos(limit_ns as u64))
        .is_err();
    // Every timed wait has ended before the missing bytes are counted.
    block::sync();
    if t == 0 && extra != 0 {
        bar.complete_tx(extra);
    }
    bar.wait(token);
    let (bad, sum, count) = check(buf, BYTES / 4, off);
    let o = stats.add(b as usize * 4);
    let g = |i: usize| Atomic::<u64, Gpu>::from_ptr(o.add(i));
    g(0).fetch_add(timed_out as u64, Relaxed);
    g(1).fetch_add(bad as u64, Relaxed);
    g(2).fetch_add(count as u64, Relaxed);
    g(3).fetch_add(sum, Relaxed);
}

/// One thread copies 16 bytes from word `shift` of `src` (`shift = 1`: 4-byte aligned only,
/// which a debug build of ptx-sync traps on) and waits; then `*done` = 1 if the first word
/// arrived, 2 if not. `shift = 0` is the control. Dynamic shared memory: 32 bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn bulk_copy_misaligned(
    src: *const u32,
    shift: u32,
    done: *mut u32,
) {
    let (bar, buf) = setup();
    let from = src.add(shift as usize);
    bulk::copy_global_to_shared(buf, from, 16, bar);
    bar.wait(bar.arrive_expect_tx(16));
    *done = if buf.read() == *from { 1 } else { 2 };
}
