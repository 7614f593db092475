//! What the multi-GPU cases run, written once: the buffer layouts, the payload tags, and each
//! side's protocol as a function over raw pointers and a [`Block`]. Shared as source by the
//! kernels (tests/kernels/src/multi_gpu.rs, through `#[path]`), where a block is a CUDA block,
//! and by the host side (tests/src/cases/multi_gpu.rs), which computes the expected counts from
//! the same constants and whose unit tests run the same protocols on std threads (the device
//! crate's core-atomics backend; a block is a group of threads meeting at a `std` barrier).
//! `no_std`: `core` and ptx_sync only.
//!
//! Every protocol is the CUDA Programming Guide's multi-GPU pattern at `Sys` scope: one GPU
//! writes plain data, then releases (`st.release.sys`, `atom.release.sys`, or the release half
//! of an `atom.acq_rel.sys`); the other acquires (`ld.acquire.sys`, or the acquire half of an
//! RMW) and reads the data with plain loads. Within a block, `barrier.sync` carries the writes
//! of every thread to the one that releases, and what one thread acquired to every thread that
//! reads (causality order is transitive through the block barrier, and `.sys` release and
//! acquire patterns are cumulative).

use core::time::Duration;
use ptx_sync::{Atomic, Barrier, Cta, Latch, Ordering::*, Semaphore, Sys};

/// How long a GPU waits for the other before it counts a timeout and stops (a lost message
/// shows as an error count, not a hang).
pub const WAIT: Duration = Duration::from_secs(5);

/// One block of threads as the protocols see it.
pub trait Block {
    /// The thread's rank in the block.
    fn thread(&self) -> u32;
    /// Threads in the block.
    fn threads(&self) -> u32;
    /// The block barrier (`barrier.sync 0` on the GPU).
    fn sync(&self);
    /// A word of the block's own memory (shared memory on the GPU), 0 at the start, that
    /// [`sync_or`] uses.
    fn stop(&self) -> &Atomic<u32, Cta>;
}

/// A block barrier that also says whether any thread of the block passed `flag` true (in this
/// call or an earlier one: the flag is sticky, so every thread stops in the same round).
/// Writes land before the first barrier, reads between the two, so no thread's write for the
/// next call races a read of this one.
#[inline(always)]
pub fn sync_or<K: Block>(k: &K, flag: bool) -> bool {
    if flag {
        k.stop().store(1, Relaxed);
    }
    k.sync();
    let any = k.stop().load(Relaxed) != 0;
    k.sync();
    any
}

