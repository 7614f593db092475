//! Kernels of the calling-pattern matrix, arrival half (tests/src/cases/patterns_arrive.rs):
//! `Latch`, `Barrier`, `BlockBarrier`, `Atomic` waiting and `GridBarrier`, called by the threads
//! of a grid in the shapes real kernels use (the lanes of one warp on different objects, only
//! some lanes calling, an object per thread, per tile, per block, per grid).
//!
//! Every kernel is driven by tables the host builds, so one kernel runs every shape and the host
//! knows the exact count each object must see:
//! - `arrive[g]` / `wait[g]`: the object thread `g` counts down / waits on, `NONE` if it does
//!   not take part (equal for arrive-and-wait shapes). An object index is grid-wide for objects
//!   in global memory and block-local for objects in shared memory.
//! - `peers[g * PEERS..]`: threads that arrive at `wait[g]`'s object; once it has waited, `g`
//!   checks that each of them wrote its value of the round before arriving.
//!
//! Values are double-buffered per round (`values[(r & 1) * n + g]`): every thread that arrives
//! at an object also waits on it, so no peer can be two rounds ahead while `g` reads.
//!
//! `stats` (u64), summed over threads: [0] stale or wrong peer values, [1] peer values checked,
//! [2] state errors (a latch not at 0 after its wait, a barrier phase bit other than the round's
//! or a restart value other than its members',
//! an atomic wait that returned another value than the one stored), [3] counter errors (a
//! completion counter or an arrival count outside its window), [4] timed waits that timed out,
//! [5] returns from a wait, [6] unused, [7] never written (keeps busy work alive).

use crate::work;
use core::time::Duration;
use ptx_sync::wait::sleep_ns;
#[cfg(target_feature = "sm_80")]
use ptx_sync::BlockBarrier;
use ptx_sync::{
    block, Atomic, Barrier, Cta, Gpu, GridBarrier, Latch, NanoSleep, Ordering::*, Scope, Spin,
};

/// "This thread does not take part" in `arrive` / `wait` / `src` tables.
pub const NONE: u32 = u32::MAX;
/// Peers each waiting thread checks.
pub const PEERS: usize = 4;
/// The timed waits' budget: far longer than any wait here takes.
const WAIT: Duration = Duration::from_secs(10);

/// What thread `g` writes in round `r` (never 0, different in every round: `r < 255`,
/// `g < 2^24`, checked by the host).
#[inline(always)]
fn tag(r: u32, g: u32) -> u32 {
    ((r + 1) << 24) | g
}

/// Writes thread `g`'s round-`r` value into that round's half of the double buffer `values`
/// (`n` threads) and returns the half.
#[inline(always)]
unsafe fn publish(values: *mut u32, r: u32, g: u32, n: u32) -> *mut u32 {
    let buf = values.add((r & 1) as usize * n as usize);
    *buf.add(g as usize) = tag(r, g);
    buf
}

/// `f(i)` for the items `i < n` that block thread `t` (of `threads`) takes in a block-strided
/// loop.
#[inline(always)]
fn block_stride(t: u32, threads: u32, n: u32, mut f: impl FnMut(usize)) {
    let mut i = t;
    while i < n {
        f(i as usize);
        i += threads;
    }
}

/// A thread's counts, added to `stats` once at the end.
#[derive(Default)]
struct Counts {
    stale: u32,
    checks: u32,
    state: u32,
    counter: u32,
    timeouts: u32,
    waits: u32,
    acc: u32,
}

impl Counts {
    unsafe fn report(&self, stats: *mut u64) {
        let add = |i: usize, v: u32| {
            if v != 0 {
                Atomic::<u64, Gpu>::from_ptr(stats.add(i)).fetch_add(v as u64, Relaxed);
            }
        };
        add(0, self.stale);
        add(1, self.checks);
        add(2, self.state);
        add(3, self.counter);
        add(4, self.timeouts);
        add(5, self.waits);
        if self.acc == 0x1234_5678 {
            *stats.add(7) = self.acc as u64;
        }
    }

    /// Checks the round-`r` values of `g`'s peers in `buf`.
    #[inline(always)]
    unsafe fn check_peers(&mut self, r: u32, g: u32, peers: *const u32, buf: *const u32) {
        for k in 0..PEERS {
            let p = *peers.add(g as usize * PEERS + k);
            self.stale += (*buf.add(p as usize) != tag(r, p)) as u32;
            self.checks += 1;
        }
    }

