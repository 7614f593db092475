//! Primitive-shaped litmus tests: data handed from one thread to another through a ptx-sync
//! primitive (a lock, a semaphore token, a latch, a barrier) and checked on arrival; and MP at
//! `Sys` scope between a host thread and the GPU on mapped pinned host memory. The host side is
//! `litmus/src/gpu/handoff.rs`; the layout both sides use is `litmus/src/handoff_layout.rs`.
//!
//! Every handoff kernel adds its threads' counts to `stats` (u64): `[0]` instances whose data
//! was fresh, `[1]` stale (some word was not the value the primitive's synchronization makes
//! visible: forbidden by the PTX memory model), `[2]` lost (a bounded wait gave up, so nothing
//! was checked). The data words are plain (`ld/st.global`, no `.relaxed`/`.acquire`): only the
//! primitive orders them, which is what each test is about.
//!
//! Controls: the semaphore-lock, token and latch kernels also run with [`RelaxedSemaphore`] /
//! [`RelaxedLatch`], the same algorithms with every order relaxed. Nothing then orders the
//! data, so the model allows stale reads, and the H100 shows them (most likely lines a
//! reader's L1 kept from earlier rounds, which no acquire invalidated): proof that the checks
//! above see a broken primitive.

use core::time::Duration;
use ptx_sync::wait::{global_timer_ns, poll_until_for, NanoSleep};
use ptx_sync::{
    block, Atomic, Barrier, BinarySemaphore, Gpu, GridBarrier, Latch, Mutex, Ordering::*, Spin, Sys,
};

use crate::handoff_layout::{mp_bin, LINE, MP_BINS, NEIGHBOURS, SYS_STRIDE, WORDS};

/// What a critical section protects: `WORDS` counters, one per line.
type Protected = [u32; WORDS * LINE];

/// The value slot `slot` holds in round `round` (1-based). Odd multiplier: injective in the
/// round for a fixed slot, so a value left from any earlier round is detected as stale.
#[inline(always)]
fn stamp(round: u32, slot: u32) -> u32 {
    round.wrapping_mul(0x2c1b_3c6d) ^ slot
}

/// One thread's counts, added to the launch's `stats` once at the end.
#[derive(Default)]
struct Tally {
    fresh: u32,
    stale: u32,
    lost: u32,
}

impl Tally {
    #[inline(always)]
    fn saw(&mut self, fresh: bool) {
        if fresh {
            self.fresh += 1;
        } else {
            self.stale += 1;
        }
    }

    /// `stats[0..3] += [fresh, stale, lost]` (relaxed reductions: the kernel's end orders them
    /// before the host's copy).
    #[inline(always)]
    unsafe fn add_to(&self, stats: *mut u64) {
        for (k, n) in [self.fresh, self.stale, self.lost].into_iter().enumerate() {
            if n != 0 {
                Atomic::<u64, Gpu>::from_ptr(stats.add(k)).red_add(n as u64, Relaxed);
            }
        }
    }
}

