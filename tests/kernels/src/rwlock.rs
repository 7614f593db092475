//! Kernels of the RwLock tests (tests/src/cases/rwlock.rs). Every lock guards four `u32`
//! words: a writer adds one to the first and copies it to the other three (volatile stores,
//! one at a time), a reader loads all four (volatile) and counts a torn read when they
//! disagree. Around each critical section a holders probe counts exclusion violations (a
//! reader that finds a writer inside, a writer that finds anyone) and the most readers at
//! once. Which threads write, and which locks they use, is tests/src/cases/rwlock_plan.rs.
//! The shapes kernels take any block size (the partial-warp cases launch blocks that are not a
//! multiple of 32); `pattern_rwlock_table` is the lock matrix's bucket table with readers.

#[path = "../../src/cases/rwlock_plan.rs"]
mod plan;

// The lock matrix's bucket table: its keys, buckets and slots (the matrix's other items unused here).
// Loaded a second time (patterns_locks.rs loads it too, privately): the same formulas, so the
// table here is the matrix's by construction.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../src/cases/patterns_locks_plan.rs"]
mod table_plan;

use core::ptr::{read_volatile, write_volatile};
use plan::*;
use ptx_sync::{block, Atomic, Cta, Gpu, Ordering::Relaxed, RwLock, Scope};

/// The data every lock of these tests guards.
type Words = [u32; 4];

/// One lock's counters: word `k * NOBJ + obj` of `stats` for counter `k` (plan.rs).
struct Counters<'a, S: Scope> {
    reads: &'a Atomic<u32, S>,
    torn: &'a Atomic<u32, S>,
    bad: &'a Atomic<u32, S>,
    most: &'a Atomic<u32, S>,
    holders: &'a Atomic<u32, S>,
}

impl<S: Scope> Counters<'_, S> {
    #[inline(always)]
    unsafe fn of(stats: *mut u32, obj: usize) -> Self {
        let at = |k: usize| Atomic::<u32, S>::from_ptr(stats.add(k * NOBJ + obj));
        Counters {
            reads: at(READS),
            torn: at(TORN),
            bad: at(BAD),
            most: at(MOST),
            holders: at(HOLDERS),
        }
    }

    /// A writer's critical section: alone inside, it bumps the four words one by one.
    #[inline(always)]
    unsafe fn write(&self, d: &mut Words) {
        if self.holders.fetch_add(WRITER, Relaxed) != 0 {
            self.bad.fetch_add(1, Relaxed);
        }
        let p = d.as_mut_ptr();
        let v = read_volatile(p).wrapping_add(1);
        for i in 0..4 {
            write_volatile(p.add(i), v);
        }
        self.holders.fetch_sub(WRITER, Relaxed);
    }

    /// A reader's critical section: no writer inside, and the four words agree.
    #[inline(always)]
    unsafe fn read(&self, d: &Words) {
        let before = self.holders.fetch_add(1, Relaxed);
        if before >= WRITER {
            self.bad.fetch_add(1, Relaxed);
        }
        self.most.fetch_max((before & (WRITER - 1)) + 1, Relaxed);
        let p = d.as_ptr();
        let a = read_volatile(p);
        if read_volatile(p.add(1)) != a
            || read_volatile(p.add(2)) != a
            || read_volatile(p.add(3)) != a
        {
            self.torn.fetch_add(1, Relaxed);
        }
        self.reads.fetch_add(1, Relaxed);
        self.holders.fetch_sub(1, Relaxed);
    }
}

/// Global thread id.
#[inline(always)]
fn gid() -> u32 {
    block::rank() * block::dim_x() + block::thread_rank()
}

/// One lock in global memory, every thread `iters` times, writing in `writes_in_16` of 16
/// iterations (plan.rs `writes`): the lanes of a warp read and write the same lock at once.
/// `stats`: the counters of lock 0 (`COUNTERS * NOBJ` words).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock_mix(
    lock: *mut RwLock<Words, Gpu>,
    stats: *mut u32,
    iters: u32,
    writes_in_16: u32,
) {
    let l = RwLock::from_ptr(lock);
    let c = Counters::<Gpu>::of(stats, 0);
    let g = gid();
    for it in 0..iters {
        if writes(g, it, writes_in_16) {
            c.write(&mut l.write());
        } else {
            c.read(&l.read());
        }
    }
}