/// A data word's write: a plain `st` on the GPU (what user code writes; the release after it
/// must order it), a relaxed atomic on the host (where a mutant's racing plain write would be
/// undefined behaviour in Rust).
///
/// # Safety
/// `p` is valid and aligned.
#[inline(always)]
pub unsafe fn put(p: *mut u32, v: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's.
    unsafe {
        p.write(v)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's; every host access to these words is atomic.
    unsafe {
        core::sync::atomic::AtomicU32::from_ptr(p).store(v, Relaxed)
    };
}

/// A data word's read: a plain `ld` on the GPU, a relaxed atomic on the host (see [`put`]).
///
/// # Safety
/// `p` is valid and aligned.
#[inline(always)]
pub unsafe fn get(p: *mut u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's.
    return unsafe { p.read() };
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's; every host access to these words is atomic.
    return unsafe { core::sync::atomic::AtomicU32::from_ptr(p).load(Relaxed) };
}

/// A 32-bit mix of a message's coordinates: a stale or misplaced word never matches.
#[inline(always)]
pub fn tag(a: u32, b: u32, c: u32) -> u32 {
    let mut x =
        a.wrapping_mul(0x9e37_79b9) ^ b.wrapping_mul(0x85eb_ca6b) ^ c.wrapping_mul(0xc2b2_ae35);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^ (x >> 15)
}

/// Message passing GPU 0 -> GPU 1, one channel per block pair: a ring of [`SLOTS`] slots, each
/// a sequence word and [`LANES`] payload words; the receiver's [`CONSUMED`] count frees slots.
/// Only loads and stores: no RMW, so it needs neither host nor peer native atomics.
pub mod mp {
    /// Payload words per message (one per thread of a 32-thread block).
    pub const LANES: usize = 32;
    /// Messages in flight per channel.
    pub const SLOTS: u32 = 4;
    /// Word of the receiver's count of messages it is done with (`st.release.sys`).
    pub const CONSUMED: usize = 0;
    /// Words per slot: the sequence word, then (on the next 128-byte line) the payload.
    pub const SLOT: usize = 64;
    /// Words per channel (a multiple of 32: every channel starts a 128-byte line).
    pub const CHANNEL: usize = 32 + SLOTS as usize * SLOT;

    /// Word of slot `s`'s sequence number (the last message written there, `st.release.sys`).
    pub const fn seq(s: usize) -> usize {
        32 + s * SLOT
    }

    /// First payload word of slot `s`.
    pub const fn payload(s: usize) -> usize {
        seq(s) + 32
    }

    /// Payload word `i` of message `m` (1-based) on channel `c`.
    #[inline(always)]
    pub fn tag(c: u32, m: u32, i: u32) -> u32 {
        super::tag(c, m, i) | 1 // never 0, the buffer's initial value
    }

    /// The last message (1-based) of `msgs` that slot `s` carried.
    pub fn last_in_slot(msgs: u32, s: u32) -> u32 {
        let first = s + 1;
        if msgs < first {
            0
        } else {
            first + (msgs - first) / SLOTS * SLOTS
        }
    }
}

/// What one thread of the sender saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Messages released (thread 0 only).
    pub sent: u32,
    /// Waits for a free slot that timed out (thread 0 only).
    pub timeouts: u32,
}

/// What one thread of the receiver saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Received {
    /// Messages taken (thread 0 only).
    pub received: u32,
    /// Payload words this thread found right.
    pub ok: u32,
    /// Payload words this thread found wrong (stale or overwritten).
    pub wrong: u32,
    /// Sequence words that skipped past the expected message (thread 0 only).
    pub wrong_seq: u32,
    /// Waits for a message that timed out (thread 0 only).
    pub timeouts: u32,
}

/// The sender of channel `c` (base `ch`): message `m` goes to slot `(m - 1) % SLOTS` once the
/// receiver is done with message `m - SLOTS` (thread 0 acquires its `CONSUMED` count, so the
/// receiver's reads of the slot precede the new writes), every thread writes its payload
/// words, and after a block barrier thread 0 releases the slot's sequence word at `Sys`
/// scope.
///
/// # Safety
/// `ch` holds [`mp::CHANNEL`] words that only this protocol touches.
pub unsafe fn mp_send<K: Block>(k: &K, ch: *mut u32, c: u32, msgs: u32) -> Sent {
    use mp::*;
    let (t, n) = (k.thread(), k.threads());
    // SAFETY (every pointer below): inside the channel, aligned.
    let consumed = unsafe { Atomic::<u32, Sys>::from_ptr(ch.add(CONSUMED)) };
    let mut out = Sent::default();
    for m in 1..=msgs {
        let s = ((m - 1) % SLOTS) as usize;
        let late = m > SLOTS
            && t == 0
            && consumed
                .wait_until_for(super::WAIT, Acquire, |v| v >= m - SLOTS)
                .is_err();
        if sync_or(k, late) {
            out.timeouts += late as u32;
            break;
        }
        let mut i = t as usize;
        while i < LANES {
            unsafe { put(ch.add(payload(s) + i), tag(c, m, i as u32)) };
            i += n as usize;
        }
        k.sync();
        if t == 0 {
            // st.release.sys: the block's payload writes (ordered before it by the barrier)
            // become visible to whoever acquires this value.
            unsafe { Atomic::<u32, Sys>::from_ptr(ch.add(seq(s))) }.store(m, Release);
            out.sent += 1;
        }
    }
    out
}