/// Stamps one `#[no_mangle]` kernel per `name: [generic arguments],` that calls
/// `body::<generic arguments>` with the kernel's parameters: a claim and its relaxed control
/// share one body and one signature, so only the generic argument tells them apart.
macro_rules! handoff_kernels {
    ($body:ident $params:tt { $($(#[$doc:meta])* $name:ident: [$($g:tt)+],)+ }) => {$(
        handoff_kernels!(@one $(#[$doc])* $name [$($g)+] $body $params);
    )+};
    (@one $(#[$doc:meta])* $name:ident [$($g:tt)+] $body:ident ($($arg:ident: $t:ty),* $(,)?)) => {
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name($($arg: $t),*) {
            $body::<$($g)+>($($arg),*)
        }
    };
}

/// Polls `done` (with `NanoSleep`, as the primitives' timed waits do) for about `ns`
/// nanoseconds; whether it came true. The relaxed controls' waits.
#[inline(always)]
fn poll_for(ns: u64, mut done: impl FnMut() -> bool) -> bool {
    poll_until_for::<NanoSleep, _>(Duration::from_nanos(ns), || done().then_some(())).is_ok()
}

/// The acquire and release sides of a one-unit semaphore: `BinarySemaphore<Gpu>` (what the
/// claims test) or [`RelaxedSemaphore`] (their control).
trait Unit {
    /// The unit at `ptr` (a `u32`: 1 free, 0 taken).
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self;
    /// Takes the unit within about `ns` nanoseconds, or returns `false`.
    fn acquire_for(&self, ns: u64) -> bool;
    /// Gives the unit back.
    fn release(&self);
}

impl Unit for BinarySemaphore<Gpu> {
    #[inline(always)]
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self {
        BinarySemaphore::from_ptr(ptr)
    }

    #[inline(always)]
    fn acquire_for(&self, ns: u64) -> bool {
        self.try_acquire_for(Duration::from_nanos(ns))
    }

    #[inline(always)]
    fn release(&self) {
        BinarySemaphore::release(self, 1)
    }
}

/// `BinarySemaphore<Gpu>`'s algorithm (device/src/binary_semaphore.rs) with its orders
/// weakened: `atom.exch.relaxed.gpu` of 0 takes the unit (polling with relaxed loads while it
/// is taken), `st.relaxed.gpu` of 1 gives it back. Mutual exclusion still holds (the exchange
/// is atomic), but no release/acquire pair orders the data around them.
#[repr(transparent)]
struct RelaxedSemaphore(Atomic<u32, Gpu>);

impl Unit for RelaxedSemaphore {
    #[inline(always)]
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self {
        &*ptr.cast::<Self>()
    }

    #[inline(always)]
    fn acquire_for(&self, ns: u64) -> bool {
        if self.0.swap(0, Relaxed) == 1 {
            return true;
        }
        poll_for(ns, || {
            self.0.load(Relaxed) == 1 && self.0.swap(0, Relaxed) == 1
        })
    }

    #[inline(always)]
    fn release(&self) {
        self.0.store(1, Relaxed);
    }
}

/// The body of one critical section, under any lock. `ordinal` counts critical sections: its
/// relaxed `atom.add` returns how many ran before this one, because the lock's release/acquire
/// chain puts every earlier section's `atom` before this one in causality order, and
/// coherence makes the word's modification order agree. Every protected word must hold that
/// number (each earlier section wrote its ordinal + 1 to all of them); then this section
/// writes its own ordinal + 1. Returns whether all words were fresh.
#[inline(always)]
fn critical_section(words: &mut Protected, ordinal: &Atomic<u32, Gpu>) -> bool {
    let before = ordinal.fetch_add(1, Relaxed);
    let mut fresh = true;
    for k in 0..WORDS {
        fresh &= words[k * LINE] == before;
    }
    for k in 0..WORDS {
        words[k * LINE] = before + 1;
    }
    fresh
}

/// Mutex handoff: every thread takes `Mutex<Protected, Gpu>` at `m` (zeroed) `iters` times
/// with `lock()` and runs [`critical_section`]. The lock is warp-aggregated: within a warp the
/// data passes from lane to lane through `bar.warp.sync` (which orders the lanes' memory
/// accesses), between warps through the lock word (`atom.cas.acquire.gpu` after
/// `st.release.gpu`). `ordinal` (zeroed) ends at the number of critical sections.
///
/// `lock()` has no timed form, so this is the one handoff kernel without a lost count: a lock
/// that is never released hangs it, and the host's watchdog turns that into an error.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_handoff_mutex(
    m: *mut Mutex<Protected, Gpu>,
    ordinal: *mut u32,
    iters: u32,
    stats: *mut u64,
) {
    let m = Mutex::from_ptr(m);
    let ordinal = Atomic::<u32, Gpu>::from_ptr(ordinal);
    let mut tally = Tally::default();
    for _ in 0..iters {
        let mut guard = m.lock();
        tally.saw(critical_section(&mut guard, ordinal));
    }
    tally.add_to(stats);
}

/// Semaphore as a lock: the unit `U` at `sem` (the host writes 1) guards the `Protected`
/// words at `data` (zeroed). Every thread acquires it `iters` times, runs
/// [`critical_section`] and releases it; an acquisition that does not succeed within
/// `timeout_ns` counts this thread's remaining sections as lost.
#[inline(always)]
unsafe fn semaphore_lock<U: Unit>(
    sem: *mut u32,
    data: *mut u32,
    ordinal: *mut u32,
    iters: u32,
    timeout_ns: u64,
    stats: *mut u64,
) {
    let sem = U::at(sem);
    let ordinal = Atomic::<u32, Gpu>::from_ptr(ordinal);
    let mut tally = Tally::default();
    for i in 0..iters {
        if !sem.acquire_for(timeout_ns) {
            tally.lost += iters - i;
            break;
        }
        tally.saw(critical_section(&mut *data.cast::<Protected>(), ordinal));
        sem.release();
    }
    tally.add_to(stats);
}

handoff_kernels! {
    semaphore_lock(
        sem: *mut u32,
        data: *mut u32,
        ordinal: *mut u32,
        iters: u32,
        timeout_ns: u64,
        stats: *mut u64,
    ) {
        /// [`semaphore_lock`] with `BinarySemaphore<Gpu>` (`atom.cas.acquire.gpu`,
        /// `atom.add.release.gpu`).
        litmus_handoff_semaphore_lock: [BinarySemaphore<Gpu>],
        /// [`semaphore_lock`]'s control, with [`RelaxedSemaphore`].
        litmus_handoff_semaphore_lock_relaxed: [RelaxedSemaphore],
    }
}

/// Semaphore as a producer -> consumer token: blocks `2p` (producer) and `2p + 1` (consumer)
/// pair up, and lane `t` of the pair owns channel `c = p * threads + t`: a `full` and an
/// `empty` unit `U` (own lines; the host writes `empty` = 1, `full` = 0) and
/// `WORDS` payload words. Round `r`: the producer acquires `empty`, writes the payload, releases
/// `full`; the consumer acquires `full`, checks the payload (an instance), releases `empty`.
/// With `BinarySemaphore<Gpu>` the consumer's acquire reads the producer's
/// `atom.add.release`, so the payload must be round `r`'s. A wait that gives up after
/// `timeout_ns` ends the channel: the consumer counts the rounds it did not check as lost. A
/// grid with an odd block count leaves the last idle.
#[inline(always)]
unsafe fn semaphore_token<U: Unit>(
    full: *mut u32,
    empty: *mut u32,
    payload: *mut u32,
    rounds: u32,
    timeout_ns: u64,
    stats: *mut u64,
) {
    let (b, t, threads) = (block::rank(), block::thread_rank(), block::dim_x());
    if b | 1 >= block::count() {
        return;
    }
    let c = (b / 2) * threads + t;
    let full = U::at(full.add(c as usize * LINE));
    let empty = U::at(empty.add(c as usize * LINE));
    let words = payload.add(c as usize * WORDS * LINE);
    let slot = |k: usize| c * WORDS as u32 + k as u32;
    let mut tally = Tally::default();
    for r in 1..=rounds {
        if b % 2 == 0 {
            if !empty.acquire_for(timeout_ns) {
                break;
            }
            for k in 0..WORDS {
                *words.add(k * LINE) = stamp(r, slot(k));
            }
            full.release();
        } else {
            if !full.acquire_for(timeout_ns) {
                tally.lost += rounds - r + 1;
                break;
            }
            let mut fresh = true;
            for k in 0..WORDS {
                fresh &= *words.add(k * LINE) == stamp(r, slot(k));
            }
            tally.saw(fresh);
            empty.release();
        }
    }
    tally.add_to(stats);
}

handoff_kernels! {
    semaphore_token(
        full: *mut u32,
        empty: *mut u32,
        payload: *mut u32,
        rounds: u32,
        timeout_ns: u64,
        stats: *mut u64,
    ) {
        /// [`semaphore_token`] with `BinarySemaphore<Gpu>`.
        litmus_handoff_semaphore_token: [BinarySemaphore<Gpu>],
        /// [`semaphore_token`]'s control, with [`RelaxedSemaphore`].
        litmus_handoff_semaphore_token_relaxed: [RelaxedSemaphore],
    }
}

/// Reads the `NEIGHBOURS` slots of this thread's lane in other blocks after a latch or barrier
/// opened round `round` (or counts them lost if the wait gave up). `buf` holds one slot per
/// thread of the grid, written with `stamp(round, slot)` before the arrival.
#[inline(always)]
unsafe fn check_neighbours(buf: *const u32, round: u32, opened: bool, tally: &mut Tally) {
    let (b, blocks) = (block::rank(), block::count());
    let (t, threads) = (block::thread_rank(), block::dim_x());
    let offsets: [u32; NEIGHBOURS as usize] = [1, blocks / 2];
    for d in offsets {
        let slot = ((b + d) % blocks) * threads + t;
        if opened {
            tally.saw(*buf.add(slot as usize) == stamp(round, slot));
        } else {
            tally.lost += 1;
        }
    }
}

/// The two sides of a latch: `Latch<Gpu>` (the claim) or [`RelaxedLatch`] (its control).
trait Count {
    /// The latch at `ptr` (a `u32`: the arrivals still pending).
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self;
    fn count_down(&self, n: u32);
    /// Waits at most about `ns` nanoseconds for the latch to open; whether it did.
    fn wait_for(&self, ns: u64) -> bool;
}

impl Count for Latch<Gpu> {
    #[inline(always)]
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self {
        Latch::from_ptr(ptr)
    }

    #[inline(always)]
    fn count_down(&self, n: u32) {
        Latch::count_down_n(self, n)
    }

    #[inline(always)]
    fn wait_for(&self, ns: u64) -> bool {
        Latch::wait_for(self, Duration::from_nanos(ns)).is_ok()
    }
}

/// `Latch<Gpu>`'s algorithm with its orders weakened: `atom.add.relaxed.gpu` counts down,
/// `ld.relaxed.gpu` polls for 0. The latch still opens after the last arrival, but nothing
/// orders the arrivals' writes before the waiters' reads.
#[repr(transparent)]
struct RelaxedLatch(Atomic<u32, Gpu>);

impl Count for RelaxedLatch {
    #[inline(always)]
    unsafe fn at<'a>(ptr: *mut u32) -> &'a Self {
        &*ptr.cast::<Self>()
    }

    #[inline(always)]
    fn count_down(&self, n: u32) {
        self.0.fetch_sub(n, Relaxed);
    }

    #[inline(always)]
    fn wait_for(&self, ns: u64) -> bool {
        poll_for(ns, || self.0.load(Relaxed) == 0)
    }
}

/// Latch: a fresh latch `L` per round at `latches[r * LINE]`. Every thread writes its slot
/// of `slots[r & 1]` (double-buffered, `2 * blocks * threads` words), then arrives, then
/// waits (`wait_for`, polling `ld.acquire.gpu` for 0) and checks its neighbours' slots.
/// Even rounds: the block meets at `barrier.sync` and thread 0 counts down once for it (the
/// host sets the latch to `blocks`): the barrier orders the block's writes before thread 0's
/// `atom.add.release`, and release is cumulative. Odd rounds: every thread counts down itself
/// (latch = `blocks * threads`). Either way, with `Latch<Gpu>`, the last count-down ends a
/// release sequence of RMWs that a waiter's acquire load observes, so every slot is fresh.
///
/// Double buffering is enough: a block can only write round `r + 2`'s slot after round
/// `r + 1`'s latch opened, which needs every thread to have finished round `r`'s reads.
/// A timed-out wait counts that round's reads as lost; the thread goes on (leaving would
/// strand its block at the next `barrier.sync`).
#[inline(always)]
unsafe fn latch<L: Count>(
    latches: *mut u32,
    rounds: u32,
    slots: *mut u32,
    timeout_ns: u64,
    stats: *mut u64,
) {
    let t = block::thread_rank();
    let me = block::rank() * block::dim_x() + t;
    let n = (block::count() * block::dim_x()) as usize;
    let mut tally = Tally::default();
    for r in 0..rounds {
        let latch = L::at(latches.add(r as usize * LINE));
        let buf = slots.add((r & 1) as usize * n);
        *buf.add(me as usize) = stamp(r + 1, me);
        if r % 2 == 0 {
            block::sync();
            if t == 0 {
                latch.count_down(1);
            }
        } else {
            latch.count_down(1);
        }
        let opened = latch.wait_for(timeout_ns);
        check_neighbours(buf, r + 1, opened, &mut tally);
    }
    tally.add_to(stats);
}

handoff_kernels! {
    latch(latches: *mut u32, rounds: u32, slots: *mut u32, timeout_ns: u64, stats: *mut u64) {
        /// [`latch`] with `Latch<Gpu>`.
        litmus_handoff_latch: [Latch<Gpu>],
        /// [`latch`]'s control, with [`RelaxedLatch`].
        litmus_handoff_latch_relaxed: [RelaxedLatch],
    }
}

/// Barrier: one `Barrier<Gpu>` at `bar` (the host writes `barrier::init_word(blocks)`) for
/// `phases` phases. Every thread writes its slot of `slots[p & 1]`; the block meets at
/// `barrier.sync`; thread 0 arrives for it (`atom.acq_rel.gpu.add.u64` on the barrier's word;
/// the last arrival's add carries into the phase bit, which opens the phase, then restarts the
/// counter with `atom.relaxed.gpu.add.u64`) and waits (`ld.acquire.gpu.b64` of the phase bit,
/// `wait_for`); a second `barrier.sync` passes what thread 0 acquired to its block,
/// and every thread checks its neighbours' slots. Thread 0 tells its block whether the wait
/// gave up through the first word of dynamic shared memory (launch with 4 bytes).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_handoff_barrier(
    bar: *mut u64,
    phases: u32,
    slots: *mut u32,
    timeout_ns: u64,
    stats: *mut u64,
) {
    let bar = Barrier::<Gpu>::from_ptr(bar);
    let opened_flag = block::dynamic_shared_memory().cast::<u32>();
    let t = block::thread_rank();
    let me = block::rank() * block::dim_x() + t;
    let n = (block::count() * block::dim_x()) as usize;
    let mut tally = Tally::default();
    for p in 0..phases {
        let buf = slots.add((p & 1) as usize * n);
        *buf.add(me as usize) = stamp(p + 1, me);
        block::sync();
        if t == 0 {
            let token = bar.arrive();
            // Every thread read the previous phase's flag before this phase's first
            // `barrier.sync`, so overwriting it here races with nobody.
            *opened_flag = bar
                .wait_for(&token, Duration::from_nanos(timeout_ns))
                .is_ok() as u32;
        }
        block::sync();
        check_neighbours(buf, p + 1, *opened_flag != 0, &mut tally);
    }
    tally.add_to(stats);
}

/// Grid barrier: `GridBarrier` at `bar` (zeroed) over a cooperative launch, `phases` phases of
/// the same neighbour exchange as [`litmus_handoff_barrier`]. `GridBarrier::sync` is
/// `barrier.sync`, thread 0's `atom.add.release.gpu` and `ld.acquire.gpu` poll, `barrier.sync`.
/// It has no timed form: a lost arrival hangs, and the host's watchdog reports it.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_handoff_grid_barrier(
    bar: *mut u32,
    phases: u32,
    slots: *mut u32,
    stats: *mut u64,
) {
    let grid = GridBarrier::<Spin>::from_ptr(bar);
    let me = block::rank() * block::dim_x() + block::thread_rank();
    let n = (block::count() * block::dim_x()) as usize;
    let mut tally = Tally::default();
    for p in 0..phases {
        let buf = slots.add((p & 1) as usize * n);
        *buf.add(me as usize) = stamp(p + 1, me);
        grid.sync();
        check_neighbours(buf, p + 1, true, &mut tally);
    }
    tally.add_to(stats);
}

/// This thread's index in the grid and the grid's thread count.
#[inline(always)]
fn grid_thread() -> (u32, u32) {
    let threads = block::dim_x();
    (
        block::rank() * threads + block::thread_rank(),
        block::count() * threads,
    )
}

/// MP host -> GPU at `Sys` scope. `words` is mapped pinned host memory: `x_i` at
/// `words[i * SYS_STRIDE]`, `y_i` at `words[(instances + i) * SYS_STRIDE]`. A host thread
/// stores `x_i = 1` then `y_i = 1` (Release) for every `i` in order while this kernel runs; GPU
/// thread `g` plays instances `g, g + G, g + 2G, ...` (`G` grid threads): it polls `y_i` with
/// `ld.acquire.sys` until it reads 1 or `timeout_ns` (from kernel start) has passed, then loads
/// `x_i` (`ld.acquire.sys` if `X_ACQUIRE`, else `ld.relaxed.sys`: the acquire on `y` alone
/// orders the later load). The host's release store synchronizes with the acquire load that
/// reads it, so `[y, x] = [1, 0]` is forbidden. Outcomes into `bins` (`MP_BINS` u64, see [`mp_bin`]).
#[inline(always)]
unsafe fn mp_host_to_gpu<const X_ACQUIRE: bool>(
    words: *mut u32,
    instances: u32,
    timeout_ns: u64,
    bins: *mut u64,
) {
    let deadline = global_timer_ns().saturating_add(timeout_ns);
    let (g, grid) = grid_thread();
    let mut counts = [0u32; MP_BINS];
    let mut i = g;
    while i < instances {
        let x = Atomic::<u32, Sys>::from_ptr(words.add(i as usize * SYS_STRIDE));
        let y = Atomic::<u32, Sys>::from_ptr(words.add((instances + i) as usize * SYS_STRIDE));
        let mut polls = 0u32;
        let seen_y = loop {
            let v = y.load(Acquire);
            polls += 1;
            if v != 0 || global_timer_ns() >= deadline {
                break v;
            }
        };
        let seen_x = x.load(if X_ACQUIRE { Acquire } else { Relaxed });
        counts[mp_bin(seen_y, seen_x, polls > 1)] += 1;
        i += grid;
    }
    for (k, n) in counts.into_iter().enumerate() {
        if n != 0 {
            Atomic::<u64, Gpu>::from_ptr(bins.add(k)).red_add(n as u64, Relaxed);
        }
    }
}

handoff_kernels! {
    mp_host_to_gpu(words: *mut u32, instances: u32, timeout_ns: u64, bins: *mut u64) {
        /// [`mp_host_to_gpu`] with `x` loaded by `ld.acquire.sys`.
        litmus_sys_mp_host_to_gpu_acquire: [true],
        /// [`mp_host_to_gpu`] with `x` loaded by `ld.relaxed.sys`.
        litmus_sys_mp_host_to_gpu_relaxed: [false],
    }
}

/// MP GPU -> host at `Sys` scope, same layout as [`mp_host_to_gpu`] plus a pacing word `go`
/// at `words[2 * instances * SYS_STRIDE]`: GPU thread `g` plays instances `g, g + G, ...`;
/// for instance `i` it waits until `go > i` (`ld.relaxed.sys`; the host stores `go = i + 1`
/// just before it starts polling `y_i`) or `timeout_ns` (from kernel start) has passed, then
/// stores `x_i = 1` (`st.relaxed.sys`) and `y_i = 1` (`st.release.sys`). Without the pacing the
/// kernel had written nearly every flag before the host thread got to it, so the host never
/// raced the writes. The release store is cumulative over the earlier store to `x_i` at system
/// scope, so a host acquire that reads `y_i = 1` must then read `x_i = 1`. Launch one warp:
/// every waiting thread polls `go` across PCIe.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn litmus_sys_mp_gpu_to_host(
    words: *mut u32,
    instances: u32,
    timeout_ns: u64,
) {
    let deadline = global_timer_ns().saturating_add(timeout_ns);
    let go = Atomic::<u32, Sys>::from_ptr(words.add(2 * instances as usize * SYS_STRIDE));
    let (g, grid) = grid_thread();
    let mut i = g;
    while i < instances {
        while go.load(Relaxed) <= i && global_timer_ns() < deadline {}
        let x = Atomic::<u32, Sys>::from_ptr(words.add(i as usize * SYS_STRIDE));
        let y = Atomic::<u32, Sys>::from_ptr(words.add((instances + i) as usize * SYS_STRIDE));
        x.store(1, Relaxed);
        y.store(1, Release);
        i += grid;
    }
}