/// `iters` iterations of `shape` (plan.rs `objects`) over the [`NOBJ`] locks at `locks`, one
/// in four operations writing; the nested shape writes its second lock inside the first.
#[inline(always)]
unsafe fn shapes<S: Scope>(locks: *mut RwLock<Words, S>, stats: *mut u32, shape: u32, iters: u32) {
    let t = block::thread_rank();
    let g = gid();
    for it in 0..iters {
        let (a, b) = objects(shape, t, g, it);
        if a == NONE {
            continue;
        }
        let (a, l) = (a as usize, RwLock::from_ptr(locks.add(a as usize)));
        let inner = || {
            if b != NONE {
                let b = b as usize;
                Counters::<S>::of(stats, b).write(&mut RwLock::from_ptr(locks.add(b)).write());
            }
        };
        if writes(g, it, SHAPES_WRITES_IN_16) {
            let mut w = l.write();
            Counters::<S>::of(stats, a).write(&mut w);
            inner();
        } else {
            let r = l.read();
            Counters::<S>::of(stats, a).read(&r);
            inner();
        }
    }
}

/// The shapes on [`NOBJ`] locks in global memory (zeroed by the host: unlocked, data 0);
/// `stats` (`COUNTERS * NOBJ` words, zeroed) their counters.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock_shapes_global(
    locks: *mut RwLock<Words, Gpu>,
    stats: *mut u32,
    shape: u32,
    iters: u32,
) {
    shapes(locks, stats, shape, iters)
}

/// The shapes on [`NOBJ`] locks per block in shared memory (Cta scope). Dynamic shared
/// memory: the locks, then their counters (`COUNTERS * NOBJ` words); the block zeroes both.
/// `out[(block * NOBJ + obj) * 8 ..]`: writes (the data's first word), reads, torn, bad, most,
/// holders left, then the lock's reader arrivals minus departures and tickets taken minus
/// served (0 and 0 when it is free).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock_shapes_shared(out: *mut u32, shape: u32, iters: u32) {
    type L = RwLock<Words, Cta>;
    let smem = block::dynamic_shared_memory();
    let bytes = NOBJ * core::mem::size_of::<L>() + COUNTERS * NOBJ * 4;
    let words = smem.cast::<u32>();
    let mut i = block::thread_rank() as usize;
    while i < bytes / 4 {
        *words.add(i) = 0;
        i += block::dim_x() as usize;
    }
    block::sync();
    let locks = smem.cast::<L>();
    let stats = smem.add(NOBJ * core::mem::size_of::<L>()).cast::<u32>();
    shapes(locks, stats, shape, iters);
    block::sync();
    let t = block::thread_rank() as usize;
    if t < NOBJ {
        let o = out.add((block::rank() as usize * NOBJ + t) * 8);
        let lock = locks.add(t);
        *o = (*(*lock).data_ptr())[0];
        for k in 0..COUNTERS {
            *o.add(1 + k) = *stats.add(k * NOBJ + t);
        }
        let w = lock.cast::<u32>();
        *o.add(6) = (*w).wrapping_sub(*w.add(1));
        *o.add(7) = (*w.add(2)).wrapping_sub(*w.add(3));
    }
}

/// A lock per thread (`locks[g]`, zeroed), each thread writing in one iteration of three and
/// reading in the others: every lane of every warp alone on its lock. `stats`: per thread,
/// its reads.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock_per_thread(
    locks: *mut RwLock<Words, Gpu>,
    reads: *mut u32,
    iters: u32,
) {
    let g = gid() as usize;
    let l = RwLock::from_ptr(locks.add(g));
    for it in 0..iters {
        if it % 3 == 0 {
            let mut w = l.write();
            let v = w[0] + 1;
            *w = [v; 4];
        } else {
            let r = l.read();
            if r.iter().all(|&x| x == r[0]) {
                *reads.add(g) += 1;
            }
        }
    }
}