/// The receiver of channel `c`: thread 0 acquires slot `(m - 1) % SLOTS`'s sequence word until
/// it reaches `m` (`ld.acquire.sys`), a block barrier passes that on, every thread checks its
/// payload words, and after a second barrier thread 0 releases `CONSUMED = m`.
///
/// # Safety
/// As [`mp_send`].
pub unsafe fn mp_receive<K: Block>(k: &K, ch: *mut u32, c: u32, msgs: u32) -> Received {
    use mp::*;
    let (t, n) = (k.thread(), k.threads());
    // SAFETY (every pointer below): inside the channel, aligned.
    let consumed = unsafe { Atomic::<u32, Sys>::from_ptr(ch.add(CONSUMED)) };
    let mut out = Received::default();
    for m in 1..=msgs {
        let s = ((m - 1) % SLOTS) as usize;
        let mut late = false;
        if t == 0 {
            let seq = unsafe { Atomic::<u32, Sys>::from_ptr(ch.add(seq(s))) };
            match seq.wait_until_for(super::WAIT, Acquire, |v| v >= m) {
                Ok(v) => out.wrong_seq += (v != m) as u32,
                Err(_) => late = true,
            }
        }
        if sync_or(k, late) {
            out.timeouts += late as u32;
            break;
        }
        let mut i = t as usize;
        while i < LANES {
            let v = unsafe { get(ch.add(payload(s) + i)) };
            if v == tag(c, m, i as u32) {
                out.ok += 1;
            } else {
                out.wrong += 1;
            }
            i += n as usize;
        }
        k.sync();
        if t == 0 {
            // st.release.sys: the block's reads of the slot precede the sender's next writes.
            consumed.store(m, Release);
            out.received += 1;
        }
    }
    out
}

/// What one thread of a latch or barrier round saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rounds {
    /// Peer words read with the round's value.
    pub ok: u32,
    /// Peer words read with another round's value (the latch or barrier let it through early).
    pub stale: u32,
    /// Barrier: completions counted that were not the phase's (thread-wise). Latch: unused.
    pub wrong_phase: u32,
    /// Latch waits that timed out (thread 0 only).
    pub timeouts: u32,
}

/// Rounds of a one-shot `Latch<Sys>` per round that every thread of both GPUs counts down.
/// Layout (u32 words): latch `r` at `32 r` (its own 128-byte line, armed by the host with the
/// total thread count), then the data, double-buffered by round parity.
pub mod latch {
    /// Word of round `r`'s latch.
    pub const fn latch(r: u32) -> usize {
        32 * r as usize
    }

    /// Word of thread `idx`'s data (of `total` threads) in rounds of parity `parity`.
    pub const fn data(rounds: u32, parity: u32, idx: u32, total: u32) -> usize {
        32 * rounds as usize + (parity * total + idx) as usize
    }

    /// Words the buffer needs.
    pub const fn words(rounds: u32, total: u32) -> usize {
        data(rounds, 2, 0, total)
    }

    /// Thread `idx`'s data in round `r`.
    #[inline(always)]
    pub fn tag(r: u32, idx: u32) -> u32 {
        super::tag(r, idx, 0x1a7c4) | 1
    }
}

