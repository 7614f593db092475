//! `RwLock` on the GPU, every count exact (kernels: tests/kernels/src/rwlock.rs; who writes
//! and which locks: rwlock_plan.rs, shared as source with the kernels):
//! - `rwlock_mix_read_heavy_shapes` / `_write_heavy_shapes`: one lock in global memory, every
//!   thread of 132 x 256 (and 1 x 32, 132 x 32, 264 x 128) reading or writing it by a hash of
//!   (thread, iteration), 2 or 12 writes in 16: the lanes of each warp read and write the same
//!   lock at once. The four data words end at exactly the number of writes, every read is
//!   counted, no read is torn, no reader meets a writer and no writer meets anyone, and the lock
//!   ends free. That the launch ends at all (under the watchdog) is the progress check: with a
//!   lock that starved readers or writers a side would stall.
//! - `rwlock_warp_shapes_global` / `_shared`: 32 locks in global memory (Gpu scope) or per block
//!   in shared memory (Cta scope), the calling-pattern matrix's seven shapes (lanes on 2 and on
//!   32 locks, odd lanes, lane 0, a data-dependent subset, every thread on one lock, a write
//!   lock nested inside a read or write hold), one in four operations writing; per lock exact.
//! - `rwlock_per_thread_locks`: a lock per thread (every lane alone on its lock).
//! - `pattern_rwlock_partial_warps`: the seven shapes, global and shared, at blocks of 33, 48
//!   and 100 threads (a last warp of 1, 16 and 4 lanes); per lock exact.
//! - `pattern_rwlock_bucket_table`: the lock matrix's table of 65,536 buckets (keys with
//!   duplicates, 16 hot) behind one RwLock each, one in four operations inserting and the rest
//!   reading the bucket: every key's count, every bucket's total and reads exact, nothing torn.
//! - `rwlock_timed_*`: the timed forms give up on a lock held forever and leave it as they
//!   found it (a timed writer that gave up on a reader lets readers in again).

// Shared with the kernels (the kernels use the counters' layout and the holders word; the host reads them by position).
#[allow(dead_code)]
#[path = "rwlock_plan.rs"]
mod plan;

// The lock matrix's bucket table (keys, buckets, slots); its shapes are rwlock_plan.rs's.
// Loaded a second time (patterns_locks.rs loads it too, privately): the same formulas, so the
// table here is the matrix's by construction.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "patterns_locks_plan.rs"]
mod table_plan;

use crate::{Ctx, GpuTest};
use plan::*;
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::ptx_sync::{Cta, Gpu, RwLock};
use ptx_sync_testkit::{launch_config, Result};
use std::collections::BTreeMap;
use std::mem::size_of;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);

/// The kernels' lock (four data words), at Gpu and at Cta scope.
type Lock = RwLock<[u32; 4], Gpu>;
type CtaLock = RwLock<[u32; 4], Cta>;
/// The bucket table's lock (plan.rs `BUCKET_WORDS` data words).
type TableLock = RwLock<[u32; BUCKET_WORDS], Gpu>;

/// Block sizes of the partial-warp cases: a full warp and one lane; one and a half warps;
/// three warps and four lanes. Each leaves a last warp that is not full.
const PARTIAL_BLOCKS: [u32; 3] = [33, 48, 100];

/// Operations of the bucket table per thread.
const TABLE_OPS: u32 = 4;

/// The iterations of each shapes launch.
const SHAPE_ITERS: u32 = 4;
const THREADS: u32 = 256;

/// The shapes of `objects`, by number.
const SHAPES: [(u32, &str); 7] = [
    (0, "lanes_2_locks"),
    (1, "lanes_32_locks"),
    (2, "odd_lanes"),
    (3, "lane_0_only"),
    (4, "data_dependent_lanes"),
    (5, "all_threads_one_lock"),
    (6, "nested_write_inside"),
];