    /// Checks an arrival count seen after round `r` of an object with `m` members: every
    /// member of round `r` has added, and no one can be past round `r + 1`.
    #[inline(always)]
    fn check_arrivals(&mut self, seen: u32, r: u32, m: u32) {
        self.counter += (seen < (r + 1) * m || seen > (r + 2) * m - 1) as u32;
    }
}

/// Global index of this thread (any block and grid shape: blocks and threads flattened).
#[inline(always)]
fn flat_id() -> (u32, u32) {
    let threads = block::dim_x() * block::dim_y() * block::dim_z();
    (
        block::rank() * threads + block::thread_rank(),
        block::count() * threads,
    )
}

// ---------------------------------------------------------------------------------------------
// Latch

/// One round of the latch kernels for thread `g` (of `n`), latches at `lat` (this round's, in
/// this thread's object space), `passed` the per-object count of returns from the wait.
/// Arrive-and-wait shapes rotate over `arrive_and_wait` (r % 4 == 0 or 2), `count_down()` +
/// `wait` (1) and `count_down()` + `wait_for` (3); partner shapes (`arrive != wait`) count
/// down the partner's latch, then `wait` (even rounds) or `wait_for` (odd) on their own.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn latch_round<S: Scope>(
    lat: *mut u32,
    r: u32,
    g: u32,
    n: u32,
    arrive: *const u32,
    wait: *const u32,
    peers: *const u32,
    values: *mut u32,
    passed: *mut u32,
    c: &mut Counts,
) {
    let (a, w) = (*arrive.add(g as usize), *wait.add(g as usize));
    let buf = publish(values, r, g, n);
    // A thread that counts down also waits (the double buffering relies on it).
    if w == NONE {
        return;
    }
    let latch = Latch::<S>::from_ptr(lat.add(w as usize));
    if a == w {
        match r % 4 {
            1 => {
                latch.count_down();
                latch.wait();
            }
            3 => {
                latch.count_down();
                c.timeouts += latch.wait_for(WAIT).is_err() as u32;
            }
            _ => latch.arrive_and_wait(),
        }
    } else {
        Latch::<S>::from_ptr(lat.add(a as usize)).count_down();
        if r.is_multiple_of(2) {
            latch.wait();
        } else {
            c.timeouts += latch.wait_for(WAIT).is_err() as u32;
        }
    }
    c.waits += 1;
    c.state += (Atomic::<u32, S>::from_ptr(lat.add(w as usize)).load(Acquire) != 0) as u32;
    Atomic::<u32, Gpu>::from_ptr(passed.add(w as usize)).fetch_add(1, Relaxed);
    c.check_peers(r, g, peers, buf);
}

/// `Latch<Gpu>` in global memory, over a cooperative launch: round `r` uses the fresh latches
/// `latches[r * nobj..]` (the host writes each object's number of arrivals, or a sentinel for
/// an object nobody uses). `passed[o]` counts the returns from waiting on `o` (all rounds).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn pattern_latch_gpu(
    latches: *mut u32,
    nobj: u32,
    rounds: u32,
    arrive: *const u32,
    wait: *const u32,
    peers: *const u32,
    values: *mut u32,
    passed: *mut u32,
    stats: *mut u64,
) {
    let (g, n) = flat_id();
    let mut c = Counts::default();
    for r in 0..rounds {
        let lat = latches.add(r as usize * nobj as usize);
        latch_round::<Gpu>(lat, r, g, n, arrive, wait, peers, values, passed, &mut c);
    }
    c.report(stats);
}