/// The timed forms against a lock nobody releases. Block 0's thread takes it and never lets go
/// (`mode` 0: to write, 1: to read); every other block's thread waits 100 us, then tries for
/// `ns` nanoseconds each form and records `out[block]`: mode 0, one bit per attempt that
/// timed out (`try_read_for`, `try_read_until`, `try_write_for`, `try_write_until`: 0b1111);
/// mode 1, `try_write_for` timed out (bit 0), `try_write_until` timed out (bit 1), and after
/// them `try_read_for(2 ns)` got in (bit 2): 0b111. That read waits at most for one writer
/// phase, which another block's timed writer ends when it gives up (in `ns` at most), so it
/// gets in however the blocks' attempts overlap.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rwlock_timed_on_held(
    lock: *mut RwLock<u32, Gpu>,
    out: *mut u32,
    ns: u64,
    mode: u32,
) {
    use core::time::Duration;
    use ptx_sync::clock::Instant;
    let l = RwLock::from_ptr(lock);
    let b = block::rank() as usize;
    let d = Duration::from_nanos(ns);
    if b == 0 {
        if mode == 0 {
            core::mem::forget(l.write());
        } else {
            core::mem::forget(l.read());
        }
        *out = 1;
        return;
    }
    ptx_sync::wait::sleep_ns(100_000);
    *out.add(b) = if mode == 0 {
        l.try_read_for(d).is_none() as u32
            | (l.try_read_until(Instant::now() + d).is_none() as u32) << 1
            | (l.try_write_for(d).is_none() as u32) << 2
            | (l.try_write_until(Instant::now() + d).is_none() as u32) << 3
    } else {
        let w1 = l.try_write_for(d).is_none() as u32;
        let w2 = (l.try_write_until(Instant::now() + d).is_none() as u32) << 1;
        w1 | w2 | (l.try_read_for(2 * d).is_some() as u32) << 2
    };
}

/// One bucket of the table (rwlock_plan.rs `BUCKET_WORDS`).
type Bucket = [u32; BUCKET_WORDS];

const _: () = assert!(TABLE_SLOTS == table_plan::SLOTS);

/// The lock matrix's bucket table (patterns_locks_plan.rs) behind [`table_plan::BUCKETS`]
/// RwLocks in global memory (zeroed: unlocked, every bucket empty). Operation `i` of `0..n`
/// (grid-stride) takes key `key_of(i)`'s bucket: to write when `table_writes(i)` (insert the
/// key: bump its pair's count, or claim an empty pair, then bump the bucket's total), else
/// to read (the pairs' counts must add up to the total). `holders[b]`: the holders probe of
/// bucket `b` (readers 1 each, a writer `WRITER`); `reads[b]`: reads of bucket `b`.
/// `out`: inserts that found their bucket full, torn reads, exclusion violations.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_rwlock_table(
    locks: *mut RwLock<Bucket, Gpu>,
    holders: *mut u32,
    reads: *mut u32,
    out: *mut u32,
    n: u32,
) {
    let at = |k: usize| Atomic::<u32, Gpu>::from_ptr(out.add(k));
    let stride = (block::count() * block::dim_x()) as usize;
    for i in (gid() as usize..n as usize).step_by(stride) {
        let key = table_plan::key_of(i as u32);
        let b = table_plan::bucket_of(key);
        let l = RwLock::from_ptr(locks.add(b));
        let h = Atomic::<u32, Gpu>::from_ptr(holders.add(b));
        if table_writes(i as u32) {
            let mut w = l.write();
            if h.fetch_add(WRITER, Relaxed) != 0 {
                at(2).fetch_add(1, Relaxed);
            }
            // Volatile accesses, one word at a time: the lock is all that keeps them exact.
            let p = w.as_mut_ptr();
            let mut slot = None;
            for k in 0..TABLE_SLOTS {
                let stored = read_volatile(p.add(2 * k));
                if stored == key + 1 || stored == 0 {
                    slot = Some(k);
                    break;
                }
            }
            match slot {
                Some(k) => {
                    write_volatile(p.add(2 * k), key + 1);
                    write_volatile(p.add(2 * k + 1), read_volatile(p.add(2 * k + 1)) + 1);
                    let total = p.add(2 * TABLE_SLOTS);
                    write_volatile(total, read_volatile(total) + 1);
                }
                None => {
                    at(0).fetch_add(1, Relaxed);
                }
            }
            h.fetch_sub(WRITER, Relaxed);
        } else {
            let r = l.read();
            if h.fetch_add(1, Relaxed) >= WRITER {
                at(2).fetch_add(1, Relaxed);
            }
            let p = r.as_ptr();
            let mut sum = 0u32;
            for k in 0..TABLE_SLOTS {
                sum = sum.wrapping_add(read_volatile(p.add(2 * k + 1)));
            }
            if sum != read_volatile(p.add(2 * TABLE_SLOTS)) {
                at(1).fetch_add(1, Relaxed);
            }
            Atomic::<u32, Gpu>::from_ptr(reads.add(b)).fetch_add(1, Relaxed);
            h.fetch_sub(1, Relaxed);
        }
    }
}