/// `1,234,567`.
fn n(x: impl Into<u64>) -> String {
    let s = x.into().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a lock's four words say, from its image in device memory (u32 words).
struct Words {
    /// Reader arrivals minus departures (0 when no reader is inside), in reader units.
    readers: u32,
    /// The writer bits (0 when no writer is present).
    bits: u32,
    /// Writer tickets taken minus served (0 when no writer holds or waits).
    writers: u32,
    /// Writer phases so far (tickets served).
    phases: u32,
    /// Reader arrivals so far (one per read: every lane arrives on its own).
    arrivals: u32,
}

impl Words {
    fn of(w: &[u32]) -> Words {
        Words {
            readers: (w[0] & !3).wrapping_sub(w[1]) / 4,
            bits: w[0] & 3,
            writers: w[2].wrapping_sub(w[3]),
            phases: w[3],
            arrivals: w[0] / 4,
        }
    }

    fn free(&self) -> bool {
        self.readers == 0 && self.bits == 0 && self.writers == 0
    }
}

/// Expected (writes, reads) per lock of `shape` for the threads `0..threads` of blocks
/// `blocks`, `iters` iterations each (plan.rs), added into `w` and `r`.
fn expect(
    w: &mut [u64],
    r: &mut [u64],
    shape: u32,
    blocks: std::ops::Range<u32>,
    threads: u32,
    iters: u32,
) {
    for block in blocks {
        for t in 0..threads {
            let g = block * threads + t;
            for it in 0..iters {
                let (a, b) = objects(shape, t, g, it);
                if a == NONE {
                    continue;
                }
                if writes(g, it, SHAPES_WRITES_IN_16) {
                    w[a as usize] += 1;
                } else {
                    r[a as usize] += 1;
                }
                if b != NONE {
                    w[b as usize] += 1;
                }
            }
        }
    }
}

/// One lock's results against what it should show; pushes what is wrong.
#[allow(clippy::too_many_arguments)]
fn check_lock(
    wrong: &mut Vec<String>,
    at: &str,
    data: &[u32],
    counters: [u32; COUNTERS],
    words: &Words,
    want_w: u64,
    want_r: u64,
) {
    let [reads, torn, bad, most, holders] = counters;
    if data.iter().any(|&d| d as u64 != want_w)
        || reads as u64 != want_r
        || torn != 0
        || bad != 0
        || holders != 0
        || !words.free()
        || (want_r == 0 && most != 0)
    {
        wrong.push(format!(
            "{at}: data {data:?} (expected {want_w} x 4), reads {reads} (expected {want_r}), torn {torn}, exclusion violations {bad}, holders left {holders}, lock: {} readers, writer bits {}, {} writers left",
            words.readers, words.bits, words.writers
        ));
    }
}

fn verdict(wrong: &[String]) -> Result<()> {
    if wrong.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} locks wrong: {}",
        wrong.len(),
        wrong.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
    )
    .into())
}

/// One lock, every thread reading or writing it (`writes_in_16` of 16 writing), at several
/// shapes.
fn mix(ctx: &Ctx, writes_in_16: u32) -> Result<String> {
    let sm = ctx.gpu.sm_count();
    let kernel = ctx.kernel("rwlock_mix")?;
    let mut parts = vec![];
    let mut wrong = vec![];
    for (blocks, threads, iters) in [
        (sm, 256u32, 8u32),
        (1, 32, 64),
        (sm, 32, 32),
        (2 * sm, 128, 4),
    ] {
        let lock = ctx.gpu.zeros::<u32>(size_of::<Lock>() / 4)?;
        let stats = ctx.gpu.zeros::<u32>(COUNTERS * NOBJ)?;
        let mut b = ctx.gpu.stream().launch_builder(kernel.function());
        b.arg(&lock).arg(&stats).arg(&iters).arg(&writes_in_16);
        let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }?;
        let l = ctx.gpu.download(&lock)?;
        let s = ctx.gpu.download(&stats)?;
        let (mut want_w, mut want_r) = (0u64, 0u64);
        for g in 0..blocks * threads {
            for it in 0..iters {
                if writes(g, it, writes_in_16) {
                    want_w += 1;
                } else {
                    want_r += 1;
                }
            }
        }
        let at = Lock::DATA_OFFSET / 4;
        let words = Words::of(&l);
        let counters = [0, 1, 2, 3, 4].map(|k| s[k * NOBJ]);
        let shape = format!("{blocks}x{threads}");
        check_lock(
            &mut wrong,
            &shape,
            &l[at..at + 4],
            counters,
            &words,
            want_w,
            want_r,
        );
        // Every lane arrives on its own: one writer phase per write, one arrival per read.
        if words.phases as u64 != want_w || words.arrivals as u64 != want_r {
            wrong.push(format!(
                "{shape}: {} writer phases and {} reader arrivals (expected {want_w} and {want_r}: one per write and per read)",
                words.phases, words.arrivals
            ));
        }
        parts.push(format!(
            "{shape} x {iters}: {} writes in as many writer phases, {} reads in as many arrivals, most readers at once {}, {:.1} ms",
            n(want_w),
            n(want_r),
            counters[MOST],
            took.as_secs_f64() * 1e3
        ));
    }
    verdict(&wrong)?;
    Ok(format!(
        "{} writes in 16, one lock; data exact, every read counted and whole, no exclusion violation, lock free after: {}",
        writes_in_16,
        parts.join("; ")
    ))
}