/// `Latch<Cta>` in shared memory (launch with `4 * nobj` bytes): every round, the block sets
/// its `nobj` latches from `init[block * nobj..]`, synchronizes, runs the round, synchronizes,
/// and copies each latch word to `out[(r * blocks + block) * nobj..]`. `passed[block * nobj +
/// o]` counts the returns from waiting on the block's latch `o`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn pattern_latch_cta(
    init: *const u32,
    out: *mut u32,
    nobj: u32,
    rounds: u32,
    arrive: *const u32,
    wait: *const u32,
    peers: *const u32,
    values: *mut u32,
    passed: *mut u32,
    stats: *mut u64,
) {
    let smem = block::dynamic_shared_memory().cast::<u32>();
    let (g, n) = flat_id();
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let (b, blocks) = (block::rank() as usize, block::count() as usize);
    let nobj_ = nobj as usize;
    let passed = passed.add(b * nobj_);
    let mut c = Counts::default();
    for r in 0..rounds {
        block_stride(t, threads, nobj, |i| {
            *smem.add(i) = *init.add(b * nobj_ + i)
        });
        block::sync();
        latch_round::<Cta>(smem, r, g, n, arrive, wait, peers, values, passed, &mut c);
        block::sync();
        block_stride(t, threads, nobj, |i| {
            *out.add((r as usize * blocks + b) * nobj_ + i) = *smem.add(i)
        });
    }
    c.report(stats);
}

// ---------------------------------------------------------------------------------------------
// Barrier

/// One round of the barrier kernels for thread `g` (of `n`) on the barrier objects at `bars`
/// (one `u64` each, in this thread's object space). `ctrs[o]` is object `o`'s
/// completion counter, `arrived[o]` its arrival count (every member adds 1 before arriving),
/// `members[o]` its number of members. Round `r` uses `arrive_and_wait_with` a completion
/// step that increments the counter (r % 3 == 0), `arrive_and_wait` (1), or `arrive` + work +
/// `wait` (2). After the round each member checks: the word's phase bit is that of `r + 1`
/// (phase `r + 2` cannot complete without this member) and its restart value `2^31 - m` (bits
/// 0..=31, device/src/barrier.rs); the counter is
/// `r / 3 + 1`; the arrival count is in `[(r + 1) m, (r + 2) m - 1]` (every member of round
/// `r` has added, and no one can be past round `r + 1`); its peers' values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn barrier_round<S: Scope>(
    bars: *mut u64,
    ctrs: *mut u32,
    arrived: *mut u32,
    members: *const u32,
    r: u32,
    g: u32,
    n: u32,
    obj: *const u32,
    peers: *const u32,
    values: *mut u32,
    c: &mut Counts,
) {
    let o = *obj.add(g as usize);
    let buf = publish(values, r, g, n);
    if o == NONE {
        return;
    }
    let o = o as usize;
    let word = bars.add(o);
    let bar = Barrier::<S>::from_ptr(word);
    let ctr = ctrs.add(o);
    let count = Atomic::<u32, Gpu>::from_ptr(arrived.add(o));
    count.fetch_add(1, Relaxed);
    match r % 3 {
        0 => bar.arrive_and_wait_with(|| *ctr += 1),
        1 => bar.arrive_and_wait(),
        _ => {
            let token = bar.arrive();
            c.acc = work(c.acc ^ g);
            bar.wait(token);
        }
    }
    c.waits += 1;
    let m = *members.add(o);
    let w = Atomic::<u64, S>::from_ptr(word).load(Acquire);
    c.state += ((w >> 63) as u32 != (r + 1) & 1 || w as u32 != (1 << 31) - m) as u32;
    c.counter += (*ctr != r / 3 + 1) as u32;
    c.check_arrivals(count.load(Relaxed), r, m);
    c.check_peers(r, g, peers, buf);
}

/// `Barrier<Gpu>` objects in global memory over a cooperative launch (the host writes
/// `barrier::init_word(m)` per object, a sentinel `init_word(5)` for an object nobody uses).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn pattern_barrier_gpu(
    bars: *mut u64,
    ctrs: *mut u32,
    arrived: *mut u32,
    members: *const u32,
    rounds: u32,
    obj: *const u32,
    peers: *const u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let (g, n) = flat_id();
    let mut c = Counts::default();
    for r in 0..rounds {
        barrier_round::<Gpu>(
            bars, ctrs, arrived, members, r, g, n, obj, peers, values, &mut c,
        );
    }
    c.report(stats);
}