/// One thread of block `me` of `blocks` (over both GPUs, every block of `k.threads()`
/// threads): in round `r` it writes its data word, counts round `r`'s latch down (each thread:
/// `atom.release.sys.add`), thread 0 waits for the latch to open (`ld.acquire.sys`), a block
/// barrier passes that on, and every thread reads word `t` of every block's data for the
/// round. Double buffering is safe: a thread writes the same parity again in round `r + 2`,
/// after latch `r + 1` opened, which needs every thread's count-down of round `r + 1`, which
/// each gives after its reads of round `r`.
///
/// # Safety
/// `buf` holds [`latch::words`]`(rounds, blocks * threads)` words that only this protocol
/// touches, each latch armed with `blocks * threads`.
pub unsafe fn latch_rounds<K: Block>(
    k: &K,
    buf: *mut u32,
    me: u32,
    blocks: u32,
    rounds: u32,
) -> Rounds {
    use latch::*;
    let (t, n) = (k.thread(), k.threads());
    let total = blocks * n;
    let mine = me * n + t;
    let mut out = Rounds::default();
    for r in 0..rounds {
        // SAFETY (every pointer below): inside the buffer, aligned.
        unsafe { put(buf.add(data(rounds, r % 2, mine, total)), tag(r, mine)) };
        let l = unsafe { Latch::<Sys>::from_ptr(buf.add(latch(r))) };
        l.count_down();
        let late = t == 0 && l.wait_for(super::WAIT).is_err();
        if sync_or(k, late) {
            out.timeouts += late as u32;
            break;
        }
        for j in 0..blocks {
            let idx = j * n + t;
            let v = unsafe { get(buf.add(data(rounds, r % 2, idx, total))) };
            if v == tag(r, idx) {
                out.ok += 1;
            } else {
                out.stale += 1;
            }
        }
    }
    out
}

/// Phases of one reusable `Barrier<Sys>` that every thread of both GPUs arrives at. Layout (u32
/// words): the barrier's `u64` at word 0, the phase count its completion step keeps at
/// [`COUNT`](barrier::COUNT), the data (double-buffered by phase parity) from
/// [`DATA`](barrier::DATA).
pub mod barrier {
    /// Word of the completion step's phase count.
    pub const COUNT: usize = 32;
    /// First data word.
    pub const DATA: usize = 64;

    /// Words the buffer needs for `total` threads.
    pub const fn words(total: u32) -> usize {
        DATA + 2 * total as usize
    }

    /// Thread `idx`'s data in phase `p`.
    #[inline(always)]
    pub fn tag(p: u32, idx: u32) -> u32 {
        super::tag(p, idx, 0xba55) | 1
    }
}

/// One thread of block `me` of `blocks`: in phase `p` it writes its data word and arrives with
/// `arrive_and_wait_with` (warp-aggregated on the GPU: one `atom.acq_rel.sys` per group of
/// lanes), whose completion step, run by the phase's last arrival before the phase flips, bumps
/// the phase count; then it checks that the count is exactly `p + 1` and reads word `t` of
/// every block's data. Double buffering is safe as in [`latch_rounds`]: nobody writes parity
/// `p % 2` again before everyone has arrived at phase `p + 1`, after their reads of phase `p`.
///
/// # Safety
/// `buf` holds [`barrier::words`]`(blocks * threads)` words, 8-byte aligned, that only this
/// protocol touches; word 0 is `barrier::init_word(blocks * threads)`, the count 0.
pub unsafe fn barrier_phases<K: Block>(
    k: &K,
    buf: *mut u32,
    me: u32,
    blocks: u32,
    phases: u32,
) -> Rounds {
    use barrier::*;
    let (t, n) = (k.thread(), k.threads());
    let total = blocks * n;
    let mine = me * n + t;
    // SAFETY (every pointer below): inside the buffer, aligned (word 0 is 8-byte aligned).
    let bar = unsafe { Barrier::<Sys>::from_ptr(buf.cast::<u64>()) };
    let count = unsafe { buf.add(COUNT) };
    let mut out = Rounds::default();
    for p in 0..phases {
        unsafe {
            put(
                buf.add(DATA + ((p % 2) * total + mine) as usize),
                tag(p, mine),
            )
        };
        // The completion runs before the flip releases anyone, and the count's previous
        // value was written by the completion of phase p - 1, which this thread (arriving
        // after it saw that phase open) has observed: a plain read-modify-write suffices.
        bar.arrive_and_wait_with(|| unsafe { put(count, get(count) + 1) });
        if unsafe { get(count) } != p + 1 {
            out.wrong_phase += 1;
        }
        for j in 0..blocks {
            let idx = j * n + t;
            let v = unsafe { get(buf.add(DATA + ((p % 2) * total + idx) as usize)) };
            if v == tag(p, idx) {
                out.ok += 1;
            } else {
                out.stale += 1;
            }
        }
    }
    out
}