fn mix_read_heavy(ctx: &Ctx) -> Result<String> {
    mix(ctx, 2)
}

fn mix_write_heavy(ctx: &Ctx) -> Result<String> {
    mix(ctx, 12)
}

/// One shape on 32 locks in global memory at `blocks x threads`; pushes the locks that are
/// wrong, returns the (writes, reads) expected.
fn global_run(
    ctx: &Ctx,
    blocks: u32,
    threads: u32,
    shape: u32,
    at: &str,
    wrong: &mut Vec<String>,
) -> Result<(u64, u64)> {
    let kernel = ctx.kernel("rwlock_shapes_global")?;
    let locks = ctx.gpu.zeros::<u32>(NOBJ * size_of::<Lock>() / 4)?;
    let stats = ctx.gpu.zeros::<u32>(COUNTERS * NOBJ)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&locks).arg(&stats).arg(&shape).arg(&SHAPE_ITERS);
    unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, 0), TIMEOUT) }
        .map_err(|e| format!("{at}: {e}"))?;
    let l = ctx.gpu.download(&locks)?;
    let s = ctx.gpu.download(&stats)?;
    let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
    expect(&mut w, &mut r, shape, 0..blocks, threads, SHAPE_ITERS);
    let per = size_of::<Lock>() / 4;
    for o in 0..NOBJ {
        let img = &l[o * per..(o + 1) * per];
        let data = Lock::DATA_OFFSET / 4;
        let counters = [0, 1, 2, 3, 4].map(|k| s[k * NOBJ + o]);
        check_lock(
            wrong,
            &format!("{at} lock {o}"),
            &img[data..data + 4],
            counters,
            &Words::of(img),
            w[o],
            r[o],
        );
    }
    Ok((w.iter().sum(), r.iter().sum()))
}

/// One shape on 32 locks per block in shared memory (Cta scope) at `blocks x threads`
/// (`threads` at least 32: the first 32 threads read the locks back); pushes the locks that
/// are wrong, returns the (writes, reads) expected.
fn shared_run(
    ctx: &Ctx,
    blocks: u32,
    threads: u32,
    shape: u32,
    at: &str,
    wrong: &mut Vec<String>,
) -> Result<(u64, u64)> {
    let kernel = ctx.kernel("rwlock_shapes_shared")?;
    let smem = (NOBJ * size_of::<CtaLock>() + COUNTERS * NOBJ * 4) as u32;
    let out = ctx.gpu.zeros::<u32>(blocks as usize * NOBJ * 8)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&out).arg(&shape).arg(&SHAPE_ITERS);
    unsafe { ctx.launch_and_wait(b, launch_config(blocks, threads, smem), TIMEOUT) }
        .map_err(|e| format!("{at}: {e}"))?;
    let o = ctx.gpu.download(&out)?;
    let (mut total_w, mut total_r) = (0u64, 0u64);
    for block in 0..blocks {
        let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
        expect(
            &mut w,
            &mut r,
            shape,
            block..block + 1,
            threads,
            SHAPE_ITERS,
        );
        for obj in 0..NOBJ {
            let x = &o[(block as usize * NOBJ + obj) * 8..][..8];
            let words = Words {
                readers: x[6] / 4,
                bits: x[6] & 3,
                writers: x[7],
                phases: 0,
                arrivals: 0,
            };
            check_lock(
                wrong,
                &format!("{at} block {block} lock {obj}"),
                &[x[0]],
                [x[1], x[2], x[3], x[4], x[5]],
                &words,
                w[obj],
                r[obj],
            );
            total_w += w[obj];
            total_r += r[obj];
        }
    }
    Ok((total_w, total_r))
}