/// `Barrier<Cta>` objects in shared memory (launch with `8 * nobj` bytes): the block inits
/// its `nobj` barriers with `Barrier::init(members[block * nobj + o])` (5 where that is 0),
/// synchronizes once, runs every round with no block barrier between them, synchronizes, and
/// copies each barrier's word to `out[block * nobj + o]`. `ctrs`, `arrived` and `members` are
/// indexed `block * nobj + o`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn pattern_barrier_cta(
    out: *mut u64,
    ctrs: *mut u32,
    arrived: *mut u32,
    members: *const u32,
    nobj: u32,
    rounds: u32,
    obj: *const u32,
    peers: *const u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let smem = block::dynamic_shared_memory().cast::<u64>();
    let (g, n) = flat_id();
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let base = block::rank() as usize * nobj as usize;
    let (ctrs, arrived, members) = (ctrs.add(base), arrived.add(base), members.add(base));
    block_stride(t, threads, nobj, |i| {
        let m = *members.add(i);
        Barrier::<Cta>::from_ptr(smem.add(i)).init(if m == 0 { 5 } else { m });
    });
    block::sync();
    let mut c = Counts::default();
    for r in 0..rounds {
        barrier_round::<Cta>(
            smem, ctrs, arrived, members, r, g, n, obj, peers, values, &mut c,
        );
    }
    block::sync();
    block_stride(t, threads, nobj, |i| {
        *out.add(base + i) = Atomic::<u64, Cta>::from_ptr(smem.add(i)).load(Relaxed)
    });
    c.report(stats);
}

// ---------------------------------------------------------------------------------------------
// BlockBarrier (mbarrier, sm_80+)

/// `BlockBarrier` objects in shared memory (launch with `8 * nobj` bytes): the block inits its
/// `nobj` barriers for `members[block * nobj + o]` threads (1 where that is 0), synchronizes
/// once and runs every round with no block barrier between them. Round `r` uses
/// `arrive_and_wait` (r % 3 == 0), `arrive` + work + `wait` (1), or `arrive` + polling
/// `test_wait` (2). After each round a member checks the arrival count window (as
/// `barrier_round`) and its peers' values. `arrived` and `members` are indexed `block * nobj +
/// o`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn pattern_block_barrier(
    arrived: *mut u32,
    members: *const u32,
    nobj: u32,
    rounds: u32,
    obj: *const u32,
    peers: *const u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let smem = block::dynamic_shared_memory().cast::<u64>();
    let (g, n) = flat_id();
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let base = block::rank() as usize * nobj as usize;
    let (arrived, members) = (arrived.add(base), members.add(base));
    block_stride(t, threads, nobj, |i| {
        let m = *members.add(i);
        BlockBarrier::from_ptr(smem.add(i)).init(if m == 0 { 1 } else { m });
    });
    block::sync();
    let o = *obj.add(g as usize);
    let mut c = Counts::default();
    for r in 0..rounds {
        let buf = publish(values, r, g, n);
        if o == NONE {
            continue;
        }
        let bar = BlockBarrier::from_ptr(smem.add(o as usize));
        let count = Atomic::<u32, Gpu>::from_ptr(arrived.add(o as usize));
        count.fetch_add(1, Relaxed);
        match r % 3 {
            0 => bar.arrive_and_wait(),
            1 => {
                let token = bar.arrive();
                c.acc = work(c.acc ^ g);
                bar.wait(token);
            }
            _ => {
                let token = bar.arrive();
                while !bar.test_wait(&token) {}
            }
        }
        c.waits += 1;
        let m = *members.add(o as usize);
        c.check_arrivals(count.load(Relaxed), r, m);
        c.check_peers(r, g, peers, buf);
    }
    c.report(stats);
}

// ---------------------------------------------------------------------------------------------
// Atomic wait

/// One round of the atomic-wait kernels for thread `g`: write the round's value
/// (`values[r * n + g]`), sleep a little (lanes 1, 2, 3 mod 4 for 250, 500, 750 ns, so their
/// waiters do wait), store 1 with Release into this thread's flag (`flags[k]`, `k` its index
/// in the flag space), then, if `src` is not `NONE`, wait for flag `src` to become 1 with
/// `wait(0, Acquire)` (r % 3 == 0), `wait_until(Acquire, v != 0)` (1) or `wait_until_for`
/// (2), check that the returned value is 1 and that the value of thread `src_g` is there.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn wait_round<S: Scope>(
    flags: *mut u32,
    k: u32,
    src: u32,
    src_g: u32,
    r: u32,
    g: u32,
    values: *mut u32,
    c: &mut Counts,
) {
    *values.add(g as usize) = tag(r, g);
    let lane = g % 32;
    if !lane.is_multiple_of(4) {
        sleep_ns((lane % 4) * 250);
    }
    Atomic::<u32, S>::from_ptr(flags.add(k as usize)).store(1, Release);
    if src == NONE {
        return;
    }
    let a = Atomic::<u32, S>::from_ptr(flags.add(src as usize));
    let got = match r % 3 {
        0 => a.wait(0, Acquire),
        1 => a.wait_until(Acquire, |v| v != 0),
        _ => match a.wait_until_for(WAIT, Acquire, |v| v != 0) {
            Ok(v) => v,
            Err(_) => {
                c.timeouts += 1;
                1
            }
        },
    };
    c.waits += 1;
    c.state += (got != 1) as u32;
    c.stale += (*values.add(src_g as usize) != tag(r, src_g)) as u32;
    c.checks += 1;
}