/// A semaphore ping-pong between the GPUs, one channel per block pair (thread 0): two
/// `BinarySemaphore<Sys>`s, `PING` (GPU 0 -> GPU 1) and `PONG` (back), a payload and a reply.
/// Each word is written by one side (`st.release.sys` of 1) and exchanged by the other only
/// after it saw that store (`atom.exch.acquire.sys` of 0), and the releaser then waits on the
/// other word: the two sides never RMW one word at once.
pub mod pp {
    /// Words per channel.
    pub const CHANNEL: usize = 128;
    /// The semaphore GPU 0 releases and GPU 1 acquires.
    pub const PING: usize = 0;
    /// The semaphore GPU 1 releases and GPU 0 acquires.
    pub const PONG: usize = 32;
    /// The message GPU 0 writes.
    pub const PAYLOAD: usize = 64;
    /// The reply GPU 1 writes (the payload's complement).
    pub const REPLY: usize = 96;
    /// Words per message.
    pub const LEN: usize = 4;

    /// Payload word `i` of round `r` (1-based) on channel `c`.
    #[inline(always)]
    pub fn tag(c: u32, r: u32, i: u32) -> u32 {
        super::tag(c, r, i ^ 0x9090)
    }
}

/// What one side of a ping-pong channel saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Handoffs {
    /// Rounds whose message (GPU 1) or reply (GPU 0) was right.
    pub ok: u32,
    /// Rounds with a wrong word.
    pub wrong: u32,
    /// Acquires that timed out (the side stops).
    pub timeouts: u32,
}

/// GPU 0's side of channel `c`: each round writes the payload, releases `PING`, acquires
/// `PONG` and checks the reply.
///
/// # Safety
/// `ch` holds [`pp::CHANNEL`] words that only this protocol touches.
pub unsafe fn pp_ping(ch: *mut u32, c: u32, rounds: u32) -> Handoffs {
    use pp::*;
    // SAFETY (every pointer below): inside the channel, aligned.
    let ping = unsafe { Semaphore::<Sys, 1>::from_ptr(ch.add(PING)) };
    let pong = unsafe { Semaphore::<Sys, 1>::from_ptr(ch.add(PONG)) };
    let mut out = Handoffs::default();
    for r in 1..=rounds {
        for i in 0..LEN {
            unsafe { put(ch.add(PAYLOAD + i), tag(c, r, i as u32)) };
        }
        ping.release(1);
        if !pong.try_acquire_for(super::WAIT) {
            out.timeouts += 1;
            break;
        }
        let good = (0..LEN).all(|i| unsafe { get(ch.add(REPLY + i)) } == !tag(c, r, i as u32));
        out.ok += good as u32;
        out.wrong += !good as u32;
    }
    out
}

/// GPU 1's side of channel `c`: each round acquires `PING`, checks the payload, writes the
/// reply, releases `PONG`.
///
/// # Safety
/// As [`pp_ping`].
pub unsafe fn pp_pong(ch: *mut u32, c: u32, rounds: u32) -> Handoffs {
    use pp::*;
    // SAFETY (every pointer below): inside the channel, aligned.
    let ping = unsafe { Semaphore::<Sys, 1>::from_ptr(ch.add(PING)) };
    let pong = unsafe { Semaphore::<Sys, 1>::from_ptr(ch.add(PONG)) };
    let mut out = Handoffs::default();
    for r in 1..=rounds {
        if !ping.try_acquire_for(super::WAIT) {
            out.timeouts += 1;
            break;
        }
        let mut good = true;
        for i in 0..LEN {
            let v = unsafe { get(ch.add(PAYLOAD + i)) };
            good &= v == tag(c, r, i as u32);
            unsafe { put(ch.add(REPLY + i), !v) };
        }
        out.ok += good as u32;
        out.wrong += !good as u32;
        pong.release(1);
    }
    out
}
