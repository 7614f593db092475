//! Kernels of the Queue tests (tests/src/cases/queue.rs). Producers push distinct values
//! (`plan::value`), consumers pop and account for every value: count, sum and xor (u64
//! counters), and a bitmap of values seen (`atom.or` per value: a bit already set is a value
//! delivered twice). Roles and values: tests/src/cases/queue_plan.rs. `pattern_queue_shapes`
//! calls the queues the ways the lock matrix calls its locks (a warp's lanes on several
//! queues, lane 0 alone, data-dependent subsets of lanes, partial warps).

// Shared with the host side, which uses the rest (the counters' count, the expected xor).
#[allow(dead_code)]
#[path = "../../src/cases/queue_plan.rs"]
mod plan;

use core::time::Duration;
use plan::*;
use ptx_sync::{block, Atomic, Cta, Gpu, Ordering::Relaxed, Queue, Scope};

/// A consumer's running account, added to the counters once at the end.
#[derive(Default)]
struct Account {
    count: u64,
    sum: u64,
    xor: u64,
    twice: u64,
    elsewhere: u64,
}

impl Account {
    /// One value popped: `mine` says whether it came from the producers of this queue.
    #[inline(always)]
    unsafe fn take(&mut self, v: u32, seen: *mut u32, mine: bool) {
        self.count += 1;
        self.sum += v as u64;
        self.xor ^= v as u64;
        let bit = 1u32 << (v % 32);
        if Atomic::<u32, Gpu>::from_ptr(seen.add((v / 32) as usize)).fetch_or(bit, Relaxed) & bit
            != 0
        {
            self.twice += 1;
        }
        if !mine {
            self.elsewhere += 1;
        }
    }

    #[inline(always)]
    unsafe fn add_to(&self, stats: *mut u64) {
        let at = |k: usize| Atomic::<u64, Gpu>::from_ptr(stats.add(k));
        at(COUNT).fetch_add(self.count, Relaxed);
        at(SUM).fetch_add(self.sum, Relaxed);
        at(XOR).fetch_xor(self.xor, Relaxed);
        at(TWICE).fetch_add(self.twice, Relaxed);
        at(ELSEWHERE).fetch_add(self.elsewhere, Relaxed);
    }
}

/// `v` pushed with the form `form` picks: 0 `push`, 1 `try_push` until it succeeds, 2
/// `push_for` of a short timeout until it succeeds.
#[inline(always)]
fn push_with<const N: usize, S: Scope>(q: &Queue<u32, N, S>, v: u32, form: u32) {
    match form {
        0 => q.push(v),
        1 => while q.try_push(v).is_err() {},
        _ => while q.push_for(v, Duration::from_micros(2)).is_err() {},
    }
}

/// A value popped with the form `form` picks: 0 `pop`, 1 `try_pop` until it gets one, 2
/// `pop_for` of a short timeout until it gets one.
#[inline(always)]
fn pop_with<const N: usize, S: Scope>(q: &Queue<u32, N, S>, form: u32) -> u32 {
    match form {
        0 => q.pop(),
        1 => loop {
            if let Some(v) = q.try_pop() {
                break v;
            }
        },
        _ => loop {
            if let Some(v) = q.pop_for(Duration::from_micros(2)) {
                break v;
            }
        },
    }
}

/// One queue of [`RING`] slots in global memory (zeroed: empty) shared by the grid: the
/// first half of the blocks produce `iters` values per thread, the second half consume as
/// many. `forms` 0: every push and pop blocking; 1: each thread cycles through the blocking,
/// try and timed forms (`i + thread` picks). Cooperative launch (consumers wait for producer
/// blocks). `seen`: the bitmap, `stats`: the counters (plan.rs).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn queue_global_blocks(
    q: *mut Queue<u32, RING, Gpu>,
    seen: *mut u32,
    stats: *mut u64,
    iters: u32,
    forms: u32,
) {
    let q = Queue::from_ptr(q);
    let producers = block::count() / 2;
    let (b, t) = (block::rank(), block::thread_rank());
    let me = (b % producers) * block::dim_x() + t;
    let form = |i: u32| if forms == 0 { 0 } else { (i + t) % 3 };
    if b < producers {
        for i in 0..iters {
            push_with(q, value(me, i, iters), form(i));
        }
    } else {
        let mut acc = Account::default();
        for i in 0..iters {
            acc.take(pop_with(q, form(i)), seen, true);
        }
        acc.add_to(stats);
    }
}

/// A queue of [`WARP_RING`] slots per warp (`queues[global warp]`, zeroed), its lanes split
/// into producers and consumers by `split` (plan.rs `produces`): fewer slots than producers,
/// so the producers of a warp wait for the consumers of the same warp. Partial warps (a
/// block of 48 threads) use splits 0 and 2. Value `(warp * 16 + rank) * iters + i`; a value
/// from another warp's producers counts as `ELSEWHERE`. At the end the warp's first lane
/// counts what is left in its queue (`LEFT`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn queue_per_warp(
    queues: *mut Queue<u32, WARP_RING, Gpu>,
    seen: *mut u32,
    stats: *mut u64,
    iters: u32,
    split: u32,
) {
    let t = block::thread_rank();
    let warp = (block::rank() * block::dim_x().div_ceil(32) + t / 32) as usize;
    let lane = t % 32;
    let q = Queue::from_ptr(queues.add(warp));
    let first = warp as u32 * 16;
    let r = rank(split, lane);
    if produces(split, lane) {
        for i in 0..iters {
            q.push(value(first + r, i, iters));
        }
    } else {
        let mut acc = Account::default();
        for _ in 0..iters {
            let v = q.pop();
            acc.take(v, seen, v / iters / 16 == warp as u32);
        }
        acc.add_to(stats);
    }
    // Every lane of the warp is done (divergent lanes need not have reconverged by now, so
    // name them all: the warp's lanes, fewer in a partial warp).
    let in_warp = (block::dim_x() - (t / 32) * 32).min(32);
    ptx_sync::warp::sync(if in_warp == 32 {
        u32::MAX
    } else {
        (1 << in_warp) - 1
    });
    if lane == 0 {
        let mut left = 0u64;
        while q.try_pop().is_some() {
            left += 1;
        }
        Atomic::<u64, Gpu>::from_ptr(stats.add(LEFT)).fetch_add(left, Relaxed);
    }
}