/// The seven shapes on 32 locks in global memory.
fn shapes_global(ctx: &Ctx) -> Result<String> {
    let blocks = ctx.gpu.sm_count();
    let start = Instant::now();
    let (mut parts, mut wrong) = (vec![], vec![]);
    for (shape, name) in SHAPES {
        let (w, r) = global_run(ctx, blocks, THREADS, shape, name, &mut wrong)?;
        let used = {
            let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
            expect(&mut w, &mut r, shape, 0..blocks, THREADS, SHAPE_ITERS);
            (0..NOBJ).filter(|&o| w[o] + r[o] > 0).count()
        };
        parts.push(format!("{name} {} writes + {} reads on {used}", n(w), n(r)));
    }
    verdict(&wrong)?;
    Ok(format!(
        "{blocks}x{THREADS} threads x {SHAPE_ITERS} iters, 32 locks in global memory, one in four operations writing: {}; per lock exact, nothing torn, no exclusion violation, all free after; {:.0} ms",
        parts.join(", "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// The seven shapes on 32 locks per block in shared memory (Cta scope).
fn shapes_shared(ctx: &Ctx) -> Result<String> {
    let blocks = ctx.gpu.sm_count();
    let start = Instant::now();
    let (mut parts, mut wrong) = (vec![], vec![]);
    for (shape, name) in SHAPES {
        let (w, r) = shared_run(ctx, blocks, THREADS, shape, name, &mut wrong)?;
        parts.push(format!("{name} {} + {}", n(w), n(r)));
    }
    verdict(&wrong)?;
    Ok(format!(
        "{blocks} blocks x {THREADS} threads x {SHAPE_ITERS} iters, 32 locks per block in shared memory (writes + reads): {}; per block and lock exact, nothing torn, no exclusion violation, all free after; {:.0} ms",
        parts.join(", "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// Expected: the seven shapes of [`shapes_global`] and [`shapes_shared`] at blocks of 33, 48
/// and 100 threads (plan.rs `PARTIAL_BLOCKS`: each block's last warp is not full, down to a
/// warp of one lane), every SM's worth of blocks, in global memory and in shared memory: per
/// lock (and per block in shared memory) the data ends at exactly its writes, every read is
/// counted, none is torn, no reader meets a writer and no writer meets anyone, every lock ends
/// free. A lock that counted on a full warp (a lane that waits for lanes that do not exist)
/// would hang here, under the watchdog.
fn partial_warps(ctx: &Ctx) -> Result<String> {
    let blocks = ctx.gpu.sm_count();
    let start = Instant::now();
    let (mut parts, mut wrong) = (vec![], vec![]);
    for threads in PARTIAL_BLOCKS {
        let (mut gw, mut gr, mut sw, mut sr) = (0, 0, 0, 0);
        for (shape, name) in SHAPES {
            let (w, r) = global_run(
                ctx,
                blocks,
                threads,
                shape,
                &format!("{threads} threads global {name}"),
                &mut wrong,
            )?;
            gw += w;
            gr += r;
            let (w, r) = shared_run(
                ctx,
                blocks,
                threads,
                shape,
                &format!("{threads} threads shared {name}"),
                &mut wrong,
            )?;
            sw += w;
            sr += r;
        }
        parts.push(format!(
            "{blocks}x{threads}: global {} writes + {} reads, shared {} + {}",
            n(gw),
            n(gr),
            n(sw),
            n(sr)
        ));
    }
    verdict(&wrong)?;
    Ok(format!(
        "the seven shapes x {SHAPE_ITERS} iters at block sizes that are not a multiple of 32, 32 locks in global memory and 32 per block in shared memory: {}; per lock exact, nothing torn, no exclusion violation, all free after; {:.0} ms",
        parts.join("; "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// Expected: the lock matrix's bucket table (patterns_locks_plan.rs: 65,536 buckets, keys
/// with duplicates, one in 8 of 16 hot keys) behind one RwLock per bucket, every SM x 256
/// threads x 4 operations (grid-stride), one in four inserting its key (a writer) and the
/// others reading the key's bucket: every bucket holds exactly its keys with their exact
/// insert counts and its total equals them, every bucket's reads are counted exactly, no read
/// found the pairs' counts disagreeing with the total (torn), no reader met a writer and no
/// writer met anyone, no bucket overflowed, and every lock ends free.
fn bucket_table(ctx: &Ctx) -> Result<String> {
    use table_plan::{bucket_of, key_of, BUCKETS, SLOTS};
    let blocks = ctx.gpu.sm_count();
    let ops = blocks * THREADS * TABLE_OPS;
    let mut want: Vec<BTreeMap<u32, u32>> = vec![BTreeMap::new(); BUCKETS];
    let mut want_reads = vec![0u32; BUCKETS];
    let mut keys = BTreeMap::<u32, u32>::new();
    for i in 0..ops {
        let key = key_of(i);
        if table_writes(i) {
            *want[bucket_of(key)].entry(key).or_default() += 1;
            *keys.entry(key).or_default() += 1;
        } else {
            want_reads[bucket_of(key)] += 1;
        }
    }
    let fullest = want.iter().map(|m| m.len()).max().unwrap_or(0);
    if fullest > SLOTS {
        return Err(format!(
            "test setup: a bucket receives {fullest} distinct keys, more than its {SLOTS} slots"
        )
        .into());
    }
    let kernel = ctx.kernel("pattern_rwlock_table")?;
    let per = size_of::<TableLock>() / 4;
    let locks = ctx.gpu.zeros::<u32>(BUCKETS * per)?;
    let holders = ctx.gpu.zeros::<u32>(BUCKETS)?;
    let reads = ctx.gpu.zeros::<u32>(BUCKETS)?;
    let out = ctx.gpu.zeros::<u32>(3)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&locks).arg(&holders).arg(&reads).arg(&out).arg(&ops);
    let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, THREADS, 0), TIMEOUT) }?;
    let l = ctx.gpu.download(&locks)?;
    let h = ctx.gpu.download(&holders)?;
    let r = ctx.gpu.download(&reads)?;
    let o = ctx.gpu.download(&out)?;
    let mut wrong = vec![];
    let at = TableLock::DATA_OFFSET / 4;
    for (bucket, want_b) in want.iter().enumerate() {
        let img = &l[bucket * per..(bucket + 1) * per];
        let data = &img[at..at + BUCKET_WORDS];
        let mut have: Vec<(u32, u32)> = data[..2 * SLOTS]
            .chunks(2)
            .filter(|p| p[0] != 0)
            .map(|p| (p[0] - 1, p[1]))
            .collect();
        have.sort_unstable();
        let expect: Vec<(u32, u32)> = want_b.iter().map(|(&k, &c)| (k, c)).collect();
        let inserts: u32 = want_b.values().sum();
        let words = Words::of(img);
        if have != expect
            || data[2 * SLOTS] != inserts
            || r[bucket] != want_reads[bucket]
            || h[bucket] != 0
            || !words.free()
        {
            wrong.push(format!(
                "bucket {bucket}: (key, count) {have:?}, expected {expect:?}; total {} (expected {inserts}); reads {} (expected {}); holders left {}; lock: {} readers, writer bits {}, {} writers left",
                data[2 * SLOTS], r[bucket], want_reads[bucket], h[bucket], words.readers, words.bits, words.writers
            ));
        }
    }
    if !wrong.is_empty() || o != [0, 0, 0] {
        return Err(format!(
            "{} inserts found their bucket full, {} torn reads, {} exclusion violations; {} buckets wrong: {}",
            n(o[0]),
            n(o[1]),
            n(o[2]),
            n(wrong.len() as u64),
            wrong.iter().take(4).cloned().collect::<Vec<_>>().join("; ")
        )
        .into());
    }
    let inserts: u32 = keys.values().sum();
    let hottest = keys.values().max().copied().unwrap_or(0);
    let busiest = (0..BUCKETS)
        .map(|b| want[b].values().sum::<u32>() + want_reads[b])
        .max()
        .unwrap_or(0);
    Ok(format!(
        "{} operations by {blocks}x{THREADS} threads on {} per-bucket RwLocks: {} inserts of {} distinct keys (hottest {} times) and {} reads; every key stored once with its exact count, every bucket's total and reads exact (busiest bucket {} operations), nothing torn, no exclusion violation, no overflow, all free after; {:.1} ms",
        n(ops),
        n(BUCKETS as u64),
        n(inserts),
        n(keys.len() as u64),
        n(hottest),
        n(ops - inserts),
        n(busiest),
        took.as_secs_f64() * 1e3
    ))
}

/// A lock per thread.
fn per_thread(ctx: &Ctx) -> Result<String> {
    let (blocks, iters) = (ctx.gpu.sm_count(), 9u32);
    let threads = blocks * THREADS;
    let kernel = ctx.kernel("rwlock_per_thread")?;
    let per = size_of::<Lock>() / 4;
    let locks = ctx.gpu.zeros::<u32>(threads as usize * per)?;
    let reads = ctx.gpu.zeros::<u32>(threads as usize)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&locks).arg(&reads).arg(&iters);
    let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, THREADS, 0), TIMEOUT) }?;
    let l = ctx.gpu.download(&locks)?;
    let r = ctx.gpu.download(&reads)?;
    let (want_w, want_r) = (iters.div_ceil(3), iters - iters.div_ceil(3));
    let at = Lock::DATA_OFFSET / 4;
    for g in 0..threads as usize {
        let img = &l[g * per..(g + 1) * per];
        let words = Words::of(img);
        if img[at..at + 4] != [want_w; 4] || r[g] != want_r || !words.free() {
            return Err(format!(
                "thread {g}: data {:?} (expected [{want_w}; 4]), whole reads {} (expected {want_r}), lock: {} readers, writer bits {}, {} writers left",
                &img[at..at + 4], r[g], words.readers, words.bits, words.writers
            )
            .into());
        }
    }
    Ok(format!(
        "{} locks, one per thread of {blocks}x{THREADS}, {want_w} writes and {want_r} reads each: all exact, all free after; {:.1} ms",
        n(threads),
        took.as_secs_f64() * 1e3
    ))
}

/// The timed forms against a lock held forever by block 0 (`mode` 0 a writer, 1 a reader).
fn timed(ctx: &Ctx, mode: u32) -> Result<String> {
    let blocks = 8u32;
    let ns: u64 = 2_000_000;
    let kernel = ctx.kernel("rwlock_timed_on_held")?;
    let lock: CudaSlice<u32> = ctx.gpu.zeros(size_of::<RwLock<u32, Gpu>>() / 4)?;
    let out = ctx.gpu.zeros::<u32>(blocks as usize)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&lock).arg(&out).arg(&ns).arg(&mode);
    let took = unsafe { ctx.launch_and_wait(b, launch_config(blocks, 1, 0), TIMEOUT) }?;
    let out = ctx.gpu.download(&out)?;
    let words = Words::of(&ctx.gpu.download(&lock)?);
    let (want, held) = if mode == 0 {
        // Block 0's writer holds it: bits set, one ticket taken and not served.
        (
            0b1111,
            words.readers == 0 && words.bits != 0 && words.writers == 1,
        )
    } else {
        // Block 0's reader is inside: one arrival not departed, no writer left behind.
        (
            0b111,
            words.readers == 1 && words.bits == 0 && words.writers == 0,
        )
    };
    if out[0] != 1 || out[1..].iter().any(|&v| v != want) || !held {
        return Err(format!(
            "block results {out:?}: expected block 0 = 1 (holds), others = {want:#b}; lock after: {} readers, writer bits {}, {} writers (expected only block 0's hold)",
            words.readers, words.bits, words.writers
        )
        .into());
    }
    Ok(format!(
        "{} blocks' timed attempts of 2 ms on a lock held forever by a {}: all gave up and left only the holder's hold{}; kernel took {:.1} ms",
        blocks - 1,
        if mode == 0 { "writer" } else { "reader" },
        if mode == 0 { "" } else { " (a timed reader got in after the timed writers withdrew)" },
        took.as_secs_f64() * 1e3
    ))
}

fn timed_on_writer(ctx: &Ctx) -> Result<String> {
    timed(ctx, 0)
}

fn timed_on_reader(ctx: &Ctx) -> Result<String> {
    timed(ctx, 1)
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "rwlock_mix_read_heavy_shapes" => mix_read_heavy,
        "rwlock_mix_write_heavy_shapes" => mix_write_heavy,
        "rwlock_warp_shapes_global" => shapes_global,
        "rwlock_warp_shapes_shared" => shapes_shared,
        "rwlock_per_thread_locks" => per_thread,
        "rwlock_timed_give_up_on_held_writer" => timed_on_writer,
        "rwlock_timed_writer_gives_up_on_held_reader" => timed_on_reader,
        "pattern_rwlock_partial_warps" => partial_warps,
        "pattern_rwlock_bucket_table" => bucket_table,
    ]
}

#[cfg(test)]
mod host_checks {
    use super::*;

    /// The kernels' lock layout is the host build's (the cases read the words and the data
    /// from device memory at these offsets).
    #[test]
    fn layout() {
        assert_eq!(Lock::DATA_OFFSET, 16);
        assert_eq!(size_of::<Lock>(), 32);
        assert_eq!(size_of::<CtaLock>(), 32);
        let w = Words::of(&[(4 * 5) | 2, 4 * 3, 7, 6]);
        assert_eq!(
            (w.readers, w.bits, w.writers, w.phases, w.arrivals),
            (2, 2, 1, 6, 5)
        );
        assert!(Words::of(&[8, 8, 3, 3]).free());
    }

    /// The mixes split the lanes of a warp: both kinds in almost every warp and iteration.
    #[test]
    fn mixes_split_warps() {
        for w16 in [2, 12] {
            let mixed = (0..64u32)
                .flat_map(|warp| (0..8).map(move |it| (warp, it)))
                .filter(|&(warp, it)| {
                    let ws = (0..32).filter(|l| writes(warp * 32 + l, it, w16)).count();
                    ws > 0 && ws < 32
                })
                .count();
            assert!(mixed > 500, "{w16}: {mixed} of 512 warp-iterations mixed");
        }
    }

    /// The table is the lock matrix's (its slots), and one in four operations writes.
    #[test]
    fn table_plan_matches() {
        assert_eq!(TABLE_SLOTS, table_plan::SLOTS);
        assert_eq!(TableLock::DATA_OFFSET % 4, 0);
        let w = (0..10_000).filter(|&i| table_writes(i)).count();
        assert!((2_000..3_000).contains(&w), "{w}");
    }

    /// Partial warps: every block size leaves a last warp that is not full, and lane 0 of it
    /// still takes part in the lane-0 shape.
    #[test]
    fn partial_blocks_count_their_lanes() {
        for threads in PARTIAL_BLOCKS {
            assert!(threads > 32 && !threads.is_multiple_of(32));
            let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
            expect(&mut w, &mut r, 3, 0..1, threads, 1);
            let warps = threads.div_ceil(32) as u64;
            assert_eq!(w.iter().sum::<u64>() + r.iter().sum::<u64>(), warps);
            let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
            expect(&mut w, &mut r, 5, 0..1, threads, 2);
            assert_eq!(w[0] + r[0], 2 * threads as u64);
        }
    }

    #[test]
    fn shapes_expect_counts() {
        let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
        expect(&mut w, &mut r, 0, 0..1, THREADS, 1);
        assert_eq!(w[0] + r[0], 128);
        assert_eq!(w[1] + r[1], 128);
        let (mut w, mut r) = ([0u64; NOBJ], [0u64; NOBJ]);
        expect(&mut w, &mut r, 6, 0..1, THREADS, 1);
        // Nested: the inner locks 2, 3, 4 are only written.
        assert_eq!((w[2], w[3], w[4]), (88, 88, 80));
        assert_eq!(r[2] + r[3] + r[4], 0);
    }
}
