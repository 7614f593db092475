//! Kernels of the barrier-completion tests (tests/src/cases/barrier_completion.rs): a
//! `Barrier<S, NanoSleep, Census>` built with `Barrier::with_completion`, whose completion
//! counts the phases and checks every participant's slot, under every way of arriving (split
//! `arrive` + `wait`, `arrive` + `wait_parity`, `arrive` + `wait_for`, `arrive_and_wait`, and
//! `arrive_and_drop`), with the lanes of a warp on 1, 2 or 32 barriers.

use crate::work;
use core::time::Duration;
use ptx_sync::barrier::Completion;
use ptx_sync::{block, Atomic, Barrier, Cta, Gpu, NanoSleep, Ordering::*, Scope};

/// What thread `t` writes into its slot before arriving at phase `p`.
#[inline(always)]
fn value(p: u32, t: u32) -> u32 {
    (p << 20) ^ t ^ 0x5555
}

/// The completion: runs once per phase, in the arrival that completes it. It reads every
/// participant's slot (written before that participant arrived) and bumps the phase count;
/// both with plain loads and stores, which the barrier orders (module docs of `barrier.rs`).
#[derive(Clone, Copy)]
pub struct Census {
    /// Phases completed so far.
    count: *mut u32,
    /// Slots that did not hold this phase's value when the completion read them.
    bad: *mut u32,
    /// One slot per thread of the launch (or block), indexed by `t`.
    slots: *const u32,
    /// This barrier's participants: `t = j * objects + k` for `j < members`.
    k: u32,
    objects: u32,
    members: u32,
    /// Phases in which all `members` arrive; half of them (`j >= members / 2`) drop out at the
    /// last of those.
    full: u32,
}

// The host side sizes memory for it (tests/src/cases/barrier_completion.rs, BARRIER_BYTES).
const _: () = assert!(size_of::<Barrier<Cta, NanoSleep, Census>>() == 48);

impl Completion for Census {
    #[inline(always)]
    fn complete(&mut self) {
        // SAFETY: the pointers were set up by the kernel for its own memory; only the
        // completion writes `count` and `bad`, one run at a time.
        unsafe {
            let p = *self.count;
            let active = if p < self.full {
                self.members
            } else {
                self.members / 2
            };
            let mut bad = 0;
            for j in 0..active {
                let t = j * self.objects + self.k;
                bad += (*self.slots.add(t as usize) != value(p, t)) as u32;
            }
            *self.bad += bad;
            *self.count = p + 1;
        }
    }
}

/// Writes barrier `k` of `bars` (`members` participants), its completion counting into
/// `count[k]` and `bad[k]`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn init_census<S: Scope>(
    bars: *mut Barrier<S, NanoSleep, Census>,
    count: *mut u32,
    bad: *mut u32,
    slots: *const u32,
    k: u32,
    objects: u32,
    members: u32,
    full: u32,
) {
    let census = Census {
        count: count.add(k as usize),
        bad: bad.add(k as usize),
        slots,
        k,
        objects,
        members,
        full,
    };
    bars.add(k as usize)
        .write(Barrier::<S>::with_completion(members, census));
}

/// `stats` (u64, atomics): `[0]` threads released from a phase that saw a completion count
/// other than that phase's, `[1]` such checks, `[2]` timed waits that timed out, `[3]` unused
/// (keeps the work between arrive and wait alive).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run<S: Scope>(
    bar: &Barrier<S, NanoSleep, Census>,
    count: *const u32,
    slots: *mut u32,
    t: u32,
    j: u32,
    members: u32,
    full: u32,
    extra: u32,
    stats: *mut u64,
) {
    let add = |i: usize, x: u64| {
        Atomic::<u64, Gpu>::from_ptr(stats.add(i)).fetch_add(x, Relaxed);
    };
    let dropper = j >= members / 2;
    let (mut stale, mut checks, mut timeouts) = (0u64, 0u64, 0u64);
    let mut acc = t;
    for p in 0..full + extra {
        *slots.add(t as usize) = value(p, t);
        if dropper && p == full - 1 {
            bar.arrive_and_drop();
            break;
        }
        match (t + p) % 4 {
            0 => bar.arrive_and_wait(),
            1 => {
                let token = bar.arrive();
                acc = work(acc);
                bar.wait(token);
            }
            2 => {
                let token = bar.arrive();
                bar.wait_parity(token.parity());
            }
            _ => {
                let token = bar.arrive();
                if bar.wait_for(&token, Duration::from_secs(10)).is_err() {
                    timeouts += 1;
                    bar.wait(token);
                }
            }
        }
        // The completion of phase `p` ran before this thread was released, and the next one
        // needs this thread's next arrival: the count is exactly `p + 1`.
        stale += (core::ptr::read_volatile(count) != p + 1) as u64;
        checks += 1;
    }
    add(0, stale);
    add(1, checks);
    add(2, timeouts);
    if acc == 0x1234_5678 {
        add(3, 1); // keeps `acc` (the work between arrive and wait) alive
    }
}