/// A queue of [`BLOCK_RING`] slots per block in shared memory (Cta scope), zeroed by the
/// block: `split` 0, the lower half of the block's warps produce and the upper half consume;
/// 1, the lanes of every warp split even/odd (each warp both produces and consumes). Each
/// thread pushes or pops `iters` values; producer `rank` in block `b` pushes value
/// `(b * producers + rank) * iters + i`. After a `block::sync`, thread 0 counts what is left.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn queue_shared_block(
    seen: *mut u32,
    stats: *mut u64,
    iters: u32,
    split: u32,
) {
    type Q = Queue<u32, BLOCK_RING, Cta>;
    let smem = block::dynamic_shared_memory();
    let words = smem.cast::<u32>();
    let t = block::thread_rank();
    let mut i = t as usize;
    while i < core::mem::size_of::<Q>() / 4 {
        *words.add(i) = 0;
        i += block::dim_x() as usize;
    }
    block::sync();
    let q = Q::from_ptr(smem.cast());
    let half = block::dim_x() / 2;
    let (producer, r) = if split == 0 {
        (t < half, if t < half { t } else { t - half })
    } else {
        (t.is_multiple_of(2), t / 2)
    };
    let b = block::rank();
    if producer {
        for i in 0..iters {
            q.push(value(b * half + r, i, iters));
        }
    } else {
        let mut acc = Account::default();
        for _ in 0..iters {
            let v = q.pop();
            acc.take(v, seen, v / iters / half == b);
        }
        acc.add_to(stats);
    }
    block::sync();
    if t == 0 {
        let mut left = 0u64;
        while q.try_pop().is_some() {
            left += 1;
        }
        Atomic::<u64, Gpu>::from_ptr(stats.add(LEFT)).fetch_add(left, Relaxed);
    }
}

/// The lock matrix's shapes for queues: [`QUEUES_PER_WARP`] queues of [`SHAPE_RING`] slots
/// per warp (`queues[global warp * QUEUES_PER_WARP + q]`, zeroed), any block size (a last
/// warp that is not full has fewer lanes). In iteration `it` each lane that `queue_of(shape,
/// warp, lane, it)` puts on queue `q` pushes `shape_value(warp, lane, it, iters)` onto `q`,
/// then pops one value from `q`, with the form `(it + lane) % 3` picks (blocking, try until
/// it succeeds, timed until it succeeds). A value that was not pushed onto this queue by this
/// warp counts as `ELSEWHERE`. At the end the warp's first lane counts what is left in its
/// warp's queues (`LEFT`).
///
/// Why no lane waits forever: a lane takes a push ticket only after its earlier pop completed,
/// so a queue's push tickets never run more than its lanes (at most 32 = [`SHAPE_RING`]) ahead
/// of its completed pops, and a pop's ticket is always one whose push has begun (each lane
/// pushes before it pops). A push waits only for the pop `SHAPE_RING` tickets before it, a pop
/// only for the push of its own ticket: every wait is on a smaller ticket already taken, so the
/// smallest unfinished operation always completes. Each queue gets exactly
/// as many pops as pushes, and no lane waits on a warp-level step inside the loop, so the only
/// waits are a lane's pop on another lane's push in progress: sm_70 and later schedule the
/// lanes of a warp independently (diverged lanes each make progress, the guarantee the CUDA
/// programming guide names Independent Thread Scheduling), so that push completes even when
/// its lane is in the same warp as the waiting pop.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_queue_shapes(
    queues: *mut Queue<u32, SHAPE_RING, Gpu>,
    seen: *mut u32,
    stats: *mut u64,
    iters: u32,
    shape: u32,
) {
    let t = block::thread_rank();
    let warp = block::rank() * block::dim_x().div_ceil(32) + t / 32;
    let lane = t % 32;
    let mine = queues.add(warp as usize * QUEUES_PER_WARP);
    let mut acc = Account::default();
    for it in 0..iters {
        let q = queue_of(shape, warp, lane, it);
        if q == NONE {
            continue;
        }
        let queue = Queue::from_ptr(mine.add(q as usize));
        let form = (it + lane) % 3;
        push_with(queue, shape_value(warp, lane, it, iters), form);
        let v = pop_with(queue, form);
        let (w, l, i) = origin(v, iters);
        acc.take(v, seen, w == warp && queue_of(shape, w, l, i) == q);
    }
    acc.add_to(stats);
    // Every lane of the warp is done (name them all: diverged lanes need not have reconverged).
    let in_warp = (block::dim_x() - (t / 32) * 32).min(32);
    ptx_sync::warp::sync(if in_warp == 32 {
        u32::MAX
    } else {
        (1 << in_warp) - 1
    });
    if lane == 0 {
        let mut left = 0u64;
        for q in 0..QUEUES_PER_WARP {
            while Queue::from_ptr(mine.add(q)).try_pop().is_some() {
                left += 1;
            }
        }
        Atomic::<u64, Gpu>::from_ptr(stats.add(LEFT)).fetch_add(left, Relaxed);
    }
}