/// `Atomic<u32, Gpu>` flags in global memory, one per thread and round (`flags[r * n + g]`,
/// zeroed), over a cooperative launch. `src[g]`: the thread whose flag `g` waits for (`NONE`:
/// it only stores). Values are per round (`values[r * n + g]`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_wait_gpu(
    flags: *mut u32,
    rounds: u32,
    src: *const u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let (g, n) = flat_id();
    let s = *src.add(g as usize);
    let mut c = Counts::default();
    for r in 0..rounds {
        let off = r as usize * n as usize;
        wait_round::<Gpu>(flags.add(off), g, s, s, r, g, values.add(off), &mut c);
    }
    c.report(stats);
}

/// `Atomic<u32, Cta>` flags in shared memory, one per thread of the block and round
/// (`rounds * threads` words, zeroed by the block first; launch with `4 * rounds * threads`
/// bytes). `src[g]` is a thread index within the block (`NONE`: only stores). Values are per
/// round in global memory (`values[r * n + g]`); after the rounds the block copies its flags
/// to `out[(r * blocks + block) * threads + t]`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_wait_cta(
    out: *mut u32,
    rounds: u32,
    src: *const u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let smem = block::dynamic_shared_memory().cast::<u32>();
    let (g, n) = flat_id();
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let (b, blocks) = (block::rank(), block::count());
    block_stride(t, threads, rounds * threads, |i| *smem.add(i) = 0);
    block::sync();
    let s = *src.add(g as usize);
    let s_g = if s == NONE { NONE } else { b * threads + s };
    let mut c = Counts::default();
    for r in 0..rounds {
        let flags = smem.add((r * threads) as usize);
        let vals = values.add(r as usize * n as usize);
        wait_round::<Cta>(flags, t, s, s_g, r, g, vals, &mut c);
    }
    block::sync();
    for r in 0..rounds {
        let w = Atomic::<u32, Cta>::from_ptr(smem.add((r * threads + t) as usize));
        *out.add(((r * blocks + b) * threads + t) as usize) = w.load(Relaxed);
    }
    c.report(stats);
}

// ---------------------------------------------------------------------------------------------
// GridBarrier

/// Every thread of a cooperative launch (any block and grid shape) calls `sync()`, alternating
/// between two `GridBarrier`s (`bars[0]` with `Spin`, `bars[1]` with `NanoSleep`, both zeroed).
/// Before each sync a thread writes `tag(r, g)` to `values[(r & 1) * n + g]`; after it, it
/// checks three threads of other blocks: the same rank in the next block, rank `t + 97` in
/// the previous block, and the same rank half the grid away.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_grid_sync(
    bars: *mut u32,
    rounds: u32,
    values: *mut u32,
    stats: *mut u64,
) {
    let (g, n) = flat_id();
    let threads = block::dim_x() * block::dim_y() * block::dim_z();
    let (b, blocks) = (block::rank(), block::count());
    let t = block::thread_rank();
    let spin = GridBarrier::<Spin>::from_ptr(bars);
    let sleep = GridBarrier::<NanoSleep>::from_ptr(bars.add(1));
    let others = [
        ((b + 1) % blocks) * threads + t,
        ((b + blocks - 1) % blocks) * threads + (t + 97) % threads,
        ((b + blocks / 2) % blocks) * threads + t,
    ];
    let mut c = Counts::default();
    for r in 0..rounds {
        let buf = publish(values, r, g, n);
        if r.is_multiple_of(2) {
            spin.sync();
        } else {
            sleep.sync();
        }
        c.waits += 1;
        for p in others {
            c.stale += (*buf.add(p as usize) != tag(r, p)) as u32;
            c.checks += 1;
        }
    }
    c.report(stats);
}