/// One `Barrier<Cta, NanoSleep, Census>` per `objects` lanes-apart group of each block, in
/// dynamic shared memory: the barriers (48 bytes each) from byte 0, then `count[objects]`,
/// `bad[objects]`, then one slot per thread. Thread `t` uses barrier `t % objects`. `out`
/// (u32, per block `2 * objects`): each barrier's final count and bad-slot total.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn barrier_completion_cta(
    objects: u32,
    full: u32,
    extra: u32,
    stats: *mut u64,
    out: *mut u32,
) {
    let smem = block::dynamic_shared_memory();
    let (t, n, b) = (block::thread_x(), block::dim_x(), block::index_x());
    let bars = smem.cast::<Barrier<Cta, NanoSleep, Census>>();
    let count = smem.add(objects as usize * size_of::<Barrier<Cta, NanoSleep, Census>>());
    let count = count.cast::<u32>();
    let bad = count.add(objects as usize);
    let slots = bad.add(objects as usize);
    let members = n / objects;
    if t < objects {
        *count.add(t as usize) = 0;
        *bad.add(t as usize) = 0;
        init_census(bars, count, bad, slots, t, objects, members, full);
    }
    block::sync();
    let k = t % objects;
    let (bar, ctr) = (&*bars.add(k as usize), count.add(k as usize));
    run(bar, ctr, slots, t, t / objects, members, full, extra, stats);
    block::sync();
    if t < objects {
        *out.add((2 * (b * objects + t)) as usize) = *count.add(t as usize);
        *out.add((2 * (b * objects + t) + 1) as usize) = *bad.add(t as usize);
    }
}

/// The same over the whole grid with `Barrier<Gpu, NanoSleep, Census>` in global memory
/// (`mem`, zeroed: the barriers, 48 bytes each, then `count[objects]`, `bad[objects]`, a ready
/// flag, then one slot per thread of the grid). Thread `g` (of the grid) uses barrier
/// `g % objects`. Block 0 writes the barriers, then releases the flag; the other blocks
/// acquire it before anyone arrives. The grid must be co-resident (one block per SM).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn barrier_completion_gpu(
    objects: u32,
    full: u32,
    extra: u32,
    mem: *mut u8,
    stats: *mut u64,
) {
    let (t, b) = (block::thread_x(), block::index_x());
    let threads = block::dim_x() * block::grid_x();
    let g = b * block::dim_x() + t;
    let bars = mem.cast::<Barrier<Gpu, NanoSleep, Census>>();
    let count = mem
        .add(objects as usize * size_of::<Barrier<Gpu, NanoSleep, Census>>())
        .cast::<u32>();
    let bad = count.add(objects as usize);
    let ready = Atomic::<u32, Gpu>::from_ptr(bad.add(objects as usize));
    let slots = bad.add(objects as usize + 1);
    let members = threads / objects;
    if b == 0 && t < objects {
        init_census(bars, count, bad, slots, t, objects, members, full);
    }
    // Block 0: the barriers are written before its thread 0 releases the flag (the block
    // barrier orders them, the release is cumulative); the other blocks see them after their
    // thread 0's acquire and their block barrier.
    block::sync();
    if t == 0 {
        if b == 0 {
            ready.store(1, Release);
        } else {
            ready.wait(0, Acquire);
        }
    }
    block::sync();
    let k = g % objects;
    let (bar, ctr) = (&*bars.add(k as usize), count.add(k as usize));
    run(bar, ctr, slots, g, g / objects, members, full, extra, stats);
}
